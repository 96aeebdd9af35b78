// The one-round XOR-sum protocols (protocols/xor_sum): exact on every small input where they
// should be, unbiased with the variance their formula gives, the calibration of alpha, and a
// clear refusal of what a lying party could send.
#include <doctest/doctest.h>

#include <cmath>

#include "shufflempc/accounting/amplification.hpp"
#include "shufflempc/mechanism.hpp"
#include "shufflempc/accounting/privacy.hpp"
#include "shufflempc/registry.hpp"
#include "support/errors.hpp"
#include "shufflempc/protocols/xor_sum/xor_sum.hpp"

using namespace shufflempc;
using xor_sum::Item;

namespace {

template <class M>
double run_once(const M& m, const std::vector<Item>& xs, std::uint64_t seed) {
  SeededRng rng(seed);
  OneRoundRun<M> run(m);
  run.add_all(xs, rng);
  auto s = rng.fork(1), a = rng.fork(2);
  return run.finish(*s, *a);
}

// Every vector of n items over `buckets` buckets.
void for_all_inputs(std::size_t n, std::uint32_t buckets, const std::function<void(const std::vector<Item>&)>& f) {
  const std::size_t per = 2 * buckets;
  std::size_t total = 1;
  for (std::size_t i = 0; i < n; ++i) total *= per;
  std::vector<Item> xs(n);
  for (std::size_t code = 0; code < total; ++code) {
    std::size_t c = code;
    for (auto& x : xs) {
      x = {static_cast<std::uint32_t>(c % buckets), (c / buckets) % 2 == 1};
      c /= per;
    }
    f(xs);
  }
}

}  // namespace

TEST_CASE("xor-sum: the exact endpoint, and rr and noise-ids without noise, give XS on every input of 3 users over 3 buckets") {
  const xor_sum::ExactMechanism exact{.buckets = 3, .shares = 3};
  const xor_sum::RrMechanism rr{.buckets = 3, .flip = 0};
  const xor_sum::NoiseIdsMechanism ids{.buckets = 3, .parties = 3, .rate = 0};
  std::uint64_t seed = 0;
  for_all_inputs(3, 3, [&](const std::vector<Item>& xs) {
    const double truth = static_cast<double>(xor_sum::exact_xor_sum(xs, 3));
    CHECK(run_once(exact, xs, ++seed) == truth);
    CHECK(run_once(rr, xs, seed) == truth);
    CHECK(run_once(ids, xs, seed) == truth);
  });
}

TEST_CASE("xor-sum: rr and noise-ids are unbiased with the variance of their per-bucket formula" * doctest::test_suite("slow")) {
  // 40 users in 10 buckets, fixed inputs; 20,000 runs. The mean is within 6.5 sd / sqrt(T) of XS
  // (probability below 1e-10 for the near-normal mean) and the sample variance within 12% of the
  // formula (about 8 standard errors for these light tails).
  std::vector<Item> xs;
  for (std::uint32_t i = 0; i < 40; ++i) xs.push_back({i % 10, (i * 7) % 3 == 0});
  const double truth = static_cast<double>(xor_sum::exact_xor_sum(xs, 10));
  const xor_sum::RrMechanism rr{.buckets = 10, .flip = 0.05};
  const xor_sum::NoiseIdsMechanism ids{.buckets = 10, .parties = 40, .rate = 0.1};
  // rr: each bucket holds 4 messages; noise-ids: one q for every bucket.
  const double q4 = xor_sum::parity_flip(0.05, 4);
  const double q = xor_sum::noise_parity_flip(0.1, 40, 10);
  const double var_rr = 10 * q4 * (1 - q4) / ((1 - 2 * q4) * (1 - 2 * q4));
  const double var_ids = 10 * q * (1 - q) / ((1 - 2 * q) * (1 - 2 * q));
  const int T = 20000;
  for (int which = 0; which < 2; ++which) {
    double s = 0, s2 = 0;
    for (int t = 0; t < T; ++t) {
      const double e = (which == 0 ? run_once(rr, xs, 1000 + t) : run_once(ids, xs, 1000 + t)) - truth;
      s += e;
      s2 += e * e;
    }
    const double var = which == 0 ? var_rr : var_ids;
    const double mean = s / T, sample_var = s2 / T - mean * mean;
    INFO("protocol " << (which == 0 ? "rr" : "noise-ids") << ", mean error " << mean << ", variance " << sample_var << " against " << var);
    CHECK(std::abs(mean) <= 6.5 * std::sqrt(var / T));
    CHECK(sample_var == doctest::Approx(var).epsilon(0.12));
  }
}

