// `shufflempc study xor-sum`: the options, and what runs once they are parsed (xor_sum.hpp).
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <memory>

#include "shufflempc/experiments/experiment.hpp"
#include "shufflempc/study/progress.hpp"
#include "shufflempc/experiments/xor_sum.hpp"

namespace shufflempc::experiments::registrars {
namespace {

struct Options : XorSumStudyOptions {
  ExperimentOutputs outputs;
};

int run(Options& o, std::ostream& out) {
  validate(o);
  o.outputs.open();
  study::ProgressBar bar("study xor-sum", "runs");
  const auto s = run_xor_sum_study(o, o.outputs.quiet() ? study::Progress{} : study::Progress(std::ref(bar)));
  o.outputs.write([&](std::ostream& os) { write_csv(os, s); }, [&](std::ostream& os) { print_tables(os, s); }, out);
  for (const auto& path : o.outputs.plots()) {
    study::plot_lines(figure_lines(s), figure_title(s), "error / sqrt(n) (measured RMSE of one answer)", "fraction of the secret half recovered", path,
                        {.padded = true, .key = "inside right bottom"});
    std::cerr << "study xor-sum: wrote " << path << '\n';
  }
  return 0;
}

std::function<int()> configure(CLI::App& cmd, std::ostream& out) {
  auto o = std::make_shared<Options>();
  cmd.add_option("--parties,-n", o->parties, "users n (even; half of them hold the secret), a list")->delimiter(',')->capture_default_str();
  cmd.add_option("--protocols", o->protocols, "one-round protocols: rr, noise-ids, exact")->delimiter(',')->capture_default_str();
  cmd.add_option("--alpha", o->alphas, "the one-round protocols' error, RMSE / sqrt(n), a list")->delimiter(',')->capture_default_str();
  cmd.add_option("--queries", o->queries, "queries as multiples of n, a list")->delimiter(',')->capture_default_str();
  cmd.add_option("--decoder", o->decoder, "least-squares (ls), lp or both")->capture_default_str();
  cmd.add_option("--runs", o->runs, "secrets per row (the table shows the mean)")->capture_default_str();
  cmd.add_option("--epsilon", o->epsilon, "the escape's epsilon per execution (0: no two-round table)")
      ->check(CLI::Range(0.0, 50.0))
      ->capture_default_str();
  cmd.add_option("--executions", o->executions, "the escape's re-executions: K, h/2, h or Kn, a list")->delimiter(',')->capture_default_str();
  cmd.add_flag("--mpc", o->mpc, "re-run through the garbled circuit instead of the circuit in the clear (slower; the same answers)");
  cmd.add_option("--seed", o->seed, "seed of the whole study")->capture_default_str()->check(seed_check());
  cmd.add_option("--jobs,-j", o->jobs, "runs at once (default: every core)")->check(CLI::Range(0, 256));
  o->outputs.add_options(cmd, "draw recovered fraction against error / sqrt(n)");
  return [o, &out] { return run(*o, out); };
}

}  // namespace

void register_xor_sum_study(ExperimentRegistry& registry) {
  registry.add({.name = "xor-sum",
                .summary = "the XOR-sum lower bound, executed: the pause-and-replay attack on one-round protocols and the two-round "
                           "escape (docs/xor-sum.md)",
                .configure = configure});
}

}  // namespace shufflempc::experiments::registrars
