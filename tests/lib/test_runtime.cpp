// The round driver (lib/include/shufflempc/runtime.hpp): delivery, dropouts, views, randomness, threads,
// and a channel that fails at each of its exchanges in turn.
#include <doctest/doctest.h>

#include "shufflempc/error.hpp"
#include "shufflempc/inproc.hpp"
#include "shufflempc/parallel.hpp"
#include "shufflempc/registry.hpp"
#include "support/failing_channel.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

using namespace shufflempc;

namespace {
// A two-round MPC-mode protocol: in round 0 every party sends its id; in round 1 party 0 alone sends
// the number of messages it saw. Checks delivery to parties, silent parties and the driver's bookkeeping.
class EchoProtocol final : public Protocol {
 public:
  std::uint32_t rounds() const override { return 2; }
  RoundShape round(std::uint32_t r) const override {
    return r == 0 ? RoundShape::exactly(4, Delivery::all_parties, 1) : RoundShape{4, Delivery::analyzer_only, 0, 1};
  }
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

// Three heavy parties: parties 1 and 2 each wait until the other has started, so they complete
// only if the driver runs them at the same time. Party 0's send and receive take at least 1 ms
// (spinning on the clock, more than RoundDriver::heavy_party), or, if the protocol declares its
// parties heavy, no time. Each party sends three messages (its id, then 0, 1, 2) and counts the
// messages it receives.
class HeavyProtocol final : public Protocol {
 public:
  explicit HeavyProtocol(bool declared) : declared(declared) {}
  bool heavy_parties() const override { return declared; }
  std::uint32_t rounds() const override { return 1; }
  RoundShape round(std::uint32_t) const override { return RoundShape::exactly(2, Delivery::all_parties, 3); }
  std::unique_ptr<Party> make_party(PartyId id, const Value&) const override { return std::make_unique<P>(id, *this); }
  std::unique_ptr<Analyzer> make_analyzer() const override { return std::make_unique<A>(); }
  Value random_input(PartyId, std::string_view, Rng&) const override { return nullptr; }

  // started[phase][party]: set when that party's send (0) or receive (1) begins.
  mutable std::atomic<bool> started[2][3] = {};
  mutable std::atomic<bool> timed_out{false};
  const bool declared;

 private:
  struct P final : Party {
    P(PartyId id, const HeavyProtocol& proto) : id(id), proto(proto) {}
    void work(int phase) {
      proto.started[phase][id] = true;
      const auto start = std::chrono::steady_clock::now();
      if (id == 0) {
        while (!proto.declared && std::chrono::steady_clock::now() - start < std::chrono::milliseconds(1)) {
        }
        return;
      }
      const PartyId other = id == 1 ? 2 : 1;
      while (!proto.started[phase][other]) {
        if (std::chrono::steady_clock::now() - start > std::chrono::seconds(30)) {
          proto.timed_out = true;  // run one after the other: the other never started
          return;
        }
        std::this_thread::yield();
      }
    }
    void send(std::uint32_t, Rng&, MessageBatch& out) override {
      work(0);
      for (std::uint8_t k = 0; k < 3; ++k) {
        auto m = out.append();
        m[0] = static_cast<std::uint8_t>(id);
        m[1] = k;
      }
    }
    void receive(std::uint32_t, const MessageBatch& output, const RoundOutcome&) override {
      work(1);
      seen = output.count();
    }
    Value output() const override { return seen; }
    PartyId id;
    const HeavyProtocol& proto;
    std::size_t seen = 0;
  };
  struct A final : Analyzer {
    void receive(std::uint32_t, const MessageBatch&, const RoundOutcome&, Rng&) override {}
    Value result() override { return nullptr; }
  };
};

// Heavy parties made from their inputs: making party 1 and party 2 each waits until the other's has
// started, so both are made only if the driver makes them at the same time. An input "bad" throws
// an error naming the party. Every party sends nothing.
class SlowToMakeProtocol final : public Protocol {
 public:
  explicit SlowToMakeProtocol(bool heavy) : heavy(heavy) {}
  bool heavy_parties() const override { return heavy; }
  std::uint32_t rounds() const override { return 1; }
  RoundShape round(std::uint32_t) const override { return RoundShape{2, Delivery::analyzer_only, 0, 1}; }
  std::unique_ptr<Party> make_party(PartyId id, const Value& input) const override {
    if (input == "bad") throw std::invalid_argument("party " + std::to_string(id) + "'s input is bad");
    started[id] = true;
    if (id == 1 || id == 2) {
      const auto start = std::chrono::steady_clock::now();
      while (!started[id == 1 ? 2 : 1]) {
        if (std::chrono::steady_clock::now() - start > std::chrono::seconds(30)) {
          timed_out = true;  // made one after the other: the other was never started
          break;
        }
        std::this_thread::yield();
      }
    }
    return std::make_unique<P>();
  }
  std::unique_ptr<Analyzer> make_analyzer() const override { return std::make_unique<A>(); }
  Value random_input(PartyId, std::string_view, Rng&) const override { return nullptr; }

