// MessageBatch, the channel's round completion, parameters, the registry and the RoundDriver.
#include <doctest/doctest.h>

#include "shufflempc/channel.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/net/inproc.hpp"
#include "shufflempc/params.hpp"
#include "shufflempc/registry.hpp"

using namespace shufflempc;

TEST_CASE("MessageBatch: fixed width, contiguous, checked") {
  MessageBatch b(3);
  b.push_back(std::vector<std::uint8_t>{1, 2, 3});
  auto m = b.append();
  m[0] = 9;
  CHECK(b.count() == 2);
  CHECK(b.size_bytes() == 6);
  CHECK(b[1][0] == 9);
  CHECK_THROWS_AS(b.push_back(std::vector<std::uint8_t>{1, 2}), std::invalid_argument);
  CHECK_THROWS_AS(MessageBatch(0), std::invalid_argument);
  CHECK_THROWS_AS(MessageBatch(MessageBatch::max_width + 1), std::invalid_argument);
  CHECK_THROWS_AS(MessageBatch::from_bytes(4, std::vector<std::uint8_t>(7)), std::invalid_argument);
  MessageBatch c(3);
  c.append(b, 1, 1);
  CHECK(c.count() == 1);
  CHECK(c[0][0] == 9);
  CHECK_THROWS_AS(c.append(MessageBatch(4, 1)), std::invalid_argument);
}

namespace {
Submissions subs(std::size_t width, std::vector<std::pair<PartyId, std::size_t>> parties) {
  Submissions s;
  s.messages = MessageBatch(width);
  for (auto [id, n] : parties) {
    const std::size_t first = s.messages.count();
    for (std::size_t i = 0; i < n; ++i) s.messages.append()[0] = static_cast<std::uint8_t>(id);
    s.parties.push_back({id, first, n});
  }
  return s;
}
RoundRules spec(std::size_t parties, std::size_t min) {
  RoundRules r;
  r.width = 1;
  for (PartyId i = 0; i < parties; ++i) r.expected.push_back(i);
  r.min_parties = min;
  return r;
}
Errc code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::system_error& e) {
    return static_cast<Errc>(e.code().value());
  }
  return Errc{};
}
}  // namespace

TEST_CASE("complete_round: shuffles everything, reports dropouts, refuses bad rounds with clear codes") {
  SeededRng rng(51);
  auto out = complete_round(spec(4, 3), subs(1, {{0, 2}, {1, 1}, {3, 3}}), rng);
  CHECK(out.messages == 6);
  CHECK(out.submitted == std::vector<PartyId>{0, 1, 3});
  CHECK(out.dropped == std::vector<PartyId>{2});
  std::vector<int> per(4, 0);
  for (std::size_t i = 0; i < out.output->count(); ++i) per[(*out.output)[i][0]]++;
  CHECK(per == std::vector<int>{2, 1, 0, 3});

  CHECK(code_of([&] { (void)complete_round(spec(4, 4), subs(1, {{0, 1}, {1, 1}, {3, 1}}), rng); }) == Errc::too_few_parties);
  CHECK(code_of([&] { (void)complete_round(spec(4, 1), subs(1, {{0, 1}, {0, 1}}), rng); }) == Errc::duplicate_submission);
  CHECK(code_of([&] { (void)complete_round(spec(4, 1), subs(1, {{9, 1}}), rng); }) == Errc::unknown_party);
  CHECK(code_of([&] { (void)complete_round(spec(4, 1), subs(2, {{0, 1}}), rng); }) == Errc::protocol_violation);
  try {
    (void)complete_round(spec(4, 4), subs(1, {{0, 1}}), rng);
  } catch (const std::system_error& e) {
    CHECK(std::string(e.what()).find("1 of 4 parties submitted, at least 4 needed") != std::string::npos);
  }
  // Silent parties (empty batches) are not dropouts.
  auto quiet = complete_round(spec(2, 2), subs(1, {{0, 0}, {1, 2}}), rng);
  CHECK(quiet.dropped.empty());
  CHECK(quiet.messages == 2);
}

