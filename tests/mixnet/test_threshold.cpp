// A t-of-m sharing of an ElGamal key (mixnet/threshold.hpp): for every t <= m <= 5 the dealt
// shares lie on the committed polynomial, every set of t trustees recombines the key through the
// Lagrange coefficients at 0 and no set of t - 1 does, a share moved off the polynomial is named by
// check(), and out-of-range sizes are refused with the range.
#include <doctest/doctest.h>

#include <numeric>

#include "shufflempc/mixnet/threshold.hpp"

using namespace shufflempc;
using namespace shufflempc::mixnet;

namespace {

// Every subset of {0 .. m-1} of size k, in lexicographic order.
std::vector<std::vector<std::uint32_t>> subsets(std::uint32_t m, std::uint32_t k) {
  std::vector<std::vector<std::uint32_t>> out;
  for (std::uint32_t mask = 0; mask < (1u << m); ++mask) {
    if (static_cast<std::uint32_t>(__builtin_popcount(mask)) != k) continue;
    std::vector<std::uint32_t> s;
    for (std::uint32_t i = 0; i < m; ++i)
      if (mask & (1u << i)) s.push_back(i);
    out.push_back(s);
  }
  return out;
}

// Σ λ_i x_i·G over `who`: the key when `who` has at least t trustees.
Point recombine(const DealtKey& d, const std::vector<std::uint32_t>& who) {
  const auto lambda = lagrange_at_zero(who);
  Scalar x = lambda[0] * d.secrets[who[0]].secret;
  for (std::size_t j = 1; j < who.size(); ++j) x = x + lambda[j] * d.secrets[who[j]].secret;
  return mul_base(x);
}

}  // namespace

TEST_CASE("mixnet threshold: every t of m trustees recombine the key and no t - 1 do, for every t <= m <= 5") {
  SeededRng rng(41);
  for (std::uint32_t m = 1; m <= 5; ++m) {
    for (std::uint32_t t = 1; t <= m; ++t) {
      CAPTURE(m);
      CAPTURE(t);
      const DealtKey d = deal_key(m, t, rng);
      REQUIRE(d.key.check().empty());
      REQUIRE(d.key.shares.size() == m);
      REQUIRE(d.key.commitments.size() == t);
      for (std::uint32_t i = 0; i < m; ++i) CHECK(mul_base(d.secrets[i].secret) == d.key.shares[i]);
      for (const auto& who : subsets(m, t)) CHECK(recombine(d, who) == d.key.key());
      if (t > 1)
        for (const auto& who : subsets(m, t - 1)) CHECK(recombine(d, who) != d.key.key());
    }
  }
}

TEST_CASE("mixnet threshold: a share off the polynomial is named, and sizes out of range are refused") {
  SeededRng rng(42);
  DealtKey d = deal_key(4, 2, rng);
  REQUIRE(d.key.check().empty());
  d.key.shares[2] = d.key.shares[2] + base_point();
  CHECK_FALSE(d.key.check().empty());
  CHECK_THROWS_AS((void)deal_key(3, 0, rng), std::invalid_argument);
  CHECK_THROWS_AS((void)deal_key(3, 4, rng), std::invalid_argument);
  CHECK_THROWS_AS((void)deal_key(max_trustees + 1, 1, rng), std::invalid_argument);
  // The coefficients for one trustee are 1 (f(1) = f(0) for a constant), and sum to 1 for any set.
  for (std::uint32_t k = 1; k <= 4; ++k) {
    std::vector<std::uint32_t> who(k);
    std::iota(who.begin(), who.end(), 0u);
    const auto lambda = lagrange_at_zero(who);
    Scalar sum = scalar_from_u64(0);
    for (const auto& l : lambda) sum = sum + l;
    CHECK(sum == scalar_from_u64(1));
  }
}
