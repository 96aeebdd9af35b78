// split-mix-dp-sum: the noise is exactly discrete Laplace end to end, the error matches the
// formula (rigorous bounds at false-failure probability below 1e-9), the reported
// (eps, delta), and the local / shuffle / central comparison.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <vector>

#include "shufflempc/inproc.hpp"
#include "shufflempc/registry.hpp"
#include "shufflempc/protocols/split_mix/dp_sum.hpp"
#include "support/errors.hpp"
#include "support/stats.hpp"

namespace sm = shufflempc::split_mix;
using shufflempc::SeededRng;
using shufflempc::Value;

namespace {
// Pearson's chi-square of observed noise values against discrete Laplace(a), cells -200..200 and
// the rest, at tail 1e-10 (support/stats.hpp).
bool fits_discrete_laplace(std::map<long, std::uint64_t>& counts, std::uint64_t runs, double a) {
  std::vector<std::uint64_t> observed;
  std::vector<double> probabilities;
  std::uint64_t inside = 0;
  double mass = 0;
  for (long k = -200; k <= 200; ++k) {
    observed.push_back(counts.count(k) ? counts[k] : 0);
    probabilities.push_back((1 - a) / (1 + a) * std::pow(a, std::abs(k)));
    inside += observed.back();
    mass += probabilities.back();
  }
  observed.push_back(runs - inside);
  probabilities.push_back(std::max(0.0, 1 - mass));
  return shufflempc::test::chi_square(observed, probabilities).passes();
}
}  // namespace

