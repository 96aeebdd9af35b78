// `shufflempc analyzer`: receives each round's shuffled output and runs the protocol's analyzer
// (docs/network.md).
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "commands.hpp"
#include "shufflempc/process.hpp"
#include "common.hpp"
#include "net_common.hpp"
#include "shufflempc/net/receipt_files.hpp"
#include "report.hpp"
#include "shufflempc/api/reports.hpp"
#include "shufflempc/files.hpp"
#include "shufflempc/hex.hpp"
#include "shufflempc/net/local.hpp"
#include "shufflempc/net/store.hpp"
#include "shufflempc/random.hpp"
#include "shufflempc/net/tcp.hpp"
#include "shufflempc/process.hpp"

namespace shufflempc::cli {

void define_analyzer_options(CLI::App& cmd, AnalyzerArgs& o) {
  add_client_options(cmd, o.client, "the analyzer's");
  cmd.add_option(std::string(flag::key) + ",-k", o.key, "the analyzer's key file")->required()->check(CLI::ExistingFile);
  cmd.add_option(std::string(flag::transcript), o.transcript,
                 "with a verifiable chain (the config's mix): write the rounds this analyzer verified (every hop's output and proof, "
                 "every decryption proof) to this file, for shufflempc verify");
  cmd.add_option(std::string(flag::listen), o.listen,
                 "HOST:PORT where the parties' verdicts on their receipts arrive (port 0: any, printed on stderr), needed when the "
                 "session's analyzer-only rounds cross a mix chain (docs/mix-chain.md, receipts and complaints)");
  cmd.add_option(std::string(flag::commitment), o.commitment,
                 "with no chain and a config naming the shuffler's signing key: write the shuffler's signed commitment to each "
                 "round's batch (checked against the records), with the batch's leaves, to this file: what a party's receipt is "
                 "checked against (shufflempc receipt; docs/network.md, \"Durable collection\")");
  cmd.add_option(std::string(flag::state_dir), o.state_dir,
                 "keep in DIR/<session> the round's result as delivered (before it is confirmed), the key of this analyzer's "
                 "randomness and the output (before it is printed): an analyzer started again on it prints the same output, never "
                 "a second one; a session of one round without a chain (docs/network.md, \"Durable collection\")");
  add_fault_kill_at_option(cmd, o.fault_kill_at, {"received", "kept", "confirmed", "output"},
                           "with --state-dir, a step of the delivery: received (the result read), kept (the result kept, not "
                           "confirmed), confirmed (opened and analysed, the output not kept), output (the output kept, not printed)")
      ->needs(std::string(flag::state_dir));
  add_port_file_option(cmd, o.port_file);
  add_websocket_options(cmd, o.websocket, o.websocket_port_file, "the verdict port (--listen)");
  cmd.add_option(std::string(flag::listen_fd), o.listen_fd,
                 "take the verdicts on descriptor N, a TCP socket the parent process bound and listens on (as `local` does)")
      ->check(CLI::Range(3, 1 << 20))
      ->excludes(std::string(flag::listen));
}

namespace {

std::span<const std::uint8_t> as_bytes(const std::string& s) { return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}; }

// --state-dir: the analyzer's state of this session (none without the flag), for a session the
// shuffler keeps too: one round, no chain (whose parties' verdicts are not kept).
std::unique_ptr<net::AdmissionStore> open_analyzer_state(const net::SessionConfig& config, const std::string& dir) {
  if (dir.empty()) return nullptr;
  if (config.rounds.size() != 1)
    throw std::invalid_argument("--state-dir keeps sessions of one round (a collection round); this one has " +
                                std::to_string(config.rounds.size()));
  if (!config.mix_chain.empty())
    throw std::invalid_argument("--state-dir: the analyzer keeps sessions without a chain of mix servers; this one has a chain of " +
                                std::to_string(config.mix_chain.size()));
  return net::open_state_directory(std::filesystem::path(dir) / to_hex(config.session), config.session, config.digest(), "analyzer");
}

}  // namespace