  mutable std::atomic<bool> started[4] = {};
  mutable std::atomic<bool> timed_out{false};
  const bool heavy;

 private:
  struct P final : Party {
    void send(std::uint32_t, Rng&, MessageBatch&) override {}
    void receive(std::uint32_t, const MessageBatch&, const RoundOutcome&) override {}
    Value output() const override { return nullptr; }
  };
  struct A final : Analyzer {
    void receive(std::uint32_t, const MessageBatch&, const RoundOutcome&, Rng&) override {}
    Value result() override { return "done"; }
  };
};

// Heavy parties of which parties 1 and 2 fail, in `send` or in `receive`: party 2 at once, party 1
// only once party 2 has failed (or after 30 s, made one after the other). Spread over threads,
// party 2's error comes first in time; the driver must still report party 1's.
class TwoFailuresProtocol final : public Protocol {
 public:
  explicit TwoFailuresProtocol(bool in_send) : in_send(in_send) {}
  bool heavy_parties() const override { return true; }
  std::uint32_t rounds() const override { return 1; }
  RoundShape round(std::uint32_t) const override { return RoundShape::exactly(2, Delivery::all_parties, 1); }
  std::unique_ptr<Party> make_party(PartyId id, const Value&) const override { return std::make_unique<P>(*this, id); }
  std::unique_ptr<Analyzer> make_analyzer() const override { return std::make_unique<A>(); }
  Value random_input(PartyId, std::string_view, Rng&) const override { return nullptr; }

  void fail(PartyId id) const {
    if (id == 2) {
      failed_2 = true;
      throw std::runtime_error("party 2 failed");
    }
    if (id != 1) return;
    const auto start = std::chrono::steady_clock::now();
    while (!failed_2 && std::chrono::steady_clock::now() - start < std::chrono::seconds(30)) std::this_thread::yield();
    throw std::runtime_error("party 1 failed");
  }
  mutable std::atomic<bool> failed_2{false};
  const bool in_send;

 private:
  struct P final : Party {
    P(const TwoFailuresProtocol& proto, PartyId id) : proto(proto), id(id) {}
    void send(std::uint32_t, Rng&, MessageBatch& out) override {
      if (proto.in_send) proto.fail(id);
      std::fill_n(out.append().begin(), 2, std::uint8_t{0});
    }
    void receive(std::uint32_t, const MessageBatch&, const RoundOutcome&) override {
      if (!proto.in_send) proto.fail(id);
    }
    Value output() const override { return nullptr; }
    const TwoFailuresProtocol& proto;
    PartyId id;
  };
  struct A final : Analyzer {
    void receive(std::uint32_t, const MessageBatch&, const RoundOutcome&, Rng&) override {}
    Value result() override { return nullptr; }
  };
};
}  // namespace

TEST_CASE("RoundDriver: when several heavy parties fail in a round, the error is the lowest party's, whatever the threads' timing") {
  if (hardware_threads() < 2) {
    MESSAGE("one hardware thread: the parties cannot fail out of order here");
    return;
  }
  for (const bool in_send : {true, false}) {
    CAPTURE(in_send);
    TwoFailuresProtocol proto(in_send);
    SeededRng rng(58);
    CHECK_THROWS_WITH_AS((void)run_in_process(proto, std::vector<Value>(4, nullptr), rng), "party 1 failed", std::runtime_error);
    CHECK(proto.failed_2.load());  // party 2 ran too, and failed first when the threads were several
  }
}

namespace {
// A wide round (4 parties of 1 MiB each, read by all: 16 MiB of reading), where party 1, the
// analyzer, both or neither fail on receiving.
class WideRoundProtocol final : public Protocol {
 public:
  WideRoundProtocol(bool party_fails, bool analyzer_fails) : party_fails(party_fails), analyzer_fails(analyzer_fails) {}
  std::uint32_t rounds() const override { return 1; }
  RoundShape round(std::uint32_t) const override { return RoundShape::exactly(1024, Delivery::all_parties, 1024); }
  std::unique_ptr<Party> make_party(PartyId id, const Value&) const override { return std::make_unique<P>(*this, id); }
  std::unique_ptr<Analyzer> make_analyzer() const override { return std::make_unique<A>(*this); }
  Value random_input(PartyId, std::string_view, Rng&) const override { return nullptr; }
  const bool party_fails, analyzer_fails;
  mutable std::atomic<int> readers{0};

