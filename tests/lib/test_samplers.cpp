#include <doctest/doctest.h>

#include <cmath>
#include <map>

#include "shufflempc/samplers.hpp"
#include "support/stats.hpp"

using namespace shufflempc;

TEST_CASE("bernoulli(p) is exact for the double p (counts within the binomial 1e-10 interval)") {
  SeededRng rng(21);
  // 0x1.8p-8 and 1 - 2^-12 are decided by their second base-256 digit a fraction of the time.
  for (double p : {0.5, 0.3, 0.001, 0.999, 1.0 / 3.0, 0x1.0p-10, 0x1.8p-8, 1 - 0x1.0p-12}) {
    const std::uint64_t n = 200000;
    std::uint64_t k = 0;
    for (std::uint64_t i = 0; i < n; ++i) k += bernoulli(rng, p) ? 1 : 0;
    CHECK_MESSAGE(test::binomial_interval(n, p).contains(static_cast<double>(k)), "p = " << p << " k = " << k);
  }
  CHECK_FALSE(bernoulli(rng, 0.0));
  CHECK(bernoulli(rng, 1.0));
  // Tiny and subnormal p: 10^5 draws at 1e-300 must all be 0 (P[any 1] = 1e-295).
  for (int i = 0; i < 100000; ++i) REQUIRE_FALSE(bernoulli(rng, 1e-300));
  CHECK_FALSE(bernoulli(rng, 4.9e-324));
  CHECK_THROWS_AS((void)bernoulli(rng, 1.5), std::invalid_argument);
  CHECK_THROWS_AS((void)bernoulli(rng, std::nan("")), std::invalid_argument);
}

TEST_CASE("bernoulli_exp(num/den) has success probability exp(-num/den)") {
  SeededRng rng(22);
  for (auto [num, den] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{{0, 1}, {3, 10}, {1, 1}, {5, 2}, {7, 3}}) {
    const std::uint64_t n = 200000;
    std::uint64_t k = 0;
    for (std::uint64_t i = 0; i < n; ++i) k += bernoulli_exp(rng, num, den) ? 1 : 0;
    const double p = std::exp(-static_cast<double>(num) / static_cast<double>(den));
    if (num == 0) CHECK(k == n);
    else CHECK_MESSAGE(test::binomial_interval(n, p).contains(static_cast<double>(k)), num << "/" << den << ": " << k);
  }
}

TEST_CASE("binomial(n, p) matches the binomial pmf (chi-square)") {
  SeededRng rng(23);
  const std::uint64_t n = 20;
  const double p = 0.3;
  std::vector<std::uint64_t> counts(n + 1, 0);
  const int draws = 50000;
  for (int i = 0; i < draws; ++i) counts[binomial(rng, n, p)]++;
  boost::math::binomial d(n, p);
  std::vector<double> probs(n + 1);
  for (std::uint64_t k = 0; k <= n; ++k) probs[k] = boost::math::pdf(d, static_cast<double>(k));
  const auto r = test::chi_square(counts, probs);
  CHECK_MESSAGE(r.passes(), "chi2 " << r.statistic << " dof " << r.dof);
}

TEST_CASE("geometric_exp and discrete_laplace match their pmfs (chi-square)") {
  SeededRng rng(24);
  const std::uint64_t num = 1, den = 2;  // a = exp(-1/2)
  const double a = std::exp(-0.5);
  const int draws = 100000;
  {
    std::vector<std::uint64_t> counts(40, 0);
    for (int i = 0; i < draws; ++i) counts[std::min<std::uint64_t>(geometric_exp(rng, num, den), 39)]++;
    std::vector<double> probs(40);
    for (int k = 0; k < 39; ++k) probs[k] = (1 - a) * std::pow(a, k);
    probs[39] = std::pow(a, 39);  // tail P(G >= 39)
    const auto r = test::chi_square(counts, probs);
    CHECK_MESSAGE(r.passes(), "geometric chi2 " << r.statistic);
  }
  {
    const int half = 30;
    std::vector<std::uint64_t> counts(2 * half + 1, 0);
    for (int i = 0; i < draws; ++i) {
      const auto z = discrete_laplace(rng, num, den);
      counts[static_cast<std::size_t>(std::clamp<std::int64_t>(z, -half, half) + half)]++;
    }
    std::vector<double> probs(2 * half + 1);
    const double c = (1 - a) / (1 + a);
    for (int k = -half + 1; k < half; ++k) probs[k + half] = c * std::pow(a, std::abs(k));
    const double tail = std::pow(a, half) / (1 + a);  // P(Z >= half) = P(Z <= -half)
    probs[0] = probs[2 * half] = tail;
    const auto r = test::chi_square(counts, probs);
    CHECK_MESSAGE(r.passes(), "discrete Laplace chi2 " << r.statistic);
  }
}

TEST_CASE("rational_at_most never rounds epsilon up") {
  for (double x : {1.0, 0.1, 0.7, 3.14159, 1e-5}) {
    const auto r = rational_at_most(x, "epsilon");
    CHECK(r.value() <= x);
    CHECK(x - r.value() < 1e-9);
  }
  CHECK_THROWS_WITH_AS((void)rational_at_most(-1, "epsilon"), doctest::Contains("epsilon"), std::invalid_argument);
}