std::vector<std::string> analyzer_argv(const std::string& executable, const AnalyzerArgs& o) {
  Argv argv(executable, node_command::analyzer);
  add_client_argv(argv, o.client);
  argv.add(flag::key, o.key).add(flag::transcript, o.transcript).add(flag::listen, o.listen).add(flag::port_file, o.port_file);
  argv.add(flag::listen_fd, o.listen_fd).add(flag::commitment, o.commitment).add(flag::state_dir, o.state_dir);
  argv.add(flag::fault_kill_at, o.fault_kill_at).add(flag::websocket, o.websocket).add(flag::websocket_port_file, o.websocket_port_file);
  return argv.take();
}

void add_analyzer_command(CLI::App& app, const Registry& registry, Action& action) {
  auto* cmd = app.add_subcommand(std::string(node_command::analyzer), "receive each round's shuffled output and run the protocol's analyzer");
  auto o = std::make_shared<AnalyzerArgs>();
  define_analyzer_options(*cmd, *o);
  cmd->callback([o, &registry, &action] {
    action = [o, &registry] {
      const auto& [key, transcript, listen, port_file, client, listen_fd, commitment, state_dir, fault_kill_at, websocket, websocket_port_file] = *o;
      if (!websocket.empty() && listen.empty())
        throw std::invalid_argument("--websocket needs --listen: the door carries the parties' verdicts to the verdict port");
      if (!websocket_port_file.empty() && websocket.empty()) throw std::invalid_argument("--websocket-port-file needs --websocket ADDR:PORT");
      if (!port_file.empty() && listen.empty()) throw std::invalid_argument("--port-file needs --listen (the port of the parties' verdicts)");
      const auto config = net::SessionConfig::load(client.config_path);
      const WarmUp warm_up(config, registry);  // beside building the protocol, reading keys, connecting
      if (!transcript.empty() && config.mix != net::MixKind::verifiable)
        throw std::invalid_argument("--transcript needs a session over a verifiable chain (its config's mix is " + to_string(config.mix) + ")");
      if (!commitment.empty() && (!config.mix_chain.empty() || !config.shuffler_signer))
        throw std::invalid_argument(std::string("--commitment: the shuffler commits to its batches in a session with no chain of mix servers "
                                                "whose config names its signing key (shuffler_signing_key); this one ") +
                                    (config.mix_chain.empty() ? "names none" : "has a chain"));
      prepare_output_file(commitment, "--commitment");
      if ((!listen.empty() || listen_fd) && !net::takes_verdicts(config))
        throw std::invalid_argument(std::string(listen_fd ? "--listen-fd" : "--listen") +
                                    ": this session has no analyzer-only round over a mix chain, so the parties send the analyzer no verdicts");
      auto state = open_analyzer_state(config, state_dir);
      if (state) {
        // The output was kept before it was printed: printed again as it was, nothing recomputed.
        if (const auto kept = state->kept(client.json ? "output-json" : "output-text")) {
          stderr_logger("analyzer")("session " + to_hex(config.session).substr(0, 8) +
                                    ": its output was kept in the state directory before it was printed; printed as it was");
          if (const auto c = state->kept("commitment"); c && !commitment.empty())
            write_file(commitment, std::string(c->begin(), c->end()), "--commitment");
          std::cout << std::string(kept->begin(), kept->end()) << std::flush;
          return 0;
        }
      }
      // A step of the delivery at which the crash tests kill this process (--fault-kill-at).
      const auto kill = kill_at_step(fault_kill_at);
      const auto step = [&kill](std::string_view at) {
        if (kill) kill(at);
      };
      if (!listen.empty() || listen_fd) {
        // The verdict port holds up to the shuffler's cap of unauthenticated connections besides a
        // link per party (the parties of a process share theirs): raised like the shuffler's.
        const std::size_t floor = 64 + net::default_max_unauthenticated;
        ensure_descriptors(floor, "the analyzer (the verdict port's unauthenticated connections)");
        (void)raise_descriptors(floor + config.parties);
      }
      auto protocol = session_protocol(config, registry);
      const auto [host, port] = connect_address(config, client.connect);
      // With a state directory, a key drawn once and kept before it is used: an analyzer started
      // again computes the same output from the same round, never another draw of its noise.
      auto rng = state && !client.seed ? net::kept_randomness(*state, "rng-key") : make_rng(client.seed);
      std::vector<net::Identity> identities;
      identities.push_back({net::analyzer_id, net::KeyPair::load(key)});
      net::TcpChannelOptions channel_options{.share_links = true, .verdict_socket = listen_fd.value_or(-1), .verdict_listen = listen};
      if (state) {
        if (auto kept = state->kept("round-0")) channel_options.kept_results.emplace(0, std::move(*kept));
        channel_options.keep_result = [&state, &step](std::uint32_t round, std::span<const std::uint8_t> result) {
          step("received");
          state->keep("round-" + std::to_string(round), result);
          step("kept");
        };
      }
      net::TcpChannel channel(config, std::move(identities), host, port, stderr_logger("analyzer"), std::move(channel_options));
      // Readiness, as the shuffler says it: the parties are given this address (party --analyzer).
      if (!listen.empty()) announce_listening(net::split_address(listen, "--listen").first, channel.verdict_port(), port_file);
      const auto door = open_websocket_door(websocket, websocket_port_file, listen.empty() ? std::string() : net::split_address(listen, "--listen").first,
                                            channel.verdict_port(), "analyzer");
      RoundDriver session(*protocol, channel, *rng, config.parties);
      session.host_analyzer();
      const RunResult result = session.run({});
      step("confirmed");
      // Published with the output: what every party's receipt is checked against.
      const std::string commitments =
          channel.batch_commitments().empty() ? std::string() : net::commitments_json(config, channel.batch_commitments()).dump() + "\n";
      const auto c = channel.counters().at(net::analyzer_id);
      api::AnalyzerReport typed = api::analyzer_report_of(result);
      typed.bytes_received = c.bytes_received;
      if (config.mix == net::MixKind::verifiable) {
        typed.verifiable_mix = api::verifiable_mix_report(channel.transcript(), transcript);
        // The closing hint names the session config this analyzer ran with: verify --config ties
        // the transcript to it.
        typed.verifiable_mix->session_config = client.config_path;
        if (!transcript.empty()) channel.transcript().save(transcript);
      } else if (!config.mix_chain.empty()) {
        typed.mix_chain = api::mix_chain_report(config.mix_chain.size(), channel.hop_reports());
      }
      Value report = api::to_json(typed);
      // The shuffler's commitment to each round's batch, checked against the records (no chain):
      // the root a party's receipt is checked against (the leaves are in --commitment's file).
      if (const auto& batches = channel.batch_commitments(); !batches.empty()) {
        Value list = Value::array();
        for (const auto& [round, b] : batches)
          list.push_back({{"round", round}, {"records", b.commitment.count}, {"root", to_hex(b.commitment.root)}});
        report["batch_commitments"] = std::move(list);
      }
      report["process"] = {{"peak_memory_bytes", own_peak_memory()}};  // its own (wait4 would count the launcher's up to the spawn too)
      std::ostringstream text;
      text << "output    " << result.output.dump() << '\n'
           << fmt::format("traffic   {} messages, {} bytes, {:.3f} s\n", result.messages, result.bytes, result.seconds);
      if (!result.dropped.empty()) text << "dropped   " << Value(result.dropped).dump() << '\n';
      for (const auto& [round, b] : channel.batch_commitments())
        text << fmt::format("committed round {}: {} records, Merkle root {} (the shuffler's signature checked)\n", round, b.commitment.count,
                            to_hex(b.commitment.root));
      const std::string json = report.dump() + "\n";
      if (state) {
        // Kept before anything is printed or published: a crash from here prints these.
        if (!commitments.empty()) state->keep("commitment", as_bytes(commitments));
        state->keep("output-text", as_bytes(text.str()));
        state->keep("output-json", as_bytes(json));
        step("output");
      }
      if (!commitment.empty()) write_file(commitment, commitments, "--commitment");
      if (client.json) {
        std::cout << json << std::flush;
      } else {
        std::cout << text.str();
        print_mix_chain(report);
      }
      return 0;
    };
  });
}

}  // namespace shufflempc::cli
