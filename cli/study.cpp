// `shufflempc study`: a grid of protocols and parameters, seeded trials on every core, a progress
// bar on stderr, and CSV, JSON and gnuplot figures (shufflempc/study/study.hpp, docs/study.md).
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "mpi.hpp"
#include "shufflempc/files.hpp"
#include "shufflempc/experiments/experiment.hpp"
#include "shufflempc/experiments/rounds.hpp"
#include "shufflempc/net/loopback.hpp"
#include "shufflempc/study/progress.hpp"
#include "shufflempc/study/study.hpp"

namespace shufflempc::cli {
namespace {


void print_table(const study::Spec& spec, const std::vector<study::Cell>& cells) {
  std::cout << fmt::format("{:<40} {:<22} {:>9} {:>12} {:>25} {:>14} {:>10} {:>10}\n", "series", "point", "parties", "rmse",
                           "95% interval", "predicted rmse", "s/trial", "msgs/user");
  for (const auto& c : cells) {
    std::string point;
    for (const auto& [k, v] : c.point) point += (point.empty() ? "" : " ") + k + "=" + v.text;
    const std::string label = spec.series[c.series].label;
    if (!c.feasible) {
      std::cout << fmt::format("{:<40} {:<22} {:>9} infeasible: {}\n", label, point, c.parties, c.reason);
      continue;
    }
    const auto& m = c.summary;
    const auto num = [](const std::optional<double>& v) { return v ? fmt::format("{:.4g}", *v) : std::string("-"); };
    std::cout << fmt::format("{:<40} {:<22} {:>9} {:>12} {:>25} {:>14} {:>10.4f} {:>10.3g}\n", label, point, c.parties, num(m.rmse),
                             m.rmse ? fmt::format("[{:.4g}, {:.4g}]", *m.rmse_low, *m.rmse_high) : std::string("-"), num(m.predicted_rmse),
                             m.seconds, m.messages_per_user);
  }
}

void write_to(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (path == "-") {
    write(std::cout);
    return;
  }
  std::ofstream f(path);
  if (!f) throw std::invalid_argument("cannot write " + path);
  write(f);
  f.close();  // a full disk shows when the buffer is flushed
  if (!f) throw std::runtime_error("writing " + path + " failed");
}

struct StudyOptions {
  std::string preset;
  bool list = false;
  std::vector<std::string> protocols, vary, set, plots;
  std::optional<std::size_t> parties, trials;
  std::optional<std::string> inputs, title, x, y;
  std::optional<double> honest, dropouts;
  std::optional<std::uint64_t> seed;
  unsigned jobs = 0;
  std::string csv, json;
  bool per_trial = false, quiet = false;
  std::optional<bool> log_x, log_y;
};

// The study the options describe: the preset's, with what the command line replaces or sets.
study::Spec spec_of(const StudyOptions& o) {
  study::Spec spec;
  if (!o.preset.empty()) spec = study::preset(o.preset);
  else spec.name = "study";
  if (!o.protocols.empty()) {
    spec.series.clear();
    for (const auto& p : o.protocols) spec.series.push_back(study::parse_series(p));
  }
  if (!o.vary.empty()) {
    spec.axes.clear();
    spec.x.clear();
    for (const auto& v : o.vary) spec.axes.push_back(study::parse_axis(v));
  }
  for (const auto& kv : o.set) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw std::invalid_argument("--set " + kv + ": expected KEY=VALUE");
    spec.fixed[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  if (o.parties) spec.parties = *o.parties;
  if (o.inputs) spec.inputs = *o.inputs;
  if (o.honest) spec.honest = *o.honest;
  if (o.dropouts) spec.dropouts = *o.dropouts;
  if (o.trials) spec.trials = *o.trials;
  if (o.seed) spec.seed = *o.seed;
  if (o.title) spec.title = *o.title;
  if (o.x) spec.x = *o.x;
  if (o.y) spec.y = *o.y;
  if (o.log_x) spec.log_x = o.log_x;
  if (o.log_y) spec.log_y = o.log_y;
  spec.jobs = o.jobs;
  return spec;
}

int list_presets() {
  for (const auto& name : study::preset_names()) {
    const auto s = study::preset(name);
    std::cout << fmt::format("{:<20} {}\n{:<20} {}\n", name, s.title, "", s.note);
  }
  return 0;
}

// A grid study: checked and its output files prepared before any trial runs; under mpirun or srun
// the ranks share the trials and rank 0 writes everything (docs/study.md).
int run_grid_study(const StudyOptions& o, const Registry& registry) {
  if (o.list) return list_presets();
  study::Spec spec = spec_of(o);
  study::validate(registry, spec);
  for (const auto& path : o.plots) {
    study::check_plot_path(path);
    prepare_output_file(path, "--plot");
  }
  prepare_output_file(o.csv, "--csv");
  prepare_output_file(o.json, "--json");
  const auto job = MpiJob::join();
  const study::Ranks ranks = job ? job->ranks() : study::Ranks{};
  study::ProgressBar bar;
  const bool show_progress = !o.quiet && ranks.rank == 0;
  std::vector<study::Cell> cells;
  try {
    cells = study::run(registry, spec, show_progress ? study::Progress(std::ref(bar)) : study::Progress{}, ranks);
  } catch (const std::exception& e) {
    if (!job) throw;
    std::cerr << fmt::format("shufflempc: error: study rank {} of {}: {}\n", ranks.rank, ranks.size, e.what()) << std::flush;
    job->abort(1);  // the other ranks would wait for this one's records
  }
  if (ranks.rank != 0) return 0;
  if (job) std::cerr << fmt::format("study: the trials ran over {} MPI ranks; rank 0 gathered them\n", ranks.size);
  if (!o.csv.empty()) write_to(o.csv, [&](std::ostream& out) { study::write_csv(out, spec, cells, o.per_trial); });
  if (!o.json.empty()) write_to(o.json, [&](std::ostream& out) { out << study::to_json(spec, cells, true).dump(2) << '\n'; });
  for (const auto& path : o.plots) {
    study::plot(spec, cells, path);
    std::cerr << "study: wrote " << path << '\n';
  }
  if (o.csv != "-" && o.json != "-") print_table(spec, cells);
  return 0;
}

// Every registered experiment is a subcommand (`study xor-sum`, ...) that sets the action itself.
std::vector<CLI::App*> add_experiments(CLI::App& cmd, Action& action) {
  static const experiments::ExperimentRegistry experiments = experiments::builtin_experiments();
  experiments::set_network_runner(net::run_over_shaped_loopback, net::shaped_session_round_trips);  // study rounds --rtt
  std::vector<CLI::App*> subcommands;
  for (const auto& e : experiments.all()) {
    auto* sub = cmd.add_subcommand(e.name, e.summary);
    auto run = std::make_shared<std::function<int()>>(e.configure(*sub, std::cout));
    sub->callback([run, &action, name = e.name] {
      action = [run, name] {
        if (const int n = launcher_world_size(); n > 1)
          throw std::invalid_argument("study " + name + " runs in one process, not over " + std::to_string(n) +
                                      " MPI ranks (only grid studies spread over ranks; start it without mpirun)");
        return (*run)();
      };
    });
    subcommands.push_back(sub);
  }
  return subcommands;
}

}  // namespace

void add_study_command(CLI::App& app, const Registry& registry, Action& action) {
  auto* cmd = app.add_subcommand("study", study_summary);
  auto o = std::make_shared<StudyOptions>();
  cmd->add_option("--preset", o->preset, "start from a preset (the survey's experiments, the demo): --list-presets names them");
  cmd->add_flag("--list-presets", o->list, "print the presets and what each shows");
  cmd->add_option("--protocol,-p", o->protocols, "a series: NAME or NAME:KEY=V:KEY=V (repeat; replaces the preset's)");
  cmd->add_option("--vary", o->vary, "an axis: KEY=V1,V2,... or KEY=lin:A:B:K or KEY=geom:A:B:K; KEY is a parameter, parties, inputs, honest or dropouts (repeat; replaces the preset's)");
  cmd->add_option("--set", o->set, "KEY=VALUE for every protocol that has the parameter (repeat)");
  cmd->add_option("--parties,-n", o->parties, "parties when parties is not varied")->check(CLI::Range(1, 1'000'000'000));
  cmd->add_option("--honest", o->honest,
                  "the fraction of parties the protocols may count on: they calibrate for min-parties = ceil(honest n), in (0, 1] (default: "
                  "all, or the submitters when --dropouts is given)");
  cmd->add_option("--dropouts", o->dropouts, "the fraction of parties that do not submit in each trial, in [0, 1) (default 0)");
  cmd->add_option("--inputs", o->inputs, "the protocols' --random-inputs spec when inputs is not varied (bernoulli:Q, normal:MEAN:SD, ...)");
  cmd->add_option("--trials", o->trials, "trials per cell")->check(CLI::Range(1, 1'000'000));
  cmd->add_option("--seed", o->seed, "seed of the whole study (default 1)")->check(seed_check());
  cmd->add_option("--jobs,-j", o->jobs, "trials run at once (default: every core)")->check(CLI::Range(0, 256));
  cmd->add_option("--csv", o->csv, "write the CSV here (- for standard output)");
  cmd->add_flag("--per-trial", o->per_trial, "one CSV row per trial instead of per cell");
  cmd->add_option("--json", o->json, "write the JSON here, with every trial (- for standard output)");
  cmd->add_option("--plot", o->plots, "draw the figure to FILE.png, FILE.svg or FILE.pdf (for LaTeX) through gnuplot (repeat for several)");
  cmd->add_option("--title", o->title, "the figure's title");
  cmd->add_option("--x", o->x, "the varied key on the x axis (default: the first)");
  cmd->add_option("--y", o->y, "rmse (default), bias, max_error, seconds, messages_per_user or bytes_per_user");
  cmd->add_option("--log-x", o->log_x, "log scale on x (default: for geometric axes and parties)");
  cmd->add_option("--log-y", o->log_y, "log scale on y (default: except for bias)");
  cmd->add_flag("--quiet,-q", o->quiet, "no progress bar");
  const auto subcommands = add_experiments(*cmd, action);
  cmd->callback([o, &registry, &action, subcommands] {
    for (const auto* sub : subcommands)
      if (sub->parsed()) return;  // the experiment set the action
    action = [o, &registry] { return run_grid_study(*o, registry); };
  });
}

}  // namespace shufflempc::cli
