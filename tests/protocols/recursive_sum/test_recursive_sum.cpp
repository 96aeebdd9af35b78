// sum-recursive (the survey's RSum_RM) and sum-blanket (RSum_KR): the paper's parameters and error
// bound reproduced, each message's law exactly, the estimator unbiased within its bound, every
// level's privacy checked by the accountant, the search against brute force, bad input refused.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "shufflempc/accounting/amplification.hpp"
#include "shufflempc/protocols/recursive_sum/recursive_sum.hpp"
#include "shufflempc/registry.hpp"
#include "support/errors.hpp"
#include "support/stats.hpp"

using namespace shufflempc;
using namespace shufflempc::recursive_sum;

namespace {

std::vector<std::uint32_t> precisions_of(const Config& c) {
  std::vector<std::uint32_t> p;
  for (const auto& l : c.levels) p.push_back(l.precision);
  return p;
}

double one_over_n2(double n) { return 1 / (n * n); }

}  // namespace

TEST_CASE("sum-recursive: the paper's generic precisions, and its MSE bound under the authors' Bennett calibration") {
  using P = std::vector<std::uint32_t>;
  CHECK(generic_precisions(10000, 1, one_over_n2(1e4), 2) == P{3, 9});
  CHECK(generic_precisions(10000, 1, one_over_n2(1e4), 3) == P{2, 3, 3});
  CHECK(generic_precisions(100000, 1, one_over_n2(1e5), 2) == P{4, 47});
  CHECK(generic_precisions(100000, 1, one_over_n2(1e5), 3) == P{2, 4, 31});  // 46 capped where the closed-form blanket needs g <= 1
  // RMSE bounds computed independently of this code (n, m: the paper's setting eps = 1, delta = 1/n^2).
  const struct {
    std::uint64_t n;
    std::size_t m;
    double rmse;
  } reference[] = {{10000, 2, 16.0}, {10000, 3, 15.9}, {100000, 2, 25.7}, {100000, 3, 21.8}};
  for (const auto& r : reference) {
    CAPTURE(r.n);
    CAPTURE(r.m);
    const auto c = configure(r.n, 1, one_over_n2(static_cast<double>(r.n)), r.m, Precisions::generic, {}, {}, RrBound::bennett);
    CHECK(std::sqrt(mse_bound(c.levels, r.n)) == doctest::Approx(r.rmse).epsilon(0.005));
    // The library's own accountant certifies less noise for the same precisions.
    const auto tight = configure(r.n, 1, one_over_n2(static_cast<double>(r.n)), r.m, Precisions::generic, {}, {}, RrBound::tightest);
    CHECK(mse_bound(tight.levels, r.n) < mse_bound(c.levels, r.n));
  }
}

TEST_CASE("sum-recursive: the digits are x's expansion, the last randomly rounded, unbiased, including x = 0 and x = 1") {
  const auto c = configure(1000, 1, 1e-6, 3, Precisions::given, {3, 4, 5}, {}, RrBound::bennett);
  SeededRng rng(11);
  for (const double x : {0.0, 1.0, 0.5, 1.0 / 3, 0.123456789, 0.999999}) {
    CAPTURE(x);
    // d_1, d_2 are fixed; d_3 is floor(r p_3) or one more, with the probability of the fraction.
    const double r0 = std::min(x, 1 - 0x1p-52);
    const double d1 = std::floor(r0 * 3), r1 = r0 * 3 - d1, d2 = std::floor(r1 * 4), r2 = r1 * 4 - d2;
    const double low = std::floor(r2 * 5), frac = r2 * 5 - low;
    // E[sum_j d_j / q_j] = x (exactly, up to rounding; x = 1 is moved by 2^-52).
    CHECK(d1 / 3 + d2 / 12 + (low + frac) / 60 == doctest::Approx(x).epsilon(1e-12));
    std::uint64_t ups = 0;
    const std::uint64_t draws = 20000;
    for (std::uint64_t i = 0; i < draws; ++i) {
      const auto d = digits(x, c, rng);
      REQUIRE(d.size() == 3);
      CHECK(d[0] == d1);
      CHECK(d[1] == d2);
      CHECK((d[2] == low || d[2] == low + 1));
      CHECK(d[2] <= 5);
      ups += d[2] == low + 1 ? 1 : 0;
    }
    CHECK(test::binomial_interval(draws, frac).contains(static_cast<double>(ups)));
  }
  // m = 1 (sum-blanket): x = 1 is k itself, in the domain of k + 1 values.
  const auto single = configure_single(1000, 1, 1e-6, 7, RrBound::bennett);
  CHECK(digits(1.0, single, rng) == std::vector<std::uint32_t>{7});
  CHECK(digits(0.0, single, rng) == std::vector<std::uint32_t>{0});
}

