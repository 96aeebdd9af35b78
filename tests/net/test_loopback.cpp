// run_over_loopback: every registered protocol over real TCP links on 127.0.0.1.
#include <doctest/doctest.h>

#include "shufflempc/error.hpp"
#include "shufflempc/inproc.hpp"
#include "shufflempc/net/loopback.hpp"
#include "shufflempc/registry.hpp"
#include "support/small_protocols.hpp"

using namespace shufflempc;
using shufflempc::test::kind;

TEST_CASE("run_over_loopback gives counting the same estimate as run_in_process") {
  const Registry registry = builtin_registry();
  auto protocol = registry.create("counting", {{"noise", "calibrated"}}, 200);
  std::vector<Value> inputs;
  for (int i = 0; i < 200; ++i) inputs.push_back(i % 3 == 0 ? 1 : 0);
  // The estimate does not depend on the order of the messages, and parties draw from the same
  // forks of the seeded generator whatever the transport: the two runs must agree exactly.
  SeededRng a(7), b(7);
  const RunResult local = run_in_process(*protocol, inputs, a);
  const RunResult tcp = net::run_over_loopback(*protocol, inputs, b);
  CHECK(tcp.output == local.output);
  CHECK(tcp.messages == local.messages);
  CHECK(tcp.bytes == local.bytes);
  CHECK(tcp.dropped.empty());
}

TEST_CASE("every registered protocol runs over loopback TCP with the same kind of result as in-process") {
  const Registry registry = builtin_registry();
  for (const auto& info : registry.all()) {
    CAPTURE(info.name);
    const auto [protocol, inputs] = shufflempc::test::small_run(registry, info);
    SeededRng a(3), b(3);
    const RunResult local = run_in_process(*protocol, inputs, a);
    const RunResult tcp = net::run_over_loopback(*protocol, inputs, b);
    CHECK(kind(tcp.output) == kind(local.output));
    CHECK(tcp.messages == local.messages);
    CHECK(tcp.bytes == local.bytes);
    CHECK(tcp.rounds.size() == local.rounds.size());
    REQUIRE(tcp.party_outputs.size() == local.party_outputs.size());
    for (const auto& [id, v] : local.party_outputs) CHECK(kind(tcp.party_outputs.at(id)) == kind(v));
  }
}

TEST_CASE("run_over_loopback reports simulated dropouts and completes with the minimum") {
  const Registry registry = builtin_registry();
  auto protocol = registry.create("counting", {{"noise", "calibrated"}}, 100);
  std::vector<Value> inputs(100, 1);
  RunOptions options;
  options.dropouts = {{2, 0}, {7, 0}};
  options.min_parties = 98;
  SeededRng rng(5);
  const RunResult r = net::run_over_loopback(*protocol, inputs, rng, options);
  CHECK(r.dropped == std::vector<PartyId>{2, 7});
}

TEST_CASE("run_over_loopback fails with too_few_parties when the minimum is not met") {
  const Registry registry = builtin_registry();
  auto protocol = registry.create("counting", {{"noise", "calibrated"}}, 100);
  std::vector<Value> inputs(100, 0);
  RunOptions options;
  options.dropouts = {{0, 0}, {1, 0}, {2, 0}};
  options.min_parties = 98;
  SeededRng rng(5);
  try {
    (void)net::run_over_loopback(*protocol, inputs, rng, options);
    FAIL("the run should have been aborted");
  } catch (const std::system_error& e) {
    CHECK(e.code() == Errc::session_aborted);
    CHECK(std::string(e.what()).find("97 of 100 parties submitted, at least 98 needed; missing: parties 0-2") != std::string::npos);
  }
}
