#include <doctest/doctest.h>

#include <cmath>

#include "shufflempc/protocols/counting/counting.hpp"
#include "shufflempc/inproc.hpp"
#include "shufflempc/registry.hpp"
#include "support/stats.hpp"

using namespace shufflempc;
using namespace shufflempc::counting;

TEST_CASE("counting: exact on every input of up to 8 parties when the noise is degenerate (p = 0 or 1)") {
  SeededRng rng(61);
  for (std::uint64_t n = 1; n <= 8; ++n) {
    for (std::uint64_t x = 0; x < (1u << n); ++x) {
      for (double p : {0.0, 1.0}) {
        MessageBatch out(1);
        for (std::uint64_t i = 0; i < n; ++i) encode(((x >> i) & 1) != 0, p, rng, out);
        CHECK(out.count() == 2 * n);
        CHECK(analyze(out, n, p) == static_cast<double>(std::popcount(x)));
      }
    }
  }
}

TEST_CASE("counting: parameter validation names the violated condition") {
  CHECK_THROWS_WITH_AS((void)configure(100000, 1.5, 1e-6, NoiseRule::lecture), doctest::Contains("parameter 'epsilon' = 1.5 is out of range: must be a number in (0, 1]"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)configure(100000, 1, 0, NoiseRule::lecture), doctest::Contains("parameter 'delta' = 0 is out of range: must be a number in (0, 1)"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)configure(1000, 1, 1e-6, NoiseRule::lecture), doctest::Contains("parties must be at least 1393"), std::invalid_argument);
  const auto c = configure(1000, 1, 1e-6, NoiseRule::calibrated);  // the exact oracle allows it
  CHECK(c.p < 0.5);
}

TEST_CASE("counting: mean error ~ 0 and spread sqrt(n p (1-p)) for both noise rules") {
  // T runs of n parties. The error is Z - n p with Z ~ Binomial(n, p), so
  //  * the mean of T errors is within z_{1e-10} sd / sqrt(T) of 0 (normal approximation, n p >= 100);
  //  * (T-1) S^2 / sd^2 lies within the chi-square(T-1) 1e-10 quantiles.
  const std::uint64_t n = 20000;
  const int T = 300;
  for (NoiseRule rule : {NoiseRule::lecture, NoiseRule::calibrated}) {
    const Config c = configure(n, 1.0, 1e-6, rule);
    SeededRng rng(62 + static_cast<int>(rule));
    std::vector<double> errors;
    for (int t = 0; t < T; ++t) {
      MessageBatch out(1);
      out.reserve(2 * n);
      std::uint64_t truth = 0;
      for (std::uint64_t i = 0; i < n; ++i) {
        const bool x = i % 3 == 0;
        truth += x ? 1 : 0;
        encode(x, c.p, rng, out);
      }
      errors.push_back(analyze(out, n, c.p) - static_cast<double>(truth));
    }
    double mean = 0;
    for (double e : errors) mean += e;
    mean /= T;
    double s2 = 0;
    for (double e : errors) s2 += (e - mean) * (e - mean);
    s2 /= (T - 1);
    const double sd = noise_sd(n, c.p);
    CHECK_MESSAGE(std::fabs(mean) <= test::normal_z() * sd / std::sqrt(T), "mean " << mean << " sd " << sd);
    const double stat = (T - 1) * s2 / (sd * sd);
    CHECK_MESSAGE(stat <= test::chi2_critical(T - 1), "spread " << std::sqrt(s2) << " vs " << sd);
    CHECK_MESSAGE(stat >= test::chi2_lower(T - 1), "spread " << std::sqrt(s2) << " vs " << sd);
  }
}

