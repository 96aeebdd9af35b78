// The calibration of k-ary randomized response by a named bound (calibrate_randomized_response),
// and the Bennett form of the privacy blanket that the authors of the sum protocols calibrate with.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

#include "shufflempc/accounting/amplification.hpp"

using namespace shufflempc;

TEST_CASE("rr calibration: Bennett's blanket is a valid bound, its eps0 meets its own delta, and tightest is never below it") {
  for (const std::uint64_t k : {2u, 3u, 10u, 48u}) {
    for (const std::uint64_t n : {10000u, 100000u}) {
      CAPTURE(k);
      CAPTURE(n);
      const double eps = 0.5, delta = 1e-10;
      const double e0 = bennett_local_epsilon(n, eps, delta, k);
      CHECK(e0 > eps);
      CHECK(bennett_delta(n, e0, eps, k) <= delta * (1 + 1e-12));  // to the rounding of the search's log ratio
      CHECK(bennett_delta(n, e0 + 1e-6, eps, k) > delta * 0.999);  // the largest: a little more fails (to the search's 1e-9)
      // Valid: the exact divergence of one pair of datasets (a lower bound on the true delta) is below it.
      CHECK(rr_exact_delta(n, e0, eps, k) <= delta);
      // tightest takes it when it certifies the most (with many values it can beat blanket-exact).
      if (k > 2) CHECK(calibrate_randomized_response(n, k, eps, delta, RrBound::tightest).epsilon0 >= e0);
    }
  }
  CHECK(bennett_delta(1000, 1.0, 1.0, 4) == 0);  // eps >= eps0: nothing to pay
}

TEST_CASE("rr calibration: tightest takes the largest eps0 of the bounds it may use, names it, and meets delta") {
  const auto fmt = calibrate_randomized_response(100000, 8, 0.5, 1e-8, RrBound::fmt);
  const auto exact = calibrate_randomized_response(100000, 8, 0.5, 1e-8, RrBound::blanket_exact);
  const auto ldp = calibrate_randomized_response(100000, 8, 0.5, 1e-8, RrBound::ldp_blanket);
  const auto tight = calibrate_randomized_response(100000, 8, 0.5, 1e-8, RrBound::tightest);
  CHECK(tight.epsilon0 == std::max({fmt.epsilon0, exact.epsilon0, ldp.epsilon0}));
  CHECK(tight.used != RrBound::tightest);
  CHECK(tight.achieved_delta <= 1e-8);
  CHECK(tight.gamma == doctest::Approx(8 / (std::exp(tight.epsilon0) + 7)));
  const auto bits = calibrate_randomized_response(10000, 2, 1, 1e-6, RrBound::tightest);
  CHECK(bits.used == RrBound::rr_exact_all);
  CHECK(rr_exact_all_delta(10000, bits.epsilon0, 1) <= 1e-6);
  for (const char* name : {"fmt", "blanket", "blanket-exact", "ldp-blanket", "rr-exact-all", "bennett", "tightest"})
    CHECK(rr_bound_name(rr_bound_of(name)) == name);
  CHECK_THROWS_WITH_AS((void)rr_bound_of("hoeffding"), doctest::Contains("is not one of: fmt, blanket"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)calibrate_randomized_response(1000, 2, 0.5, 1e-6, RrBound::blanket), doctest::Contains("epsilon = 0.5, delta = 1e-06"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)calibrate_randomized_response(1000, 3, 0.5, 1e-6, RrBound::rr_exact_all), doctest::Contains("domain must be 2"),
                       std::invalid_argument);
}
