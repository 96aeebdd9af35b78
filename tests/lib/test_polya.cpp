// Gamma, Poisson and Polya samplers (lib/src/samplers.cpp). Every check is a Pearson chi-square
// test against the exact pmf (or exact bin probabilities) with the critical value at tail
// probability 1e-10 (tests/support/stats.hpp; cells expected below 5 merged): the file's 15 checks
// fail a correct sampler with probability below 1e-9.
#include <doctest/doctest.h>

#include <boost/math/distributions/gamma.hpp>
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>
#include <vector>

#include "shufflempc/samplers.hpp"
#include "support/stats.hpp"

namespace {

using shufflempc::SeededRng;

// Pearson's chi-square (tests/support/stats.hpp, tail 1e-10 per check) of integer draws against a
// pmf on [lo, hi], plus one cell for everything outside.
bool fits_pmf(const std::map<std::int64_t, std::uint64_t>& counts, std::uint64_t draws,
              const std::function<double(std::int64_t)>& pmf, std::int64_t lo, std::int64_t hi) {
  std::vector<std::uint64_t> observed;
  std::vector<double> probabilities;
  std::uint64_t inside = 0;
  double mass = 0;
  for (std::int64_t k = lo; k <= hi; ++k) {
    const auto it = counts.find(k);
    observed.push_back(it == counts.end() ? 0 : it->second);
    probabilities.push_back(pmf(k));
    inside += observed.back();
    mass += probabilities.back();
  }
  observed.push_back(draws - inside);
  probabilities.push_back(std::max(0.0, 1 - mass));
  const auto chi = shufflempc::test::chi_square(observed, probabilities);
  INFO("chi-square " << chi.statistic << " on " << chi.dof << " degrees of freedom");
  REQUIRE(chi.dof >= 2);
  return chi.passes();
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
  // The split-mix DP sum relies on exactly these two identities (docs/split-mix.md).
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
