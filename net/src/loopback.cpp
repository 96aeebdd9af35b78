#include "shufflempc/net/loopback.hpp"

#include <exception>
#include <thread>

#include "shufflempc/error.hpp"
#include "shufflempc/net/tcp.hpp"

namespace shufflempc::net {

RunResult run_over_loopback(const Protocol& protocol, std::span<const Value> inputs, Rng& rng, const RunOptions& options) {
  SystemRng keys_rng;
  SessionConfig config;
  keys_rng.fill(config.session);
  config.protocol = "(in-process)";
  config.parties = inputs.size();
  config.min_parties = options.min_parties;
  config.deadline = options.deadline.count() > 0 ? options.deadline : std::chrono::milliseconds(60'000);
  const KeyPair shuffler_keys = KeyPair::generate(keys_rng);
  const KeyPair analyzer_keys = KeyPair::generate(keys_rng);
  config.shuffler_key = shuffler_keys.public_key();
  config.analyzer_key = analyzer_keys.public_key();
  std::vector<Identity> identities;
  identities.reserve(inputs.size() + 1);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    identities.push_back({static_cast<PartyId>(i), KeyPair::generate(keys_rng)});
    config.party_keys.push_back(identities.back().keys.public_key());
  }
  identities.push_back({analyzer_id, analyzer_keys});

  TcpShuffler shuffler(shuffler_keys, {{config, wire_rounds(protocol)}}, "127.0.0.1", 0);
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
      TcpChannel channel(config, std::move(identities), "127.0.0.1", shuffler.port());
      RoundDriver session(protocol, channel, rng, inputs.size());
      for (std::size_t i = 0; i < inputs.size(); ++i) session.add_party(static_cast<PartyId>(i), inputs[i]);
      session.host_analyzer();
      result = session.run(options);
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
