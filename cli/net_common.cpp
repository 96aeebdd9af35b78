// Pieces shared by the TCP process commands (keygen.cpp, shuffler.cpp, party.cpp, analyzer.cpp).
#include "net_common.hpp"

#include <signal.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "common.hpp"
#include "shufflempc/numbers.hpp"
#include "shufflempc/files.hpp"
#include "shufflempc/json.hpp"

namespace shufflempc::cli {

net::PublicKey public_key_of(const std::string& given, const std::string& what) {
  // 64 hex digits, a token KEY:..., a key file, or a file holding either.
  if (given.size() > 64 && given[64] == ':') return net::parse_public_key(given.substr(0, 64), what);
  if (given.size() == 64 && given.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos)
    return net::parse_public_key(given, what);
  const std::string text = read_text_file(given, what, 1 << 16);
  const Value v = Value::parse(text, nullptr, false);
  if (!v.is_discarded() && v.is_object() && v.contains("public_key") && v["public_key"].is_string())
    return net::parse_public_key(v["public_key"].get<std::string>(), what + " (" + given + ")");
  std::string hex;
  std::istringstream(text) >> hex;
  if (hex.size() > 64 && hex[64] == ':') hex.resize(64);  // a server's token KEY:SIGNING_KEY[...] as keygen printed it
  return net::parse_public_key(hex, what + " (" + given + ")");
}

void add_websocket_options(CLI::App& cmd, std::string& websocket, std::string& port_file, const std::string& what) {
  cmd.add_option(std::string(flag::websocket), websocket,
                 "ADDR:PORT where parties may also connect over WebSocket (a page in a browser; port 0 = any): each connection is "
                 "carried to " + what + ", the same authenticated link as over TCP (docs/websocket.md)");
  cmd.add_option(std::string(flag::websocket_port_file), port_file, "once listening for WebSocket parties, write that port to this file");
}

std::unique_ptr<net::WebSocketGateway> open_websocket_door(const std::string& address, const std::string& port_file,
                                                           const std::string& listening_host, std::uint16_t target_port, const std::string& who) {
  if (!port_file.empty() && address.empty()) throw std::invalid_argument("--websocket-port-file needs --websocket ADDR:PORT");
  if (address.empty()) return nullptr;
  net::WebSocketOptions ws;
  std::tie(ws.host, ws.port) = net::split_address(address, "--websocket");
  ws.target_host = listening_host == "0.0.0.0" ? "127.0.0.1" : listening_host == "::" ? "::1" : listening_host;
  ws.target_port = target_port;
  auto door = std::make_unique<net::WebSocketGateway>(ws, stderr_logger(who));
  if (!port_file.empty()) write_port_file(door->port(), port_file);
  std::cout << "websocket on " << door->host() << ':' << door->port() << std::endl;
  return door;
}

void add_port_file_option(CLI::App& cmd, std::string& port_file) {
  cmd.add_option(std::string(flag::port_file), port_file,
                 "once listening, write the port to this file (for a script or another host's command; with port 0 the system's choice)");
}

namespace {

// "STEP" or "STEP+US" split: the step and the microseconds after it (0 for at it).
std::pair<std::string, std::uint64_t> split_kill_spec(const std::string& spec) {
  const auto plus = spec.find('+');
  if (plus == std::string::npos) return {spec, 0};
  const std::string us = spec.substr(plus + 1);
  if (us.empty() || us.size() > 8 || us.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument("--fault-kill-at " + spec + ": after STEP+ comes a count of microseconds in [0, 99999999]");
  return {spec.substr(0, plus), std::stoull(us)};
}

}  // namespace

CLI::Option* add_fault_kill_at_option(CLI::App& cmd, std::string& spec, const std::vector<std::string>& steps, const std::string& described) {
  std::string names;
  for (const auto& s : steps) names += (names.empty() ? "" : ",") + s;
  return cmd
      .add_option(std::string(flag::fault_kill_at), spec,
                  "fault injection (the crash tests): SIGKILL this process at a step of its run, or with STEP+US that many "
                  "microseconds after it: " + described)
      ->check([steps, names](const std::string& given) -> std::string {
        try {
          const auto step = split_kill_spec(given).first;
          if (std::find(steps.begin(), steps.end(), step) == steps.end()) return "--fault-kill-at: " + step + " not in {" + names + "}";
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
        return {};
      })
      ->group("");
}

std::function<void(std::string_view)> kill_at_step(const std::string& spec) {
  if (spec.empty()) return {};
  const auto [at, after_us] = split_kill_spec(spec);
  return [at, after_us](std::string_view step) {
    if (step != at) return;
    if (after_us == 0) ::raise(SIGKILL);
    std::thread([after_us] {
      std::this_thread::sleep_for(std::chrono::microseconds(after_us));
      ::raise(SIGKILL);
    }).detach();
  };
}

void write_port_file(std::uint16_t port, const std::string& port_file) {
  // Whole or absent: a reader that sees the file sees the port.
  const std::string partial = port_file + ".partial";
  std::filesystem::remove(partial);
  write_file(partial, std::to_string(port) + "\n", "the port file");
  std::filesystem::rename(partial, port_file);
}

void announce_listening(const std::string& host, std::uint16_t port, const std::string& port_file) {
  if (!port_file.empty()) write_port_file(port, port_file);
  std::cout << "listening on " << host << ':' << port << std::endl;
}

net::Logger stderr_logger(const std::string& who) {
  // One write per line: the processes of a `local` run share one stderr.
  return [who](const std::string& line) { std::cerr << ("shufflempc " + who + ": " + line + "\n") << std::flush; };
}

std::pair<std::string, std::uint16_t> connect_address(const net::SessionConfig& config, const std::string& flag) {
  const auto addr = net::split_address(flag.empty() ? config.shuffler_address : flag, "--connect");
  if (addr.second == 0)
    throw std::invalid_argument("--connect HOST:PORT is needed: the session config's shuffler_address has port 0");
  return addr;
}

// "3" or "0-99" -> [first, last].
std::pair<PartyId, PartyId> parse_ids(const std::string& text, std::size_t parties, const std::string& flag) {
  const auto dash = text.find('-');
  const auto first = parse_unsigned(text.substr(0, dash));
  const auto last = dash == std::string::npos ? first : parse_unsigned(text.substr(dash + 1));
  if (first && last && *first <= *last && *last < parties) return {static_cast<PartyId>(*first), static_cast<PartyId>(*last)};
  throw std::invalid_argument(flag + " must be a party id or a range FIRST-LAST within [0, " + std::to_string(parties - 1) +
                              "], got '" + text + "'");
}

void bind_files(net::SessionConfig& config, const Registry& registry) {
  config.file_digests.clear();
  for (const auto& [param, path] : files_read(registry.get(config.protocol), config.params))
    config.file_digests[param] = file_digest(path, "--" + param);
}

std::unique_ptr<Protocol> session_protocol(const net::SessionConfig& config, const Registry& registry) {
  const auto files = files_read(registry.get(config.protocol), config.params);
  for (const auto& [param, path] : files) {
    const auto bound = config.file_digests.find(param);
    if (bound == config.file_digests.end())
      throw std::invalid_argument("session config: parameter '" + param + "' reads " + path +
                                  " but the config binds no content for it (write the config with shufflempc session)");
    if (file_digest(path, "--" + param) != bound->second)
      throw std::invalid_argument("session config: parameter '" + param + "' reads " + path +
                                  ", whose content here differs from the one the session was made with: every host must hold the same file");
  }
  for (const auto& [param, digest] : config.file_digests)
    if (!files.count(param)) throw std::invalid_argument("session config: file_digests." + param + " binds a file no parameter reads");
  auto protocol = registry.create(config.protocol, config.params, config.parties, config.min_parties);
  net::check_rounds(config, *protocol);
  return protocol;
}

WarmUp::WarmUp(const net::SessionConfig& config, const Registry& registry) {
  const ProtocolInfo* info = registry.find(config.protocol);
  if (info == nullptr || !info->warm_up) return;
  thread_ = std::jthread([info, params = config.params] {
    try {
      info->warm_up(Params::parse(info->params, params));
    } catch (...) {
    }
  });
}

Value read_json_file(const std::string& path, const std::string& what) {
  return parse_json_document(read_text_file(path, what), what + " " + path);
}

}  // namespace shufflempc::cli