TEST_CASE("sum-recursive: each level's message law is (1 - g) on the digit plus g uniform on its k values, and labelled") {
  const auto c = configure(1000, 2, 1e-6, 2, Precisions::given, {4, 6}, {}, RrBound::bennett);
  REQUIRE(c.width() == 2);  // a level byte and a value byte
  SeededRng rng(21);
  const double x = 0.3;  // d_1 = 1, r = 0.2, d_2 = floor(1.2) + Bernoulli(0.2)
  const std::uint64_t draws = 200000;
  MessageBatch out(c.width());
  out.reserve(2 * draws);
  for (std::uint64_t i = 0; i < draws; ++i) encode(x, c, rng, out);
  std::vector<std::vector<std::uint64_t>> seen{std::vector<std::uint64_t>(4, 0), std::vector<std::uint64_t>(7, 0)};
  for (std::size_t i = 0; i < out.count(); ++i) {
    REQUIRE(valid(out[i], c));
    const auto m = decode(out[i], c);
    REQUIRE(m.level == i % 2);  // one message per level, in order
    seen[m.level][m.value] += 1;
  }
  const double g1 = c.levels[0].rr.gamma, g2 = c.levels[1].rr.gamma;
  std::vector<double> p1(4, g1 / 4), p2(7, g2 / 7);
  p1[1] += 1 - g1;
  p2[1] += (1 - g2) * 0.8;
  p2[2] += (1 - g2) * 0.2;
  CHECK(test::chi_square(seen[0], p1).passes());
  CHECK(test::chi_square(seen[1], p2).passes());
}

TEST_CASE("sum-recursive: the estimate is unbiased and its error within the MSE bound, for m = 1, 2 and 3") {
  const std::uint64_t n = 2000;
  const std::size_t trials = 3000;
  for (const std::size_t m : {1u, 2u, 3u}) {
    CAPTURE(m);
    const auto c = configure(n, 1, 1e-6, m, Precisions::generic, {}, {}, RrBound::tightest);
    SeededRng rng(100 + m);
    std::vector<double> xs(n);
    for (auto& x : xs) x = 0.42 + 0.3 * rng.uniform01();
    xs[0] = 1.0;  // the edges too
    xs[1] = 0.0;
    double truth = 0;
    for (const double x : xs) truth += x;
    double sum = 0, squares = 0;
    MessageBatch batch(c.width());
    for (std::size_t t = 0; t < trials; ++t) {
      batch.clear();
      for (const double x : xs) encode(x, c, rng, batch);
      const double e = analyze(batch, c) - truth;
      sum += e;
      squares += e * e;
    }
    const double bound = mse_bound(c.levels, n);
    // The mean error is within z sd / sqrt(T) of 0 (the true variance is at most the bound).
    CHECK(std::fabs(sum / trials) <= test::normal_z() * std::sqrt(bound / trials));
    // The RMSE is at most the bound's, up to the chi-square spread of T trials.
    CHECK(std::sqrt(squares / trials) <= std::sqrt(bound) * test::rmse_ratio_bounds(trials).second);
  }
}

TEST_CASE("sum-recursive: every level is as private as asked, by the accountant's own checks, and the levels compose to (eps, delta)") {
  for (const auto bound : {RrBound::tightest, RrBound::bennett}) {
    for (const std::size_t m : {1u, 2u, 3u}) {
      CAPTURE(m);
      const std::uint64_t n = 3000;
      const double eps = 1, delta = 1e-7;
      const auto c = configure(n, eps, delta, m, Precisions::searched, {}, {}, bound);
      double eps_total = 0, delta_total = 0;
      for (const auto& l : c.levels) {
        eps_total += l.epsilon;
        delta_total += l.delta;
        // One report's likelihood ratio is exactly e^eps0 (k-ary randomized response).
        const double k = l.values, same = 1 - l.rr.gamma + l.rr.gamma / k, other = l.rr.gamma / k;
        CHECK(std::log(same / other) == doctest::Approx(l.rr.epsilon0).epsilon(1e-9));
        // The exact divergence of the worst pair the accountant knows for k-ary randomized response
        // (every valid bound is at least it), and for two values the exact value over every dataset.
        CHECK(rr_exact_delta(n, l.rr.epsilon0, l.epsilon, l.values) <= l.delta);
        if (l.values == 2) CHECK(rr_exact_all_delta(n, l.rr.epsilon0, l.epsilon) <= l.delta);
        CHECK(l.rr.achieved_delta <= l.delta);
      }
      CHECK(eps_total <= eps * (1 + 1e-12));
      CHECK(delta_total <= delta * (1 + 1e-12));
    }
  }
}

