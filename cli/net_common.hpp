// Pieces shared by the TCP commands (net_commands.cpp) and the local launcher (local.cpp).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "shufflempc/runtime.hpp"

namespace shufflempc::cli {

// keygen, shuffler, party, analyzer.
void add_net_process_commands(CLI::App& app, const Registry& registry, Action& action);
// local.
void add_local_command(CLI::App& app, const Registry& registry, Action& action);


}  // namespace shufflempc::cli
