// `shufflempc study xor-sum`: the options, and what runs once they are parsed (xor_sum.hpp).
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <memory>

#include "shufflempc/study/experiment.hpp"
#include "shufflempc/study/progress.hpp"
#include "shufflempc/study/xor_sum.hpp"

namespace shufflempc::study::experiments {
namespace {

struct Options : XorSumStudyOptions {
  bool quiet = false;
  std::string csv;
  std::vector<std::string> plots;
};

int run(const Options& o) {
  validate(o);
  for (const auto& path : o.plots)
    if (!path.ends_with(".png") && !path.ends_with(".svg")) throw std::invalid_argument("--plot " + path + ": the file must end in .png or .svg");
  std::ofstream csv_file;
  if (!o.csv.empty() && o.csv != "-") {
    csv_file.open(o.csv);
    if (!csv_file) throw std::invalid_argument("--csv: cannot write " + o.csv);
  }
  ProgressBar bar("study xor-sum", "runs");
  const auto s = run_xor_sum_study(o, o.quiet ? Progress{} : Progress(std::ref(bar)));
  if (o.csv == "-") {
    write_csv(std::cout, s);
  } else {
    if (!o.csv.empty()) {
      write_csv(csv_file, s);
      csv_file.close();
      if (!csv_file) throw std::runtime_error("--csv: writing " + o.csv + " failed");
    }
    print_tables(std::cout, s);
    std::cout << std::flush;
  }
  for (const auto& path : o.plots) {
    plot_lines(figure_lines(s), figure_title(s), "error / sqrt(n) (measured RMSE of one answer)", "fraction of the secret half recovered", path);
    std::cerr << "study xor-sum: wrote " << path << '\n';
  }
  return 0;
}

std::function<int()> configure(CLI::App& cmd) {
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
  cmd.add_option("--csv", o->csv, "write the CSV here (- for standard output)");
  cmd.add_option("--plot", o->plots, "draw recovered fraction against error / sqrt(n) to FILE.png or FILE.svg (repeat for both)");
  cmd.add_flag("--quiet,-q", o->quiet, "no progress bar");
  return [o] { return run(*o); };
}

}  // namespace

void register_xor_sum_study(ExperimentRegistry& registry) {
  registry.add({.name = "xor-sum",
                .summary = "the XOR-sum lower bound, executed: the pause-and-replay attack on one-round protocols and the two-round "
                           "escape (docs/xor-sum.md)",
                .configure = configure});
}

}  // namespace shufflempc::study::experiments
