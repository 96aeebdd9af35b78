// Pieces shared by the TCP commands: each process command has its own file (keygen.cpp,
// shuffler.cpp, party.cpp, analyzer.cpp) and `local` (local.cpp) launches them all on this machine.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "node_args.hpp"
#include "shufflempc/net/websocket.hpp"
#include "shufflempc/net/keys.hpp"
#include "shufflempc/net/round_shapes.hpp"
#include "shufflempc/net/log.hpp"
#include "shufflempc/registry.hpp"
#include "shufflempc/runtime.hpp"

namespace shufflempc::cli {

void add_keygen_command(CLI::App& app, Action& action);
void add_shuffler_command(CLI::App& app, Action& action);
void add_mix_server_command(CLI::App& app, Action& action);

[[nodiscard]] int run_mix_server(const MixServerArgs& args);
void add_party_command(CLI::App& app, const Registry& registry, Action& action);
void add_analyzer_command(CLI::App& app, const Registry& registry, Action& action);
void add_local_command(CLI::App& app, const Registry& registry, Action& action);

// A public key given as 64 hex digits (or KEY:... as keygen prints a server's keys), as the path of
// a key file, or of a file holding either (what keygen printed, saved); `what` names the option in errors.
[[nodiscard]] net::PublicKey public_key_of(const std::string& given, const std::string& what);

// Prints "shufflempc WHO: LINE" on stderr.
[[nodiscard]] net::Logger stderr_logger(const std::string& who);
// A server's readiness: the line "listening on HOST:PORT" on stdout and, with --port-file, PORT in
// that file (written whole: a script waiting for the file never reads half of it).
// --websocket ADDR:PORT and --websocket-port-file of a server that parties reach (the shuffler, the
// analyzer's verdict port): `what` names its TCP port in the help.
void add_websocket_options(CLI::App& cmd, std::string& websocket, std::string& port_file, const std::string& what);
// The door of --websocket (none when `address` is empty): each WebSocket connection carried to the
// server's TCP port `target_port` on `listening_host` (loopback for a wildcard), its port written to
// `port_file` and said on stdout ("websocket on HOST:PORT"). `who` names the server in its lines.
[[nodiscard]] std::unique_ptr<net::WebSocketGateway> open_websocket_door(const std::string& address, const std::string& port_file,
                                                                         const std::string& listening_host, std::uint16_t target_port,
                                                                         const std::string& who);
void add_port_file_option(CLI::App& cmd, std::string& port_file);
void announce_listening(const std::string& host, std::uint16_t port, const std::string& port_file);
// Writes `port` to `port_file` whole (through a .partial file renamed into place).
void write_port_file(std::uint16_t port, const std::string& port_file);
// Fault injection for the crash tests (hidden): --fault-kill-at STEP SIGKILLs this process at a step
// of its run, and STEP+US that many microseconds after it (from a thread of its own while the run
// goes on: a seeded moment of what follows the step). `steps` and `described` say what the steps are.
CLI::Option* add_fault_kill_at_option(CLI::App& cmd, std::string& spec, const std::vector<std::string>& steps, const std::string& described);
// The step hook of such a spec (none for an empty one): called with each step the run passes.
[[nodiscard]] std::function<void(std::string_view)> kill_at_step(const std::string& spec);
// The shuffler's address: --connect, or the config's shuffler_address (which must then name a port).
[[nodiscard]] std::pair<std::string, std::uint16_t> connect_address(const net::SessionConfig& config, const std::string& flag);
// "3" or "0-99" -> [first, last], within [0, parties).
[[nodiscard]] std::pair<PartyId, PartyId> parse_ids(const std::string& text, std::size_t parties, const std::string& flag = "--id");
[[nodiscard]] Value read_json_file(const std::string& path, const std::string& what);

// Records in `config` the BLAKE2b-256 of every file its protocol's parameters read (an mpc2 @FILE
// program, a circuit; shufflempc/registry.hpp files_read), for `session` and `local`.
void bind_files(net::SessionConfig& config, const Registry& registry);
// The session's protocol, created after checking that every file it reads on this host has the
// content the config binds, and checked to declare the config's round shapes (net::check_rounds):
// std::invalid_argument naming the parameter and the file, or the round, otherwise. For the
// parties and the analyzer; the shuffler never builds the protocol.
[[nodiscard]] std::unique_ptr<Protocol> session_protocol(const net::SessionConfig& config, const Registry& registry);

// The session protocol's ProtocolInfo::warm_up, if it has one, on a thread of its own while the
// process builds the protocol, reads its keys and connects; joined when this goes (declare it after
// the config). An error there (a bad parameter) is left to the protocol's creation to report.
class WarmUp {
 public:
  WarmUp(const net::SessionConfig& config, const Registry& registry);

 private:
  std::jthread thread_;
};

}  // namespace shufflempc::cli
