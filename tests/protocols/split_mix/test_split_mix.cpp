// split-mix-sum: the BBGN count against the paper's figures, exact sums (small exhaustive and
// large random, fast and Boost paths), refusals, malformed views, and privacy by exact
// enumeration of the analyzer's view on tiny parameters.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "shufflempc/error.hpp"
#include "shufflempc/inproc.hpp"
#include "shufflempc/registry.hpp"
#include "shufflempc/protocols/split_mix/split_mix.hpp"
#include "support/stats.hpp"

namespace sm = shufflempc::split_mix;
using shufflempc::BigInt;
using shufflempc::SeededRng;
using shufflempc::Value;

namespace {

std::unique_ptr<shufflempc::Protocol> make(std::size_t n, std::map<std::string, std::string> params) {
  return shufflempc::builtin_registry().create("split-mix-sum", params, n);
}

// ---- Exact view distributions ----
// The analyzer sees the multiset of all n m shares, i.e. the count vector (c_0, ..., c_{q-1}).
// A party with input x sends a uniform tuple among the q^(m-1) tuples summing to x, so its count
// vector c has weight multinomial(m; c) when sum_j j c_j = x (mod q), 0 otherwise. The view's
// weights are the convolution of the parties' (integers; total q^(n(m-1)), kept below 2^127).
using u128 = unsigned __int128;

struct ExactViews {
  std::size_t q, n, m;
  std::size_t side() const { return n * m + 1; }  // a coordinate is in [0, n m]
  std::size_t cells() const { return static_cast<std::size_t>(std::pow(side(), q - 1)); }

  // (offset of (c_1..c_{q-1}) in the dense array, weight) for every count vector of one party.
  std::vector<std::pair<std::size_t, u128>> party(std::size_t x) const {
    std::vector<std::pair<std::size_t, u128>> out;
    std::vector<std::size_t> c(q, 0);
    std::function<void(std::size_t, std::size_t)> rec = [&](std::size_t j, std::size_t left) {
      if (j == q - 1) {
        c[j] = left;
        std::size_t residue = 0, offset = 0, stride = 1;
        u128 w = 1;
        std::size_t placed = 0;
        for (std::size_t k = 0; k < q; ++k) {
          residue += k * c[k];
          for (std::size_t t = 1; t <= c[k]; ++t) w = w * (placed + t) / t;  // multinomial, exact
          placed += c[k];
          if (k > 0) offset += c[k] * stride, stride *= side();
        }
        if (residue % q == x) out.emplace_back(offset, w);
        return;
      }
      for (std::size_t a = 0; a <= left; ++a) {
        c[j] = a;
        rec(j + 1, left - a);
      }
    };
    rec(0, m);
    return out;
  }

  std::vector<u128> view(const std::vector<std::size_t>& inputs) const {
    std::vector<u128> cur(cells(), 0), next(cells(), 0);
    cur[0] = 1;
    for (std::size_t x : inputs) {
      const auto p = party(x);
      std::fill(next.begin(), next.end(), 0);
      for (std::size_t i = 0; i < cur.size(); ++i)
        if (cur[i] != 0)
          for (const auto& [off, w] : p) next[i + off] += cur[i] * w;
      cur.swap(next);
    }
    return cur;
  }

  // max over pairs of input multisets with equal sums of sum |A - B| (twice the statistical
  // distance times the common total q^(n(m-1))). Views depend only on the input multiset.
  u128 worst_l1() const {
    std::map<std::size_t, std::vector<std::vector<u128>>> by_sum;
    std::vector<std::size_t> xs(n, 0);
    std::function<void(std::size_t, std::size_t)> rec = [&](std::size_t i, std::size_t lo) {
      if (i == n) {
        std::size_t s = 0;
        for (auto x : xs) s += x;
        by_sum[s % q].push_back(view(xs));
        return;
      }
      for (std::size_t x = lo; x < q; ++x) xs[i] = x, rec(i + 1, x);
    };
    rec(0, 0);
    u128 worst = 0;
    for (const auto& [s, views] : by_sum)
      for (std::size_t a = 0; a < views.size(); ++a)
        for (std::size_t b = a + 1; b < views.size(); ++b) {
          u128 l1 = 0;
          for (std::size_t i = 0; i < views[a].size(); ++i)
            l1 += views[a][i] > views[b][i] ? views[a][i] - views[b][i] : views[b][i] - views[a][i];
          worst = std::max(worst, l1);
        }
    return worst;
  }
  u128 total() const {
    u128 t = 1;
    for (std::size_t i = 0; i < n * (m - 1); ++i) t *= q;
    return t;
  }
};

}  // namespace

