// Pieces shared by the TCP commands: each process command has its own file (keygen.cpp,
// shuffler.cpp, party.cpp, analyzer.cpp) and `local` (local.cpp) launches them all on this machine.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "shufflempc/net/keys.hpp"
#include "shufflempc/net/tcp.hpp"
#include "shufflempc/runtime.hpp"

namespace shufflempc::cli {

void add_keygen_command(CLI::App& app, Action& action);
void add_shuffler_command(CLI::App& app, const Registry& registry, Action& action);
void add_party_command(CLI::App& app, const Registry& registry, Action& action);
void add_analyzer_command(CLI::App& app, const Registry& registry, Action& action);
void add_local_command(CLI::App& app, const Registry& registry, Action& action);

// Prints "shufflempc WHO: LINE" on stderr.
[[nodiscard]] net::Logger stderr_logger(const std::string& who);
// The shuffler's address: --connect, or the config's shuffler_address (which must then name a port).
[[nodiscard]] std::pair<std::string, std::uint16_t> connect_address(const net::SessionConfig& config, const std::string& flag);
// "3" or "0-99" -> [first, last], within [0, parties).
[[nodiscard]] std::pair<PartyId, PartyId> parse_ids(const std::string& text, std::size_t parties);
[[nodiscard]] Value read_json_file(const std::string& path, const std::string& what);

// Options shared by the party and analyzer processes.
struct ClientArgs {
  std::string config_path, connect;
  std::optional<std::uint64_t> seed;
  bool json = false;
};
void add_client_options(CLI::App& cmd, ClientArgs& args, const std::string& whose);

}  // namespace shufflempc::cli
