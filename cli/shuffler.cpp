// `shufflempc shuffler`: serves one or more sessions: collects, validates, shuffles and delivers each
// round (docs/network.md).
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <tuple>
#include <sstream>

#include "commands.hpp"
#include "shufflempc/net/adversary.hpp"
#include "common.hpp"
#include "net_common.hpp"
#include "report.hpp"
#include "shufflempc/files.hpp"
#include "shufflempc/hex.hpp"
#include "shufflempc/net/local.hpp"
#include "shufflempc/mixnet/elgamal.hpp"
#include "shufflempc/net/mix_server.hpp"
#include "shufflempc/net/shuffler.hpp"
#include "shufflempc/net/verifiable.hpp"
#include "shufflempc/net/websocket.hpp"
#include "shufflempc/process.hpp"

namespace shufflempc::cli {

namespace {

// `shuffler --fault-entry KIND` (local --tamper-entry): the entry alters the batch it admits before
// it commits to it, as one isolating a sender would (the n - 1 attack): it drops record 0, replaces
// it by one of its own making, or adds a copy of it. Every proof and signature still holds; the
// senders' receipts show it.
std::function<void(std::uint32_t, MessageBatch&)> entry_fault(const std::string& kind, const net::SessionConfig& config) {
  return [kind, config](std::uint32_t round, MessageBatch& batch) {
    if (batch.count() == 0) return;
    MessageBatch out(batch.width());
    if (kind == "drop") {
      for (std::size_t i = 1; i < batch.count(); ++i) out.push_back(batch[i]);
    } else if (kind == "duplicate") {
      out = batch;
      out.push_back(batch[0]);
    } else {  // replace
      SystemRng rng;
      std::vector<std::uint8_t> mine(batch.width());
      if (config.mix == net::MixKind::verifiable) {
        const auto key = net::round_key(config, config.rounds.at(round).delivery).key();
        mixnet::CiphertextBatch one(batch.width() / mixnet::ciphertext_bytes, 1);
        for (std::size_t l = 0; l < one.limbs(); ++l) one.at(0, l) = mixnet::encrypt_point(mixnet::Point{}, key, mixnet::random_scalar(rng));
        mine = one.to_bytes();
      } else {
        rng.fill(mine);
      }
      out.push_back(mine);
      for (std::size_t i = 1; i < batch.count(); ++i) out.push_back(batch[i]);
    }
    batch = std::move(out);
  };
}

}  // namespace

void define_shuffler_options(CLI::App& cmd, ShufflerArgs& o) {
  cmd.add_option(std::string(flag::config) + ",-c", o.configs, "session config (repeat to serve several sessions)")->required()->check(CLI::ExistingFile);
  cmd.add_option(std::string(flag::key) + ",-k", o.key, "the shuffler's key file")->required()->check(CLI::ExistingFile);
  cmd.add_option(std::string(flag::listen), o.listen, "ADDR:PORT to listen on (default: the first config's shuffler_address; port 0 = any)");
  add_port_file_option(cmd, o.port_file);
  add_link_shape_options(cmd, o.link_shape);
  cmd.add_option(std::string(flag::listen_fd), o.listen_fd,
                 "accept on descriptor N, a TCP socket the parent process bound and listens on (as `local` does, so that the "
                 "clients start at once), instead of --listen")
      ->check(CLI::Range(3, 1 << 20))
      ->excludes(std::string(flag::listen));
  cmd.add_option(std::string(flag::reconnect_grace_ms), o.grace_ms,
                 "how long a round waits for the parties of a link lost before they submitted to reconnect, in milliseconds "
                 "(default 2000; 0: give them up at once; the round's deadline still closes it first)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{86'400'000}));
  cmd.add_option(std::string(flag::hop_addresses), o.hop_addresses,
                 "HOST:PORT of the further servers of the sessions' chain of mix servers, in order (hop 1 first), comma-separated "
                 "(each runs `shufflempc mix-server`): this shuffler is the chain's entry")
      ->delimiter(',');
  // The spellings before 0.2, kept until 0.3: each prints what to type instead.
  cmd.add_option("--mix-servers", o.old_mix_servers, "(before 0.2) --hop-addresses")->delimiter(',')->group("");
  cmd.add_option(std::string(flag::hop), o.hop, "(before 0.2) `shufflempc mix-server`")->group("");
  cmd.add_option(std::string(flag::state_dir), o.state_dir,
                 "keep every batch admitted on disk in DIR (SQLite, one subdirectory a session) before telling its link (a signed "
                 "admission receipt); started again on the same DIR (after a crash, say), the shuffler takes the kept batches back "
                 "into the round. Sessions of one round whose config names the shuffler's signing key (docs/network.md, "
                 "\"Durable collection\")");
  add_websocket_options(cmd, o.websocket, o.websocket_port_file, "the shuffler's own port");
  cmd.add_flag(std::string(flag::json), o.json, "print the final report as JSON");
  cmd.add_flag(std::string(flag::fault_tamper), o.fault_tamper,
               "fault injection, with --hop in a verifiable chain: replace one record after proving the shuffle (a cheating "
               "server; the entry must name it)")
      ->group("");  // hidden: for local --tamper-mix-server and the tests
  cmd.add_option(std::string(flag::fault_entry), o.fault_entry,
                 "fault injection, as a chain's entry: drop, replace or duplicate one admitted record before committing to the "
                 "batch (the n - 1 attack; the sender's receipt shows it)")
      ->check(CLI::IsMember({"drop", "replace", "duplicate"}))
      ->group("");  // hidden: for local --tamper-entry and the tests
  cmd.add_option(std::string(flag::fault_adversary), o.fault_adversary,
                 "fault injection, as a chain's entry (the tests' adversary harness): ignore=A-B,type=T,to=WHO,mutation=M "
                 "(net/adversary.hpp)")
      ->group("");  // hidden: for local --fault-adversary and the tests
}

std::vector<std::string> shuffler_argv(const std::string& executable, const ShufflerArgs& o) {
  Argv argv(executable, node_command::shuffler);
  argv.add_repeated(flag::config, o.configs).add(flag::key, o.key).add(flag::listen, o.listen).add(flag::port_file, o.port_file);
  argv.add(o.link_shape).add(flag::listen_fd, o.listen_fd).add(flag::reconnect_grace_ms, o.grace_ms, ShufflerArgs{}.grace_ms);
  argv.add_joined(flag::hop_addresses, o.hop_addresses).add(flag::json, o.json);
  argv.add(flag::fault_entry, o.fault_entry).add(flag::fault_adversary, o.fault_adversary).add(flag::state_dir, o.state_dir);
  argv.add(flag::websocket, o.websocket).add(flag::websocket_port_file, o.websocket_port_file);
  return argv.take();
}

void add_shuffler_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(std::string(node_command::shuffler), "serve one or more sessions: collect, validate, shuffle and deliver each round");
  auto o = std::make_shared<ShufflerArgs>();
  define_shuffler_options(*cmd, *o);
  cmd->callback([o, &action] {
    action = [o] {
      auto& [configs, key, listen, port_file, listen_fd, grace_ms, json, hop_addresses, fault_entry, fault_adversary, link_shape,
             old_mix_servers, hop, fault_tamper, state_dir, websocket, websocket_port_file] = *o;
      if (hop) {
        std::cerr << "shufflempc shuffler: --hop is spelled `shufflempc mix-server` now (its place comes from its key; --hop "
                     "still checks it); running that\n";
        if (listen_fd) throw std::invalid_argument("--listen-fd is for the shuffler, not a further server of a chain (mix-server)");
        return run_mix_server({.configs = configs, .key = key, .listen = listen, .hop = hop, .json = json, .fault_tamper = fault_tamper});
      }
      if (fault_tamper) throw std::invalid_argument("--fault-tamper is for `shufflempc mix-server` (a further server of a verifiable chain)");
      if (!websocket_port_file.empty() && websocket.empty()) throw std::invalid_argument("--websocket-port-file needs --websocket ADDR:PORT");
      if (!old_mix_servers.empty()) {
        std::cerr << "shufflempc shuffler: --mix-servers ADDRESSES is spelled --hop-addresses now (--mix-servers is a count of "
                     "servers everywhere else); running that\n";
        if (!hop_addresses.empty()) throw std::invalid_argument("give the further servers' addresses once, in --hop-addresses");
        hop_addresses = old_mix_servers;
      }
      const auto keys = net::KeyPair::load(key);
      // The shuffler enforces each config's round shapes and never builds a protocol: it reads no
      // protocol parameter and no file a parameter names (the parties and the analyzer check that
      // their protocol declares these shapes).
      std::vector<net::SessionConfig> sessions;
      for (const auto& path : configs) sessions.push_back(net::SessionConfig::load(path));
      // One descriptor per client connection. A process hosting many parties shares its links, so
      // the connections number the client processes (unknown here): what is certain is checked,
      // and the limit is raised as far as one connection per party would need.
      std::size_t links = 64;  // the listening socket, the log, slack
      for (const auto& config : sessions) links += config.parties + 1;
      const std::size_t floor = 64 + 2 * sessions.size() + net::ShufflerOptions{}.max_unauthenticated;
      ensure_descriptors(floor, "the shuffler (its analyzers and unauthenticated connections)");
      // Below one per party it is said only if connections run out (the accept's line names the
      // limit): processes that host many parties on shared links, as `local`'s do, need far fewer.
      // A WebSocket party costs two more in this process: its WebSocket and its carried connection.
      const std::size_t per_link = websocket.empty() ? 1 : 3;
      (void)raise_descriptors(per_link * (links + net::ShufflerOptions{}.max_unauthenticated));
      net::ShufflerOptions options;
      options.reconnect_grace = std::chrono::milliseconds(grace_ms);
      options.hop_addresses = hop_addresses;
      options.state_dir = state_dir;
      if (!fault_entry.empty()) {
        if (hop_addresses.empty()) throw std::invalid_argument("--fault-entry needs --hop-addresses (the entry of a chain)");
        options.tamper_admitted = entry_fault(fault_entry, sessions.front());
      }
      if (!fault_adversary.empty()) {
        auto adversary = net::adversary::parse_entry(fault_adversary);
        options.ignore_submissions = std::move(adversary.ignore);
        options.frame_tap = std::move(adversary.tap);
      }
      std::string host = "127.0.0.1";
      std::uint16_t port = 0;
      if (listen_fd) {
        options.listening_socket = *listen_fd;
      } else {
        std::tie(host, port) = net::split_address(listen.empty() ? sessions.front().shuffler_address : listen, "--listen");
      }
      net::TcpShuffler shuffler(keys, sessions, host, port, stderr_logger("shuffler"), options);
      if (listen_fd) host = shuffler.host();
      // Readiness: the launcher (or the user) reads this line, then starts the clients (a launcher
      // that bound --listen-fd has started them already).
      announce_listening(host, shuffler.port(), port_file);
      const auto gateway = open_websocket_door(websocket, websocket_port_file, host, shuffler.port(), "shuffler");
      const auto reports = shuffler.run();
      if (gateway) gateway->stop();
      int status = 0;
      Value all = Value::array();
      for (const auto& r : reports) {
        std::size_t messages = 0;
        for (const auto& s : r.rounds) messages += s.messages;
        all.push_back({{"session", to_hex(r.session)}, {"rounds", r.rounds.size()}, {"messages", messages},
                       {"dropped", r.dropped}, {"error", r.error}});
        if (!r.error.empty()) status = 1;
      }
      if (json) std::cout << all.dump() << std::endl;
      else
        for (const auto& r : all)
          std::cout << fmt::format("session {}: {} round(s), {} messages, {} dropped{}\n", r["session"].get<std::string>(),
                                   r["rounds"].get<std::size_t>(), r["messages"].get<std::size_t>(), r["dropped"].size(),
                                   r["error"].get<std::string>().empty() ? std::string() : ", error: " + r["error"].get<std::string>());
      return status;
    };
  });
}

}  // namespace shufflempc::cli