TEST_CASE("sum-recursive: the searched parameters are as good as a brute-force search at small n") {
  // Bennett's closed form keeps the brute force cheap: every p_1, p_2 up to 60 and every split in twentieths.
  const std::uint64_t n = 2000;
  const double eps = 1, delta = 1e-6;
  const auto searched = configure(n, eps, delta, 2, Precisions::searched, {}, {}, RrBound::bennett);
  double best = std::numeric_limits<double>::infinity();
  for (std::uint32_t p1 = 2; p1 <= 60; ++p1)
    for (std::uint32_t p2 = 2; p2 <= 60; ++p2)
      for (int w = 1; w < 20; ++w) {
        const std::uint32_t p[] = {p1, p2};
        const double split[] = {w / 20.0, 1 - w / 20.0};
        best = std::min(best, mse_bound(make_levels(n, eps, delta, p, split, RrBound::bennett), n));
      }
  CHECK(mse_bound(searched.levels, n) <= best * (1 + 1e-9));
  // sum-blanket: the k minimising the bound, against every k up to 2000.
  const auto single = configure_single(n, eps, delta, 0, RrBound::bennett);
  double best_single = std::numeric_limits<double>::infinity();
  std::uint32_t best_k = 0;
  for (std::uint32_t k = 1; k <= 2000; ++k) {
    const double v = mse_bound(configure_single(n, eps, delta, k, RrBound::bennett).levels, n);
    if (v < best_single) best_single = v, best_k = k;
  }
  CHECK(precisions_of(single) == std::vector<std::uint32_t>{best_k});
  // The default calibration certifies less noise than Bennett's at the searched parameters.
  const auto tight = configure(n, eps, delta, 2, Precisions::searched, {}, {}, RrBound::tightest);
  CHECK(mse_bound(tight.levels, n) < mse_bound(searched.levels, n));
}

TEST_CASE("sum-recursive: bad parameters and inputs are refused with one line naming them, and a message out of range is not valid") {
  CHECK_THROWS_WITH_AS((void)configure(1000, 1, 1e-6, 0, Precisions::generic, {}, {}, RrBound::bennett), doctest::Contains("parameter 'messages' = 0 is out of range: must be an integer in [1, 8]"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)configure(1000, 1, 1e-6, 2, Precisions::given, {1, 4}, {}, RrBound::bennett), doctest::Contains("precisions: level 1 has 1"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)configure(1000, 1, 1e-6, 2, Precisions::given, {4}, {}, RrBound::bennett), doctest::Contains("one per level"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)configure(1000, 1, 1e-6, 2, Precisions::given, {4, 4}, {0.3, 0.3}, RrBound::bennett),
                       doctest::Contains("summing to 1"), std::invalid_argument);
  const auto c = configure(1000, 1, 1e-6, 2, Precisions::given, {4, 6}, {}, RrBound::bennett);
  SeededRng rng(3);
  MessageBatch out(c.width());
  for (const double x : {-0.1, 1.5, std::numeric_limits<double>::quiet_NaN()})
    CHECK_THROWS_WITH_AS(encode(x, c, rng, out), doctest::Contains("[0, 1]"), std::invalid_argument);
  const RecursiveSumMechanism mech{c};
  CHECK_THROWS_WITH_AS((void)mech.parse_input(4, Value(1.5)), doctest::Contains("input of party 4 must be a real number in [0, 1]"),
                       std::invalid_argument);
  const std::uint8_t level_out[] = {2, 0}, value_out[] = {0, 4}, last_ok[] = {1, 6}, last_out[] = {1, 7};
  CHECK_FALSE(valid(level_out, c));
  CHECK_FALSE(valid(value_out, c));
  CHECK(valid(last_ok, c));
  CHECK_FALSE(valid(last_out, c));
  // Through the registry: a bad list names its parameter.
  const Registry registry = builtin_registry();
  CHECK_THROWS_WITH_AS((void)registry.create("sum-recursive", {{"precisions", "4,x"}}, 1000), doctest::Contains("precisions = 4,x"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)registry.create("sum-recursive", {{"epsilon-split", "0.5,0.5"}}, 1000), doctest::Contains("needs a list of precisions"),
                       std::invalid_argument);
}

TEST_CASE("sum-recursive and sum-blanket through the registry: delta defaults to 1/n^2, and a run estimates the sum") {
  const Registry registry = builtin_registry();
  for (const char* name : {"sum-recursive", "sum-blanket"}) {
    CAPTURE(name);
    const auto p = registry.create(name, {{"bound", "bennett"}}, 10000);
    const Value d = p->describe();
    CHECK(d["central"]["delta"].get<double>() == doctest::Approx(1e-8));
    SeededRng rng(5);
    const auto t = p->trial(10000, "normal:0.57:0.1", rng);
    REQUIRE(t.has_value());
    REQUIRE(t->error.has_value());
    CHECK(std::fabs(*t->error) <= test::normal_z() * *p->predicted_sd());
  }
}

TEST_CASE("sum-recursive: configure() refuses the epsilon and messages the command line refuses, in the same words") {
  const Registry registry = builtin_registry();
  const auto cli_error = [&](const std::string& name, const std::string& text) {
    return shufflempc::test::error_text([&] { (void)registry.create("sum-recursive", {{name, text}}, 1000); });
  };
  const auto api_error = [](double epsilon, std::size_t messages) {
    return shufflempc::test::error_text([&] {
      (void)recursive_sum::configure(1000, epsilon, 1e-6, messages, recursive_sum::Precisions::generic, {}, {}, RrBound::blanket);
    });
  };
  CHECK(api_error(25, 2) == cli_error("epsilon", "25"));
  CHECK(api_error(0, 2) == cli_error("epsilon", "0"));
  CHECK(api_error(1, 9) == cli_error("messages", "9"));
  CHECK(api_error(1, 0) == cli_error("messages", "0"));
  CHECK(api_error(25, 2) == "parameter 'epsilon' = 25 is out of range: must be a number in (0, 20]");
}
