#include <doctest/doctest.h>

#include <boost/math/distributions/binomial.hpp>
#include <cmath>

#include "shufflempc/accounting/privacy.hpp"

using namespace shufflempc;

namespace {
// The oracle evaluated directly in double precision over the whole support (small n only).
double brute_delta(std::uint64_t n, double p, double eps) {
  boost::math::binomial d(static_cast<double>(n), p);
  const auto P = [&](std::int64_t k) {
    return (k < 0 || k > static_cast<std::int64_t>(n)) ? 0.0 : boost::math::pdf(d, static_cast<double>(k));
  };
  double s1 = 0, s2 = 0;
  for (std::int64_t k = -1; k <= static_cast<std::int64_t>(n) + 1; ++k) {
    s1 += std::max(0.0, P(k) - std::exp(eps) * P(k - 1));
    s2 += std::max(0.0, P(k - 1) - std::exp(eps) * P(k));
  }
  return std::max(s1, s2);
}
}  // namespace

TEST_CASE("the log-space oracle agrees with the direct sum on small cases") {
  for (auto [n, p, eps] : std::vector<std::tuple<std::uint64_t, double, double>>{
           {50, 0.2, 0.5}, {50, 0.2, 1.0}, {200, 0.05, 0.3}, {1000, 0.3, 0.1}, {10, 0.5, 2.0}, {1, 0.5, 0.5}}) {
    const double exact = brute_delta(n, p, eps);
    const double fast = binomial_noise_delta(n, p, eps).delta();
    CHECK_MESSAGE(std::fabs(fast - exact) <= 1e-9 * exact + 1e-300, n << " " << p << " " << eps << ": " << fast << " vs " << exact);
  }
}

TEST_CASE("the lectures' p meets (eps, delta) by the exact oracle, with a huge margin") {
  // Spec [C]: with C = 48 the exact delta is <= 1e-84 in every tested setting.
  for (auto [eps, delta, n] : std::vector<std::tuple<double, double, std::uint64_t>>{
           {1.0, 1e-6, 100000}, {0.5, 1e-6, 100000}, {1.0, 1e-9, 1000000}}) {
    const double p = lecture_noise_rate(n, eps, delta);
    const auto d = binomial_noise_delta(n, p, eps);
    CHECK(d.delta() <= delta);
    CHECK_MESSAGE(d.log10_delta() <= -80, "log10 delta = " << d.log10_delta());
  }
}

TEST_CASE("calibrated p: meets (eps, delta) exactly, and 0.99 p does not, constants match their independent computation") {
  struct Case {
    double eps, delta;
    std::uint64_t n;
    double spec_c;  // smallest C in p = C ln(2/delta)/(eps^2 n), computed independently
  };
  for (const Case c : {Case{1.0, 1e-6, 100000, 2.35}, Case{0.5, 1e-6, 100000, 1.55}, Case{1.0, 1e-9, 1000000, 2.66}}) {
    const double p = calibrate_binomial_p(c.n, c.eps, c.delta);
    CHECK(binomial_noise_delta(c.n, p, c.eps).delta() <= c.delta);
    CHECK(binomial_noise_delta(c.n, p * 0.99, c.eps).delta() > c.delta);
    const double C = p * c.eps * c.eps * static_cast<double>(c.n) / std::log(2 / c.delta);
    CHECK_MESSAGE(std::fabs(C - c.spec_c) < 0.02, "C = " << C << " spec " << c.spec_c);
  }
  CHECK_THROWS_AS((void)calibrate_binomial_p(10, 0.01, 1e-9), std::invalid_argument);
}

TEST_CASE("discrete Laplace: exact delta against the direct sum, 0 at the pure-DP scale, and the calibration") {
  // Direct: sum_k [P(k) - e^eps P(k - s)]_+ over a wide window, s = sensitivity.
  const auto direct = [](double lambda, double eps, int s) {
    const double a = std::exp(-lambda), c = (1 - a) / (1 + a);
    double sum = 0;
    for (int k = -4000; k <= 4000; ++k)
      sum += std::max(0.0, c * std::pow(a, std::abs(k)) - std::exp(eps) * c * std::pow(a, std::abs(k - s)));
    return sum;
  };
  for (auto [lambda, eps, s] : std::vector<std::tuple<double, double, int>>{{1.0, 0.5, 1}, {0.3, 0.5, 3}, {0.1, 1.0, 20}, {2.0, 0.1, 1}}) {
    const double exact = direct(lambda, eps, s);
    CHECK_MESSAGE(discrete_laplace_delta(lambda, eps, s).delta() == doctest::Approx(exact).epsilon(1e-9), lambda << " " << eps << " " << s);
  }
  CHECK(discrete_laplace_delta(0.5, 1.0, 2).delta() == 0);  // s lambda = eps: pure DP
  const double lambda = calibrate_discrete_laplace(1.0, 1e-6, 4);
  CHECK(lambda > 0.25);
  CHECK(discrete_laplace_delta(lambda, 1.0, 4).delta() <= 1e-6);
  CHECK(discrete_laplace_delta(lambda * (1 + 1e-6), 1.0, 4).delta() > 1e-6);
  CHECK(calibrate_discrete_laplace(1.0, 0, 4) == 0.25);
}

TEST_CASE("Polya differences: shape 1 is the discrete Laplace, fewer shares (dropouts) give a larger delta") {
  for (auto [lambda, eps, s] : std::vector<std::tuple<double, double, std::uint64_t>>{{1.0, 0.5, 1}, {0.2, 0.5, 3}, {0.05, 0.5, 10}}) {
    const double dlap = discrete_laplace_delta(lambda, eps, s).delta();
    CHECK_MESSAGE(polya_difference_delta(1.0, lambda, eps, s).delta() == doctest::Approx(dlap).epsilon(1e-9), lambda);
  }
  double last = 0;
  for (double shape : {1.0, 0.9, 0.7, 0.5}) {
    const double d = polya_difference_delta(shape, 0.05, 0.5, 10).delta();
    CHECK(d > last);
    last = d;
  }
  CHECK_THROWS_AS((void)polya_difference_delta(0.5, 1e-4, 1.0), std::invalid_argument);
  CHECK_THROWS_AS((void)polya_difference_delta(1.5, 0.1, 1.0), std::invalid_argument);
}