 private:
  struct P final : Party {
    P(const WideRoundProtocol& proto, PartyId id) : proto(proto), id(id) {}
    void send(std::uint32_t, Rng&, MessageBatch& out) override {
      for (int i = 0; i < 1024; ++i) out.append()[0] = static_cast<std::uint8_t>(id);
    }
    void receive(std::uint32_t, const MessageBatch& output, const RoundOutcome&) override {
      ++proto.readers;
      if (output.count() != 4096) throw std::logic_error("a party read a round of " + std::to_string(output.count()) + " messages");
      if (proto.party_fails && id == 1) throw std::runtime_error("party 1 failed");
    }
    Value output() const override { return nullptr; }
    const WideRoundProtocol& proto;
    PartyId id;
  };
  struct A final : Analyzer {
    explicit A(const WideRoundProtocol& proto) : proto(proto) {}
    void receive(std::uint32_t, const MessageBatch& output, const RoundOutcome&, Rng&) override {
      ++proto.readers;
      if (proto.analyzer_fails) throw std::runtime_error("the analyzer failed");
      count = output.count();
    }
    Value result() override { return count; }
    const WideRoundProtocol& proto;
    std::size_t count = 0;
  };
};
}  // namespace

TEST_CASE("RoundDriver: in a wide round the analyzer reads with the parties, and a party's error still comes before the analyzer's") {
  SeededRng rng(61);
  {
    WideRoundProtocol proto(false, false);
    const RunResult r = run_in_process(proto, std::vector<Value>(4, nullptr), rng);
    CHECK(r.output == 4096);
    CHECK(proto.readers.load() == 5);
  }
  {
    WideRoundProtocol proto(true, true);
    CHECK_THROWS_WITH_AS((void)run_in_process(proto, std::vector<Value>(4, nullptr), rng), "party 1 failed", std::runtime_error);
  }
  {
    WideRoundProtocol proto(false, true);
    CHECK_THROWS_WITH_AS((void)run_in_process(proto, std::vector<Value>(4, nullptr), rng), "the analyzer failed", std::runtime_error);
    CHECK(proto.readers.load() == 5);  // every party read the round too
  }
}

TEST_CASE("RoundDriver: heavy parties are made from their inputs on several threads, and a bad input names the lowest such party") {
  SUBCASE("made at the same time") {
    if (hardware_threads() < 2) {
      MESSAGE("one hardware thread: the parties cannot be made at the same time here");
      return;
    }
    SlowToMakeProtocol proto(true);
    SeededRng rng(56);
    const auto res = run_in_process(proto, std::vector<Value>(4, nullptr), rng);
    CHECK_FALSE(proto.timed_out.load());
    CHECK(res.output == "done");
  }
  SUBCASE("two bad inputs: the error is the lower party's, spread or not") {
    for (const bool heavy : {true, false}) {
      CAPTURE(heavy);
      for (int rep = 0; rep < 20; ++rep) {
        SlowToMakeProtocol proto(heavy);
        SeededRng rng(57);
        const std::vector<Value> inputs = {nullptr, "bad", "bad", nullptr};
        CHECK_THROWS_WITH_AS((void)run_in_process(proto, inputs, rng), "party 1's input is bad", std::invalid_argument);
      }
    }
  }
}

TEST_CASE("RoundDriver: a few heavy parties send and receive on several threads, and every message arrives once") {
  if (hardware_threads() < 2) {
    MESSAGE("one hardware thread: the parties cannot run at the same time here");
    return;
  }
  bool declared = false;
  SUBCASE("seen to be heavy: party 0 took over 250 us") { declared = false; }
  SUBCASE("declared heavy: Protocol::heavy_parties") { declared = true; }
  HeavyProtocol proto(declared);
  SeededRng rng(55);
  RunOptions opts;
  opts.record_view = true;
  const auto res = run_in_process(proto, std::vector<Value>(3, nullptr), rng, opts);
  CHECK_FALSE(proto.timed_out.load());
  REQUIRE(res.view.size() == 1);
  std::multiset<std::pair<int, int>> got;
  for (std::size_t i = 0; i < res.view[0].count(); ++i) got.insert({res.view[0][i][0], res.view[0][i][1]});
  std::multiset<std::pair<int, int>> want;
  for (int id = 0; id < 3; ++id)
    for (int k = 0; k < 3; ++k) want.insert({id, k});
  CHECK(got == want);
  for (PartyId id = 0; id < 3; ++id) CHECK(res.party_outputs.at(id) == 9);
}

TEST_CASE("RoundDriver: MPC delivery, silent parties, dropouts and the recorded view") {
  EchoProtocol proto;
  std::vector<Value> inputs(5, nullptr);
  SeededRng rng(52);
  RunOptions opts;
  opts.record_view = true;
  auto res = run_in_process(proto, inputs, rng, opts);
  CHECK(res.output == 5005);  // party 0 saw 5 messages; 5 parties submitted in round 1 (four silently)
  CHECK(res.rounds.size() == 2);
  CHECK(res.messages == 6);
  CHECK(res.view.size() == 2);
  CHECK(res.party_outputs.at(3) == 5);

  opts.dropouts = {{2, 0}, {4, 1}};
  opts.min_parties = 3;
  res = run_in_process(proto, inputs, rng, opts);
  CHECK(res.dropped == std::vector<PartyId>{2, 4});
  CHECK(res.output == 4003);
  CHECK(res.rounds[0].dropped == std::vector<PartyId>{2});
  CHECK(res.rounds[1].dropped == std::vector<PartyId>{4});
  CHECK(res.party_outputs.count(2) == 0);

  opts.min_parties = 5;
  CHECK_THROWS_AS((void)run_in_process(proto, inputs, rng, opts), std::system_error);
}

TEST_CASE("two runs with the same generator never share randomness, a seed replays a run") {
  const Registry registry = builtin_registry();
  auto proto = registry.create("counting", {{"noise", "calibrated"}}, 3000);
  std::vector<Value> inputs(3000, 0);
  SeededRng rng(53);
  RunOptions opts;
  opts.record_view = true;
  const auto a = run_in_process(*proto, inputs, rng, opts);
  const auto b = run_in_process(*proto, inputs, rng, opts);
  // Same inputs, same generator object: the noise and the permutation must be fresh.
  CHECK_FALSE(a.view[0] == b.view[0]);
  SeededRng replay(53);
  const auto c = run_in_process(*proto, inputs, replay, opts);
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
  const auto res = run_in_process(*proto, inputs, rng, opts);

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

TEST_CASE("RoundDriver: a channel failing at its N-th exchange ends the run with that error, for every N") {
  // The six rounds of card-and and the two of the echo protocol: every failure point is reached,
  // the error comes out unchanged, and no later round is attempted.
  const Registry registry = builtin_registry();
  auto cards = registry.create("card-and", {}, 2);
  EchoProtocol echo;
  struct Case {
    const Protocol* protocol;
    std::vector<Value> inputs;
  };
  for (const Case& c : {Case{cards.get(), {"yes", "no"}}, Case{&echo, std::vector<Value>(4, nullptr)}}) {
    for (std::size_t n = 0; n < c.protocol->rounds(); ++n) {
      SeededRng rng(60 + n);
      InProcessChannel inner(rng);
      test::FailingChannel channel(inner, n);
      RoundDriver driver(*c.protocol, channel, rng, c.inputs.size());
      for (std::size_t i = 0; i < c.inputs.size(); ++i) driver.add_party(static_cast<PartyId>(i), c.inputs[i]);
      driver.host_analyzer();
      try {
        (void)driver.run({});
        FAIL("the run completed although exchange " << n << " failed");
      } catch (const std::system_error& e) {
        CHECK(e.code() == Errc::peer_closed);
        CHECK(std::string(e.what()).find("failing at exchange " + std::to_string(n)) != std::string::npos);
      }
      CHECK(channel.exchanges() == n + 1);
    }
    // Past the last round the channel never fails: the run completes.
    SeededRng rng(70);
    InProcessChannel inner(rng);
    test::FailingChannel channel(inner, c.protocol->rounds());
    RoundDriver driver(*c.protocol, channel, rng, c.inputs.size());
    for (std::size_t i = 0; i < c.inputs.size(); ++i) driver.add_party(static_cast<PartyId>(i), c.inputs[i]);
    driver.host_analyzer();
    CHECK_FALSE(driver.run({}).output.is_null());
  }
}