TEST_CASE("counting: the observer's view depends on the inputs only through their sum") {
  // n = 6, p = 0.3: the view (the multiset of 12 bits) is summarised by its number of ones B, and
  // B - sum(x) ~ Binomial(6, 0.3). Two different inputs with the same sum both fit that law.
  const Registry registry = builtin_registry();
  const std::uint64_t n = 6;
  const double p = 0.3;
  boost::math::binomial law(n, p);
  std::vector<double> probs(n + 1);
  for (std::uint64_t k = 0; k <= n; ++k) probs[k] = boost::math::pdf(law, static_cast<double>(k));
  for (const std::vector<int>& input : {std::vector<int>{1, 1, 0, 0, 0, 0}, std::vector<int>{0, 0, 0, 0, 1, 1}}) {
    SeededRng rng(63);
    std::vector<std::uint64_t> counts(n + 1, 0);
    for (int t = 0; t < 20000; ++t) {
      MessageBatch out(1);
      for (int x : input) encode(x != 0, p, rng, out);
      const double b = analyze(out, n, 0);  // number of ones in the view
      counts[static_cast<std::size_t>(b) - 2]++;
    }
    CHECK(test::chi_square(counts, probs).passes());
  }
}

TEST_CASE("histogram: exact with degenerate noise, inverted empty bins are exactly 0 whatever the noise") {
  SeededRng rng(64);
  const std::uint32_t d = 3;
  // Every input vector of 3 parties over a 3-element domain.
  for (std::uint32_t code = 0; code < 27; ++code) {
    std::vector<std::uint32_t> xs = {code % 3, (code / 3) % 3, code / 9};
    std::vector<double> truth(d, 0);
    for (auto x : xs) truth[x] += 1;
    for (auto variant : {HistogramVariant::parallel, HistogramVariant::inverted}) {
      for (double p : {0.0, 1.0, 0.4}) {
        MessageBatch out(histogram_width);
        for (auto x : xs) encode_histogram(x, d, variant, p, rng, out);
        const auto counts = analyze_histogram(out, d, variant, xs.size(), p);
        for (std::uint32_t e = 0; e < d; ++e) {
          // p = 0 is exact for both variants, p = 1 for the parallel one (in the inverted one, all-ones
          // noise pushes every B_e to n or above, which the analyzer reads as an empty bin).
          if (p == 0.0 || (p == 1.0 && variant == HistogramVariant::parallel)) CHECK(counts[e] == truth[e]);
          else if (variant == HistogramVariant::inverted && truth[e] == 0) CHECK(counts[e] == 0.0);
        }
      }
    }
  }
  CHECK_THROWS_AS(encode_histogram(3, 3, HistogramVariant::parallel, 0.1, rng, *std::make_unique<MessageBatch>(3)), std::invalid_argument);
}

TEST_CASE("histogram through the registry: 20000 parties on half the domain, empty bins exactly 0 in every run") {
  const Registry registry = builtin_registry();
  auto proto = registry.create("histogram", {{"domain", "8"}, {"variant", "inverted"}}, 20000);
  SeededRng rng(65);
  for (int run = 0; run < 5; ++run) {
    std::vector<Value> inputs;
    auto in_rng = rng.fork(run);
    for (int i = 0; i < 20000; ++i) inputs.push_back(proto->random_input(i, "uniform:4", *in_rng));
    auto res = run_in_process(*proto, inputs, rng);
    for (int e = 4; e < 8; ++e) CHECK(res.output[e].get<double>() == 0.0);
    const double sd = proto->describe()["noise_sd_per_bin"].get<double>();
    const auto truth = *proto->truth(inputs);
    for (int e = 0; e < 4; ++e)
      CHECK(std::fabs(res.output[e].get<double>() - truth[e].get<double>()) <= test::normal_z() * sd);
  }
}

