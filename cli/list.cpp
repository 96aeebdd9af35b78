#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "commands.hpp"
#include "shufflempc/api/api.hpp"

namespace shufflempc::cli {

using api::protocol_list;

void add_list_command(CLI::App& app, const Registry& registry, Action& action) {
  auto* cmd = app.add_subcommand("list", "show every registered protocol with its parameters, defaults and ranges");
  auto json = std::make_shared<bool>(false);  // owned by the callback, so it lives as long as the App
  cmd->add_flag("--json", *json, "print JSON");
  cmd->callback([json, &registry, &action] {
    action = [json, &registry] {
      if (*json) {
        std::cout << protocol_list(registry).dump(2) << '\n';
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
