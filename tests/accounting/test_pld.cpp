// Privacy-loss distributions (shufflempc/accounting/pld.hpp): one round equals the amplification bound's
// own curve (to the grid's rounding, never below it), T rounds of randomized response equal the
// binomial closed form (likewise), composition beats basic composition, and bad arguments are
// refused.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>

#include "shufflempc/accounting/amplification.hpp"
#include "shufflempc/accounting/pld.hpp"

using namespace shufflempc;

namespace {

// T rounds of binary randomized response, eps0-LDP: the number of rounds whose report agrees with
// the input is Bin(T, p) under one input and Bin(T, 1 - p) under the other, p = e^eps0/(e^eps0 + 1);
// delta(eps) = sum_k [Bin(k; T, p) - e^eps Bin(k; T, 1 - p)]_+, in long double.
long double rr_composed_delta(std::uint64_t rounds, double eps0, double eps) {
  const long double p = std::exp(static_cast<long double>(eps0)) / (1 + std::exp(static_cast<long double>(eps0)));
  const long double e = std::exp(static_cast<long double>(eps));
  long double d = 0;
  for (std::uint64_t k = 0; k <= rounds; ++k) {
    const long double log_c = std::lgamma(static_cast<long double>(rounds) + 1) - std::lgamma(static_cast<long double>(k) + 1) -
                              std::lgamma(static_cast<long double>(rounds - k) + 1);
    const long double kk = static_cast<long double>(k), rest = static_cast<long double>(rounds - k);
    const long double under_p = std::exp(log_c + kk * std::log(p) + rest * std::log1p(-p));
    const long double under_q = std::exp(log_c + kk * std::log1p(-p) + rest * std::log(p));
    d += std::max<long double>(0, under_p - e * under_q);
  }
  return d;
}

}  // namespace

TEST_CASE("pld: one round is the bound's own curve, never below it and at most one grid step away") {
  constexpr double step = 1e-4;
  for (const auto& [n, eps0] : {std::pair<std::uint64_t, double>{10000, 1.0}, {10000, 4.0}, {100000, 4.0}}) {
    {
      const auto fmt = fmt_pld(n, eps0, step);
      const auto blanket = blanket_exact_pld(n, eps0, 2, step);
      const auto blanket4 = blanket_exact_pld(n, eps0, 4, step);
      for (double eps : {0.02, 0.05, 0.1, 0.2, 0.4}) {  // eps >= step, so eps - step is a curve's point
        CAPTURE(n);
        CAPTURE(eps0);
        CAPTURE(eps);
        const auto within = [&](const PrivacyLossDistribution& pld, double at, double below) {
          CHECK(pld.delta(eps) >= at * (1 - 1e-9) - 1e-300);
          CHECK(pld.delta(eps) <= below * (1 + 1e-9) + 1e-25);
        };
        const double lower = eps - step;
        within(fmt, fmt_delta(n, eps0, eps), fmt_delta(n, eps0, lower));
        within(blanket, blanket_exact_delta(n, eps0, eps, 2), blanket_exact_delta(n, eps0, lower, 2));
        within(blanket4, blanket_exact_delta(n, eps0, eps, 4), blanket_exact_delta(n, eps0, lower, 4));
      }
      // The same through epsilon(delta): at most a step (and the searches' 1e-9) above.
      const double one = fmt_numeric_epsilon(n, eps0, 1e-6);
      CHECK(fmt.epsilon(1e-6) >= one - 1e-8);
      CHECK(fmt.epsilon(1e-6) <= one + step + 1e-8);
      CHECK(fmt.self_compose(1).epsilon(1e-6) == fmt.epsilon(1e-6));
    }
  }
}

TEST_CASE("pld: T rounds of randomized response equal the binomial closed form, to the grid's rounding and never below it") {
  constexpr double step = 1e-4;
  for (double eps0 : {0.5, 1.0, 2.0}) {
    const auto one = rr_pld(eps0, step);
    for (std::uint64_t rounds : {1u, 2u, 5u, 20u, 64u}) {
      const auto composed = one.self_compose(rounds);
      for (double frac : {0.05, 0.1, 0.3, 0.6}) {  // eps >= T step
        const double eps = frac * eps0 * static_cast<double>(rounds);
        CAPTURE(eps0);
        CAPTURE(rounds);
        CAPTURE(eps);
        const auto exact = static_cast<double>(rr_composed_delta(rounds, eps0, eps));
        const double slack = static_cast<double>(rounds) * step;
        CHECK(composed.delta(eps) >= exact * (1 - 1e-9) - 1e-15);
        CHECK(composed.delta(eps) <= static_cast<double>(rr_composed_delta(rounds, eps0, eps - slack)) * (1 + 1e-9) + 1e-15);
      }
    }
  }
  // Composing one round at a time is the same as by squaring.
  const auto rr = rr_pld(1.0, 1e-3);
  auto by_steps = rr;
  for (int t = 1; t < 7; ++t) by_steps = by_steps.compose(rr);
  CHECK(by_steps.delta(1.0) == doctest::Approx(rr.self_compose(7).delta(1.0)).epsilon(1e-12));
}

TEST_CASE("pld: composing T rounds of the blanket beats basic composition and grows with T") {
  const auto one = blanket_exact_pld(100000, 4);
  double previous = 0;
  for (std::uint64_t rounds : {1u, 2u, 4u, 10u}) {
    CAPTURE(rounds);
    const double composed = one.self_compose(rounds).epsilon(1e-6);
    const double basic = static_cast<double>(rounds) * one.epsilon(1e-6 / static_cast<double>(rounds));
    CHECK(composed > previous);
    CHECK(composed <= basic + static_cast<double>(rounds) * one.step());
    if (rounds >= 4) CHECK(composed < 0.6 * basic);  // the point of a PLD: about sqrt(T), not T
    previous = composed;
  }
}

TEST_CASE("pld: a pair with an outcome Q never gives is loss +inf, and bad arguments are refused") {
  const auto pld = PrivacyLossDistribution::from_pair({0.5, 0.3, 0.2}, {0.5, 0.5, 0.0}, 1e-3);
  CHECK(pld.infinite_mass() == doctest::Approx(0.2));
  CHECK(pld.delta(10) == doctest::Approx(0.2));
  CHECK(pld.epsilon(0.1) == std::numeric_limits<double>::infinity());
  CHECK(pld.epsilon(0.25) == doctest::Approx(0.0).epsilon(1e-9));  // delta(0) = 0.2 <= 0.25
  CHECK_THROWS_AS((void)PrivacyLossDistribution::from_pair({0.5, 0.5}, {1.0}, 1e-3), std::invalid_argument);
  CHECK_THROWS_AS((void)PrivacyLossDistribution::from_pair({0.5, -0.5}, {0.5, 0.5}, 1e-3), std::invalid_argument);
  CHECK_THROWS_AS((void)rr_pld(1.0, 0), std::invalid_argument);
  CHECK_THROWS_AS((void)rr_pld(1.0, 1e-3).compose(rr_pld(1.0, 1e-4)), std::invalid_argument);
  CHECK_THROWS_AS((void)rr_pld(1.0).self_compose(0), std::invalid_argument);
  CHECK_THROWS_AS((void)rr_pld(1.0).epsilon(0), std::invalid_argument);
  CHECK_THROWS_AS((void)fmt_pld(1, 1.0), std::invalid_argument);
  CHECK_THROWS_AS((void)blanket_exact_pld(100, 1.0, 1), std::invalid_argument);
}
