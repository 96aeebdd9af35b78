// counting-correlated: the exact accounting against a brute-force enumeration of the view, the
// view's law as the parties really draw it, the error law end to end (discrete Laplace, and the
// Polya difference when more than min-parties submit), the calibrated figures at n = 10^5 and the
// parameter errors. Statistical checks fail a correct implementation with probability < 1e-9.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "shufflempc/protocols/correlated_noise/correlated_noise.hpp"
#include "shufflempc/registry.hpp"
#include "support/errors.hpp"
#include "support/stats.hpp"

namespace cn = shufflempc::correlated_noise;
using shufflempc::MessageBatch;
using shufflempc::SeededRng;

namespace {

using ld = long double;

ld geometric_pmf(ld a, long k) { return k < 0 ? 0 : (1 - a) * std::pow(a, static_cast<ld>(k)); }
ld nb_pmf(ld shape, ld b, long k) {
  if (k < 0) return 0;
  const ld kk = static_cast<ld>(k);
  return std::exp(std::lgamma(kk + shape) - std::lgamma(shape) - std::lgamma(kk + 1) + kk * std::log(b) + shape * std::log1p(-b));
}

// The analyzer's whole view for the count s in {0, 1}, P(N+ = u, N- = v) as a dense table indexed
// [u][v], by enumerating A, B and F up to L each: no reduction, no formula of the library. With
// r = 1 (min-parties submitters) A, B ~ Geometric(a) and F ~ NegativeBinomial(f, b); with r times
// as many submitters A, B ~ Polya(r, a) and F ~ NegativeBinomial(r f, b).
using View = std::vector<std::vector<ld>>;
View brute_view(long s, ld a, const cn::Flood& f, long L, ld r = 1) {
  View pmf(static_cast<std::size_t>(3 * L + 2), std::vector<ld>(static_cast<std::size_t>(2 * L + 1), 0));
  std::vector<ld> geo(static_cast<std::size_t>(L + 1));
  for (long i = 0; i <= L; ++i) geo[static_cast<std::size_t>(i)] = nb_pmf(r, a, i);
  for (long k = 0; k <= L; ++k) {
    const ld pf = nb_pmf(r * f.shape(), f.b(), k);
    for (long i = 0; i <= L; ++i)
      for (long j = 0; j <= L; ++j)
        pmf[static_cast<std::size_t>(s + i + k)][static_cast<std::size_t>(j + k)] += pf * geo[static_cast<std::size_t>(i)] * geo[static_cast<std::size_t>(j)];
  }
  return pmf;
}

ld hockey_stick(const View& p, const View& q, ld eps) {
  ld sum = 0;
  for (std::size_t u = 0; u < p.size(); ++u)
    for (std::size_t v = 0; v < p[u].size(); ++v)
      if (p[u][v] > std::exp(eps) * q[u][v]) sum += p[u][v] - std::exp(eps) * q[u][v];
  return sum;
}

// Pearson chi-square of observed integer values against a pmf on [-W, W] plus the rest.
template <class Pmf>
bool fits(const std::map<long, std::uint64_t>& counts, std::uint64_t runs, long W, const Pmf& pmf) {
  std::vector<std::uint64_t> observed;
  std::vector<double> probabilities;
  std::uint64_t inside = 0;
  double mass = 0;
  for (long k = -W; k <= W; ++k) {
    const auto it = counts.find(k);
    observed.push_back(it == counts.end() ? 0 : it->second);
    probabilities.push_back(static_cast<double>(pmf(k)));
    inside += observed.back();
    mass += probabilities.back();
  }
  observed.push_back(runs - inside);
  probabilities.push_back(std::max(0.0, 1 - mass));
  return shufflempc::test::chi_square(observed, probabilities).passes();
}

// P(X - Y = k) for X, Y ~ Polya(r, a) independent (by summing the product of the two pmfs).
ld polya_difference_pmf(ld r, ld a, long k) {
  ld sum = 0;
  for (long y = 0; y < 2000; ++y) sum += nb_pmf(r, a, y + k) * nb_pmf(r, a, y);
  return sum;
}

}  // namespace

