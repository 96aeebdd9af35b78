// Randomized response amplified by shuffling, and the new baselines (histogram-central-laplace,
// sum-local-laplace, sum-central-laplace): privacy from the accountant, errors against formulas.
#include <doctest/doctest.h>

#include <cmath>

#include "shufflempc/protocols/counting/mechanisms.hpp"
#include "shufflempc/protocols/shuffled_rr/shuffled_rr.hpp"
#include "shufflempc/accounting/amplification.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/registry.hpp"
#include "support/errors.hpp"
#include "support/stats.hpp"

using namespace shufflempc;

TEST_CASE("shuffled randomized response: eps0 is what the chosen bound certifies, and the local model is plain RR") {
  using namespace shuffled_rr;
  const auto fmt = configure(100000, 2, 0.5, 1e-6, Model::shuffle, Bound::fmt);
  CHECK(fmt.epsilon0 > 5);  // spec: about 5.92 at this setting
  CHECK(fmt_delta(100000, fmt.epsilon0, 0.5) <= 1e-6);
  CHECK(fmt.gamma == doctest::Approx(2 / (std::exp(fmt.epsilon0) + 1)));
  const auto blanket = configure(100000, 2, 0.5, 1e-6, Model::shuffle, Bound::blanket);
  CHECK(blanket.epsilon0 < fmt.epsilon0);
  CHECK(blanket_epsilon(100000, blanket.epsilon0, 1e-6, 2).value() <= 0.5 + 1e-12);
  const auto local = configure(100000, 16, 1.0, 1e-6, Model::local, Bound::fmt);
  CHECK(local.epsilon0 == 1.0);
  // One report's likelihood ratio is exactly e^eps0: P(x | x) / P(x | x') = (1 - g + g/k) / (g/k).
  for (const auto& c : {fmt, blanket, local}) {
    const double k = c.domain, same = 1 - c.gamma + c.gamma / k, other = c.gamma / k;
    CHECK(std::log(same / other) == doctest::Approx(c.epsilon0).epsilon(1e-9));
  }
  CHECK_THROWS_WITH_AS((void)configure(1000, 2, 0.5, 1e-6, Model::shuffle, Bound::blanket), doctest::Contains("too few for the privacy blanket"),
                       std::invalid_argument);
}

TEST_CASE("shuffled randomized response: blanket-exact certifies a larger eps0 than fmt, tightest takes the exact value for bits, and each says which it used") {
  using namespace shuffled_rr;
  const auto fmt = configure(100000, 2, 1, 1e-6, Model::shuffle, Bound::fmt);
  const auto exact = configure(100000, 2, 1, 1e-6, Model::shuffle, Bound::blanket_exact);
  const auto tightest = configure(100000, 2, 1, 1e-6, Model::shuffle, Bound::tightest);
  CHECK(exact.epsilon0 == doctest::Approx(7.76).epsilon(0.002));  // fmt: 7.07
  CHECK(exact.epsilon0 > fmt.epsilon0);
  CHECK(exact.achieved_delta <= 1e-6);
  CHECK(blanket_exact_delta(100000, exact.epsilon0, 1) <= 1e-6);
  // For bits, tightest is the exact value over every dataset: no valid bound allows more.
  CHECK(tightest.used == Bound::rr_exact_all);
  CHECK(tightest.bound == Bound::tightest);
  CHECK(tightest.epsilon0 == doctest::Approx(7.985).epsilon(0.001));
  CHECK(tightest.epsilon0 > exact.epsilon0);
  CHECK(tightest.achieved_delta <= 1e-6);
  // Less noise: at n = 10^5 the sd of the count falls from about 9.2 (fmt) to about 6.5
  // (blanket-exact) and to about 5.84 (the exact value).
  const double sd_fmt = count_sd(fmt, 100000, 50000), sd_blanket = count_sd(exact, 100000, 50000),
               sd_exact = count_sd(tightest, 100000, 50000);
  CHECK(sd_fmt == doctest::Approx(9.2).epsilon(0.02));
  CHECK(sd_blanket == doctest::Approx(6.5).epsilon(0.02));
  CHECK(sd_exact == doctest::Approx(5.84).epsilon(0.02));
  const auto d = describe(exact);
  CHECK(d["bound"] == "Balle-Bell-Gascon-Nissim 2019, privacy blanket summed exactly");
  CHECK(d["central"]["delta_at_epsilon0"].get<double>() <= 1e-6);
  const auto t = describe(tightest);
  CHECK(t["bound"] == "exact value for binary randomized response, the largest divergence over every dataset");
  CHECK(t["bound_choice"] == "tightest: the exact value (binary randomized response)");
  CHECK(t["central"]["delta_at_epsilon0"].get<double>() <= 1e-6);
  // Where FMT21 certifies more (small eps0, a large domain), tightest takes it.
  const auto wide_fmt = configure(1000, 1000, 0.5, 1e-6, Model::shuffle, Bound::fmt);
  const auto wide = configure(1000, 1000, 0.5, 1e-6, Model::shuffle, Bound::tightest);
  CHECK(wide.epsilon0 >= wide_fmt.epsilon0);
  CHECK(wide.epsilon0 >= configure(1000, 1000, 0.5, 1e-6, Model::shuffle, Bound::blanket_exact).epsilon0);
  CHECK(describe(wide)["bound_choice"] == "tightest of fmt, blanket-exact, ldp-blanket and bennett");
  CHECK(bound_of("tightest") == Bound::tightest);
  CHECK(bound_of("ldp-blanket") == Bound::ldp_blanket);
  CHECK(bound_of("rr-exact-all") == Bound::rr_exact_all);
  CHECK_THROWS_WITH_AS((void)bound_of("best"), doctest::Contains("fmt, blanket, blanket-exact, ldp-blanket, rr-exact-all, bennett, tightest"),
                       std::invalid_argument);
}

