// Every registered protocol over an in-process chain of mix hops (net/mix_chain.hpp): the parties'
// messages wear the onion, every hop peels, shuffles and signs, and the result is run_in_process's
// for the same seed; each round's reports name every hop.
#include <doctest/doctest.h>

#include "shufflempc/inproc.hpp"
#include "shufflempc/net/mix_chain.hpp"
#include "shufflempc/registry.hpp"
#include "support/small_protocols.hpp"

using namespace shufflempc;

TEST_CASE("mix chain: every registered protocol runs unchanged over 1 and 3 in-process hops, with run_in_process's seeded result" * doctest::test_suite("full")) {
  const Registry registry = builtin_registry();
  for (const auto& info : registry.all()) {
    CAPTURE(info.name);
    const auto [protocol, inputs] = shufflempc::test::small_run(registry, info);
    for (const std::size_t hops : {1u, 3u}) {
      CAPTURE(hops);
      SeededRng a(3), b(3);
      const RunResult local = run_in_process(*protocol, inputs, a);
      const auto run = net::run_over_mix_chain(*protocol, inputs, b, hops);
      const RunResult& chained = run.result;
      CHECK(run.reports.size() == local.rounds.size());
      // The parties' messages are the same (the same forks of the seed); the output does not depend
      // on their order.
      CHECK(chained.output == local.output);
      CHECK(chained.messages == local.messages);
      CHECK(chained.bytes == local.bytes);
      CHECK(chained.party_outputs == local.party_outputs);
    }
  }
}

TEST_CASE("mix chain: each round's reports name every hop with what it received and sent, and a chain length out of range is refused") {
  const Registry registry = builtin_registry();
  auto protocol = registry.create("counting", {{"noise", "calibrated"}}, 200);
  std::vector<Value> inputs(200, 1);
  SeededRng rng(4);
  const auto run = net::run_over_mix_chain(*protocol, inputs, rng, 3);
  const RunResult& r = run.result;
  REQUIRE(run.reports.size() == 1);  // counting: one round
  const auto& round = run.reports[0];
  REQUIRE(round.size() == 3);
  for (std::size_t h = 0; h < 3; ++h) {
    CHECK(round[h].place.hop == h);
    CHECK(round[h].records_in == 400);  // two messages a party
    CHECK(round[h].records_out == 400);
    CHECK(round[h].not_opened == 0);
    if (h > 0) CHECK(round[h].received == round[h - 1].sent);
  }
  CHECK(r.messages == 400);
  CHECK_THROWS_WITH_AS(net::InProcessMixChain(0, rng), doctest::Contains("mix servers must be in [1, 16], got 0"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(net::InProcessMixChain(17, rng), doctest::Contains("mix servers must be in [1, 16], got 17"), std::invalid_argument);
}