TEST_CASE("dp-sum: configuration and the figures of the reference setting (n = 10^4, eps = 1, p = 100)") {
  const auto c = sm::configure_dp_sum(10'000, 1.0, 40, 0, 0, false);
  CHECK(c.precision == 100);  // ceil(sqrt(n))
  CHECK(c.alpha == doctest::Approx(std::exp(-0.01)).epsilon(1e-12));
  CHECK(c.alpha >= std::exp(-0.01));
  // Spec [C]: the noise's prediction is 1.414 (the measured error against the formula is the
  // mean-squared-error test below).
  CHECK(std::sqrt(c.noise_variance()) == doctest::Approx(1.414).epsilon(1e-3));
  // q = 2^k > 2 (n p + T) and the tail beyond T has probability <= 2^-40.
  CHECK(c.split.modulus.value() > 2 * (10'000 * 100 + c.tail));
  CHECK(2 * std::pow(c.alpha, static_cast<double>(c.tail + 1)) / (1 + c.alpha) <= std::exp2(-40));
  // ... and T is the smallest such integer (the definition docs/split-mix.md gives): T - 1 is not enough.
  CHECK(2 * std::pow(c.alpha, static_cast<double>(c.tail)) / (1 + c.alpha) > std::exp2(-40));
  CHECK(c.split.messages == sm::bbgn_messages(10'000, 40, c.split.modulus.log2()));
  // (eps, delta) reported: delta = (1 + e^eps) 2^-sigma_guaranteed <= (1 + e) 2^-40.
  CHECK(c.delta > 0);
  CHECK(c.delta <= (1 + std::exp(1.0)) * std::exp2(-40));
  CHECK_THROWS_AS((void)sm::configure_dp_sum(10'000, 1.0, 40, 0, 3, false), std::invalid_argument);
  CHECK_THROWS_AS((void)sm::configure_dp_sum(10'000, 0.0, 40, 0, 0, false), std::invalid_argument);
}

TEST_CASE("dp-sum: end to end, the total noise is exactly discrete Laplace") {
  // Inputs 0 and 1 round exactly (to 0 and p), so p * output - p * (number of ones) is the sum
  // of the parties' Polya differences after split-mix, the channel and the lift: it must be
  // discrete Laplace(a). Pearson chi-square over 20,000 runs at tail 1e-10 (support/stats.hpp).
  const std::size_t n = 20;
  const auto protocol = shufflempc::builtin_registry().create("split-mix-dp-sum", {{"epsilon", "1"}, {"precision", "2"}}, n);
  const double a = protocol->describe()["alpha"].get<double>();
  REQUIRE(a == doctest::Approx(std::exp(-0.5)));
  std::vector<Value> inputs;
  for (std::size_t i = 0; i < n; ++i) inputs.push_back(i % 3 == 0 ? 1 : 0);
  const double ones = 7;
  SeededRng rng(301);
  std::map<long, std::uint64_t> counts;
  const std::size_t runs = 20'000;
  for (std::size_t r = 0; r < runs; ++r) {
    const auto run_rng = rng.fork(r);
    const double out = shufflempc::run_in_process(*protocol, inputs, *run_rng).output.get<double>();
    counts[std::lround(out * 2 - ones * 2)] += 1;
  }
  CHECK(fits_discrete_laplace(counts, runs, a));
}

TEST_CASE("dp-sum: the mean squared error matches 2a/((1-a)^2 p^2) + sum f(1-f)/p^2") {
  // n = 100, eps = 1, p = 10, R = 20,000 runs of the typed API on fixed inputs. E = output - truth
  // = (rounding R + noise N) / p, with E[E^2] = v exactly (the formula in the test's name).
  // Lower tail: E^2 >= 0, so P(mean E^2 <= v - t) <= exp(-R t^2 / (2 E[E^4])) (Maurer's bound
  // for non-negative variables). Upper tail: truncate at the L below, which some run exceeds with
  // probability < 1e-10 (union bound over the runs), then Bernstein for variables in [0, L^2]:
  // P(mean >= v + t) <= exp(-R t^2 / (2 (E[E^4] + L^2 t / 3))). Both tails at 1e-10.
  const std::size_t n = 100;
  const auto c = sm::configure_dp_sum(n, 1.0, 40, 10, 0, false);
  const double p = 10, a = c.alpha;
  SeededRng rng(302);
  std::vector<double> inputs;
  double truth = 0, rounding = 0, rounding4 = 0;
  for (std::size_t i = 0; i < n; ++i) {
    inputs.push_back(rng.uniform01());
    truth += inputs.back();
    const double f = inputs.back() * p - std::floor(inputs.back() * p);
    rounding += f * (1 - f);
    rounding4 += f * (1 - f) * (f * f * f + (1 - f) * (1 - f) * (1 - f));  // E r^4 of one rounding
  }
  // Moments of N (grid units) by direct summation of the pmf.
  double n2 = 0, n4 = 0;
  for (int k = 1; k < 5000; ++k) {
    const double pk = 2 * (1 - a) / (1 + a) * std::pow(a, k);
    n2 += pk * k * k;
    n4 += pk * std::pow(k, 4);
  }
  const double v = (n2 + rounding) / (p * p);
  // E[(R + N)^4] = E R^4 + 6 E R^2 E N^2 + E N^4 (odd moments of N vanish);
  // E R^4 = sum E r^4 + 3 ((sum E r^2)^2 - sum (E r^2)^2) <= sum E r^4 + 3 (sum E r^2)^2.
  const double e4 = (rounding4 + 3 * rounding * rounding + 6 * rounding * n2 + n4) / std::pow(p, 4);
  const double runs = 20'000, log_fail = std::log(1e10);
  // Truncation: |R| <= sqrt(n ln(4e14) / 2) (Hoeffding, each rounding error has range 1) and
  // |N| <= 400 (P = 2 a^401 / (1 + a) < 1e-17), per run; union over the runs < 1e-10.
  REQUIRE(2 * std::pow(a, 401) / (1 + a) * runs < 1e-12);
  const double big_l = (std::sqrt(n * std::log(4e14) / 2) + 400) / p;
  const double lower = v - std::sqrt(2 * e4 * log_fail / runs);
  // Solve t^2 = 2 log_fail (e4 + L^2 t / 3) / R for t.
  const double b = 2 * log_fail * big_l * big_l / (3 * runs), cc = 2 * log_fail * e4 / runs;
  const double upper = v + (b + std::sqrt(b * b + 4 * cc)) / 2;
  double mse = 0;
  for (int r = 0; r < static_cast<int>(runs); ++r) mse += std::pow(sm::shuffle_estimate(inputs, c, rng) - truth, 2);
  mse /= runs;
  INFO("mse " << mse << " in [" << lower << ", " << upper << "], exact expectation " << v);
  CHECK(mse >= lower);
  CHECK(mse <= upper);
  CHECK(upper < 2 * v);  // the test has power: twice the noise variance would fail it
}

TEST_CASE("dp-sum: local / shuffle / central side by side on the same inputs") {
  const std::size_t n = 1000;
  const auto c = sm::configure_dp_sum(n, 1.0, 40, 0, 0, false);
  SeededRng rng(303);
  std::vector<double> inputs;
  for (std::size_t i = 0; i < n; ++i) inputs.push_back(rng.uniform01());
  const auto e = sm::compare_models(inputs, c, 100, rng);
  // Shuffle matches central within the rounding term n/(4p^2).
  CHECK(e.predicted_shuffle * e.predicted_shuffle - e.predicted_central * e.predicted_central <=
        static_cast<double>(n) / (4.0 * c.precision * c.precision) + 1e-12);
  CHECK(e.predicted_local > 20 * e.predicted_shuffle);
  // Measured local error: a sum of 1000 independent terms, so E^2/v is close to chi-square(1);
  // Maurer's lower bound with E[E^4] <= 3.1 v^2 over 100 runs gives mean >= 0.05 v with
  // probability 1 - 1e-10 (t = sqrt(2 * 3.1 * 23 / 100) = 1.19, so we ask for far less).
  CHECK(e.local > 0.2 * e.predicted_local);
  CHECK(e.local > 5 * e.predicted_shuffle);
}

TEST_CASE("dp-sum with dropouts: the noise of any min-parties submitters is exactly discrete Laplace") {
  // n = 20, min-parties = 10, and 10 parties drop out: the 10 left add Polya(1/10) shares, so the
  // total noise is exactly discrete Laplace(a), as without dropouts. Pearson chi-square over
  // 20,000 runs at tail 1e-10; the report names 10 submitters and the guarantee they achieve.
  const std::size_t n = 20, m = 10;
  const auto protocol = shufflempc::builtin_registry().create("split-mix-dp-sum", {{"epsilon", "1"}, {"precision", "2"}}, n, m);
  const double a = protocol->describe()["alpha"].get<double>();
  CHECK(protocol->describe()["min_parties"] == m);
  std::vector<Value> inputs;
  for (std::size_t i = 0; i < n; ++i) inputs.push_back(i % 3 == 0 ? 1 : 0);
  double ones = 0;
  shufflempc::RunOptions opts;
  opts.min_parties = m;
  for (shufflempc::PartyId i = 0; i < n; i += 2) opts.dropouts[i] = 0;  // the even parties leave
  for (std::size_t i = 1; i < n; i += 2) ones += inputs[i].get<double>();
  SeededRng rng(303);
  std::map<long, std::uint64_t> counts;
  const std::size_t runs = 20'000;
  Value last;
  for (std::size_t r = 0; r < runs; ++r) {
    const auto run_rng = rng.fork(r);
    const auto res = shufflempc::run_in_process(*protocol, inputs, *run_rng, opts);
    counts[std::lround(res.output.get<double>() * 2 - ones * 2)] += 1;
    if (r == 0) last = res.details;
  }
  CHECK(fits_discrete_laplace(counts, runs, a));
  REQUIRE(last.contains("achieved"));
  CHECK(last["achieved"]["submitted"] == m);
  CHECK(last["achieved"]["epsilon"] == 1.0);
  // More submitters than the calibration only add noise: the tail T covers all n submitting.
  const auto c = sm::configure_dp_sum(n, 1.0, 40, 2, 0, false, m);
  CHECK(c.noise_variance(n) == doctest::Approx(2 * c.noise_variance(m)));
  CHECK(c.tail > sm::configure_dp_sum(n, 1.0, 40, 2, 0, false).tail);
}

TEST_CASE("split-mix-dp-sum: configure_dp_sum() refuses the epsilon the command line refuses, in the same words") {
  const shufflempc::Registry registry = shufflempc::builtin_registry();
  for (const char* text : {"0.001", "11"}) {
    CAPTURE(text);
    const std::string cli =
        shufflempc::test::error_text([&] { (void)registry.create("split-mix-dp-sum", {{"epsilon", text}}, 1000); });
    const std::string api =
        shufflempc::test::error_text([&] { (void)shufflempc::split_mix::configure_dp_sum(1000, std::stod(text), 40, 0, 0, false, 0); });
    CHECK(api == cli);
    CHECK(api.find("is out of range: must be a number in [0.01, 10]") != std::string::npos);
  }
}
