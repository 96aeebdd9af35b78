// `shufflempc demo`: local vs shuffle vs central error on the same data.
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "shufflempc/net/inproc.hpp"

namespace shufflempc::cli {

void add_demo_command(CLI::App& app, const Registry& registry, Action& action) {
  auto* cmd = app.add_subcommand("demo", "count bits with local, shuffle and central privacy on the same data and compare errors");
  struct Options {
    std::size_t parties = 100000;
    double epsilon = 1, delta = 1e-6, fraction = 0.3;
    std::size_t trials = 5;
    std::optional<std::uint64_t> seed;
    bool json = false;
  };
  auto o = std::make_shared<Options>();  // owned by the callback, so it lives as long as the App
  cmd->add_option("--parties,-n", o->parties, "number of parties")->check(CLI::Range(1000, 10'000'000));
  cmd->add_option("--epsilon", o->epsilon, "privacy parameter epsilon")->check(CLI::Range(1e-3, 1.0));
  cmd->add_option("--delta", o->delta, "privacy parameter delta")->check(CLI::Range(1e-30, 0.5));
  cmd->add_option("--ones", o->fraction, "fraction of parties holding 1")->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--trials", o->trials, "runs per protocol (the table shows the root mean square error)")->check(CLI::Range(1, 1000));
  cmd->add_option("--seed", o->seed, "seed a reproducible simulation")->check(seed_check());
  cmd->add_flag("--json", o->json, "print JSON");
  cmd->callback([o, &registry, &action] {
    action = [o, &registry] {
      const auto& [parties, epsilon, delta, fraction, trials, seed, json] = *o;
      auto rng = make_rng(seed);
      std::vector<Value> inputs(parties);
      auto input_rng = rng->fork(1);
      for (auto& v : inputs) v = input_rng->uniform01() < fraction ? 1 : 0;
      struct Row {
        const char* model;
        const char* protocol;
        std::map<std::string, std::string> params;
      };
      const std::string e = fmt::format("{}", epsilon), d = fmt::format("{}", delta);
      const std::vector<Row> rows = {
          {"local", "randomized-response", {{"epsilon", e}}},
          {"shuffle", "counting", {{"epsilon", e}, {"delta", d}, {"noise", "lecture"}}},
          {"shuffle", "counting", {{"epsilon", e}, {"delta", d}, {"noise", "calibrated"}}},
          {"shuffle", "counting-balcer-cheu", {{"epsilon", e}, {"delta", d}}},
          {"central", "central-laplace", {{"epsilon", e}}},
      };
      Value out = Value::array();
      if (!json)
        std::cout << fmt::format("{} parties, {:.0f}% hold 1, epsilon = {}, delta = {}, {} trial(s) each\n\n", parties,
                                 fraction * 100, epsilon, delta, trials)
                  << fmt::format("{:<8} {:<32} {:>12} {:>12} {:>12} {:>10} {:>9}\n", "model", "protocol", "last est.",
                                 "rmse", "predicted sd", "msgs/user", "seconds");
      for (std::size_t r = 0; r < rows.size(); ++r) {
        const Row& row = rows[r];
        auto protocol = registry.create(row.protocol, row.params, parties);
        const double truth = protocol->truth(inputs)->get<double>();
        double sq = 0, seconds = 0, last = 0;
        std::size_t messages = 0;
        for (std::size_t t = 0; t < trials; ++t) {
          auto run_rng = rng->fork(1000 + r * 1000 + t);
          const RunResult res = net::run_in_process(*protocol, inputs, *run_rng);
          last = res.output.get<double>();
          sq += (last - truth) * (last - truth);
          seconds += res.seconds;
          messages = res.messages;
        }
        const Value details = protocol->describe();
        const std::string label = row.protocol + (row.params.count("noise") ? " (" + row.params.at("noise") + " p)" : std::string());
        const double rmse = std::sqrt(sq / static_cast<double>(trials));
        const double msgs = static_cast<double>(messages) / static_cast<double>(parties);
        out.push_back({{"model", row.model}, {"protocol", label}, {"truth", truth}, {"estimate", last}, {"rmse", rmse},
                       {"predicted_sd", details.value("noise_sd", 0.0)}, {"messages_per_user", msgs},
                       {"seconds_per_run", seconds / static_cast<double>(trials)}, {"details", details}});
        if (!json)
          std::cout << fmt::format("{:<8} {:<32} {:>12.1f} {:>12.1f} {:>12.1f} {:>10.2f} {:>9.3f}\n", row.model, label,
                                   last, rmse, details.value("noise_sd", 0.0), msgs, seconds / static_cast<double>(trials));
      }
      if (json) std::cout << out.dump(2) << '\n';
      else std::cout << fmt::format("\ntrue count: {}\n", out[0]["truth"].get<double>());
      return 0;
    };
  });
}

}  // namespace shufflempc::cli