TEST_CASE("xor-sum: alpha calibrates the error in the replay setting, and epsilon0 comes from the randomized-response accountant") {
  // P1: q(1-q)/(1-2q)^2 = 2 alpha^2 at q = 2p(1-p); the calibration's epsilon0 = 2.0, 1.32, 0.89 at alpha = 0.5, 1, 2.
  const double expected_eps[] = {1.99, 1.32, 0.89};
  const double alphas[] = {0.5, 1, 2};
  for (int i = 0; i < 3; ++i) {
    const double p = xor_sum::rr_flip_for_alpha(alphas[i]);
    const double q = xor_sum::parity_flip(p, 2);
    CHECK(q * (1 - q) / ((1 - 2 * q) * (1 - 2 * q)) == doctest::Approx(2 * alphas[i] * alphas[i]));
    CHECK(randomized_response_epsilon(p) == doctest::Approx(expected_eps[i]).epsilon(0.01));
    CHECK(randomized_response_flip(randomized_response_epsilon(p)) == doctest::Approx(p));
  }
  // P2: q(1-q)/(1-2q)^2 = alpha^2 over all n buckets; a rate above 1 is refused, naming alpha.
  const double r = xor_sum::noise_rate_for_alpha(1, 256, 256);
  const double q = xor_sum::noise_parity_flip(r, 256, 256);
  CHECK(q * (1 - q) / ((1 - 2 * q) * (1 - 2 * q)) == doctest::Approx(1.0));
  CHECK(test::error_text([] { (void)xor_sum::noise_rate_for_alpha(50, 256, 256); }).find("alpha = 50") != std::string::npos);
}

TEST_CASE("xor-sum: an analyzer refuses a bucket outside the domain or a bit byte other than 0 and 1, inputs are checked") {
  const xor_sum::RrMechanism rr{.buckets = 4, .flip = 0.1};
  const xor_sum::NoiseIdsMechanism ids{.buckets = 4, .parties = 2, .rate = 0.1};
  SeededRng rng(1);
  RoundOutcome outcome;
  outcome.submitted = {0, 1};
  MessageBatch bad_bucket(5, 2), bad_bit(5, 2), bad_id(4, 2);
  store_le<std::uint32_t>(bad_bucket[1].data(), 4);
  bad_bit[0][4] = 2;
  store_le<std::uint32_t>(bad_id[0].data(), xor_sum::no_bucket);
  store_le<std::uint32_t>(bad_id[1].data(), 9);
  CHECK(test::code_of([&] { (void)rr.analyze(bad_bucket, outcome, rng); }) == Errc::protocol_violation);
  CHECK(test::code_of([&] { (void)rr.analyze(bad_bit, outcome, rng); }) == Errc::protocol_violation);
  CHECK(test::code_of([&] { (void)ids.analyze(bad_id, outcome, rng); }) == Errc::protocol_violation);
  CHECK(test::error_text([&] { (void)rr.analyze(bad_bucket, outcome, rng); }).find("bucket 4 outside [0, 4)") != std::string::npos);
  CHECK(rr.parse_input(3, Value::array({2, 1})) == Item{2, true});
  CHECK(rr.parse_input(3, Value{{"bucket", 1}, {"bit", 0}}) == Item{1, false});
  const auto e = test::error_text([&] { (void)rr.parse_input(3, Value::array({4, 1})); });
  CHECK(e.find("party 3") != std::string::npos);
  CHECK(e.find("[0, 4)") != std::string::npos);
  CHECK(test::error_text([&] { (void)rr.random_input("buckets:9", rng); }).find("K must be a whole number in [1, 4]") != std::string::npos);
}

TEST_CASE("xor-sum: the registry builds the three protocols, and a bad parameter names itself and its range") {
  const Registry registry = builtin_registry();
  for (const char* name : {"xor-sum-exact", "xor-sum-rr", "xor-sum-noise-ids"}) {
    auto p = registry.create(name, {}, 64);
    const Value d = p->describe();
    CHECK(d["buckets"] == 64);
    SeededRng rng(5);
    const auto t = p->trial(64, "", rng);
    REQUIRE(t.has_value());
    if (std::string(name) == "xor-sum-exact") CHECK(t->error == 0);
  }
  CHECK(registry.create("xor-sum-rr", {}, 64)->describe()["epsilon0"].get<double>() == doctest::Approx(1.99).epsilon(0.01));
  const auto e = test::error_text([&] { (void)registry.create("xor-sum-rr", {{"flip", "0.7"}}, 64); });
  CHECK(e.find("flip") != std::string::npos);
  CHECK(e.find("[0, 0.5)") != std::string::npos);
}

TEST_CASE("xor-sum-rr: the central epsilon of a bit within its bucket, by the bound for every eps0-LDP randomizer") {
  // The bucket travels in the clear, so the shuffle hides a bit among its own bucket's reports only:
  // one party per bucket (the default) has no central epsilon; 1000 parties in 20 buckets have
  // ldp-blanket's epsilon for 50 parties at the local epsilon0, which more parties only lower.
  const Registry registry = builtin_registry();
  const Value alone = registry.create("xor-sum-rr", {}, 1000)->describe();
  CHECK(alone["central"]["epsilon"].is_null());
  const Value shared = registry.create("xor-sum-rr", {{"buckets", "20"}, {"delta", "1e-5"}}, 1000)->describe();
  const double eps0 = shared["epsilon0"].get<double>();
  CHECK(shared["central"]["parties_per_bucket"] == 50);
  CHECK(shared["central"]["delta"].get<double>() == 1e-5);
  const double central = shared["central"]["epsilon"].get<double>();
  CHECK(central == ldp_blanket_epsilon(50, eps0, 1e-5));
  CHECK(central < eps0);
  const double more = registry.create("xor-sum-rr", {{"buckets", "5"}, {"delta", "1e-5"}}, 1000)->describe()["central"]["epsilon"].get<double>();
  CHECK(more < central);
  const auto e = test::error_text([&] { (void)registry.create("xor-sum-rr", {{"delta", "0.6"}}, 64); });
  CHECK(e.find("delta") != std::string::npos);
}
