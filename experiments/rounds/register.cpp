// `shufflempc study rounds`: the options, and what runs once they are parsed (rounds.hpp).
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "shufflempc/experiments/experiment.hpp"
#include "shufflempc/study/progress.hpp"
#include "shufflempc/experiments/rounds.hpp"

namespace shufflempc::experiments::registrars {
namespace {

struct Options : RoundsStudyOptions {
  ExperimentOutputs outputs;
};

int run(Options& o, std::ostream& out) {
  validate(o);
  o.outputs.open();
  study::ProgressBar bar("study rounds", "runs");
  RoundsProgress progress;
  if (!o.outputs.quiet())
    progress = [&bar](std::size_t done, std::size_t total) { bar(static_cast<double>(done), static_cast<double>(total), done, total); };
  const auto s = run_rounds_study(o, progress);
  o.outputs.write([&](std::ostream& os) { write_csv(os, s); }, [&](std::ostream& os) { print_table(os, s); }, out);
  for (const auto& path : o.outputs.plots()) {
    if (o.rtt_ms.empty()) {
      study::plot_lines(figure_lines(s), figure_title(s), "shuffle rounds (points at one count spread sideways)", "bytes per party (all rounds)", path,
                        {.log_x = true, .log_y = true, .padded = true, .key = "below left Left reverse"});
      std::cerr << "study rounds: wrote " << path << '\n';
      continue;
    }
    // One figure, the file named: a panel a function.
    study::plot_panels(rtt_panels(s), rtt_figure_title(s), path, 2);
    std::cerr << "study rounds: wrote " << path << '\n';
  }
  return 0;
}

std::function<int()> configure(CLI::App& cmd, std::ostream& out) {
  auto o = std::make_shared<Options>();
  std::string names;
  for (const auto& [name, what] : rounds_functions()) names += (names.empty() ? "" : "; ") + name + " (" + what + ")";
  cmd.add_option("--functions", o->functions, "the functions, a list: " + names)->delimiter(',')->capture_default_str();
  cmd.add_option("--parties,-n", o->parties, "parties n, in [3, 64] (card-and runs with its two)")->capture_default_str();
  cmd.add_option("--trials", o->trials, "runs per row, inputs drawn afresh each time, in [1, 100000]")->capture_default_str();
  cmd.add_option("--length", o->length, "inner-product's vector length, in [1, 4096]")->capture_default_str();
  cmd.add_option("--seed", o->seed, "seed of the whole study")->capture_default_str()->check(seed_check());
  cmd.add_option("--rtt", o->rtt_ms,
                 "round-trip times in ms, a list: run every row over TCP on 127.0.0.1 with every link shaped to half of each (and at "
                 "0, the model's compute), and print the measured wall time beside the model rounds x RTT + bytes / rate + the time "
                 "at 0; each in [0, 20000]")
      ->delimiter(',');
  cmd.add_option("--mbps", o->mbps, "with --rtt: every link's rate in Mbit/s, in [0.001, 1000000] (default: unlimited)");
  o->outputs.add_options(cmd, "draw bytes per party against rounds");
  return [o, &out] { return run(*o, out); };
}

}  // namespace

void register_rounds_study(ExperimentRegistry& registry) {
  registry.add({.name = "rounds",
                .summary = "what each round buys: sum, XOR-sum, AND, inner product and AES-128 in one round where a protocol exists, "
                           "in two, and in many (BGW, cards), with error, bytes, time and threat model (docs/study.md)",
                .configure = configure});
}

}  // namespace shufflempc::experiments::registrars
