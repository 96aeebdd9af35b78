// IKOS key exchange: exact success probability against independently computed figures, exhaustive two-party
// enumeration (agreement, the eavesdropper's knowledge, a view independent of the key), all-pairs
// runs through the registry (success rate, agreement), an eavesdropper's guessing rate, errors.
#include <doctest/doctest.h>


#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <map>
#include <string>
#include <system_error>

#include "shufflempc/protocols/ikos_key_exchange/ikos.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/inproc.hpp"
#include "shufflempc/registry.hpp"
#include "shufflempc/shuffle.hpp"

namespace ikos = shufflempc::ikos;
using shufflempc::MessageBatch;
using shufflempc::SeededRng;
using shufflempc::Value;

namespace {

// Two-sided acceptance interval for Binomial(n, p) at total false-failure probability 1e-9.
std::pair<double, double> binomial_interval(double n, double p) {
  const boost::math::binomial_distribution<double> d(n, p);
  return {boost::math::quantile(d, 5e-10), boost::math::quantile(boost::math::complement(d, 5e-10))};
}

bool key_bit(const ikos::Key& key, std::size_t t) { return ((key[t / 8] >> (t % 8)) & 1u) != 0; }

}  // namespace

TEST_CASE("ikos: exact success probability reproduces the independently computed figures") {
  // Spec section 1: P[Bin(3k, 1/2) >= k].
  CHECK(ikos::success_probability(1, 3).success == 0.875);
  CHECK(ikos::success_probability(1, 1).success == 0.5);  // the one-bit protocol
  CHECK(ikos::success_probability(8, 24).success == doctest::Approx(0.968043).epsilon(6e-7));
  CHECK(ikos::success_probability(16, 48).success == doctest::Approx(0.993358).epsilon(6e-7));
  CHECK(ikos::success_probability(32, 96).success == doctest::Approx(0.999663).epsilon(6e-7));
  CHECK(ikos::success_probability(64, 192).failure == doctest::Approx(1.09e-6).epsilon(0.005));
  CHECK(ikos::success_probability(128, 384).failure == doctest::Approx(1.5e-11).epsilon(0.04));
  CHECK(ikos::success_probability(256, 768).failure == doctest::Approx(3.9e-21).epsilon(0.013));
  // favourable = sum_{j >= k} C(L, j): for L = 6, k = 2 that is 64 - 1 - 6.
  CHECK(ikos::success_probability(2, 6).favourable == 57);
  // Against Boost.Math's binomial cdf (floating point, independent code).
  for (std::uint32_t k : {1u, 5u, 8u, 40u, 128u, 1000u}) {
    const boost::math::binomial_distribution<double> d(3.0 * k, 0.5);
    const auto p = ikos::success_probability(k, 3 * k);
    CHECK(p.failure == doctest::Approx(boost::math::cdf(d, k - 1.0)).epsilon(1e-9));
    CHECK(p.success + p.failure == doctest::Approx(1.0).epsilon(1e-15));
  }
}

