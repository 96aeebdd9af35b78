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

// Where `local` (and `party --key-dir`) keep party `id`'s key file.
[[nodiscard]] std::string party_key_file(const std::string& dir, PartyId id);
// What `analyzer --json` prints: output, messages, bytes, seconds, dropped, round_stats.
[[nodiscard]] Value analyzer_report(const RunResult& result);

}  // namespace shufflempc::cli
