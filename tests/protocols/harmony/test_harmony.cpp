// sum-harmony, the survey's LDP baseline for sums: the report's law exactly, eps-LDP, the estimate
// unbiased with the variance of its formula.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "shufflempc/protocols/harmony/harmony.hpp"
#include "shufflempc/registry.hpp"
#include "support/stats.hpp"

using namespace shufflempc;

TEST_CASE("sum-harmony: P(report +1) = x keep + (1 - x)(1 - keep), so one report is exactly eps-LDP") {
  const harmony::HarmonyMechanism m{.parties = 10, .epsilon = 0.7};
  CHECK(std::log(m.keep() / (1 - m.keep())) == doctest::Approx(0.7).epsilon(1e-12));  // x = 1 against x = 0
  SeededRng rng(9);
  for (const double x : {0.0, 0.25, 0.5, 1.0}) {
    CAPTURE(x);
    const std::uint64_t draws = 100000;
    MessageBatch out(1);
    for (std::uint64_t i = 0; i < draws; ++i) m.encode(x, rng, out);
    std::uint64_t plus = 0;
    for (std::size_t i = 0; i < out.count(); ++i) plus += out[i][0];
    CHECK(test::binomial_interval(draws, x * m.keep() + (1 - x) * (1 - m.keep())).contains(static_cast<double>(plus)));
  }
}

TEST_CASE("sum-harmony: the estimate is unbiased and its variance is sum (c^2 - t^2)/4") {
  const std::uint64_t n = 1000;
  const std::size_t trials = 4000;
  const harmony::HarmonyMechanism m{.parties = n, .epsilon = 1};
  SeededRng rng(17);
  std::vector<double> xs(n);
  double truth = 0, variance = 0;
  const double c = (std::exp(1.0) + 1) / std::expm1(1.0);
  for (std::size_t i = 0; i < n; ++i) {
    xs[i] = static_cast<double>(i % 11) / 10;
    truth += xs[i];
    const double t = 2 * xs[i] - 1;
    variance += (c * c - t * t) / 4;
  }
  CHECK(variance <= m.predicted_sd() * m.predicted_sd());
  double sum = 0, squares = 0;
  MessageBatch batch(1);
  const RoundOutcome outcome;
  for (std::size_t t = 0; t < trials; ++t) {
    batch.clear();
    for (const double x : xs) m.encode(x, rng, batch);
    const double e = m.analyze(batch, outcome, rng) - truth;
    sum += e;
    squares += e * e;
  }
  CHECK(std::fabs(sum / trials) <= test::normal_z() * std::sqrt(variance / trials));
  const auto [lo, hi] = test::rmse_ratio_bounds(trials);
  CHECK(std::sqrt(squares / trials) >= std::sqrt(variance) * lo);
  CHECK(std::sqrt(squares / trials) <= std::sqrt(variance) * hi);
}

TEST_CASE("sum-harmony: inputs outside the unit interval are refused naming the party") {
  const Registry registry = builtin_registry();
  const auto p = registry.create("sum-harmony", {}, 10);
  CHECK(p->trust_model() == TrustModel::local);
  CHECK_THROWS_WITH_AS((void)p->make_party(3, Value(-0.5)), doctest::Contains("input of party 3 must be a real number in [0, 1]"), std::invalid_argument);
  const harmony::HarmonyMechanism m{.parties = 10, .epsilon = 1};
  SeededRng rng(1);
  MessageBatch out(1);
  CHECK_THROWS_AS(m.encode(std::numeric_limits<double>::quiet_NaN(), rng, out), std::invalid_argument);
}
