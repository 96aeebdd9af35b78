// The exact (eps, delta) of shuffled binary randomized response on the all-zero dataset and its
// neighbour (rr_exact_delta, rr_exact_epsilon): against a direct summation over every count, at
// or below every upper bound valid for all eps0-LDP randomizers, and the published figure of the
// gap it measures.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "shufflempc/accounting/amplification.hpp"

using namespace shufflempc;

namespace {

// The independent computation: both count distributions term by term (K0 ~ Bin(n, q) from its pmf,
// K1 as the convolution of Bin(n - 1, q) with Bern(1 - q)), the hockey-stick divergence summed
// over every count in long double, in both directions.
long double direct_delta(std::uint64_t n, double eps0, double eps) {
  const long double q = 1.0L / (std::exp(static_cast<long double>(eps0)) + 1), p = 1 - q;
  const auto pmf = [](std::uint64_t m, std::uint64_t k, long double prob) -> long double {
    if (k > m) return 0;
    const long double log_c = std::lgamma(static_cast<long double>(m) + 1) - std::lgamma(static_cast<long double>(k) + 1) -
                              std::lgamma(static_cast<long double>(m - k) + 1);
    return std::exp(log_c + static_cast<long double>(k) * std::log(prob) + static_cast<long double>(m - k) * std::log1p(-prob));
  };
  const long double e = std::exp(static_cast<long double>(eps));
  long double up = 0, down = 0;
  for (std::uint64_t k = 0; k <= n; ++k) {
    const long double k0 = pmf(n, k, q);
    const long double k1 = p * (k == 0 ? 0 : pmf(n - 1, k - 1, q)) + q * pmf(n - 1, k, q);
    up += std::max(0.0L, k1 - e * k0);
    down += std::max(0.0L, k0 - e * k1);
  }
  return std::max(up, down);
}

}  // namespace

TEST_CASE("rr_exact_delta equals the direct summation over every count, n = 2..2000, eps0 and eps on a grid") {
  for (std::uint64_t n : {2u, 3u, 5u, 10u, 37u, 200u, 2000u}) {
    for (double eps0 : {0.5, 1.0, 2.0, 4.0, 8.0}) {
      for (double frac : {0.0, 0.05, 0.2, 0.5, 0.9}) {
        const double eps = frac * eps0;
        CAPTURE(n);
        CAPTURE(eps0);
        CAPTURE(eps);
        const double closed = rr_exact_delta(n, eps0, eps);
        const auto direct = static_cast<double>(direct_delta(n, eps0, eps));
        CHECK(closed == doctest::Approx(direct).epsilon(1e-9).scale(1e-12));
      }
    }
  }
  CHECK(rr_exact_delta(100, 1.0, 1.0) == 0);  // eps >= eps0: nothing left
}

TEST_CASE("rr_exact_epsilon is a lower bound: never above the numeric and closed-form FMT21 bounds, nor the blanket bound for k = 2") {
  for (std::uint64_t n : {1000u, 10000u, 100000u}) {
    for (double eps0 : {1.0, 2.0, 4.0}) {
      for (double delta : {1e-6, 1e-9}) {
        CAPTURE(n);
        CAPTURE(eps0);
        CAPTURE(delta);
        const double exact = rr_exact_epsilon(n, eps0, delta);
        CHECK(exact >= 0);
        CHECK(exact <= eps0);
        CHECK(rr_exact_delta(n, eps0, exact + 2e-9) <= delta);  // the search's answer meets delta just above it
        CHECK(exact <= fmt_numeric_epsilon(n, eps0, delta) + 1e-9);
        if (auto closed = fmt_closed_form(n, eps0, delta)) CHECK(exact <= *closed);
        if (auto blanket = blanket_epsilon(n, eps0, delta, 2)) CHECK(exact <= *blanket);
      }
    }
  }
}

TEST_CASE("rr_exact_epsilon at n = 10^5, eps0 = 4, delta = 1e-6 is the published 0.085, half the numeric FMT21 bound") {
  const double exact = rr_exact_epsilon(100000, 4, 1e-6);
  CHECK(exact == doctest::Approx(0.085).epsilon(0.02));
  CHECK(fmt_numeric_epsilon(100000, 4, 1e-6) > 1.9 * exact);
  // More parties, a smaller epsilon; a larger eps0, a larger one.
  CHECK(rr_exact_epsilon(1000000, 4, 1e-6) < exact);
  CHECK(rr_exact_epsilon(100000, 5, 1e-6) > exact);
  CHECK_THROWS_AS((void)rr_exact_epsilon(1, 4, 1e-6), std::invalid_argument);
  CHECK_THROWS_AS((void)rr_exact_epsilon(100, 4, 0), std::invalid_argument);
}