TEST_CASE("shuffled randomized response: for k > 2 tightest takes ldp-blanket where it beats the k-ary blanket") {
  // The worst case over every eps0-LDP randomizer (binary randomized response's blanket) holds for
  // k-ary randomized response too; at k = 4, n = 10^5 it certifies more than the k-ary blanket,
  // whose step 2 gives away which of x and x' the last report fell on.
  using namespace shuffled_rr;
  const auto kary = configure(100000, 4, 1, 1e-6, Model::shuffle, Bound::blanket_exact);
  const auto ldp = configure(100000, 4, 1, 1e-6, Model::shuffle, Bound::ldp_blanket);
  const auto tightest = configure(100000, 4, 1, 1e-6, Model::shuffle, Bound::tightest);
  CHECK(ldp.epsilon0 > kary.epsilon0);
  CHECK(ldp.epsilon0 == doctest::Approx(ldp_blanket_local_epsilon(100000, 1, 1e-6)).epsilon(1e-12));
  CHECK(ldp.achieved_delta <= 1e-6);
  CHECK(tightest.used == Bound::ldp_blanket);
  CHECK(tightest.epsilon0 == ldp.epsilon0);
  CHECK(describe(tightest)["bound"] == "privacy blanket summed exactly, worst case over every eps0-LDP randomizer");
  CHECK(count_sd(tightest, 100000, 25000) < count_sd(kary, 100000, 25000));
  // With k = 2 the two are one bound, and tightest does not search it twice.
  const auto binary = configure(100000, 2, 1, 1e-6, Model::shuffle, Bound::ldp_blanket);
  CHECK(binary.epsilon0 == configure(100000, 2, 1, 1e-6, Model::shuffle, Bound::blanket_exact).epsilon0);
}

TEST_CASE("shuffled randomized response: unbiased counts with the predicted spread, per bin" * doctest::test_suite("slow")) {
  const Registry registry = builtin_registry();
  const std::size_t n = 20000, trials = 400;
  auto histogram = registry.create("histogram-rr-amplified", {{"domain", "4"}, {"epsilon", "0.5"}}, n);
  const auto& m = dynamic_cast<const OneRoundProtocol<shuffled_rr::AmplifiedHistogramMechanism>&>(*histogram).mechanism();
  // All inputs 2: bin 2 holds n, the others 0; each bin has its own sd.
  std::vector<double> sq(4, 0), sum(4, 0);
  SeededRng rng(5);
  for (std::size_t t = 0; t < trials; ++t) {
    const auto r = histogram->trial(n, "constant:2", rng);
    for (int e = 0; e < 4; ++e) {
      const double d = r->output[e].get<double>() - (e == 2 ? static_cast<double>(n) : 0.0);
      sq[e] += d * d;
      sum[e] += d;
    }
  }
  const auto [lo, hi] = test::rmse_ratio_bounds(trials);
  for (int e = 0; e < 4; ++e) {
    const double sd = shuffled_rr::count_sd(m.config, n, e == 2 ? static_cast<double>(n) : 0.0);
    const double rmse = std::sqrt(sq[e] / trials);
    CHECK_MESSAGE(rmse >= lo * sd, e);
    CHECK_MESSAGE(rmse <= hi * sd, e);
    CHECK(std::fabs(sum[e] / trials) <= 6.1 * sd / std::sqrt(static_cast<double>(trials)));
  }
}

