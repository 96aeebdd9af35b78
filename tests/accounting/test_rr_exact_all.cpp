// The exact (eps, delta) of shuffled binary randomized response over every dataset
// (rr_exact_all_delta and its inverses): against brute force over every dataset and every report
// vector at small n and over every count of ones at n up to 60, between the all-zero dataset's lower
// bound and the ldp-blanket upper bound, its window's cut tails accounted on the safe side, the
// sweep's recursion against fresh pmfs, the inverses against the forward curve, and
// counting-rr-amplified calibrated by it.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "rr_exact_all.hpp"
#include "shufflempc/accounting/amplification.hpp"
#include "shufflempc/protocols/shuffled_rr/shuffled_rr.hpp"

using namespace shufflempc;

namespace {

// Brute force from the definition: every dataset of n bits and every neighbour (one bit flipped),
// each report vector of the n users enumerated (2^n of them) with its probability, the analyzer's
// view the number of ones; the largest hockey-stick divergence over all of them.
long double brute_force_delta(unsigned n, double eps0, double eps) {
  const long double p = std::exp(static_cast<long double>(eps0)) / (std::exp(static_cast<long double>(eps0)) + 1), q = 1 - p;
  const long double e = std::exp(static_cast<long double>(eps));
  const auto view = [&](unsigned data) {
    std::vector<long double> count(n + 1, 0);
    for (unsigned reports = 0; reports < (1u << n); ++reports) {
      long double pr = 1;
      for (unsigned i = 0; i < n; ++i) pr *= (((reports >> i) & 1) == ((data >> i) & 1)) ? p : q;
      count[static_cast<unsigned>(__builtin_popcount(reports))] += pr;
    }
    return count;
  };
  std::vector<std::vector<long double>> views;
  for (unsigned data = 0; data < (1u << n); ++data) views.push_back(view(data));
  long double worst = 0;
  for (unsigned data = 0; data < (1u << n); ++data)
    for (unsigned i = 0; i < n; ++i) {
      const auto& a = views[data];
      const auto& b = views[data ^ (1u << i)];
      long double d = 0;
      for (unsigned k = 0; k <= n; ++k) d += std::max(0.0L, a[k] - e * b[k]);
      worst = std::max(worst, d);
    }
  return worst;
}

long double pmf(std::uint64_t m, std::uint64_t k, long double prob) {
  if (k > m) return 0;
  if (m == 0) return 1;
  const long double log_c = std::lgamma(static_cast<long double>(m) + 1) - std::lgamma(static_cast<long double>(k) + 1) -
                            std::lgamma(static_cast<long double>(m - k) + 1);
  return std::exp(log_c + static_cast<long double>(k) * std::log(prob) + static_cast<long double>(m - k) * std::log1p(-prob));
}

// Over every count c of ones among the other n - 1 users: the count of the others' ones as the
// full convolution of Bin(c, p) and Bin(n - 1 - c, q), then the user on 0 or 1 added; both
// directions. Returns the maximum and the c where it is attained.
struct Direct {
  long double delta = 0;
  std::uint64_t c = 0;
};
Direct direct_over_every_count(std::uint64_t n, double eps0, double eps) {
  const long double p = std::exp(static_cast<long double>(eps0)) / (std::exp(static_cast<long double>(eps0)) + 1), q = 1 - p;
  const long double e = std::exp(static_cast<long double>(eps));
  Direct best;
  for (std::uint64_t c = 0; c < n; ++c) {
    std::vector<long double> s(n, 0);
    for (std::uint64_t a = 0; a <= c; ++a)
      for (std::uint64_t b = 0; b <= n - 1 - c; ++b) s[a + b] += pmf(c, a, p) * pmf(n - 1 - c, b, q);
    long double up = 0, down = 0;
    for (std::uint64_t k = 0; k <= n; ++k) {
      const long double now = k < n ? s[k] : 0, before = k > 0 ? s[k - 1] : 0;
      const long double k0 = p * now + q * before, k1 = q * now + p * before;
      up += std::max(0.0L, k1 - e * k0);
      down += std::max(0.0L, k0 - e * k1);
    }
    if (std::max(up, down) > best.delta) best = {std::max(up, down), c};
  }
  return best;
}

}  // namespace

