#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "commands.hpp"

namespace shufflempc::cli {

void add_list_command(CLI::App& app, const Registry& registry, Action& action) {
  auto* cmd = app.add_subcommand("list", "show every registered protocol with its parameters, defaults and ranges");
  auto json = std::make_shared<bool>(false);  // owned by the callback, so it lives as long as the App
  cmd->add_flag("--json", *json, "print JSON");
  cmd->callback([json, &registry, &action] {
    action = [json, &registry] {
      if (*json) {
        Value all = Value::array();
        for (const auto& p : registry.all()) {
          Value params = Value::array();
          for (const auto& s : p.params)
            params.push_back({{"name", s.name}, {"default", s.default_value}, {"range", s.range_text()}, {"help", s.help}});
          all.push_back({{"name", p.name}, {"summary", p.summary}, {"min_parties", p.min_parties},
                         {"max_parties", p.max_parties}, {"inputs", p.input_help}, {"random_inputs", describe(p.random_inputs)}, {"params", params}});
        }
        std::cout << all.dump(2) << '\n';
        return 0;
      }
      for (const auto& p : registry.all()) {
        std::cout << fmt::format("{}\n  {}\n  parties: {} to {}\n  inputs: {}\n  random inputs: {}\n", p.name, p.summary,
                                 p.min_parties, p.max_parties, p.input_help, describe(p.random_inputs));
        for (const auto& s : p.params)
          std::cout << fmt::format("  --{:<12} {} (default {}; {})\n", s.name, s.help, s.default_value, s.range_text());
        std::cout << '\n';
      }
      return 0;
    };
  });
}

}  // namespace shufflempc::cli