TEST_CASE("Balcer-Cheu: all-zero data gives exactly 0, estimates are unbiased with the predicted spread") {
  SeededRng rng(66);
  const std::uint64_t n = 100000;
  const double gamma = balcer_cheu_gamma(n, 1, 1e-6);
  CHECK(gamma == doctest::Approx(0.00725).epsilon(0.01));  // spec [C]: (1, 1e-6, 1e5) -> 0.00725
  CHECK(noise_sd(n, gamma) == doctest::Approx(26.8).epsilon(0.01));
  for (int t = 0; t < 5; ++t) {
    MessageBatch out(1);
    for (std::uint64_t i = 0; i < n; ++i) encode_balcer_cheu(false, gamma, rng, out);
    CHECK(analyze_balcer_cheu(out, n, gamma) == 0.0);
  }
  CHECK_THROWS_WITH_AS((void)balcer_cheu_gamma(1000, 1, 1e-6), doctest::Contains("n >= 100 ln(2/delta)/eps^2"), std::invalid_argument);
  // With a third of the parties holding 1 the count is far above n, so the estimate is c - n (1 - gamma):
  // unbiased with sd sqrt(n gamma (1 - gamma)). The mean of T errors within z sd / sqrt(T), and
  // their spread between the chi-square quantiles (both at 1e-10).
  const int T = 60;
  double sum = 0, sq = 0;
  for (int t = 0; t < T; ++t) {
    MessageBatch out(1);
    for (std::uint64_t i = 0; i < n; ++i) encode_balcer_cheu(i % 3 == 0, gamma, rng, out);
    const double e = analyze_balcer_cheu(out, n, gamma) - static_cast<double>((n + 2) / 3);
    sum += e;
    sq += e * e;
  }
  const double sd = noise_sd(n, gamma);
  CHECK(std::fabs(sum / T) <= test::normal_z() * sd / std::sqrt(T));
  CHECK(sq / (sd * sd) <= test::chi2_critical(T));
  CHECK(sq / (sd * sd) >= test::chi2_lower(T));
}

TEST_CASE("baselines: randomized response is unbiased, central noise has the discrete Laplace variance") {
  SeededRng rng(67);
  const std::uint64_t n = 2000;
  const int T = 400;
  double sum = 0, sq = 0;
  for (int t = 0; t < T; ++t) {
    MessageBatch out(1);
    for (std::uint64_t i = 0; i < n; ++i) encode_randomized_response(i % 2 == 0, 1.0, rng, out);
    const double e = analyze_randomized_response(out, n, 1.0) - static_cast<double>(n / 2);
    sum += e;
    sq += e * e;
  }
  const double q = 1 / (1 + std::exp(1.0));
  const double sd = std::sqrt(n * q * (1 - q)) / (1 - 2 * q);
  CHECK(std::fabs(sum / T) <= test::normal_z() * sd / std::sqrt(T));
  CHECK((T * (sq / T) / (sd * sd) <= test::chi2_critical(T)));
  CHECK((T * (sq / T) / (sd * sd) >= test::chi2_lower(T)));  // the spread from below too: not less noise than promised

  const double a = std::exp(-1.0);
  const double var = 2 * a / ((1 - a) * (1 - a));
  double s2 = 0;
  const int draws = 20000;
  for (int i = 0; i < draws; ++i) {
    const double e = static_cast<double>(central_count(100, 1.0, rng) - 100);
    s2 += e * e;
  }
  // Fourth moment of the discrete Laplace is finite; 20000 draws put the sample variance within
  // 7 standard errors (sd of e^2 is below 3 var here), a bound that holds with probability > 1 - 1e-10.
  CHECK(std::fabs(s2 / draws - var) <= 7 * 3 * var / std::sqrt(draws));
}

TEST_CASE("counting through the runtime: dropouts are reported and the estimate uses who submitted") {
  const Registry registry = builtin_registry();
  auto proto = registry.create("counting", {{"noise", "calibrated"}}, 5000);
  std::vector<Value> inputs(5000, 1);
  SeededRng rng(68);
  RunOptions opts;
  for (PartyId d : {7u, 100u, 4999u}) opts.dropouts[d] = 0;
  opts.min_parties = 4000;
  auto res = run_in_process(*proto, inputs, rng, opts);
  CHECK(res.dropped == std::vector<PartyId>{7, 100, 4999});
  CHECK(res.messages == 2 * 4997);
  const double sd = proto->describe()["noise_sd"].get<double>();
  CHECK(std::fabs(res.output.get<double>() - 4997) <= test::normal_z() * sd);
  opts.min_parties = 4999;
  CHECK_THROWS_WITH_AS((void)run_in_process(*proto, inputs, rng, opts), doctest::Contains("4997 of 5000 parties submitted, at least 4999 needed; missing: parties 7, 100, 4999"), std::system_error);
  CHECK_THROWS_WITH_AS((void)proto->make_party(3, 2), doctest::Contains("input of party 3 must be 0 or 1"), std::invalid_argument);
}

