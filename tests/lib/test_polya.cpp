// Gamma, Poisson and Polya samplers (lib/src/samplers.cpp). Every check is a Pearson chi-square
// test against the exact pmf (or exact bin probabilities), with the critical value at tail
// probability 1e-11 from Boost.Math's chi-square quantile: a correct sampler fails one check with
// probability below 1e-11 (Pearson's statistic is asymptotically chi-square; every cell used has
// expected count >= 20, far into the regime where the approximation is accurate), and the whole
// file, with fewer than 20 checks, below 1e-9.
#include <doctest/doctest.h>

#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/gamma.hpp>
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>
#include <vector>

#include "shufflempc/samplers.hpp"

namespace {

using shufflempc::SeededRng;

constexpr double tail = 1e-11;

// Pearson's statistic of integer draws against a pmf on the integers. Cells are the values whose
// expected count is at least 20, plus one cell for everything else.
bool fits_pmf(const std::map<std::int64_t, std::uint64_t>& counts, std::uint64_t draws,
              const std::function<double(std::int64_t)>& pmf, std::int64_t lo, std::int64_t hi) {
  double statistic = 0;
  double rest_expected = draws;
  double rest_observed = draws;
  int cells = 0;
  for (std::int64_t k = lo; k <= hi; ++k) {
    const double expected = pmf(k) * static_cast<double>(draws);
    if (expected < 20) continue;
    const auto it = counts.find(k);
    const double observed = it == counts.end() ? 0.0 : static_cast<double>(it->second);
    statistic += (observed - expected) * (observed - expected) / expected;
    rest_expected -= expected;
    rest_observed -= observed;
    ++cells;
  }
  if (rest_expected >= 1e-3) {
    statistic += (rest_observed - rest_expected) * (rest_observed - rest_expected) / rest_expected;
    ++cells;
  }
  REQUIRE(cells >= 3);
  const double critical = boost::math::quantile(boost::math::complement(boost::math::chi_squared(cells - 1), tail));
  INFO("chi-square " << statistic << " on " << cells - 1 << " degrees of freedom, critical " << critical);
  return statistic <= critical;
}

double polya_pmf(std::int64_t k, double r, double a) {
  if (k < 0) return 0;
  const double kk = static_cast<double>(k);
  return std::exp(std::lgamma(kk + r) - std::lgamma(kk + 1) - std::lgamma(r) + kk * std::log(a) + r * std::log1p(-a));
}

template <class Draw>
std::map<std::int64_t, std::uint64_t> histogram(std::uint64_t draws, Draw draw) {
  std::map<std::int64_t, std::uint64_t> counts;
  for (std::uint64_t i = 0; i < draws; ++i) ++counts[draw()];
  return counts;
}

}  // namespace

TEST_CASE("polya: matches the negative binomial pmf for several shapes") {
  SeededRng rng(101);
  struct Case {
    double r, a;
  };
  for (const Case c : {Case{0.3, 0.7}, Case{2.5, 0.4}, Case{1e-3, 0.99}, Case{40.0, 0.2}}) {
    CAPTURE(c.r);
    CAPTURE(c.a);
    const std::uint64_t draws = 100'000;
    const auto counts = histogram(draws, [&] { return static_cast<std::int64_t>(shufflempc::polya(rng, c.r, c.a)); });
    CHECK(fits_pmf(counts, draws, [&](std::int64_t k) { return polya_pmf(k, c.r, c.a); }, 0, 2000));
  }
}

TEST_CASE("polya: n shares of Polya(1/n, a) sum to Geometric(a), two such sums differ by discrete Laplace") {
  // The split-mix DP sum relies on exactly these two identities (spec section 2).
  SeededRng rng(102);
  const int n = 40;
  const double a = std::exp(-0.25);
  const std::uint64_t draws = 20'000;
  auto sum = [&] {
    std::int64_t s = 0;
    for (int i = 0; i < n; ++i) s += static_cast<std::int64_t>(shufflempc::polya(rng, 1.0 / n, a));
    return s;
  };
  const auto geometric = histogram(draws, sum);
  CHECK(fits_pmf(geometric, draws, [&](std::int64_t k) { return k < 0 ? 0 : (1 - a) * std::pow(a, k); }, 0, 500));
  const auto laplace = histogram(draws, [&] { return sum() - sum(); });
  CHECK(fits_pmf(laplace, draws, [&](std::int64_t k) { return (1 - a) / (1 + a) * std::pow(a, std::abs(k)); }, -500, 500));
}

TEST_CASE("poisson: both regimes (multiplication below 10, PTRS above) match the pmf") {
  SeededRng rng(103);
  for (const double lambda : {0.05, 3.5, 9.99, 10.0, 60.0, 2500.0}) {
    CAPTURE(lambda);
    const std::uint64_t draws = 100'000;
    const auto counts = histogram(draws, [&] { return static_cast<std::int64_t>(shufflempc::poisson(rng, lambda)); });
    CHECK(fits_pmf(counts, draws, [&](std::int64_t k) {
      return k < 0 ? 0.0 : std::exp(-lambda + static_cast<double>(k) * std::log(lambda) - std::lgamma(static_cast<double>(k) + 1));
    }, 0, 5000));
  }
}

TEST_CASE("gamma_variate: 40 equiprobable bins of the exact distribution") {
  SeededRng rng(104);
  for (const auto& [shape, scale] : {std::pair{0.5, 2.0}, std::pair{0.01, 1.0}, std::pair{4.2, 1.5}}) {
    CAPTURE(shape);
    const boost::math::gamma_distribution<double> exact(shape, scale);
    const int bins = 40;
    std::vector<double> edges;
    for (int b = 1; b < bins; ++b) edges.push_back(boost::math::quantile(exact, static_cast<double>(b) / bins));
    const std::uint64_t draws = 100'000;
    const auto counts = histogram(draws, [&] {
      const double x = shufflempc::gamma_variate(rng, shape, scale);
      return static_cast<std::int64_t>(std::upper_bound(edges.begin(), edges.end(), x) - edges.begin());
    });
    CHECK(fits_pmf(counts, draws, [&](std::int64_t b) { return b >= 0 && b < bins ? 1.0 / bins : 0.0; }, 0, bins - 1));
  }
}

TEST_CASE("gamma, poisson, polya: parameters out of range are refused") {
  SeededRng rng(105);
  CHECK_THROWS_AS((void)shufflempc::gamma_variate(rng, 0, 1), std::invalid_argument);
  CHECK_THROWS_AS((void)shufflempc::gamma_variate(rng, 1, -1), std::invalid_argument);
  CHECK_THROWS_AS((void)shufflempc::poisson(rng, -1), std::invalid_argument);
  CHECK_THROWS_AS((void)shufflempc::poisson(rng, NAN), std::invalid_argument);
  CHECK_THROWS_AS((void)shufflempc::polya(rng, 0, 0.5), std::invalid_argument);
  CHECK_THROWS_AS((void)shufflempc::polya(rng, 1, 1), std::invalid_argument);
  CHECK(shufflempc::polya(rng, 1, 0) == 0);
  CHECK(shufflempc::poisson(rng, 0) == 0);
}
