// One-round mechanisms: the adapter to Protocol (lib/include/shufflempc/mechanism.hpp) and the
// session-free OneRoundRun that studies and attacks use (pause, copy, continue).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "shufflempc/protocols/counting/mechanisms.hpp"
#include "shufflempc/mechanism.hpp"
#include "shufflempc/inproc.hpp"
#include "shufflempc/registry.hpp"

using namespace shufflempc;

namespace {

// Each party sends its byte plus two random bytes that cancel mod 256; the analyzer sums mod 256.
struct ByteSum {
  using Input = std::uint8_t;
  using Output = int;
  RoundShape shape() const { return RoundShape::exactly(1, Delivery::analyzer_only, 2); }
  std::uint8_t parse_input(PartyId id, const Value& v) const {
    if (!v.is_number_unsigned() || v.get<unsigned>() > 255) throw std::invalid_argument(party_name(id) + " must be a byte");
    return static_cast<std::uint8_t>(v.get<unsigned>());
  }
  std::uint8_t random_input(std::string_view, Rng& rng) const { return static_cast<std::uint8_t>(rng.uniform(256)); }
  void encode(std::uint8_t x, Rng& rng, MessageBatch& out) const {
    const auto r = static_cast<std::uint8_t>(rng.uniform(256));
    out.append()[0] = static_cast<std::uint8_t>(x + r);
    out.append()[0] = static_cast<std::uint8_t>(256 - r);
  }
  int analyze(const MessageBatch& shuffled, const RoundOutcome& outcome, Rng&) const {
    CHECK(shuffled.count() == 2 * outcome.submitted.size());
    unsigned s = 0;
    for (std::size_t i = 0; i < shuffled.count(); ++i) s += shuffled[i][0];
    return static_cast<int>(s % 256);
  }
  int truth(std::span<const std::uint8_t> xs) const {
    unsigned s = 0;
    for (auto x : xs) s += x;
    return static_cast<int>(s % 256);
  }
  Value describe() const { return {{"messages_per_party", 2}}; }
};

struct NoAnalyzer {
  using Input = int;
  using Output = int;
  RoundShape shape() const { return {1, Delivery::analyzer_only}; }
  int parse_input(PartyId, const Value&) const { return 0; }
  int random_input(std::string_view, Rng&) const { return 0; }
  void encode(int, Rng&, MessageBatch&) const {}
  Value describe() const { return {}; }
};

std::vector<std::string> sorted_messages(const MessageBatch& b) {
  std::vector<std::string> v;
  for (std::size_t i = 0; i < b.count(); ++i) v.emplace_back(b[i].begin(), b[i].end());
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

TEST_CASE("mechanism: the concept names what a mechanism must supply") {
  static_assert(Mechanism<ByteSum>);
  static_assert(!Mechanism<NoAnalyzer>);
  static_assert(Mechanism<counting::CountingMechanism>);
}

TEST_CASE("mechanism: make_one_round runs through the round driver with inputs, truth and errors") {
  auto protocol = make_one_round(ByteSum{});
  CHECK(protocol->rounds() == 1);
  CHECK(protocol->round(0).width == 1);
  CHECK(protocol->has_error());
  SeededRng rng(11);
  std::vector<Value> inputs;
  for (PartyId i = 0; i < 40; ++i) inputs.push_back(protocol->random_input(i, "", rng));
  const RunResult r = run_in_process(*protocol, inputs, rng);
  REQUIRE(protocol->truth(inputs).has_value());
  CHECK(r.output == *protocol->truth(inputs));
  CHECK(r.messages == 80);
  CHECK_THROWS_WITH_AS((void)protocol->make_party(7, 300), doctest::Contains("input of party 7 must be a byte"), std::invalid_argument);
  CHECK(protocol->describe()["messages_per_party"] == 2);
}

TEST_CASE("mechanism: OneRoundRun encodes what the round driver submits, party by party") {
  const ByteSum m;
  std::vector<std::uint8_t> xs;
  std::vector<Value> inputs;
  for (int i = 0; i < 25; ++i) {
    xs.push_back(static_cast<std::uint8_t>(i * 37));
    inputs.push_back(static_cast<unsigned>(i * 37 % 256));
  }
  // The driver draws its run generator as the first split of the caller's; party i's from its fork(i).
  SeededRng a(5), b(5);
  RunOptions options;
  options.record_view = true;
  auto protocol = make_one_round(m);
  const RunResult r = run_in_process(*protocol, inputs, a, options);
  const auto run_rng = b.split();
  OneRoundRun<ByteSum> run(m);
  run.add_all(xs, *run_rng);
  CHECK(run.parties() == 25);
  REQUIRE(r.view.size() == 1);
  CHECK(sorted_messages(run.messages()) == sorted_messages(r.view[0]));
}

TEST_CASE("mechanism: a paused run copied and continued gives the same messages as the original") {
  const ByteSum m;
  SeededRng rng(9);
  std::vector<std::uint8_t> first(10), second(10);
  for (int i = 0; i < 10; ++i) {
    first[i] = static_cast<std::uint8_t>(i);
    second[i] = static_cast<std::uint8_t>(100 + i);
  }
  OneRoundRun<ByteSum> run(m);
  run.add_all(first, rng);
  const OneRoundRun<ByteSum> paused = run;  // frozen after the first ten parties
  run.add_all(second, rng, 10);
  OneRoundRun<ByteSum> replay = paused;
  replay.add_all(second, rng, 10);
  CHECK(paused.parties() == 10);
  CHECK(paused.messages().count() == 20);
  CHECK(replay.messages().bytes().size() == run.messages().bytes().size());
  CHECK(std::equal(replay.messages().bytes().begin(), replay.messages().bytes().end(), run.messages().bytes().begin()));
  SeededRng s1(1), s2(1), a1(2), a2(2);
  const int out = run.finish(s1, a1);
  CHECK(out == replay.finish(s2, a2));
  int expected = 0;
  for (int i = 0; i < 10; ++i) expected += first[i] + second[i];
  CHECK(out == expected % 256);
  // A different continuation of the same paused run answers for different inputs.
  OneRoundRun<ByteSum> other = paused;
  other.add(10, 1, rng);
  CHECK(other.finish(s1, a1) == (45 + 1) % 256);
}

TEST_CASE("mechanism: bit inputs are counted by truth, printed as 0/1 and checked by name") {
  auto protocol = make_one_round(counting::CentralLaplaceMechanism{.epsilon = 1});
  const std::vector<Value> inputs = {1, 0, true, "1", "no"};
  CHECK(*protocol->truth(inputs) == 3);
  SeededRng rng(3);
  const Value x = protocol->random_input(0, "constant:1", rng);
  CHECK(x == 1);
  CHECK_THROWS_WITH_AS((void)protocol->make_party(4, 2), doctest::Contains("input of party 4 must be 0 or 1"), std::invalid_argument);
}

TEST_CASE("mechanism: every analyzer refuses a total its submitters could not have sent") {
  auto protocol = make_one_round(ByteSum{});  // exactly two messages per party
  auto analyzer = protocol->make_analyzer();
  SeededRng rng(12);
  RoundOutcome outcome;
  outcome.submitted = {0, 1, 2};
  MessageBatch five(1, 5), six(1, 6), seven(1, 7);
  CHECK_THROWS_WITH_AS(analyzer->receive(0, five, outcome, rng), doctest::Contains("5 messages from 3 parties, who may send 2 to 2 each"),
                       std::system_error);
  CHECK_THROWS_AS(analyzer->receive(0, seven, outcome, rng), std::system_error);
  analyzer->receive(0, six, outcome, rng);
  CHECK(analyzer->result() == 0);
}

TEST_CASE("counting analyzers check every message: a bit other than 0 or 1, a bin over- or under-filled") {
  MessageBatch bits(1);
  for (int i = 0; i < 4; ++i) bits.append()[0] = 1;
  CHECK(counting::analyze(bits, 2, 0) == 4);
  bits[2][0] = 2;
  CHECK_THROWS_WITH_AS((void)counting::analyze(bits, 2, 0), doctest::Contains("a message other than 0 or 1"), std::system_error);
  SeededRng rng(13);
  MessageBatch hist(counting::histogram_width);
  for (std::uint32_t x : {0u, 2u}) counting::encode_histogram(x, 3, counting::HistogramVariant::inverted, 0.1, rng, hist);
  (void)counting::analyze_histogram(hist, 3, counting::HistogramVariant::inverted, 2, 0.1);
  MessageBatch skewed = hist;  // a corrupt party's messages all for element 0: bins 1 and 2 short
  for (std::size_t i = 6; i < 12; ++i) store_le<std::uint16_t>(skewed[i].data(), 0);
  CHECK_THROWS_WITH_AS((void)counting::analyze_histogram(skewed, 3, counting::HistogramVariant::inverted, 2, 0.1),
                       doctest::Contains("messages for element 0 from 2 parties"), std::system_error);
  MessageBatch outside = hist;
  store_le<std::uint16_t>(outside[0].data(), 7);
  CHECK_THROWS_AS((void)counting::analyze_histogram(outside, 3, counting::HistogramVariant::inverted, 2, 0.1), std::system_error);
}

TEST_CASE("Protocol::trial: one execution without a driver, reproducible, its error is output - truth") {
  const Registry registry = builtin_registry();
  auto counting = registry.create("counting", {{"noise", "calibrated"}}, 5000);
  SeededRng a(3), b(3);
  const auto t = counting->trial(5000, "bernoulli:0.2", a);
  REQUIRE(t.has_value());
  CHECK(t->messages == 10000);
  CHECK(t->bytes == 10000);
  REQUIRE(t->error.has_value());
  CHECK(*t->max_error == doctest::Approx(std::fabs(*t->error)));
  const auto again = counting->trial(5000, "bernoulli:0.2", b);
  CHECK(again->output == t->output);
  // Constant inputs: the truth is known, so the error is the output minus it.
  const auto ones = counting->trial(5000, "constant:1", a);
  CHECK(*ones->error == doctest::Approx(ones->output.get<double>() - 5000));
  // Histograms: the error is the root mean square over the bins, the largest bin error beside it.
  auto histogram = registry.create("histogram", {{"domain", "4"}}, 5000);
  const auto h = histogram->trial(5000, "constant:2", a);
  double sq = 0, worst = 0;
  for (int e = 0; e < 4; ++e) {
    const double d = h->output[e].get<double>() - (e == 2 ? 5000 : 0);
    sq += d * d;
    worst = std::max(worst, std::fabs(d));
  }
  CHECK(*h->error == doctest::Approx(std::sqrt(sq / 4)));
  CHECK(*h->max_error == doctest::Approx(worst));
  // A bad input spec is refused with the accepted forms named; multi-round protocols have no trial.
  CHECK_THROWS_WITH_AS((void)counting->trial(10, "gaussian", a), doctest::Contains("bernoulli[:P]"), std::invalid_argument);
  CHECK_FALSE(registry.create("mpc2", {}, 3)->trial(3, "", a).has_value());
}