TEST_CASE("histogram-central-laplace and the sum baselines: the predicted spread, and bad messages refused") {
  const Registry registry = builtin_registry();
  SeededRng rng(8);
  // Sums: the local error is a sum of 5000 discrete Laplace variables, nearly normal, so the
  // chi-square bounds apply; the central error is one discrete Laplace variable (not normal), so
  // only its order is checked.
  const std::size_t n = 5000, trials = 400;
  auto local = registry.create("sum-local-laplace", {{"epsilon", "1"}}, n);
  double sq = 0;
  for (std::size_t t = 0; t < trials; ++t) sq += std::pow(*local->trial(n, "uniform", rng)->error, 2);
  const double sd = local->describe()["noise_sd"].get<double>();
  const auto [lo, hi] = test::rmse_ratio_bounds(trials);
  CHECK(std::sqrt(sq / trials) >= lo * sd);
  CHECK(std::sqrt(sq / trials) <= hi * sd * 1.01);  // plus the roundings: variance at most n/4 / p^2
  auto central = registry.create("sum-central-laplace", {{"epsilon", "1"}}, n);
  double csq = 0;
  for (std::size_t t = 0; t < trials; ++t) csq += std::pow(*central->trial(n, "uniform", rng)->error, 2);
  CHECK(std::sqrt(csq / trials) < sd / 10);  // central noise is sqrt(n) times smaller

  auto hist = registry.create("histogram-central-laplace", {{"domain", "8"}}, 1000);
  const double bin_sd = hist->describe()["noise_sd_per_bin"].get<double>();
  CHECK(bin_sd == doctest::Approx(std::sqrt(2 * std::exp(-0.5)) / (1 - std::exp(-0.5))));
  double hsq = 0;
  for (int t = 0; t < 200; ++t) hsq += std::pow(*hist->trial(1000, "uniform:8", rng)->error, 2);
  CHECK(std::sqrt(hsq / 200) > bin_sd / 2);
  CHECK(std::sqrt(hsq / 200) < bin_sd * 2);

  // A report outside the domain is a protocol violation, never a count.
  const auto c = shuffled_rr::configure(100, 4, 1, 1e-6, shuffled_rr::Model::local, shuffled_rr::Bound::fmt);
  MessageBatch bad(1);
  bad.append()[0] = 4;
  CHECK_THROWS_AS((void)shuffled_rr::analyze(bad, c, 1), std::system_error);
  const counting::HistogramCentralMechanism central_histogram{.domain = 8, .epsilon = 1};
  MessageBatch outside(2);
  store_le<std::uint16_t>(outside.append().data(), 8);
  RoundOutcome outcome;
  outcome.submitted = {0};
  CHECK_THROWS_AS((void)central_histogram.analyze(outside, outcome, rng), std::system_error);
}

TEST_CASE("shuffled randomized response: configure() refuses the numbers the command line refuses, in the same words") {
  const Registry registry = builtin_registry();
  // What Params::parse says of a value given on the command line, and what configure() says of it.
  const auto cli_error = [&](const std::string& name, const std::string& text) {
    return shufflempc::test::error_text([&] { (void)registry.create("histogram-rr-amplified", {{name, text}}, 1000); });
  };
  const auto api_error = [](double epsilon, double delta, std::uint32_t domain) {
    return shufflempc::test::error_text(
        [&] { (void)shuffled_rr::configure(1000, domain, epsilon, delta, shuffled_rr::Model::local, shuffled_rr::Bound::fmt); });
  };
  CHECK(api_error(30, 1e-6, 16) == cli_error("epsilon", "30"));
  CHECK(api_error(0, 1e-6, 16) == cli_error("epsilon", "0"));
  CHECK(api_error(1, 0.75, 16) == cli_error("delta", "0.75"));
  CHECK(api_error(1, 0, 16) == cli_error("delta", "0"));
  CHECK(api_error(1, 1e-6, 1) == cli_error("domain", "1"));
  CHECK(api_error(1, 1e-6, 70000) == cli_error("domain", "70000"));
  CHECK(api_error(30, 1e-6, 16).find("parameter 'epsilon' = 30 is out of range: must be a number in (0, 20]") != std::string::npos);
  // In range, both take it.
  CHECK_NOTHROW((void)shuffled_rr::configure(1000, 16, 20, 0.5, shuffled_rr::Model::local, shuffled_rr::Bound::fmt));
}
