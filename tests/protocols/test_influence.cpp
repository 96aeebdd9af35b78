// What one lying party can do to a DP count: every protocol that declares `max_influence` in its
// describe() is held to it. The liar replaces its honest messages by the same number of copies of
// each possible byte (an impossible one is discarded, so that too is a lie), and the output may
// move by at most the declared influence from the honest run's. The robustness pages cite this.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "shufflempc/random.hpp"
#include "shufflempc/registry.hpp"

using namespace shufflempc;

TEST_CASE("influence: one lying party moves a DP count by at most the protocol's declared max_influence") {
  const Registry registry = builtin_registry();
  std::size_t checked = 0;
  for (const auto& info : registry.all()) {
    std::unique_ptr<Protocol> p;
    try {
      p = registry.create(info.name, {}, 2000);
    } catch (const std::invalid_argument&) {
      continue;
    }
    const Value d = p->describe();
    if (!d.contains("max_influence")) continue;
    CAPTURE(info.name);
    REQUIRE(p->rounds() == 1);
    REQUIRE(p->round(0).width == 1);
    const double influence = d["max_influence"].get<double>();
    SeededRng rng(11);
    MessageBatch batch(1);
    RoundOutcome outcome;
    std::size_t first = 0, count = 0;  // party 0's slice
    for (std::size_t i = 0; i < 2000; ++i) {
      const auto id = static_cast<PartyId>(i);
      const std::size_t before = batch.count();
      p->make_party(id, p->random_input(id, "", rng))->send(0, rng, batch);
      if (i == 0) count = batch.count() - before;
      outcome.submitted.push_back(id);
    }
    outcome.messages = batch.count();
    const auto output = [&](const MessageBatch& b) {
      SeededRng analyzer_rng(12);  // the same analyzer randomness (central noise) for every run
      auto a = p->make_analyzer();
      a->receive(0, b, outcome, analyzer_rng);
      return a->result().get<double>();
    };
    const double honest = output(batch);
    for (int v = 0; v < 256; ++v) {
      MessageBatch lie = batch;
      for (std::size_t k = first; k < first + count; ++k) lie[k][0] = static_cast<std::uint8_t>(v);
      CHECK_MESSAGE(std::fabs(output(lie) - honest) <= influence + 1e-9, "byte " << v);
    }
    ++checked;
  }
  CHECK(checked >= 6);  // counting, counting-balcer-cheu, randomized-response, central-laplace, counting-rr-amplified, counting-correlated
}

TEST_CASE("influence: Balcer-Cheu's exact zero lets one party move the output by n gamma + 2, as declared") {
  // All-zero data: the count c is Binomial(n, 1 - gamma) of the dummies' units, and the output is 0
  // while c <= n. Built here with c = n exactly, one more unit from a liar makes it n gamma + 1.
  const Registry registry = builtin_registry();
  const auto p = registry.create("counting-balcer-cheu", {}, 2000);
  const double gamma = p->describe()["gamma"].get<double>();
  MessageBatch batch(1);
  RoundOutcome outcome;
  for (PartyId i = 0; i < 2000; ++i) {
    batch.append()[0] = 1;  // every party's second message a unit, the first a 0
    batch.append()[0] = 0;
    outcome.submitted.push_back(i);
  }
  outcome.messages = batch.count();
  SeededRng rng(13);
  auto a = p->make_analyzer();
  a->receive(0, batch, outcome, rng);
  CHECK(a->result().get<double>() == 0);
  batch[1][0] = 1;  // party 0 lies: x = 1
  auto b = p->make_analyzer();
  b->receive(0, batch, outcome, rng);
  const double jump = b->result().get<double>();
  CHECK(jump == doctest::Approx(2000 * gamma + 1));
  CHECK(jump <= p->describe()["max_influence"].get<double>());
}
