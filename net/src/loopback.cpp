#include "shufflempc/net/loopback.hpp"

#include <exception>
#include <thread>

#include "shufflempc/error.hpp"
#include "shufflempc/net/local.hpp"
#include "shufflempc/process.hpp"
#include "shufflempc/net/tcp.hpp"

namespace shufflempc::net {

RunResult run_over_loopback(const Protocol& protocol, std::span<const Value> inputs, Rng& rng, const RunOptions& options) {
  SystemRng keys_rng;
  SessionConfig base;
  base.protocol = "(in-process)";
  base.min_parties = options.min_parties;
  base.deadline = options.deadline.count() > 0 ? options.deadline : std::chrono::milliseconds(60'000);
  base.rounds = wire_rounds(protocol);
  const LocalDeployment local = LocalDeployment::create(inputs.size(), keys_rng, std::move(base));
  const SessionConfig& config = local.config;

  // Both ends of every link live in this process: two sockets per link (the parties share theirs).
  const std::size_t capacity = link_capacity(config);
  ensure_descriptors(2 * ((inputs.size() + capacity - 1) / capacity + 1) + 64,
                     "run_over_loopback with " + std::to_string(inputs.size()) + " parties");
  TcpShuffler shuffler(local.shuffler, {config}, "127.0.0.1", 0);
  std::vector<ShufflerReport> reports;
  std::exception_ptr shuffler_error;
  std::thread server([&] {
    try {
      reports = shuffler.run();
    } catch (...) {
      shuffler_error = std::current_exception();
    }
  });
  try {
    RunResult result;
    {  // the links close with the channel, so the shuffler sees every client leave
      TcpChannel channel(config, local.all_identities(), "127.0.0.1", shuffler.port(), {}, {.share_links = true});
      result = run_all_parties(protocol, channel, inputs, rng, options);
    }
    server.join();
    if (shuffler_error) std::rethrow_exception(shuffler_error);
    return result;
  } catch (...) {
    shuffler.stop();
    server.join();
    throw;
  }
}

}  // namespace shufflempc::net
