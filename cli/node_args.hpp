// The options of the node commands (shuffler, mix-server, analyzer, party) as values. Each command's
// file defines its options on a CLI11 command bound to one of these (define_*_options) and, next to
// it, the command line that gives a process those values (*_argv), both from the names below: the
// local launcher (launcher.hpp) starts every process from such a value, so a renamed or dropped
// flag fails to compile there, and tests/cli/test_node_args.cpp parses every field of every
// command's command line back to the value it came from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "shufflempc/net/link_shape.hpp"
#include "shufflempc/net/shuffler.hpp"

namespace shufflempc::cli {

// The node commands' names, as `shufflempc-node` and `shufflempc` take them.
namespace node_command {
inline constexpr std::string_view shuffler = "shuffler", mix_server = "mix-server", analyzer = "analyzer", party = "party";
}  // namespace node_command

// Their flags, each spelled once.
namespace flag {
inline constexpr std::string_view config = "--config", key = "--key", listen = "--listen", listen_fd = "--listen-fd",
                                  port_file = "--port-file", json = "--json", connect = "--connect", seed = "--seed",
                                  link_delay_ms = "--link-delay-ms", link_mbps = "--link-mbps",
                                  reconnect_grace_ms = "--reconnect-grace-ms", hop_addresses = "--hop-addresses",
                                  fault_entry = "--fault-entry", fault_adversary = "--fault-adversary",
                                  fault_tamper = "--fault-tamper", hop = "--hop", dkg = "--dkg", shuffler_key = "--shuffler-key",
                                  dkg_timeout_ms = "--dkg-timeout-ms", fault_dkg_bad_share = "--fault-dkg-bad-share",
                                  fault_gone_after_mix = "--fault-gone-after-mix", transcript = "--transcript",
                                  analyzer = "--analyzer", id = "--id", key_dir = "--key-dir", key_bundle = "--key-bundle",
                                  input = "--input", inputs = "--inputs", dropouts = "--dropouts",
                                  fault_kill_before_round = "--fault-kill-before-round", fault_hang = "--fault-hang",
                                  state_dir = "--state-dir", leave_after_receipt = "--leave-after-receipt",
                                  receipt = "--receipt", commitment = "--commitment", fault_kill_at = "--fault-kill-at",
                                  websocket = "--websocket", websocket_port_file = "--websocket-port-file";
}  // namespace flag

// A command line in the making: a flag and its value only when the value differs from the
// option's default, so the process gets exactly the values it was given.
class Argv {
 public:
  Argv(std::string executable, std::string_view command);
  Argv& add(std::string_view name, const std::string& value);                      // unless empty
  Argv& add(std::string_view name, std::size_t value, std::size_t default_value);  // unless the default
  Argv& add(std::string_view name, bool on);                                       // a flag
  template <class T>
  Argv& add(std::string_view name, const std::optional<T>& value) {
    if (value) args_.insert(args_.end(), {std::string(name), std::to_string(*value)});
    return *this;
  }
  Argv& add_joined(std::string_view name, const std::vector<std::string>& values);    // NAME a,b,c unless empty
  Argv& add_repeated(std::string_view name, const std::vector<std::string>& values);  // NAME a NAME b
  Argv& add(const net::LinkShape& shape);  // --link-delay-ms, --link-mbps, unless unshaped
  [[nodiscard]] std::vector<std::string> take() { return std::move(args_); }