TEST_CASE("counting-correlated: the one-dimensional delta equals the hockey-stick divergence of the whole view, enumerated") {
  struct Case {
    double eps_c, eps;
    cn::Flood flood;
  };
  // Small floods, so that delta is large enough to compare; enumeration to L = 160 leaves out less
  // than 1e-13 of each law.
  const Case cases[] = {{0.7, 1.0, {10, 0.3}}, {1.0, 1.0, {30, 0.5}}, {0.5, 0.6, {5, 0.2}}, {0.9, 2.0, {20, 0.9}}, {0.3, 0.35, {40, 0.4}}};
  for (const auto& c : cases) {
    CAPTURE(c.eps_c);
    CAPTURE(c.eps);
    CAPTURE(c.flood.mean);
    const ld a = std::exp(-static_cast<ld>(c.eps_c));
    const auto p0 = brute_view(0, a, c.flood, 160);
    const auto p1 = brute_view(1, a, c.flood, 160);
    const ld brute = std::max(hockey_stick(p0, p1, c.eps), hockey_stick(p1, p0, c.eps));
    const double exact = cn::view_delta(c.eps_c, c.eps, c.flood);
    CHECK(brute > 1e-6);  // a comparison that means something
    CHECK(exact == doctest::Approx(static_cast<double>(brute)).epsilon(1e-9));
  }
  // Without flooding the -1 count is B itself, and the view is far from private: the formula's
  // delta grows as the flood shrinks.
  CHECK(cn::view_delta(1.0, 1.0, {1, 0.5}) > cn::view_delta(1.0, 1.0, {100, 0.5}));
  CHECK_THROWS_AS((void)cn::view_delta(1.1, 1.0, {10, 0.5}), std::invalid_argument);
}

TEST_CASE("counting-correlated: a party's Polya draw has the negative binomial law, on both of its paths") {
  // r <= 0.1: a Bernoulli for X > 0, then inversion given X >= 1; r > 0.1: the library's sampler.
  // Pearson chi-square over 10^6 draws per law against the exact pmf, at 1e-10.
  struct Law {
    double r, q;
  };
  SeededRng rng(404);
  for (const Law law : {Law{0.01, 0.37}, Law{0.05, 0.97}, Law{0.1, 0.8}, Law{0.5, 0.37}, Law{3.0, 0.9}}) {
    CAPTURE(law.r);
    CAPTURE(law.q);
    const std::uint64_t runs = 1'000'000;
    std::map<long, std::uint64_t> counts;
    for (std::uint64_t i = 0; i < runs; ++i) counts[static_cast<long>(cn::draw_polya(rng, law.r, law.q))] += 1;
    CHECK(fits(counts, runs, 400, [&](long k) { return nb_pmf(law.r, law.q, k); }));
  }
}

TEST_CASE("counting-correlated: more submitters than min-parties keep the calibrated delta, computed on the whole view") {
  // The guarantee is calibrated for m submitters; with r m submitters every total is a sum of r
  // times as many shares. That only adds independent noise (post-processing), so delta can only
  // fall: checked here on the enumerated view, not assumed.
  const double eps_c = 0.7, eps = 1.0;
  const cn::Flood flood{12, 0.3};
  const double calibrated = cn::view_delta(eps_c, eps, flood);
  REQUIRE(calibrated > 1e-4);
  const ld a = std::exp(-static_cast<ld>(eps_c));
  ld previous = calibrated;
  for (const ld r : {1.25L, 1.5L, 2.0L, 3.0L}) {
    CAPTURE(static_cast<double>(r));
    const auto p0 = brute_view(0, a, flood, 200, r);
    const auto p1 = brute_view(1, a, flood, 200, r);
    const ld delta = std::max(hockey_stick(p0, p1, eps), hockey_stick(p1, p0, eps));
    CHECK(delta <= previous * (1 + 1e-9));
    previous = delta;
  }
  CHECK(previous < calibrated / 2);  // three times the submitters: well below
}

