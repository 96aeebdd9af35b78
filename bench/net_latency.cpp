// Round latency of the TCP transport on loopback with N = 2, 16, 64 parties.
//
//   build/bin/bench/net_latency [--rounds R]
//
// A TcpShuffler thread and one TcpChannel hosting every party and the analyzer, each on its own
// authenticated link; each party sends one 1-byte message per round in ESA mode, so every
// message is sealed to the analyzer (crypto_box_seal) and opened by it. A round is one
// TcpChannel::exchange: seal and submit everything, until the analyzer holds the opened output.
// Baseline in the same run: the in-process channel (complete_round) on the same submissions.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "shufflempc/inproc.hpp"
#include "shufflempc/net/shuffler.hpp"
#include "shufflempc/net/tcp.hpp"

using namespace shufflempc;
using namespace shufflempc::net;
using Clock = std::chrono::steady_clock;

namespace {

Submissions one_byte_each(std::size_t n) {
  Submissions s;
  s.messages = MessageBatch(1);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t b = static_cast<std::uint8_t>(i);
    s.messages.push_back(std::span(&b, 1));
    s.parties.push_back({static_cast<PartyId>(i), i, 1});
  }
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::uint32_t rounds = 50;
  if (argc == 3 && std::string(argv[1]) == "--rounds") rounds = static_cast<std::uint32_t>(std::stoul(argv[2]));
  else if (argc != 1) {
    std::cerr << "usage: net_latency [--rounds R]\n";
    return 2;
  }
  fmt::print("round latency, median of {} rounds (1-byte messages, ESA mode: sealed to the analyzer)\n", rounds);
  fmt::print("{:>8} {:>14} {:>14} {:>18}\n", "parties", "TCP (ms)", "p90 TCP (ms)", "in-process (ms)");
  for (std::size_t n : {2, 16, 64}) {
    std::cerr << "n = " << n << "...\n";
    SystemRng rng;
    SessionConfig config;
    rng.fill(config.session);
    config.parties = n;
    config.deadline = std::chrono::seconds(30);
    const KeyPair shuffler_keys = KeyPair::generate(rng), analyzer_keys = KeyPair::generate(rng);
    config.shuffler_key = shuffler_keys.public_key();
    config.analyzer_key = analyzer_keys.public_key();
    std::vector<Identity> ids;
    for (std::size_t i = 0; i < n; ++i) {
      ids.push_back({static_cast<PartyId>(i), KeyPair::generate(rng)});
      config.party_keys.push_back(ids.back().keys.public_key());
    }
    ids.push_back({analyzer_id, analyzer_keys});
    std::vector<RoundShape> plan(rounds, RoundShape::exactly(wire_width(1, Delivery::analyzer_only), Delivery::analyzer_only, 1));
    config.rounds = plan;
    TcpShuffler shuffler(shuffler_keys, {config}, "127.0.0.1", 0);
    std::thread server([&] { (void)shuffler.run(); });
    std::vector<double> tcp, local;
    {
      TcpChannel channel(config, std::move(ids), "127.0.0.1", shuffler.port());
      InProcessChannel inproc(rng);
      for (std::uint32_t r = 0; r < rounds; ++r) {
        RoundRules spec;
        spec.round = r;
        spec.shape = RoundShape::exactly(1, Delivery::analyzer_only, 1);
        for (std::size_t i = 0; i < n; ++i) spec.expected.push_back(static_cast<PartyId>(i));
        spec.min_parties = n;
        auto t = Clock::now();
        const RoundOutcome out = channel.exchange(spec, one_byte_each(n));
        tcp.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
        if (!out.output || out.output->count() != n) {
          std::cerr << "round " << r << ": lost messages\n";
          return 1;
        }
        t = Clock::now();
        (void)inproc.exchange(spec, one_byte_each(n));
        local.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
      }
    }
    server.join();
    std::vector<double> sorted = tcp;
    std::sort(sorted.begin(), sorted.end());
    fmt::print("{:>8} {:>14.3f} {:>14.3f} {:>18.4f}\n", n, median(tcp), sorted[sorted.size() * 9 / 10], median(local));
  }
  return 0;
}