 private:
  std::vector<std::string> args_;
};

// --link-delay-ms and --link-mbps, read into `shape` and set for the whole process as they are read
// (every link the command opens is then shaped: net/link_shape.hpp).
void add_link_shape_options(CLI::App& cmd, net::LinkShape& shape);

// Options shared by the party and analyzer processes.
struct ClientArgs {
  std::string config_path, connect;
  std::optional<std::uint64_t> seed;
  bool json = false;
  net::LinkShape link_shape;
  bool operator==(const ClientArgs&) const = default;
};
void add_client_options(CLI::App& cmd, ClientArgs& args, const std::string& whose);
void add_client_argv(Argv& argv, const ClientArgs& args);

// `shuffler`'s options (shuffler.cpp).
struct ShufflerArgs {
  std::vector<std::string> configs;
  std::string key, listen, port_file;
  std::optional<int> listen_fd;
  std::size_t grace_ms = static_cast<std::size_t>(net::ShufflerOptions{}.reconnect_grace.count());
  bool json = false;
  std::vector<std::string> hop_addresses;
  std::string fault_entry, fault_adversary;
  net::LinkShape link_shape;
  // The spellings before 0.2 (each says what to type instead); never in a command line made here.
  std::vector<std::string> old_mix_servers;
  std::optional<std::size_t> hop;
  bool fault_tamper = false;
  std::string state_dir;
  // --websocket ADDR:PORT: also take parties over WebSocket there (net/websocket.hpp), each carried
  // to the shuffler's own port; --websocket-port-file: where to write that port once listening.
  std::string websocket, websocket_port_file;
  bool operator==(const ShufflerArgs&) const = default;
};
void define_shuffler_options(CLI::App& cmd, ShufflerArgs& o);
[[nodiscard]] std::vector<std::string> shuffler_argv(const std::string& executable, const ShufflerArgs& o);

// `mix-server`'s options (mix_server.cpp; and `shuffler --hop I`'s, the spelling before 0.2).
struct MixServerArgs {
  std::vector<std::string> configs;
  std::string key, listen, port_file;
  std::optional<std::size_t> hop;  // checked against the key's place, when given
  bool json = false, fault_tamper = false, fault_gone_after_mix = false;
  // --dkg: take part in a session's key generation (net/dkg.hpp) instead of serving sessions.
  bool dkg = false;
  std::string shuffler_key;                        // with --dkg: the coordinator's (the shuffler's) public key
  std::optional<std::size_t> fault_dkg_bad_share;  // with --dkg: deal a bad share to server I
  std::size_t dkg_timeout_ms = 60'000;
  std::string fault_adversary;  // the adversary harness: this server's frames mutated (net/adversary.hpp)
  net::LinkShape link_shape;
  std::string state_dir;      // --state-dir DIR: each round's answer kept before it is sent (onion chains)
  std::string fault_kill_at;  // --fault-kill-at STEP: SIGKILL itself at a step of a round (the crash tests)
  bool operator==(const MixServerArgs&) const = default;
};
void define_mix_server_options(CLI::App& cmd, MixServerArgs& o);
[[nodiscard]] std::vector<std::string> mix_server_argv(const std::string& executable, const MixServerArgs& o);

// `analyzer`'s options (analyzer.cpp).
struct AnalyzerArgs {
  std::string key, transcript, listen, port_file;
  ClientArgs client;
  std::optional<int> listen_fd;
  std::string commitment;  // --commitment FILE: the shuffler's commitments to the batches, published
  std::string state_dir;   // --state-dir DIR: the delivered round, the key of its randomness and the output, kept
  std::string fault_kill_at;  // --fault-kill-at STEP: SIGKILL itself at a step of the delivery (the crash tests)
  // --websocket ADDR:PORT: the verdict port also over WebSocket (a party in a browser); its port file.
  std::string websocket, websocket_port_file;
  bool operator==(const AnalyzerArgs&) const = default;
};
void define_analyzer_options(CLI::App& cmd, AnalyzerArgs& o);
[[nodiscard]] std::vector<std::string> analyzer_argv(const std::string& executable, const AnalyzerArgs& o);

// `party`'s options (party.cpp).
struct PartyArgs {
  std::string ids, key, key_dir, key_bundle, input, inputs_file, dropouts, analyzer, fault_adversary;
  std::optional<std::uint32_t> kill_before_round;
  bool hang = false;
  ClientArgs client;
  bool leave_after_receipt = false;
  std::string receipt_file;  // --receipt FILE: the shuffler's receipts of this process's batches, kept
  bool operator==(const PartyArgs&) const = default;
};
void define_party_options(CLI::App& cmd, PartyArgs& o);
[[nodiscard]] std::vector<std::string> party_argv(const std::string& executable, const PartyArgs& o);

}  // namespace shufflempc::cli