TEST_CASE("counting-correlated: a lying party moves the count by at most its declared influence") {
  // The channel refuses a party with more than max_messages messages (RoundShape::accepts), so a
  // liar's messages move the analyzer's count by at most max_messages: all of them +1.
  const auto p = shufflempc::builtin_registry().create("counting-correlated", {}, 1000);
  const auto d = p->describe();
  const auto cap = d["max_messages"].get<std::size_t>();
  CHECK(d["max_influence"].get<std::size_t>() == cap);
  CHECK(p->round(0).accepts(cap));
  CHECK_FALSE(p->round(0).accepts(cap + 1));
  SeededRng rng(405);
  MessageBatch honest(1);
  const cn::Config config = cn::configure(1000, 0, 1, 1e-6, {1000, 0.03});
  for (int i = 0; i < 999; ++i) cn::encode(i % 2 == 0, config, rng, honest);
  MessageBatch with_liar = honest;
  for (std::size_t i = 0; i < cap; ++i) with_liar.append()[0] = cn::plus;
  MessageBatch with_honest_last = honest;
  with_honest_last.append()[0] = cn::dummy;
  CHECK(cn::analyze(with_liar) - cn::analyze(with_honest_last) == static_cast<double>(cap));
}

TEST_CASE("counting-correlated: the parties' messages have exactly the view law the accounting assumes") {
  // 8 parties (3 ones), caps far beyond reach: (N+ - N- - 3, N-) must be (A - B, B + F) with
  // A, B ~ Geometric(a) and F ~ NegativeBinomial(f, b). Pearson chi-square of the joint law over
  // 40,000 draws, each cell with expected count below 5 merged.
  cn::Config c;
  c.parties = c.min_parties = 8;
  c.epsilon_c = 0.8;
  c.a = std::exp(-0.8);
  c.flood = {6, 0.5};
  c.max_noise = c.max_pairs = 100'000;
  c.prepare();
  const ld a = c.a;
  SeededRng rng(401);
  std::map<std::pair<long, long>, std::uint64_t> counts;
  const std::uint64_t runs = 40'000;
  for (std::uint64_t r = 0; r < runs; ++r) {
    MessageBatch batch(1);
    for (int i = 0; i < 8; ++i) cn::encode(i < 3, c, rng, batch);
    long plus = 0, minus = 0;
    for (std::size_t i = 0; i < batch.count(); ++i) {
      plus += batch[i][0] == cn::plus ? 1 : 0;
      minus += batch[i][0] == cn::minus ? 1 : 0;
    }
    counts[{plus - minus - 3, minus}] += 1;
  }
  std::vector<std::uint64_t> observed;
  std::vector<double> probabilities;
  std::uint64_t inside = 0;
  double mass = 0;
  for (long d = -25; d <= 25; ++d)
    for (long v = 0; v <= 60; ++v) {
      ld p = 0;
      for (long b = 0; b <= v; ++b) p += geometric_pmf(a, b) * nb_pmf(c.flood.shape(), c.flood.b(), v - b) * geometric_pmf(a, d + b);
      const auto it = counts.find({d, v});
      observed.push_back(it == counts.end() ? 0 : it->second);
      probabilities.push_back(static_cast<double>(p));
      inside += observed.back();
      mass += probabilities.back();
    }
  observed.push_back(runs - inside);
  probabilities.push_back(std::max(0.0, 1 - mass));
  CHECK(shufflempc::test::chi_square(observed, probabilities).passes());
}