TEST_CASE("ikos: exhaustive two-party runs - agreement, eavesdropper knowledge, view independent of the key") {
  for (auto [k, L] : {std::pair{1u, 1u}, {1u, 3u}, {2u, 6u}, {3u, 6u}}) {
    CAPTURE(k);
    CAPTURE(L);
    const auto config = ikos::configure(2, k, L);
    const std::uint32_t outcomes = 1u << (2 * L);
    std::uint64_t successes = 0;
    // view (the output multiset as sorted bytes) -> key value -> number of (a, b) giving both.
    std::map<std::string, std::map<std::uint32_t, std::uint64_t>> joint;
    std::map<std::string, std::uint64_t> view_total;
    for (std::uint32_t ab = 0; ab < outcomes; ++ab) {
      std::vector<std::uint8_t> a(L), b(L);
      for (std::uint32_t l = 0; l < L; ++l) {
        a[l] = (ab >> l) & 1u;
        b[l] = (ab >> (L + l)) & 1u;
      }
      ikos::KeyExchange p0(config, 0), p1(config, 1);
      MessageBatch out(ikos::message_width);
      p0.send_bits(a, out);
      p1.send_bits(b, out);
      // The shuffle's order is uniform and independent of everything: the multiset is the view.
      std::vector<std::string> msgs;
      for (std::size_t i = 0; i < out.count(); ++i) msgs.emplace_back(out[i].begin(), out[i].end());
      std::sort(msgs.begin(), msgs.end());
      MessageBatch view(ikos::message_width);
      std::string view_bytes;
      for (const auto& m : msgs) {
        view.push_back(std::span(reinterpret_cast<const std::uint8_t*>(m.data()), m.size()));
        view_bytes += m;
      }
      p0.receive(view);
      p1.receive(view);
      ikos::Eavesdropper eve(config);
      eve.observe(view);
      const auto ev = eve.view(1, 0);

      std::vector<std::uint32_t> differing;
      for (std::uint32_t l = 0; l < L; ++l)
        if (a[l] != b[l]) differing.push_back(l);
      const bool success = differing.size() >= k;
      const auto& k0 = p0.key_with(1);
      const auto& k1 = p1.key_with(0);
      REQUIRE(k0.agreed == success);
      REQUIRE(k1.agreed == success);
      REQUIRE(ev.success == success);
      REQUIRE(ev.differing == differing);
      REQUIRE(ev.known.size() == L - differing.size());
      for (auto [l, bit] : ev.known) REQUIRE((a[l] == bit && b[l] == bit));
      if (!success) continue;
      ++successes;
      REQUIRE(k0.key == k1.key);
      REQUIRE(k0.differing == differing.size());
      std::uint32_t key_value = 0;
      for (std::uint32_t t = 0; t < k; ++t) {
        REQUIRE(key_bit(k0.key, t) == (a[differing[t]] == 1));  // the first party's bits on D
        REQUIRE(ev.key_labels[t] == differing[t]);
        key_value |= std::uint32_t{key_bit(k0.key, t)} << t;
      }
      joint[view_bytes][key_value] += 1;
      view_total[view_bytes] += 1;
    }
    // Success: exactly 2^L * favourable of the 2^(2L) equally likely (a, b).
    CHECK(ikos::success_probability(k, L).favourable * (std::uint64_t{1} << L) == successes);
    // Every successful view occurs equally often with each of the 2^k keys: P(view | key) does not
    // depend on the key, so the observer learns nothing about it.
    for (const auto& [view, by_key] : joint) {
      REQUIRE(by_key.size() == (std::size_t{1} << k));
      for (const auto& [key, count] : by_key) REQUIRE((count << k) == view_total[view]);
    }
  }
}

TEST_CASE("ikos: all pairs through the registry - success rate matches the formula, keys agree" * doctest::test_suite("slow")) {
  // 2223 runs of 10 parties (45 pairs each) give N = 100035 independent pairs at k = 8. The number
  // of successful pairs is Binomial(N, 0.968043...); a correct implementation leaves the exact
  // two-sided 1e-9 interval with probability below 1e-9.
  const auto registry = shufflempc::builtin_registry();
  const std::size_t n = 10;
  const auto protocol = registry.create("ikos-key-exchange", {{"k", "8"}, {"show-keys", "true"}}, n);
  const std::vector<Value> inputs(n, nullptr);
  SeededRng rng(20240501);
  std::uint64_t pairs = 0, successes = 0;
  for (int run = 0; run < 2223; ++run) {
    auto run_rng = rng.fork(static_cast<std::uint64_t>(run));
    const auto result = shufflempc::run_in_process(*protocol, inputs, *run_rng);
    const Value& eve = result.output;
    REQUIRE(eve["pairs"] == 45);
    pairs += 45;
    successes += eve["pairs_agreed"].get<std::uint64_t>();
    REQUIRE(eve["success"] == (eve["pairs_agreed"] == 45));
    REQUIRE(eve["eavesdropper"]["key_bits_known"] == 0);
    std::uint64_t agreed_views = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
      const Value& out = result.party_outputs.at(i);
      for (std::uint32_t j = 0; j < n; ++j) {
        if (i == j) continue;
        const Value& other = result.party_outputs.at(j);
        const bool has = out["keys"].contains(std::to_string(j));
        REQUIRE(has == other["keys"].contains(std::to_string(i)));
        if (!has) continue;
        REQUIRE(out["keys"][std::to_string(j)] == other["keys"][std::to_string(i)]);
        REQUIRE(out["keys"][std::to_string(j)].get<std::string>().size() == 2);
        ++agreed_views;
      }
    }
    REQUIRE(agreed_views == 2 * eve["pairs_agreed"].get<std::uint64_t>());
  }
  const double p = ikos::success_probability(8, 24).success;
  const auto [lo, hi] = binomial_interval(static_cast<double>(pairs), p);
  CAPTURE(successes);
  CHECK(static_cast<double>(successes) >= lo);
  CHECK(static_cast<double>(successes) <= hi);
  CHECK(static_cast<double>(successes) / static_cast<double>(pairs) == doctest::Approx(0.9680).epsilon(0.005));
}