TEST_CASE("split-mix: the BBGN count reproduces the paper's example and its values at other settings") {
  const double l2_32 = 32;
  // The abstract of BBGN (arXiv 1909.11225): 32-bit inputs, n = 10^4, 12 messages give 2^-40,
  // with the modulus the sum needs, q = n 2^32.
  CHECK(sm::bbgn_messages(10'000, 40, std::log2(1e4) + l2_32) == 12);
  CHECK(sm::bbgn_messages(10'000, 40, l2_32) == 11);
  CHECK(sm::bbgn_messages(1'000, 40, l2_32) == 15);
  CHECK(sm::bbgn_messages(100'000, 40, l2_32) == 9);
  CHECK(sm::bbgn_messages(1'000'000, 40, l2_32) == 8);
  CHECK(sm::bbgn_messages(10'000, 80, l2_32) == 18);
  CHECK(sm::bbgn_messages(1'000'000'000, 1, 1) == 3);  // the floor of 3
  const auto c = sm::configure_sum(10'000, 40, 32, 0, 0, false);
  CHECK(c.messages == 12);
  CHECK(c.modulus.value() == BigInt(10'000) << 32);
  CHECK(c.modulus.width() == 6);  // log2 q = 45.3
  CHECK(c.sigma_guaranteed >= 40);
  CHECK(c.messages_ikos == 54);  // ceil(log2 10^4 + 40), for scale
  // One message fewer than the formula would not reach sigma = 40.
  CHECK(sm::bbgn_sigma(10'000, 11, c.modulus.log2()) < 40);
}

TEST_CASE("split-mix: a count below the formula is refused unless the risk is accepted by name") {
  CHECK_THROWS_WITH_AS((void)sm::configure_sum(1000, 40, 32, 0, 5, false), doctest::Contains("messages"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)make(1000, {{"messages", "5"}}), doctest::Contains("accept-input-leakage"), std::invalid_argument);
  const auto c = sm::configure_sum(1000, 40, 32, 0, 5, true);
  CHECK(c.below_formula);
  CHECK(c.sigma_guaranteed < 40);
  CHECK_NOTHROW((void)make(1000, {{"messages", "5"}, {"accept-input-leakage", "true"}}));
  CHECK_NOTHROW((void)make(1000, {{"messages", "40"}}));  // above the formula is fine
  CHECK_THROWS_WITH_AS((void)sm::configure_sum(2, 40, 32, 0, 0, false), doctest::Contains("parties"), std::invalid_argument);
}

TEST_CASE("split-mix: the sum is exact for every input vector (exhaustive over Z_4^3, BBGN count and 3 shares)") {
  SeededRng rng(201);
  for (const auto& params : {std::map<std::string, std::string>{{"modulus-bits", "2"}},
                             std::map<std::string, std::string>{{"modulus-bits", "2"}, {"messages", "3"}, {"accept-input-leakage", "true"}}}) {
    const auto protocol = make(3, params);
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b)
        for (int c = 0; c < 4; ++c) {
          const std::vector<Value> inputs{a, b, c};
          const auto run_rng = rng.fork(static_cast<std::uint64_t>(16 * a + 4 * b + c));
          const auto result = shufflempc::run_in_process(*protocol, inputs, *run_rng);
          CHECK(result.output == (a + b + c) % 4);
        }
  }
}

TEST_CASE("split-mix: exact sums at scale, on the uint64 path, at q = 2^64 and on the Boost path") {
  SeededRng rng(202);
  struct Case {
    std::size_t n;
    std::map<std::string, std::string> params;
    std::string inputs;
  };
  for (const auto& c : {Case{2000, {}, "uniform"}, Case{2000, {}, "max"}, Case{300, {{"modulus-bits", "64"}}, "max"},
                        Case{300, {{"modulus-bits", "64"}}, "uniform"}, Case{300, {{"input-bits", "100"}}, "uniform"},
                        Case{300, {{"input-bits", "100"}}, "max"}, Case{50, {{"modulus-bits", "521"}}, "uniform"}}) {
    CAPTURE(c.n);
    CAPTURE(c.inputs);
    const auto protocol = make(c.n, c.params);
    std::vector<Value> inputs;
    for (std::size_t i = 0; i < c.n; ++i) inputs.push_back(protocol->random_input(static_cast<shufflempc::PartyId>(i), c.inputs, rng));
    const auto result = shufflempc::run_in_process(*protocol, inputs, rng);
    CHECK(result.output == *protocol->truth(inputs));
    CHECK(result.messages == c.n * protocol->describe()["messages_per_party"].get<std::size_t>());
  }
  // All parties at 2^32 - 1: the sum n (2^32 - 1) must not wrap.
  const auto protocol = make(1000, {});
  const std::vector<Value> inputs(1000, Value(4294967295ull));
  CHECK(shufflempc::run_in_process(*protocol, inputs, rng).output == Value(1000ull * 4294967295ull));
}

TEST_CASE("split-mix: inputs out of range and malformed messages are refused") {
  const auto protocol = make(5, {});
  CHECK_THROWS_AS((void)protocol->make_party(0, Value(4294967296ull)), std::invalid_argument);
  CHECK_THROWS_AS((void)protocol->make_party(0, Value(-1)), std::invalid_argument);
  CHECK_THROWS_AS((void)protocol->make_party(0, Value("12a")), std::invalid_argument);
  CHECK_NOTHROW((void)protocol->make_party(0, Value("4294967295")));
  const sm::Modulus q(BigInt(1000));
  shufflempc::MessageBatch bad(q.width());
  shufflempc::store_le<std::uint16_t>(bad.append().data(), 999);
  shufflempc::store_le<std::uint16_t>(bad.append().data(), 1000);  // not an element of Z_1000
  try {
    (void)q.sum(bad);
    FAIL("a message >= q was accepted");
  } catch (const std::system_error& e) {
    CHECK(e.code() == shufflempc::Errc::malformed_frame);
  }
  const sm::Modulus big(BigInt(1) << 80);
  shufflempc::MessageBatch wrong(3);
  wrong.append();
  CHECK_THROWS_AS((void)big.sum(wrong), std::system_error);
}

TEST_CASE("split-mix privacy: exact views of inputs with equal sums are within 2^-sigma at the BBGN count") {
  // Exact enumeration over every pair of input multisets with the same sum. At m = 2 the views
  // are far apart (so this test can fail); at the BBGN count for sigma they are within 2^-sigma.
  struct Case {
    std::size_t q, n;
    double sigma;
  };
  for (const Case c : {Case{2, 8, 10}, Case{3, 4, 4}, Case{3, 3, 1}}) {
    CAPTURE(c.q);
    CAPTURE(c.n);
    const std::size_t m = sm::bbgn_messages(c.n, c.sigma, std::log2(static_cast<double>(c.q)));
    CAPTURE(m);
    const ExactViews exact{c.q, c.n, m};
    REQUIRE(exact.total() < (u128{1} << 126));
    // statistical distance = worst_l1 / (2 total) <= 2^-sigma
    CHECK(exact.worst_l1() <= (exact.total() >> static_cast<int>(c.sigma - 1)));
    const ExactViews two{c.q, c.n, 2};
    CHECK(two.worst_l1() > (two.total() >> static_cast<int>(c.sigma - 1)));
  }
  // Inputs that are a permutation of each other give the same view exactly (the view is a multiset).
  const ExactViews e{3, 3, 3};
  CHECK(e.view({0, 1, 2}) == e.view({2, 0, 1}));
}

TEST_CASE("split-mix privacy: the implementation's view has the exact distribution the enumeration assumes") {
  // n = 3, q = 4, m = 3 (below the formula, accepted): 20,000 runs through the in-process
  // channel; the shuffled output's count vector against the exact weights, Pearson chi-square at
  // tail 1e-10 (tests/support/stats.hpp).
  const std::size_t q = 4, n = 3, m = 3;
  const auto protocol = make(n, {{"modulus-bits", "2"}, {"messages", "3"}, {"accept-input-leakage", "true"}});
  const std::vector<std::size_t> xs{1, 2, 2};
  const std::vector<Value> inputs{1, 2, 2};
  const ExactViews exact{q, n, m};
  const auto weights = exact.view(xs);
  const double total = static_cast<double>(exact.total());
  SeededRng rng(203);
  const std::size_t runs = 20'000;
  std::vector<std::uint64_t> observed(weights.size(), 0);
  for (std::size_t r = 0; r < runs; ++r) {
    shufflempc::RunOptions options;
    options.record_view = true;
    // A run's randomness is a function of its generator's key (forks by label), so each run
    // gets its own child generator.
    const auto run_rng = rng.fork(r);
    const auto result = shufflempc::run_in_process(*protocol, inputs, *run_rng, options);
    std::size_t index = 0;
    for (std::size_t i = 0; i < result.view[0].count(); ++i) {
      const std::size_t v = result.view[0][i][0];
      if (v > 0) index += static_cast<std::size_t>(std::pow(exact.side(), v - 1));
    }
    observed[index] += 1;
  }
  std::vector<double> probabilities;
  for (const u128 w : weights) probabilities.push_back(static_cast<double>(w) / total);
  const auto chi = shufflempc::test::chi_square(observed, probabilities);
  REQUIRE(chi.dof > 10);
  CHECK(chi.passes());
}