TEST_CASE("Params: defaults, types, ranges and choices, with messages naming the parameter and its range") {
  std::vector<ParamSpec> schema = {
      {.name = "epsilon", .type = ParamType::real, .default_value = "1", .min = 0.0, .max = 1.0, .min_exclusive = true},
      {.name = "k", .type = ParamType::integer, .default_value = "8", .min = 1.0, .max = 256.0},
      {.name = "mode", .type = ParamType::choice, .default_value = "a", .choices = {"a", "b"}},
      {.name = "flag", .type = ParamType::boolean, .default_value = "false"},
  };
  const auto p = Params::parse(schema, {{"k", "16"}, {"flag", "yes"}});
  CHECK(p.real("epsilon") == 1.0);
  CHECK(p.integer("k") == 16);
  CHECK(p.text("mode") == "a");
  CHECK(p.boolean("flag"));
  CHECK_THROWS_WITH_AS(Params::parse(schema, {{"epsilon", "0"}}), "parameter 'epsilon' = 0 is out of range: must be a number in (0, 1]", std::invalid_argument);
  CHECK_THROWS_WITH_AS(Params::parse(schema, {{"k", "1.5"}}), doctest::Contains("an integer in [1, 256]"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(Params::parse(schema, {{"mode", "c"}}), doctest::Contains("one of: a, b"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(Params::parse(schema, {{"kk", "1"}}), doctest::Contains("unknown parameter 'kk'"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(Params::parse(schema, {{"epsilon", "abc"}}), doctest::Contains("is not a number"), std::invalid_argument);
  CHECK(Params::parse(schema, {{"k", "1e2"}}).integer("k") == 100);
}

TEST_CASE("the builtin registry knows the counting family and refuses unknown names and party counts") {
  const Registry r = builtin_registry();
  for (const char* name : {"counting", "histogram", "counting-balcer-cheu", "randomized-response", "central-laplace"})
    CHECK_MESSAGE(r.find(name) != nullptr, name);
  CHECK_THROWS_WITH_AS((void)r.get("nope"), doctest::Contains("unknown protocol 'nope' (known: "), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)r.create("counting", {}, 0), doctest::Contains("parties = 0 is out of range"), std::invalid_argument);
}

namespace {
// A two-round MPC-mode protocol: in round 0 every party sends its id; in round 1 party 0 alone sends
// the number of messages it saw. Checks delivery to parties, silent parties and the driver's bookkeeping.
class EchoProtocol final : public Protocol {
 public:
  std::uint32_t rounds() const override { return 2; }
  RoundShape round(std::uint32_t r) const override { return {4, r == 0 ? Delivery::all_parties : Delivery::analyzer_only}; }
  std::unique_ptr<Party> make_party(PartyId id, const Value&) const override { return std::make_unique<P>(id); }
  std::unique_ptr<Analyzer> make_analyzer() const override { return std::make_unique<A>(); }
  Value random_input(PartyId, std::string_view, Rng&) const override { return nullptr; }

 private:
  struct P final : Party {
    explicit P(PartyId id) : id(id) {}
    void send(std::uint32_t r, Rng&, MessageBatch& out) override {
      if (r == 0) store_le<std::uint32_t>(out.append().data(), id);
      else if (id == 0) store_le<std::uint32_t>(out.append().data(), seen);
    }
    void receive(std::uint32_t, const MessageBatch& output, const RoundOutcome&) override { seen = static_cast<std::uint32_t>(output.count()); }
    Value output() const override { return seen; }
    PartyId id;
    std::uint32_t seen = 0;
  };
  struct A final : Analyzer {
    void receive(std::uint32_t r, const MessageBatch& output, const RoundOutcome& o, Rng&) override {
      if (r == 1) value = load_le<std::uint32_t>(output[0].data()) * 1000 + o.submitted.size();
    }
    Value result() override { return value; }
    std::uint64_t value = 0;
  };
};
}  // namespace

TEST_CASE("RoundDriver: MPC delivery, silent parties, dropouts and the recorded view") {
  EchoProtocol proto;
  std::vector<Value> inputs(5, nullptr);
  SeededRng rng(52);
  RunOptions opts;
  opts.record_view = true;
  auto res = net::run_in_process(proto, inputs, rng, opts);
  CHECK(res.output == 5005);  // party 0 saw 5 messages; 5 parties submitted in round 1 (four silently)
  CHECK(res.rounds.size() == 2);
  CHECK(res.messages == 6);
  CHECK(res.view.size() == 2);
  CHECK(res.party_outputs.at(3) == 5);

  opts.dropouts = {{2, 0}, {4, 1}};
  opts.min_parties = 3;
  res = net::run_in_process(proto, inputs, rng, opts);
  CHECK(res.dropped == std::vector<PartyId>{2, 4});
  CHECK(res.output == 4003);
  CHECK(res.rounds[0].dropped == std::vector<PartyId>{2});
  CHECK(res.rounds[1].dropped == std::vector<PartyId>{4});
  CHECK(res.party_outputs.count(2) == 0);

  opts.min_parties = 5;
  CHECK_THROWS_AS((void)net::run_in_process(proto, inputs, rng, opts), std::system_error);
}

TEST_CASE("two runs with the same generator never share randomness; a seed replays a run") {
  const Registry registry = builtin_registry();
  auto proto = registry.create("counting", {{"noise", "calibrated"}}, 3000);
  std::vector<Value> inputs(3000, 0);
  SeededRng rng(53);
  RunOptions opts;
  opts.record_view = true;
  const auto a = net::run_in_process(*proto, inputs, rng, opts);
  const auto b = net::run_in_process(*proto, inputs, rng, opts);
  // Same inputs, same generator object: the noise and the permutation must be fresh.
  CHECK_FALSE(a.view[0] == b.view[0]);
  SeededRng replay(53);
  const auto c = net::run_in_process(*proto, inputs, replay, opts);
  CHECK(c.view[0] == a.view[0]);
  CHECK(c.output == a.output);
  // split() children differ from each other; fork(label) children repeat.
  CHECK(rng.split()->next_u64() != rng.split()->next_u64());
  CHECK(rng.fork(9)->next_u64() == rng.fork(9)->next_u64());
}

TEST_CASE("parties sending on several threads give exactly the messages each party computes alone") {
  // 20000 hosted parties: several blocks when the machine has several cores. Recompute every party's
  // messages from the documented generators (run = rng.split(), party p in round 0: run.fork(p)) and
  // compare the multiset with what the channel received.
  const std::size_t n = 20000;
  const Registry registry = builtin_registry();
  auto proto = registry.create("counting", {{"noise", "calibrated"}}, n);
  std::vector<Value> inputs;
  for (std::size_t i = 0; i < n; ++i) inputs.push_back(static_cast<int>(i % 3 == 0));
  SeededRng rng(54);
  RunOptions opts;
  opts.record_view = true;
  const auto res = net::run_in_process(*proto, inputs, rng, opts);

  SeededRng again(54);
  const auto run_rng = again.split();
  MessageBatch expected(1);
  for (PartyId id = 0; id < n; ++id) {
    auto party = proto->make_party(id, inputs[id]);
    auto party_rng = run_rng->fork(id);
    party->send(0, *party_rng, expected);
  }
  auto count_ones = [](const MessageBatch& b) {
    std::size_t ones = 0;
    for (std::size_t i = 0; i < b.count(); ++i) ones += b[i][0];
    return ones;
  };
  REQUIRE(res.view.size() == 1);
  CHECK(res.view[0].count() == expected.count());
  CHECK(count_ones(res.view[0]) == count_ones(expected));
}