TEST_CASE("rr_exact_all_delta equals brute force over every dataset, every neighbour and every report vector, n = 2..9") {
  for (unsigned n = 2; n <= 9; ++n)
    for (double eps0 : {0.5, 1.0, 3.0})
      for (double frac : {0.0, 0.1, 0.4, 0.8}) {
        const double eps = frac * eps0;
        CAPTURE(n);
        CAPTURE(eps0);
        CAPTURE(eps);
        CHECK(rr_exact_all_delta(n, eps0, eps) == doctest::Approx(static_cast<double>(brute_force_delta(n, eps0, eps))).epsilon(1e-9).scale(1e-14));
      }
}

TEST_CASE("rr_exact_all_delta equals the maximum over every count of ones of the full convolution, n up to 60, and where it is attained") {
  for (std::uint64_t n : {10u, 23u, 60u})
    for (double eps0 : {0.5, 2.0, 5.0})
      for (double frac : {0.0, 0.05, 0.3}) {
        const double eps = frac * eps0;
        CAPTURE(n);
        CAPTURE(eps0);
        CAPTURE(eps);
        const auto direct = direct_over_every_count(n, eps0, eps);
        const auto worst = rr_exact_all_worst_case(n, eps0, eps);
        CHECK(worst.delta == doctest::Approx(static_cast<double>(direct.delta)).epsilon(1e-9).scale(1e-14));
        // The two directions mirror each other (relabel the bits: c ones becomes n - 1 - c), so
        // the maximum is attained at c or at n - 1 - c.
        CHECK((worst.ones == direct.c || worst.ones == n - 1 - direct.c));
      }
}

TEST_CASE("rr_exact_all lies between the all-zero dataset's exact curve and the ldp-blanket bound on a grid") {
  for (std::uint64_t n : {100u, 1000u, 10000u})
    for (double eps0 : {0.5, 2.0, 4.0, 7.0})
      for (double frac : {0.0, 0.02, 0.1, 0.3}) {
        const double eps = frac * eps0;
        CAPTURE(n);
        CAPTURE(eps0);
        CAPTURE(eps);
        const double exact = rr_exact_all_delta(n, eps0, eps);
        CHECK(rr_exact_delta(n, eps0, eps) <= exact * (1 + 1e-9) + 1e-15);
        CHECK(exact <= ldp_blanket_delta(n, eps0, eps) * (1 + 1e-9) + 1e-14);
      }
}

TEST_CASE("rr_exact_all: what its windows cut is added, so narrow windows err on the safe side") {
  // Windows of e^-X per cut tail with X small, each count of ones started afresh (block 1): the
  // window sums leave real mass out. With what the sweep adds, the value is at or above the truth
  // at every setting; without it (delta - added), it falls below the truth at some: a sweep that
  // dropped the addition would be caught here.
  const std::uint64_t n = 60;
  int below_without = 0;
  for (double x : {3.0, 5.0, 8.0})
    for (double eps0 : {1.0, 3.0})
      for (double frac : {0.0, 0.1}) {
        const double eps = frac * eps0;
        CAPTURE(x);
        CAPTURE(eps0);
        CAPTURE(eps);
        const auto truth = static_cast<double>(direct_over_every_count(n, eps0, eps).delta);
        const auto narrow = detail::rr_exact_all_sweep(n, eps0, eps, {}, 1, x);
        CHECK(narrow.added > 1e-6);  // the narrow windows do cut
        CHECK(narrow.delta >= truth * (1 - 1e-12));
        if (narrow.delta - narrow.added < truth * (1 - 1e-9)) ++below_without;
        // The accountant's windows add almost nothing.
        const auto wide = detail::rr_exact_all_sweep(n, eps0, eps, {});
        CHECK(wide.added < 1e-15);
      }
  CHECK(below_without > 0);
}