namespace {
// The exact delta of a count with Binomial(m, p) noise, summed directly from the pmf in long double
// (not the library's log-space oracle): max over the two directions of sum_k [P(k) - e^eps P(k-1)]_+.
long double direct_delta(std::uint64_t m, long double p, long double eps) {
  std::vector<long double> pmf(m + 2, 0.0L);
  for (std::uint64_t k = 0; k <= m; ++k)
    pmf[k] = std::exp(std::lgamma(static_cast<long double>(m) + 1) - std::lgamma(static_cast<long double>(k) + 1) -
                      std::lgamma(static_cast<long double>(m - k) + 1) + k * std::log(p) + (m - k) * std::log1p(-p));
  long double up = 0, down = 0;
  const long double e = std::exp(eps);
  for (std::uint64_t k = 0; k <= m + 1; ++k) {
    const long double cur = pmf[k], prev = k == 0 ? 0.0L : pmf[k - 1];
    up += std::max(0.0L, cur - e * prev);
    down += std::max(0.0L, prev - e * cur);
  }
  return std::max(up, down);
}
}  // namespace

TEST_CASE("counting with half the parties gone: noise calibrated for --min-parties, the achieved delta reported exactly") {
  // 4000 parties, 2000 of them drop out. Calibrated for all 4000, the 2000 left would have delta
  // 2.3e-4; calibrated for min_parties = 2000 they keep delta <= 1e-6, and the report says so.
  const Registry registry = builtin_registry();
  const std::size_t n = 4000, m = 2000;
  auto naive = registry.create("counting", {{"noise", "calibrated"}}, n);
  const double p_naive = naive->describe()["p"].get<double>();
  CHECK(direct_delta(m, p_naive, 1.0L) > 1e-4L);  // what the lectures' robustness is about
  auto robust = registry.create("counting", {{"noise", "calibrated"}}, n, m);
  CHECK(robust->describe()["min_parties"] == m);
  std::vector<Value> inputs(n, 1);
  RunOptions opts;
  opts.min_parties = m;
  for (PartyId i = 0; i < m; ++i) opts.dropouts[2 * i + 1] = 0;
  SeededRng rng(69);
  const RunResult r = run_in_process(*robust, inputs, rng, opts);
  REQUIRE(r.details.contains("achieved"));
  const Value& a = r.details["achieved"];
  CHECK(a["submitted"] == m);
  CHECK(a["calibrated_for"] == m);
  const double p = robust->describe()["p"].get<double>();
  const long double exact = direct_delta(m, p, 1.0L);
  CHECK(exact <= 1e-6L);
  CHECK(a["delta"].get<double>() == doctest::Approx(static_cast<double>(exact)).epsilon(1e-6));
  // The estimate is of the 2000 submitters' count, within the noise of 2000 parties.
  CHECK(std::fabs(r.output.get<double>() - static_cast<double>(m)) <= test::normal_z() * noise_sd(m, p) + 1);
  // The lecture rule names min-parties when it is the one that is too small.
  CHECK_THROWS_WITH_AS((void)registry.create("counting", {{"noise", "lecture"}}, 4000, 1000), doctest::Contains("min-parties = 1000 is too few"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)registry.create("counting", {}, 4000, 5000), doctest::Contains("min-parties = 5000 is out of range"),
                       std::invalid_argument);
}