TEST_CASE("counting-correlated: at n = 10^5, eps = 1, delta = 1e-6 the error is within 5% of central in 1.02 messages a party") {
  const auto protocol = shufflempc::builtin_registry().create("counting-correlated", {}, 100'000);
  const auto d = protocol->describe();
  const double eps_c = d["epsilon_central_noise"].get<double>();
  // Computed independently of the library by a 40-line Python script summing the same H(m)
  // recurrence in doubles (flood mean 1000, dispersion 0.03): eps_c = 0.9718.
  CHECK(eps_c == doctest::Approx(0.9718).epsilon(2e-4));
  CHECK(d["view_delta"].get<double>() + d["truncation_delta"].get<double>() <= 1e-6);
  CHECK(d["truncation_delta"].get<double>() <= 1e-9);
  // A threshold: a little less central noise misses delta.
  CHECK(cn::view_delta(eps_c * (1 + 1e-7), 1.0, {1000, 0.03}) > 1e-6 - d["truncation_delta"].get<double>());
  const double sd = d["noise_sd"].get<double>();
  CHECK(sd >= d["central_laplace_sd"].get<double>());
  CHECK(sd <= 1.05 * d["central_laplace_sd"].get<double>());
  CHECK(sd <= 1.6);  // the survey's goal for a one-message counter
  CHECK(d["expected_messages_per_party"].get<double>() <= 1.021);
  CHECK(d["max_messages"].get<std::size_t>() == protocol->round(0).max_messages);
  CHECK(protocol->round(0).min_messages == 1);
}

TEST_CASE("counting-correlated: the error is exactly discrete Laplace(e^-eps_c) with min-parties submitters, a Polya difference with more") {
  const auto& registry = shufflempc::builtin_registry();
  const std::uint64_t runs = 4000;
  {
    const auto p = registry.create("counting-correlated", {{"epsilon", "1.5"}}, 400);
    const ld a = p->describe()["a"].get<double>();
    SeededRng rng(402);
    std::map<long, std::uint64_t> counts;
    for (std::uint64_t r = 0; r < runs; ++r) counts[std::lround(*p->trial(400, "bernoulli:0.3", rng)->error)] += 1;
    CHECK(fits(counts, runs, 30, [&](long k) { return (1 - a) / (1 + a) * std::pow(a, static_cast<ld>(std::abs(k))); }));
  }
  {
    // Calibrated for 200 submitters, all 400 submit: each of A and B is Polya(2, a).
    const auto p = registry.create("counting-correlated", {{"epsilon", "1.5"}}, 400, 200);
    const ld a = p->describe()["a"].get<double>();
    CHECK(p->predicted_sd() == doctest::Approx(std::sqrt(4 * static_cast<double>(a)) / (1 - static_cast<double>(a))));
    SeededRng rng(403);
    std::map<long, std::uint64_t> counts;
    for (std::uint64_t r = 0; r < runs; ++r) counts[std::lround(*p->trial(400, "bernoulli:0.3", rng)->error)] += 1;
    CHECK(fits(counts, runs, 30, [&](long k) { return polya_difference_pmf(2, a, k); }));
  }
}

TEST_CASE("counting-correlated: parameter errors name the parameter and its range") {
  const auto& registry = shufflempc::builtin_registry();
  const auto message = [&](std::map<std::string, std::string> params, std::size_t n) -> std::string {
    try {
      (void)registry.create("counting-correlated", params, n);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  CHECK(message({{"flood-pairs", "2"}}, 1000).find("flood-pairs = 2 is too few") != std::string::npos);
  CHECK(message({{"flood-pairs", "0"}}, 1000).find("flood-pairs") != std::string::npos);
  CHECK(message({{"flood-dispersion", "1"}}, 1000).find("flood-dispersion") != std::string::npos);
  CHECK(message({{"epsilon", "0"}}, 1000).find("epsilon") != std::string::npos);
  CHECK(message({{"delta", "1"}}, 1000).find("delta") != std::string::npos);
  CHECK_THROWS_AS((void)cn::configure(10, 11, 1, 1e-6, {1000, 0.03}), std::invalid_argument);
}

TEST_CASE("counting-correlated: configure() refuses the numbers the command line refuses, in the same words") {
  const shufflempc::Registry registry = shufflempc::builtin_registry();
  const auto cli_error = [&](const std::string& name, const std::string& text) {
    return shufflempc::test::error_text([&] { (void)registry.create("counting-correlated", {{name, text}}, 1000); });
  };
  const auto api_error = [](double epsilon, double delta, double pairs, double dispersion) {
    return shufflempc::test::error_text(
        [&] { (void)shufflempc::correlated_noise::configure(1000, 0, epsilon, delta, {.mean = pairs, .dispersion = dispersion}); });
  };
  CHECK(api_error(21, 1e-6, 1000, 0.03) == cli_error("epsilon", "21"));
  CHECK(api_error(1, 1, 1000, 0.03) == cli_error("delta", "1"));
  CHECK(api_error(1, 1e-6, 0.5, 0.03) == cli_error("flood-pairs", "0.5"));
  CHECK(api_error(1, 1e-6, 1000, 1) == cli_error("flood-dispersion", "1"));
  CHECK(api_error(1, 1e-6, 0.5, 0.03).find("parameter 'flood-pairs' = 0.5 is out of range: must be a number in [1, 1e+07]") !=
        std::string::npos);
}
