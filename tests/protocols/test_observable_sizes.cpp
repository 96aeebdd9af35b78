// What an observer of the channel sees of a party besides its messages' contents: how many it
// sends and how wide they are. For every registered protocol these must not depend on the input
// (issue: counting-balcer-cheu once sent x + Bernoulli messages, revealing x for most parties).
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "shufflempc/error.hpp"
#include "shufflempc/inproc.hpp"
#include "shufflempc/registry.hpp"

using namespace shufflempc;

namespace {

// Forwards to the in-process channel and records, per round, each party's message count and width.
class RecordingChannel final : public AnonymousChannel {
 public:
  explicit RecordingChannel(Rng& rng) : inner_(rng) {}
  [[nodiscard]] RoundOutcome exchange(const RoundRules& rules, Submissions local) override {
    for (const auto& slice : local.parties) seen[{rules.round, slice.party}] = {slice.count, rules.shape.width};
    return inner_.exchange(rules, std::move(local));
  }
  std::map<std::pair<std::uint32_t, PartyId>, std::pair<std::size_t, std::size_t>> seen;

 private:
  InProcessChannel inner_;
};

std::unique_ptr<Protocol> small_instance(const Registry& registry, const ProtocolInfo& info, std::size_t& n) {
  for (std::size_t candidate : {std::size_t{2}, std::size_t{3}, std::size_t{6}, std::size_t{2000}}) {
    if (candidate < info.min_parties || candidate > info.max_parties) continue;
    try {
      auto p = registry.create(info.name, {}, candidate);
      n = candidate;
      return p;
    } catch (const std::invalid_argument&) {
    }
  }
  return nullptr;
}

}  // namespace

namespace {

// Runs `protocol` with n parties on two input vectors as far apart as its specs allow and checks that
// every party sent the same number of messages of the same width in both, within the declared counts.
void check_sizes_independent_of_input(const Protocol& protocol, std::size_t n) {
  // Two input vectors as far apart as the protocol's specs allow (all zeros / all ones, all "no"
  // / all "yes"), else two independent random draws.
  std::vector<std::vector<Value>> vectors;
  for (const auto& [lo, hi] : std::vector<std::pair<std::string, std::string>>{{"constant:0", "constant:1"}, {"constant:no", "constant:yes"}, {"", ""}}) {
    try {
      SeededRng a(1), b(2);
      std::vector<Value> x, y;
      for (PartyId i = 0; i < n; ++i) {
        x.push_back(protocol.random_input(i, lo, a));
        y.push_back(protocol.random_input(i, hi, b));
      }
      vectors = {x, y};
      break;
    } catch (const std::invalid_argument&) {
    }
  }
  REQUIRE(vectors.size() == 2);
  std::vector<std::map<std::pair<std::uint32_t, PartyId>, std::pair<std::size_t, std::size_t>>> views;
  for (const auto& inputs : vectors) {
    SeededRng rng(3);
    RecordingChannel channel(rng);
    RoundDriver driver(protocol, channel, rng, n);
    for (PartyId i = 0; i < n; ++i) driver.add_party(i, inputs[i]);
    driver.host_analyzer();
    (void)driver.run({});
    views.push_back(channel.seen);
  }
  CHECK(views[0] == views[1]);
  // Where the protocol declares a fixed count, every party sent exactly that many.
  for (std::uint32_t r = 0; r < protocol.rounds(); ++r) {
    const RoundShape shape = protocol.round(r);
    CHECK(shape.max_messages >= shape.min_messages);
    for (PartyId i = 0; i < n; ++i) {
      const auto it = views[0].find({r, i});
      REQUIRE(it != views[0].end());
      CHECK(shape.accepts(it->second.first));
    }
  }
}

}  // namespace

TEST_CASE("every registered protocol sends a number and width of messages that do not depend on the input") {
  const Registry registry = builtin_registry();
  for (const auto& info : registry.all()) {
    INFO("protocol " << info.name);
    std::size_t n = 0;
    auto protocol = small_instance(registry, info, n);
    REQUIRE_MESSAGE(protocol != nullptr, "no small configuration of " << info.name << " was accepted");
    check_sizes_independent_of_input(*protocol, n);
  }
}

TEST_CASE("the circuit protocol's other variants (v2 at n = 4 and 7, v3, bgw) send counts and widths that do not depend on the input") {
  const Registry registry = builtin_registry();
  for (const auto& [variant, n] : std::vector<std::pair<std::string, std::size_t>>{{"v2", 4}, {"v2", 7}, {"v3", 3}, {"bgw", 3}}) {
    INFO("circuit --variant " << variant << ", n = " << n);
    check_sizes_independent_of_input(*registry.create("circuit", {{"variant", variant}}, n), n);
  }
}
