#include "shufflempc/net/loopback.hpp"

#include <algorithm>
#include <exception>
#include <memory>
#include <stdexcept>
#include <thread>

#include "shufflempc/error.hpp"
#include "shufflempc/net/dkg.hpp"
#include "shufflempc/net/local.hpp"
#include "shufflempc/net/mix_server.hpp"
#include "shufflempc/process.hpp"
#include "shufflempc/net/shuffler.hpp"
#include "shufflempc/net/tcp.hpp"

namespace shufflempc::net {

namespace {

// A server run in its own thread; stopped (if still running) and joined when this ends.
template <class Server>
class ServerThread {
 public:
  explicit ServerThread(Server& server) : server_(server), thread_([this] {
    try {
      (void)server_.run();
    } catch (...) {
      error_ = std::current_exception();
    }
  }) {}
  ~ServerThread() {
    if (thread_.joinable()) {
      server_.stop();
      thread_.join();
    }
  }
  ServerThread(const ServerThread&) = delete;
  ServerThread& operator=(const ServerThread&) = delete;
  // Waits for the server to end; rethrows what it threw.
  void join() {
    thread_.join();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  Server& server_;
  std::exception_ptr error_;
  std::thread thread_;
};

LoopbackChainRun run_loopback(const Protocol& protocol, std::span<const Value> inputs, Rng& rng, std::size_t chain,
                              const RunOptions& options, MixKind kind = MixKind::decryption, const LoopbackFault& fault = {}) {
  SystemRng keys_rng;
  SessionConfig base;
  base.protocol = "(in-process)";
  base.min_parties = options.min_parties;
  base.deadline = options.deadline.count() > 0 ? options.deadline : std::chrono::milliseconds(60'000);
  base.rounds = wire_rounds(protocol, ChainSpec::make(chain, kind).hops(), kind);
  base.mix = kind;
  const LocalDeployment local = LocalDeployment::create(inputs.size(), keys_rng, std::move(base), chain);
  SessionConfig config = local.config;
  LoopbackChainRun run;
  if (fault.decryption_threshold > 0) {
    // The key generation over TCP among the chain's servers, before anything of the session runs.
    std::vector<std::unique_ptr<TcpDkgServer>> dealers;
    std::vector<std::unique_ptr<ServerThread<TcpDkgServer>>> dealer_threads;
    std::vector<std::string> addresses;
    for (std::size_t h = 0; h < local.further_server_keys.size(); ++h) {
      DkgServerOptions o;
      if (fault.bad_share && fault.bad_share->first == h + 1) o.bad_share_to = fault.bad_share->second;
      dealers.push_back(std::make_unique<TcpDkgServer>(local.further_server_keys[h], local.shuffler.public_key(), "127.0.0.1", 0, Logger{}, o));
      addresses.push_back("127.0.0.1:" + std::to_string(dealers.back()->port()));
    }
    for (auto& d : dealers) dealer_threads.push_back(std::make_unique<ServerThread<TcpDkgServer>>(*d));
    run.key_generation = generate_key(dkg_setup(config, fault.decryption_threshold), local.shuffler, addresses, config.deadline);
    for (auto& t : dealer_threads) t->join();
    config.distributed_key = std::make_shared<SessionConfig::DistributedKey>(
        SessionConfig::DistributedKey{run.key_generation->transcript, run.key_generation->outcome});
    config = SessionConfig::from_json(config.to_json());  // as every process reads it
  }

  // Both ends of every link live in this process: two sockets per link (the parties share theirs).
  const std::size_t capacity = link_capacity(config);
  ensure_descriptors(2 * ((inputs.size() + capacity - 1) / capacity + 1 + chain) + 64,
                     "run_over_loopback with " + std::to_string(inputs.size()) + " parties");
  std::vector<std::unique_ptr<TcpMixServer>> mixers;
  std::vector<std::unique_ptr<ServerThread<TcpMixServer>>> mixer_threads;
  ShufflerOptions shuffler_options;
  for (std::size_t h = 0; h < local.further_server_keys.size(); ++h) {
    MixServerOptions mo;
    if (fault.tamper && fault.hop == h + 1) mo.tamper = fault.tamper;
    if (fault.computing && fault.hop == h + 1) mo.computing = fault.computing;
    mo.gone_after_mix = std::find(fault.gone_after_mix.begin(), fault.gone_after_mix.end(), h + 1) != fault.gone_after_mix.end();
    mixers.push_back(std::make_unique<TcpMixServer>(local.further_server_keys[h], std::vector<SessionConfig>{config}, "127.0.0.1", 0, Logger{}, mo));
    shuffler_options.hop_addresses.push_back("127.0.0.1:" + std::to_string(mixers.back()->port()));
  }
  for (auto& m : mixers) mixer_threads.push_back(std::make_unique<ServerThread<TcpMixServer>>(*m));
  if (fault.tamper && fault.hop == 0)
    shuffler_options.tamper_admitted = [tamper = fault.tamper](std::uint32_t round, MessageBatch& admitted) {
      auto batch = mixnet::CiphertextBatch::from_bytes(admitted.width() / mixnet::ciphertext_bytes, admitted.bytes(), "the admitted batch");
      tamper(round, batch);
      admitted = MessageBatch::from_bytes(admitted.width(), batch.to_bytes());
    };
  if (fault.entry) shuffler_options.tamper_admitted = fault.entry;
  TcpShuffler shuffler(local.shuffler, {config}, "127.0.0.1", 0, {}, shuffler_options);
  ServerThread<TcpShuffler> server(shuffler);
  {  // the links close with the channel, so the shuffler sees every client leave
    TcpChannel channel(config, local.all_identities(), "127.0.0.1", shuffler.port(), {}, {.share_links = true, .tamper_records = fault.submitted});
    run.result = run_all_parties(protocol, channel, inputs, rng, options);
    run.reports = channel.hop_reports();
    run.transcript = channel.transcript();
  }
  server.join();
  for (auto& t : mixer_threads) t->join();
  return run;
}

}  // namespace

RunResult run_over_loopback(const Protocol& protocol, std::span<const Value> inputs, Rng& rng, const RunOptions& options) {
  return run_loopback(protocol, inputs, rng, 1, options).result;
}

LoopbackChainRun run_over_loopback_chain(const Protocol& protocol, std::span<const Value> inputs, Rng& rng, std::size_t mix_servers,
                                         const RunOptions& options, MixKind kind, const LoopbackFault& fault) {
  ChainSpec::make(mix_servers, kind).require_chain("a loopback chain run", "a chain");
  if ((fault.tamper || fault.computing) && fault.hop >= mix_servers)
    throw std::invalid_argument("the tampering hop must be in [0, " + std::to_string(mix_servers - 1) + "]");
  return run_loopback(protocol, inputs, rng, mix_servers, options, kind, fault);
}

RunResult run_over_shaped_loopback(const Protocol& protocol, std::span<const Value> inputs, Rng& rng, double rtt_ms, double mbps) {
  struct Restore {
    LinkShape before = link_shape();
    ~Restore() { set_link_shape(before); }
  } restore;
  set_link_shape({.delay = std::chrono::microseconds(static_cast<std::int64_t>(rtt_ms * 500.0)), .mbps = mbps});
  return run_over_loopback(protocol, inputs, rng);
}

}  // namespace shufflempc::net
