// `shufflempc mix-server`: a further server of the sessions' chains of mix servers (docs/mix-chain.md).
// Its place in each chain comes from its key: the config lists the chain's keys, the shuffler first.
#include <fmt/format.h>

#include <iostream>

#include "net_common.hpp"
#include "shufflempc/hex.hpp"
#include "shufflempc/mixnet/elgamal.hpp"
#include "shufflempc/net/adversary.hpp"
#include "shufflempc/net/dkg.hpp"
#include "shufflempc/net/mix_server.hpp"

namespace shufflempc::cli {

namespace {

// --dkg: one key generation as a further server (net/dkg.hpp), then the outcome on stdout.
int run_dkg_server(const MixServerArgs& o) {
  if (o.shuffler_key.empty()) throw std::invalid_argument("mix-server --dkg needs --shuffler-key (the coordinator's: the chain's entry)");
  if (!o.configs.empty()) throw std::invalid_argument("mix-server --dkg takes no --config: the session config is written after the key generation");
  const auto keys = net::KeyPair::load(o.key);
  const auto shuffler = public_key_of(o.shuffler_key, "--shuffler-key");
  const auto [host, port] = net::split_address(o.listen, "--listen");
  net::DkgServerOptions options;
  options.timeout = std::chrono::milliseconds(o.dkg_timeout_ms);
  options.bad_share_to = o.fault_dkg_bad_share;
  options.frame_tap = net::adversary::parse_tap(o.fault_adversary);  // none without a mutation
  net::TcpDkgServer server(keys, shuffler, host, port, stderr_logger("mix server (key generation)"), options);
  announce_listening(host, server.port(), o.port_file);
  const auto served = server.run();
  Value report = {{"session", to_hex(served.setup.session)}, {"server", served.index}, {"error", served.error}};
  if (served.outcome) {
    report["threshold"] = served.outcome->key.threshold;
    report["servers"] = served.outcome->key.shares.size();
    report["key"] = to_hex(served.outcome->key.key().bytes);
    report["qualified"] = served.outcome->qualified;
    Value out = Value::array();
    for (const auto& [who, why] : served.outcome->disqualified) out.push_back({{"server", who}, {"reason", why}});
    report["disqualified"] = out;
  }
  if (o.json) std::cout << report.dump() << std::endl;
  else if (served.outcome)
    std::cout << fmt::format("session {}: server {} holds its share of a {}-of-{} key made by the chain's servers ({} disqualified)\n",
                             report["session"].get<std::string>(), served.index, served.outcome->key.threshold, served.outcome->key.shares.size(),
                             served.outcome->disqualified.size());
  else std::cout << "key generation failed: " << served.error << "\n";
  return served.error.empty() ? 0 : 1;
}

}  // namespace

int run_mix_server(const MixServerArgs& o) {
  if (o.listen.empty()) throw std::invalid_argument("mix-server needs --listen HOST:PORT (the address the shuffler is given in --hop-addresses)");
  if (o.dkg) return run_dkg_server(o);
  if (o.configs.empty()) throw std::invalid_argument("mix-server needs --config (a session config whose chain lists this server's key), or --dkg");
  const auto keys = net::KeyPair::load(o.key);
  std::vector<net::SessionConfig> sessions;
  std::size_t hop = 0;
  for (const auto& path : o.configs) {
    sessions.push_back(net::SessionConfig::load(path));
    const auto at = net::mix_server_position(sessions.back(), keys);
    if (o.hop && at != *o.hop)
      throw std::invalid_argument("--hop " + std::to_string(*o.hop) + ": this key is server " + std::to_string(at) + " of the chain of " + path);
    if (hop != 0 && at != hop)
      throw std::invalid_argument("--config " + path + ": this key is server " + std::to_string(at) + " of its chain, server " +
                                  std::to_string(hop) + " of the first config's (one position for every session served)");
    hop = at;
  }
  const auto [host, port] = net::split_address(o.listen, "--listen");
  net::MixServerOptions options;
  options.gone_after_mix = o.fault_gone_after_mix;
  options.frame_tap = net::adversary::parse_tap(o.fault_adversary);  // none without a mutation
  options.state_dir = o.state_dir;
  options.step = kill_at_step(o.fault_kill_at);  // the crash tests: a real SIGKILL at (or after) a step of a round
  if (o.fault_tamper) {
    // Fault injection (local --tamper-mix-server): after proving its shuffle, replace one record by
    // an encryption of a value of its own choosing, as a server tracing a sender would.
    options.tamper = [](std::uint32_t, mixnet::CiphertextBatch& output) {
      if (output.size() > 0) output.at(0, 0) = mixnet::encrypt_point(mixnet::base_point(), mixnet::base_point(), mixnet::scalar_from_u64(2));
    };
  }
  net::TcpMixServer server(keys, sessions, host, port, stderr_logger("mix server " + std::to_string(hop)), options);
  announce_listening(host, server.port(), o.port_file);
  const auto reports = server.run();
  int status = 0;
  Value all = Value::array();
  for (const auto& r : reports) {
    Value rounds = Value::array();
    for (const auto& h : r.rounds)
      rounds.push_back({{"round", h.place.round}, {"records_in", h.records_in}, {"records_out", h.records_out},
                        {"not_opened", h.not_opened}, {"duplicates", h.duplicates}});
    all.push_back({{"session", to_hex(r.session)}, {"hop", r.hop}, {"rounds", rounds}, {"error", r.error}});
    if (!r.error.empty()) status = 1;
  }
  if (o.json) std::cout << all.dump() << std::endl;
  else
    for (const auto& r : all)
      std::cout << fmt::format("session {}: hop {} mixed {} round(s){}\n", r["session"].get<std::string>(), r["hop"].get<std::size_t>(),
                               r["rounds"].size(), r["error"].get<std::string>().empty() ? std::string() : ", error: " + r["error"].get<std::string>());
  return status;
}

void define_mix_server_options(CLI::App& cmd, MixServerArgs& o) {
  cmd.add_option(std::string(flag::config) + ",-c", o.configs, "session config whose chain lists this server's key (repeat to serve several sessions)")
      ->check(CLI::ExistingFile);
  cmd.add_option(std::string(flag::key) + ",-k", o.key, "this server's key file (keygen --mix-server)")->required()->check(CLI::ExistingFile);
  cmd.add_option(std::string(flag::listen), o.listen, "ADDR:PORT to listen on (port 0 = any; the shuffler dials it: --hop-addresses)")->required();
  add_port_file_option(cmd, o.port_file);
  add_link_shape_options(cmd, o.link_shape);
  cmd.add_option(std::string(flag::hop), o.hop,
                 "check that this key is server I of every config's chain (its place comes from the key; this only checks it)");
  cmd.add_flag(std::string(flag::json), o.json, "print the final report as JSON");
  cmd.add_flag(std::string(flag::dkg), o.dkg,
               "instead of serving sessions: take part in one distributed key generation of a verifiable chain (session "
               "--decryption-threshold dials this address), then end; needs --shuffler-key, no --config");
  cmd.add_option(std::string(flag::shuffler_key), o.shuffler_key,
                 "with --dkg: the shuffler's public key (64 hex digits, or its key file): only it may coordinate the key generation");
  cmd.add_option(std::string(flag::dkg_timeout_ms), o.dkg_timeout_ms, "with --dkg: how long to wait for the coordinator and for each of its steps (default 60000)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{86'400'000}));
  cmd.add_option(std::string(flag::fault_dkg_bad_share), o.fault_dkg_bad_share,
                 "fault injection, with --dkg: deal a wrong share to server I and repeat it when complained about (a cheating "
                 "dealer; it must be disqualified)")
      ->group("");
  cmd.add_flag(std::string(flag::fault_gone_after_mix), o.fault_gone_after_mix,
               "fault injection: go away once the first shuffle is answered (a server killed after the mix)")
      ->group("");
  cmd.add_flag(std::string(flag::fault_tamper), o.fault_tamper,
               "fault injection, in a verifiable chain: replace one record after proving the shuffle (a cheating server; the "
               "entry must name it)")
      ->group("");  // hidden: for local --tamper-mix-server and the tests
  cmd.add_option(std::string(flag::state_dir), o.state_dir,
                 "keep in DIR/<session> each round's answer (a verifiable chain's: and its decryption shares), with the digest of "
                 "what it answers, before it is sent: started again on it, this server answers the entry's same frame alike and "
                 "refuses another for a round it answered (docs/mix-chain.md)");
  add_fault_kill_at_option(cmd, o.fault_kill_at, {"received", "kept", "evidence", "shares"},
                           "received (a new batch read, not mixed), kept (its answer kept, not sent); a verifiable chain's also "
                           "evidence (a decrypt frame read, no share made), shares (its decryption shares kept, not sent)");
  cmd.add_option(std::string(flag::fault_adversary), o.fault_adversary,
                 "fault injection (local --fault-adversary role=mix-server-I,...): this server's frames mutated, type=T,mutation=M "
                 "(net/adversary.hpp)")
      ->group("");
}

std::vector<std::string> mix_server_argv(const std::string& executable, const MixServerArgs& o) {
  Argv argv(executable, node_command::mix_server);
  argv.add_repeated(flag::config, o.configs).add(flag::key, o.key).add(flag::listen, o.listen).add(flag::port_file, o.port_file);
  argv.add(o.link_shape).add(flag::hop, o.hop).add(flag::json, o.json).add(flag::dkg, o.dkg).add(flag::shuffler_key, o.shuffler_key);
  argv.add(flag::dkg_timeout_ms, o.dkg_timeout_ms, MixServerArgs{}.dkg_timeout_ms).add(flag::fault_dkg_bad_share, o.fault_dkg_bad_share);
  argv.add(flag::fault_gone_after_mix, o.fault_gone_after_mix).add(flag::fault_tamper, o.fault_tamper);
  argv.add(flag::fault_adversary, o.fault_adversary).add(flag::state_dir, o.state_dir).add(flag::fault_kill_at, o.fault_kill_at);
  return argv.take();
}

void add_mix_server_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(std::string(node_command::mix_server),
                                 "serve as a further server of a chain of mix servers: peel (or re-encrypt and prove), shuffle and sign "
                                 "each round's batch");
  auto o = std::make_shared<MixServerArgs>();
  define_mix_server_options(*cmd, *o);
  cmd->callback([o, &action] { action = [o] { return run_mix_server(*o); }; });
}

}  // namespace shufflempc::cli
