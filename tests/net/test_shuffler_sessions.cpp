// One TcpShuffler serving two sessions at once: each session's parties and analyzer see only
// their own session's messages.
#include <doctest/doctest.h>

#include <set>
#include <thread>

#include "shufflempc/net/shuffler.hpp"
#include "shufflempc/net/tcp.hpp"

namespace {

using namespace shufflempc;
using namespace shufflempc::net;

struct Keys {
  SessionConfig config;
  std::vector<Identity> ids;
};

Keys make_session(Rng& rng, const KeyPair& shuffler, std::size_t n) {
  Keys k;
  rng.fill(k.config.session);
  k.config.parties = n;
  k.config.deadline = std::chrono::seconds(20);
  k.config.shuffler_key = shuffler.public_key();
  k.config.rounds = {RoundShape::exactly(1, Delivery::all_parties, 1)};
  for (std::size_t i = 0; i < n; ++i) {
    k.ids.push_back({static_cast<PartyId>(i), KeyPair::generate(rng)});
    k.config.party_keys.push_back(k.ids.back().keys.public_key());
  }
  const KeyPair analyzer = KeyPair::generate(rng);
  k.config.analyzer_key = analyzer.public_key();
  k.ids.push_back({analyzer_id, analyzer});
  return k;
}

// Every party sends one 1-byte message `tag + id` in MPC mode; returns the output bytes.
std::multiset<std::uint8_t> one_round(Keys k, std::uint16_t port, std::uint8_t tag) {
  const std::size_t n = k.config.parties;
  TcpChannel channel(k.config, std::move(k.ids), "127.0.0.1", port);
  RoundRules spec;
  spec.shape = RoundShape::exactly(1, Delivery::all_parties, 1);
  Submissions local;
  local.messages = MessageBatch(1);
  for (std::size_t i = 0; i < n; ++i) {
    spec.expected.push_back(static_cast<PartyId>(i));
    const std::uint8_t b = static_cast<std::uint8_t>(tag + i);
    local.messages.push_back(std::span(&b, 1));
    local.parties.push_back({static_cast<PartyId>(i), i, 1});
  }
  const RoundOutcome out = channel.exchange(spec, std::move(local));
  REQUIRE(out.output.has_value());
  std::multiset<std::uint8_t> got;
  for (std::size_t i = 0; i < out.output->count(); ++i) got.insert((*out.output)[i][0]);
  return got;
}

}  // namespace

TEST_CASE("one shuffler serves two sessions without mixing their messages") {
  SeededRng rng(31);  // test keys only
  const KeyPair shuffler_keys = KeyPair::generate(rng);
  Keys a = make_session(rng, shuffler_keys, 3), b = make_session(rng, shuffler_keys, 5);
  TcpShuffler shuffler(shuffler_keys, {a.config, b.config}, "127.0.0.1", 0);
  std::vector<ShufflerReport> reports;
  std::thread server([&] { reports = shuffler.run(); });
  std::multiset<std::uint8_t> got_b;
  std::thread other([&] { got_b = one_round(b, shuffler.port(), 100); });
  const auto got_a = one_round(a, shuffler.port(), 10);
  other.join();
  server.join();
  CHECK(got_a == std::multiset<std::uint8_t>{10, 11, 12});
  CHECK(got_b == std::multiset<std::uint8_t>{100, 101, 102, 103, 104});
  REQUIRE(reports.size() == 2);
  CHECK(reports[0].error.empty());
  CHECK(reports[1].error.empty());
  CHECK(reports[1].rounds.at(0).messages == 5);
}