TEST_CASE("rr_exact_all: the sweep's recursion matches pmfs computed afresh at every count of ones, n = 3000") {
  for (double eps0 : {0.7, 4.0}) {
    const double eps = 0.05 * eps0;
    const auto swept = detail::rr_exact_all_sweep(3000, eps0, eps, {});
    const auto fresh = detail::rr_exact_all_sweep(3000, eps0, eps, {}, 1);  // every c from its own convolution
    CAPTURE(eps0);
    CHECK(swept.delta == doctest::Approx(fresh.delta).epsilon(1e-10).scale(1e-15));
    CHECK(swept.drift < 1e-12);
    CHECK(fresh.drift < 1e-12);
  }
}

TEST_CASE("rr_exact_all: the inverses agree with the forward curve") {
  const std::uint64_t n = 5000;
  const double delta = 1e-6;
  const double eps = rr_exact_all_epsilon(n, 3.0, delta);
  CHECK(rr_exact_all_delta(n, 3.0, eps) <= delta);
  CHECK(rr_exact_all_delta(n, 3.0, eps - 1e-6) > delta);
  CHECK(eps <= ldp_blanket_epsilon(n, 3.0, delta));
  CHECK(eps >= rr_exact_epsilon(n, 3.0, delta));
  const double eps0 = rr_exact_all_local_epsilon(n, 0.5, delta);
  CHECK(rr_exact_all_delta(n, eps0, 0.5) <= delta);
  CHECK(rr_exact_all_delta(n, eps0 + 1e-6, 0.5) > delta);
  CHECK(eps0 >= ldp_blanket_local_epsilon(n, 0.5, delta));
}

TEST_CASE("rr_exact_all refuses what it does not define, naming the parameter") {
  CHECK_THROWS_WITH_AS(static_cast<void>(rr_exact_all_delta(1, 1.0, 0.1)), doctest::Contains("parties"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(static_cast<void>(rr_exact_all_delta(rr_exact_all_max_parties + 1, 1.0, 0.1)), doctest::Contains("parties"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(static_cast<void>(rr_exact_all_delta(10, 1.0, -0.1)), doctest::Contains("epsilon"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(static_cast<void>(rr_exact_all_epsilon(10, 1.0, 0)), doctest::Contains("delta"), std::invalid_argument);
  CHECK(rr_exact_all_delta(10, 1.0, 1.0) == 0);
}

TEST_CASE("counting-rr-amplified by default takes eps0 from the exact value: it meets (eps, delta) and misses it 0.01 above") {
  const std::uint64_t n = 20000;
  const auto c = shuffled_rr::configure(n, 2, 1.0, 1e-6, shuffled_rr::Model::shuffle, shuffled_rr::Bound::tightest);
  CHECK(c.used == shuffled_rr::Bound::rr_exact_all);
  CHECK(c.achieved_delta <= 1e-6);
  CHECK(rr_exact_all_delta(n, c.epsilon0 + 0.01, 1.0) > 1e-6);
  CHECK(c.epsilon0 > ldp_blanket_local_epsilon(n, 1.0, 1e-6));
  CHECK(shuffled_rr::describe(c)["bound"].get<std::string>().find("exact") != std::string::npos);
  // k-ary randomized response keeps the bounds; asking it for the binary value is refused.
  const auto h = shuffled_rr::configure(n, 4, 1.0, 1e-6, shuffled_rr::Model::shuffle, shuffled_rr::Bound::tightest);
  CHECK(h.used != shuffled_rr::Bound::rr_exact_all);
  CHECK_THROWS_WITH_AS(static_cast<void>(shuffled_rr::configure(n, 4, 1.0, 1e-6, shuffled_rr::Model::shuffle, shuffled_rr::Bound::rr_exact_all)),
                       doctest::Contains("domain"), std::invalid_argument);
}