TEST_CASE("ikos: an eavesdropper guessing key bits from its view is right half of the time") {
  // Eve guesses key bit t as the common bit at label t if she knows it (right if the parties had
  // wrongly used the first k labels), else as the known bit nearest to the key bit's label, else 0.
  // Correct guesses over N key bits are Binomial(N, 1/2) for a correct protocol; exact 1e-9 bounds.
  const auto config = ikos::configure(2, 8);
  SeededRng rng(77);
  std::uint64_t bits = 0, right = 0;
  for (std::uint64_t run = 0; run < 20000; ++run) {
    ikos::KeyExchange p0(config, 0), p1(config, 1);
    MessageBatch out(ikos::message_width);
    p0.send(*rng.fork(3 * run), out);
    p1.send(*rng.fork(3 * run + 1), out);
    shufflempc::shuffle(out, *rng.fork(3 * run + 2));
    p0.receive(out);
    p1.receive(out);
    ikos::Eavesdropper eve(config);
    eve.observe(out);
    const auto v = eve.view(0, 1);
    const auto& key = p1.key_with(0);
    REQUIRE(key.agreed == v.success);
    if (!v.success) continue;
    REQUIRE(p0.key_with(1).key == key.key);
    std::map<std::uint32_t, bool> known(v.known.begin(), v.known.end());
    for (std::uint32_t t = 0; t < config.key_bits; ++t) {
      bool guess = false;
      if (auto it = known.find(t); it != known.end()) guess = it->second;
      else if (auto near = known.lower_bound(v.key_labels[t]); near != known.end()) guess = near->second;
      else if (!known.empty()) guess = known.rbegin()->second;
      ++bits;
      if (guess == key_bit(key.key, t)) ++right;
    }
  }
  const auto [lo, hi] = binomial_interval(static_cast<double>(bits), 0.5);
  CAPTURE(bits);
  CAPTURE(right);
  CHECK(static_cast<double>(right) >= lo);
  CHECK(static_cast<double>(right) <= hi);
}

