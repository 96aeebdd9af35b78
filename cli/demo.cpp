// `shufflempc demo`: local vs shuffle vs central error on the same data. It is the study preset
// "demo" (shufflempc study --preset demo) printed as one table.
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "shufflempc/study/study.hpp"

namespace shufflempc::cli {

void add_demo_command(CLI::App& app, const Registry& registry, Action& action) {
  auto* cmd = app.add_subcommand("demo", "count bits with local, shuffle and central privacy on the same data and compare errors");
  struct Options {
    std::size_t parties = 100000;
    double epsilon = 1, delta = 1e-6, fraction = 0.3;
    std::size_t trials = 5;
    std::optional<std::uint64_t> seed;
    bool json = false;
    bool markdown = false;
  };
  auto o = std::make_shared<Options>();  // owned by the callback, so it lives as long as the App
  cmd->add_option("--parties,-n", o->parties, "number of parties")->check(CLI::Range(1000, 10'000'000));
  cmd->add_option("--epsilon", o->epsilon, "privacy parameter epsilon")->check(CLI::Range(1e-3, 1.0));
  cmd->add_option("--delta", o->delta, "privacy parameter delta")->check(CLI::Range(1e-30, 0.5));
  cmd->add_option("--ones", o->fraction, "fraction of parties holding 1")->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--trials", o->trials, "runs per protocol (the table shows the root mean square error)")->check(CLI::Range(1, 1000));
  cmd->add_option("--seed", o->seed, "seed a reproducible simulation")->check(seed_check());
  cmd->add_flag("--json", o->json, "print JSON");
  cmd->add_flag("--markdown", o->markdown, "print the table as Markdown, without timings (what docs/counting.md shows)")->excludes("--json");
  cmd->callback([o, &registry, &action] {
    action = [o, &registry] {
      study::Spec spec = study::preset("demo");
      spec.parties = o->parties;
      spec.trials = o->trials;
      spec.inputs = fmt::format("bernoulli:{}", o->fraction);
      spec.fixed = {{"epsilon", fmt::format("{}", o->epsilon)}, {"delta", fmt::format("{}", o->delta)}};
      if (o->seed) spec.seed = *o->seed;
      else spec.seed = SystemRng().next_u64();  // a fresh simulation each time, as before
      study::validate(registry, spec);
      const auto cells = study::run(registry, spec);
      Value out = Value::array();
      double truth = 0;
      if (o->markdown)
        std::cout << "| model | protocol | rmse | predicted sd | messages per user |\n|---|---|---|---|---|\n";
      else if (!o->json)
        std::cout << fmt::format("{} parties, {:.0f}% hold 1, epsilon = {}, delta = {}, {} trial(s) each\n\n", o->parties,
                                 o->fraction * 100, o->epsilon, o->delta, o->trials)
                  << fmt::format("{:<8} {:<40} {:>12} {:>12} {:>12} {:>10} {:>9}\n", "model", "protocol", "last est.", "rmse",
                                 "predicted sd", "msgs/user", "seconds");
      for (const auto& c : cells) {
        const auto& series = spec.series[c.series];
        if (!c.feasible) {
          // A protocol that refused its parameters declared no model.
          out.push_back({{"model", nullptr}, {"protocol", series.label}, {"feasible", false}, {"reason", c.reason}});
          if (o->markdown) std::cout << fmt::format("| - | {} | infeasible: {} | | |\n", series.label, c.reason);
          else if (!o->json) std::cout << fmt::format("{:<8} {:<40} infeasible: {}\n", "-", series.label, c.reason);
          continue;
        }
        const auto& last = c.trials.back();
        const double estimate = last.output.get<double>();
        truth = estimate - last.error.value_or(0);  // every series sees the same data (common random numbers)
        const auto& m = c.summary;
        out.push_back({{"model", to_string(c.model)}, {"protocol", series.label}, {"truth", truth}, {"estimate", estimate},
                       {"rmse", m.rmse.value_or(0)}, {"predicted_sd", m.predicted_sd.value_or(0)},
                       {"messages_per_user", m.messages_per_user}, {"seconds_per_run", m.seconds}, {"details", c.describe}});
        if (o->markdown)
          std::cout << fmt::format("| {} | {} | {:.1f} | {:.1f} | {:.2f} |\n", to_string(c.model), series.label, m.rmse.value_or(0),
                                   m.predicted_sd.value_or(0), m.messages_per_user);
        else if (!o->json)
          std::cout << fmt::format("{:<8} {:<40} {:>12.1f} {:>12.1f} {:>12.1f} {:>10.2f} {:>9.3f}\n", to_string(c.model), series.label,
                                   estimate, m.rmse.value_or(0), m.predicted_sd.value_or(0), m.messages_per_user, m.seconds);
      }
      if (o->json) std::cout << out.dump(2) << '\n';
      else if (!o->markdown) std::cout << fmt::format("\ntrue count (last trial): {}\nthe same study with a figure: shufflempc study --preset demo --vary epsilon=0.2,0.5,1 --plot demo.png\n", truth);
      return 0;
    };
  });
}

}  // namespace shufflempc::cli
