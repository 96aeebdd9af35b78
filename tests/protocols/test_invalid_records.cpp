// One party cannot veto a one-round DP protocol's result: a message no honest party could send
// (a bit byte of 0xff, an element outside the domain, a share outside Z_q) or a record the channel
// could not open is discarded and counted, the run stands; a party sending more than its share is
// still refused (shufflempc/mechanism.hpp, docs/SECURITY.md).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <system_error>

#include "shufflempc/error.hpp"
#include "shufflempc/random.hpp"
#include "shufflempc/registry.hpp"
#include "support/errors.hpp"

using namespace shufflempc;

namespace {

struct Round {
  MessageBatch messages;
  RoundOutcome outcome;
};

// Every party's honest round-0 messages, unshuffled (the analyzer's result does not depend on the order).
Round honest_round(const Protocol& p, std::size_t n, Rng& rng) {
  Round r{MessageBatch(p.round(0).width), {}};
  for (std::size_t i = 0; i < n; ++i) {
    const auto id = static_cast<PartyId>(i);
    p.make_party(id, p.random_input(id, "", rng))->send(0, rng, r.messages);
    r.outcome.submitted.push_back(id);
  }
  r.outcome.messages = r.messages.count();
  return r;
}

Value analyze(const Protocol& p, const Round& r, Rng& rng, Value* details = nullptr) {
  auto a = p.make_analyzer();
  a->receive(0, r.messages, r.outcome, rng);
  if (details != nullptr) *details = a->details();
  return a->result();
}

}  // namespace

TEST_CASE("invalid records: one party's impossible message is discarded and counted, the DP result stands") {
  const Registry registry = builtin_registry();
  for (const char* name : {"counting", "counting-balcer-cheu", "randomized-response", "central-laplace", "histogram",
                           "histogram-central-laplace", "counting-rr-amplified", "histogram-rr-amplified", "split-mix-sum",
                           "split-mix-dp-sum", "sum-central-laplace", "xor-sum-exact", "xor-sum-rr", "counting-correlated",
                           "sum-recursive", "sum-blanket", "sum-harmony"}) {
    CAPTURE(name);
    const auto p = registry.create(name, {}, 2000);
    SeededRng rng(7);
    Round r = honest_round(*p, 2000, rng);
    Value details;
    (void)analyze(*p, r, rng, &details);
    CHECK_FALSE(details.contains("discarded_records"));  // an honest run discards nothing
    auto bad = r.messages[0];
    std::fill(bad.begin(), bad.end(), std::uint8_t{0xff});
    const Value out = analyze(*p, r, rng, &details);
    CHECK_FALSE(out.is_null());
    CHECK(details["discarded_records"] == 1);
  }
}

TEST_CASE("invalid records: a record the channel could not open counts toward the total and is reported") {
  const Registry registry = builtin_registry();
  const auto p = registry.create("counting", {{"noise", "calibrated"}}, 2000);
  SeededRng rng(3);
  Round r = honest_round(*p, 2000, rng);
  r.messages.resize(r.messages.count() - 1);  // one sealed record did not open
  r.outcome.discarded = 1;
  Value details;
  CHECK_FALSE(analyze(*p, r, rng, &details).is_null());
  CHECK(details["discarded_records"] == 1);
  // Without the channel's count, the same round is one message short: refused.
  r.outcome.discarded = 0;
  CHECK(test::code_of([&] { (void)analyze(*p, r, rng); }) == Errc::protocol_violation);
}

TEST_CASE("invalid records: more messages than the parties' share, or one histogram bin flooded, is still refused") {
  const Registry registry = builtin_registry();
  const auto counting = registry.create("counting", {{"noise", "calibrated"}}, 2000);
  SeededRng rng(5);
  Round r = honest_round(*counting, 2000, rng);
  r.messages.append()[0] = 1;  // a third message from someone
  CHECK(test::code_of([&] { (void)analyze(*counting, r, rng); }) == Errc::protocol_violation);

  const auto histogram = registry.create("histogram", {{"noise", "calibrated"}, {"domain", "4"}}, 2000);
  Round h = honest_round(*histogram, 2000, rng);
  // A party moves its message for element 1 to element 0: the total is right, bin 0 has 2n + 1.
  for (std::size_t i = 0; i < h.messages.count(); ++i)
    if (load_le<std::uint16_t>(h.messages[i].data()) == 1) {
      store_le<std::uint16_t>(h.messages[i].data(), 0);
      break;
    }
  CHECK(test::code_of([&] { (void)analyze(*histogram, h, rng); }) == Errc::protocol_violation);
}