TEST_CASE("ikos: seeded runs repeat, dropouts fail only their pairs, bad input is refused") {
  const auto registry = shufflempc::builtin_registry();
  const auto protocol = registry.create("ikos-key-exchange", {{"k", "16"}, {"show-keys", "true"}}, 5);
  const std::vector<Value> inputs(5, nullptr);
  SeededRng a(5), b(5);
  CHECK(shufflempc::run_in_process(*protocol, inputs, a).party_outputs ==
        shufflempc::run_in_process(*protocol, inputs, b).party_outputs);

  shufflempc::RunOptions options;
  options.dropouts[2] = 0;
  options.min_parties = 4;
  SeededRng c(6);
  const auto result = shufflempc::run_in_process(*protocol, inputs, c, options);
  CHECK(result.output["success"] == false);
  CHECK(result.party_outputs.count(2) == 0);
  for (const auto& pair : result.output["failed_pairs"]) CHECK((pair[0] == 2 || pair[1] == 2));
  for (std::uint32_t i : {0u, 1u, 3u, 4u}) {
    const auto failed = result.party_outputs.at(i)["failed_with"].get<std::vector<int>>();
    CHECK(std::find(failed.begin(), failed.end(), 2) != failed.end());
  }

  // Keys appear only when asked for.
  const auto quiet = registry.create("ikos-key-exchange", {{"k", "16"}}, 3);
  SeededRng d(7);
  const std::vector<Value> three(3, nullptr);
  const auto r = shufflempc::run_in_process(*quiet, three, d);
  CHECK_FALSE(r.party_outputs.at(0).contains("keys"));
  CHECK(r.party_outputs.at(0)["agreed_with"].size() + r.party_outputs.at(0)["failed_with"].size() == 2);

  // --show-view: the eavesdropper's knowledge of each pair, consistent with the agreed keys.
  const auto viewing = registry.create("ikos-key-exchange", {{"k", "8"}, {"show-view", "true"}}, 4);
  SeededRng e(8);
  const std::vector<Value> four(4, nullptr);
  const auto seen = shufflempc::run_in_process(*viewing, four, e);
  const Value& pairs = seen.output["eavesdropper"]["pairs"];
  REQUIRE(pairs.size() == 6);
  for (const Value& pv : pairs) {
    const auto differing = pv["differing_labels"].get<std::vector<std::uint32_t>>();
    CHECK(differing.size() + pv["known_bits"].size() == 24);
    CHECK(pv["success"] == (differing.size() >= 8));
    if (pv["success"] == true)
      CHECK(pv["key_labels"].get<std::vector<std::uint32_t>>() == std::vector<std::uint32_t>(differing.begin(), differing.begin() + 8));
    const auto i = pv["pair"][0].get<std::uint32_t>(), j = pv["pair"][1].get<std::uint32_t>();
    const auto agreed = seen.party_outputs.at(i)["agreed_with"].get<std::vector<std::uint32_t>>();
    CHECK((std::find(agreed.begin(), agreed.end(), j) != agreed.end()) == pv["success"].get<bool>());
  }

  // Parameters.
  CHECK_THROWS_WITH_AS((void)ikos::configure(1, 8), doctest::Contains("parties"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)ikos::configure(3, 0), doctest::Contains("k must be"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)ikos::configure(3, 8, 7), doctest::Contains("labels"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)ikos::configure(4096, 128), doctest::Contains("at most"), std::invalid_argument);
  CHECK(ikos::configure(3, 8).labels == 24);
  CHECK_THROWS_AS((void)registry.create("ikos-key-exchange", {{"k", "5000"}}, 3), std::invalid_argument);
  CHECK_THROWS_AS((void)protocol->make_party(0, Value(1)), std::invalid_argument);

  // Malformed messages: the protocol's shape is checked before use.
  const auto config = ikos::configure(3, 4);
  MessageBatch bad(ikos::message_width);
  ikos::write_message(bad.append(), {2, 1, 0, true});  // low >= high
  ikos::Eavesdropper eve(config);
  try {
    eve.observe(bad);
    FAIL("a malformed message was accepted");
  } catch (const std::system_error& e) {
    CHECK(e.code() == shufflempc::Errc::protocol_violation);
  }
  MessageBatch bad_bit(ikos::message_width);
  ikos::write_message(bad_bit.append(), {0, 1, 0, true});
  bad_bit[0][12] = 7;
  CHECK_THROWS_AS(eve.observe(bad_bit), std::system_error);
  MessageBatch bad_label(ikos::message_width);
  ikos::write_message(bad_label.append(), {0, 1, 12, false});
  CHECK_THROWS_AS(eve.observe(bad_label), std::system_error);
}
