// The XOR-sum lower bound, executed (attacks/): the replay attack reaches what the frozen half
// encodes, recovery falls with the protocol's noise as the formula for that ceiling says, the
// exact endpoint needs no query, the decoders, and the two-round escape's harness: one recorded
// execution replays to one answer, forged labels show. The escape's study is tested in tests/study.
#include <doctest/doctest.h>

#include <cmath>

#include "shufflempc/attacks/escape.hpp"
#include "shufflempc/attacks/xor_sum.hpp"
#include "shufflempc/protocols/xor_sum/xor_sum.hpp"

using namespace shufflempc;
using attacks::Decoder;

namespace {

xor_sum::RrMechanism rr(std::size_t n, double alpha) {
  return {.buckets = static_cast<std::uint32_t>(n), .flip = xor_sum::rr_flip_for_alpha(alpha), .alpha = alpha};
}
xor_sum::NoiseIdsMechanism ids(std::size_t n, double alpha) {
  const auto b = static_cast<std::uint32_t>(n);
  return {.buckets = b, .parties = n, .rate = xor_sum::noise_rate_for_alpha(alpha, n, b), .alpha = alpha};
}

}  // namespace

TEST_CASE("replay attack: with 16n queries it recovers at least 99% of what the frozen half encodes (n = 64, 128)") {
  for (std::size_t n : {64, 128})
    for (double alpha : {0.1, 0.5, 1.0})
      for (std::uint64_t seed : {1, 2}) {
        INFO("n = " << n << ", alpha = " << alpha << ", seed " << seed);
        const SeededRng rng(seed);
        const auto d1 = attacks::replay_queries(rr(n, alpha), n, 16 * n, rng);
        const auto r1 = attacks::reconstruct(d1, 16 * n, Decoder::least_squares);
        CHECK(r1.of_encoded >= 0.99);
        CHECK(r1.recovered == doctest::Approx(r1.ceiling).epsilon(0.011));
        const auto d2 = attacks::replay_queries(ids(n, alpha), n, 16 * n, rng);
        CHECK(attacks::reconstruct(d2, 16 * n, Decoder::least_squares).of_encoded >= 0.99);
        // The measured error is the one alpha asked for (the frozen half's part is shared by all
        // queries, so a run's RMSE scatters more than an i.i.d. sample's).
        CHECK(r1.alpha() == doctest::Approx(alpha).epsilon(0.35));
      }
  // LP decoding as well, at 4n queries.
  const auto d = attacks::replay_queries(rr(64, 0.5), 64, 4 * 64, SeededRng(3));
  CHECK(attacks::reconstruct(d, 4 * 64, Decoder::lp).of_encoded >= 0.97);
}

TEST_CASE("replay attack: recovery falls with the noise as the ceiling formula predicts, within sampling error") {
  // rr: G encodes x XOR Bern(p), so the expected fraction is 1 - p; noise-ids: 1 - q_h. Over R runs
  // of h bits the mean fraction has sd sqrt(f(1-f)/(R h)); allow 6.5 sd and 0.02 for imperfect
  // decoding at large alpha. The ceiling formula gives .99/.88/.79/.71 for rr.
  const std::size_t n = 128, h = n / 2, R = 6;
  const double spec_rr[] = {0.99, 0.88, 0.79, 0.71};
  const double alphas[] = {0.1, 0.5, 1, 2};
  double previous_rr = 1.01, previous_ids = 1.01;
  for (int i = 0; i < 4; ++i) {
    const auto m1 = rr(n, alphas[i]);
    const auto m2 = ids(n, alphas[i]);
    const double f1 = 1 - m1.flip;
    const double f2 = 1 - xor_sum::noise_parity_flip(m2.rate, h, m2.buckets);
    CHECK(f1 == doctest::Approx(spec_rr[i]).epsilon(0.015));
    double s1 = 0, s2 = 0;
    for (std::uint64_t run = 0; run < R; ++run) {
      const SeededRng rng(100 + run);
      s1 += attacks::reconstruct(attacks::replay_queries(m1, n, 8 * n, rng), 8 * n, Decoder::least_squares).recovered;
      s2 += attacks::reconstruct(attacks::replay_queries(m2, n, 8 * n, rng), 8 * n, Decoder::least_squares).recovered;
    }
    s1 /= R;
    s2 /= R;
    INFO("alpha " << alphas[i] << ": rr " << s1 << " against " << f1 << ", noise-ids " << s2 << " against " << f2);
    CHECK(std::abs(s1 - f1) <= 6.5 * std::sqrt(f1 * (1 - f1) / (R * h)) + 0.02);
    CHECK(std::abs(s2 - f2) <= 6.5 * std::sqrt(f2 * (1 - f2) / (R * h)) + 0.02);
    CHECK(s1 < previous_rr);
    CHECK(s2 < previous_ids);
    previous_rr = s1;
    previous_ids = s2;
  }
}

TEST_CASE("replay attack: the exact endpoint is recovered with no queries at all, and exactly by either decoder") {
  const xor_sum::ExactMechanism exact{.buckets = 64, .shares = 3};
  const auto d = attacks::replay_queries(exact, 64, 4 * 64, SeededRng(9));
  const auto direct = attacks::reconstruct(d, 0, Decoder::least_squares);
  CHECK(direct.queries == 0);
  CHECK(direct.recovered == 1.0);
  CHECK(attacks::reconstruct(d, 4 * 64, Decoder::least_squares).recovered == 1.0);
  CHECK(attacks::reconstruct(d, 4 * 64, Decoder::lp).recovered == 1.0);
  // A noisy protocol read directly gives only its ceiling.
  const auto noisy = attacks::reconstruct(attacks::replay_queries(rr(64, 1), 64, 0, SeededRng(9)), 0, Decoder::least_squares);
  CHECK(noisy.recovered == noisy.ceiling);
  CHECK(noisy.recovered < 0.95);
}

TEST_CASE("decoders: exact answers give x back, LP survives a tenth of wild answers, least squares does not") {
  SeededRng rng(4);
  const std::size_t h = 48, m = 4 * h;
  std::vector<std::uint8_t> x(h);
  for (auto& b : x) b = rng.bit() ? 1 : 0;
  attacks::Queries q;
  q.h = h;
  for (std::size_t k = 0; k < m; ++k) {
    std::size_t d = 0;
    for (std::size_t i = 0; i < h; ++i) {
      const std::uint8_t y = rng.bit() ? 1 : 0;
      q.bits.push_back(y);
      d += y ^ x[i];
    }
    q.answers.push_back(static_cast<double>(3 * d + 7));  // an affine map the decoders do not know
  }
  CHECK(attacks::agreement(attacks::decode(q, Decoder::least_squares), x) == 1.0);
  CHECK(attacks::agreement(attacks::decode(q, Decoder::lp), x) == 1.0);
  for (std::size_t k = 0; k < m; k += 10) q.answers[k] = rng.bit() ? 1e4 : -1e4;
  CHECK(attacks::agreement(attacks::decode(q, Decoder::lp), x) == 1.0);
  CHECK(attacks::agreement(attacks::decode(q, Decoder::least_squares), x) < 0.9);
  CHECK_THROWS_AS((void)attacks::parse_decoder("simplex"), std::invalid_argument);
}

TEST_CASE("escape: the generated circuit computes XS plus the shares' sum on every input of 3 users over 3 buckets") {
  const attacks::XorSumCircuit c(3, 3, 6);
  CHECK(c.circuit().and_gates > 0);
  SeededRng rng(2);
  for (int code = 0; code < 216; ++code) {
    std::vector<xor_sum::Item> xs;
    std::vector<std::uint8_t> bits;
    std::int64_t noise = 0;
    int k = code;
    for (int u = 0; u < 3; ++u, k /= 6) {
      xs.push_back({static_cast<std::uint32_t>(k % 3), (k / 3) % 2 == 1});
      const std::int64_t eta = static_cast<std::int64_t>(rng.uniform(11)) - 5;
      noise += eta;
      const auto b = c.user_bits(xs.back(), eta);
      bits.insert(bits.end(), b.begin(), b.end());
    }
    CHECK(c.decode(circuit::evaluate(c.circuit(), bits)) == xor_sum::exact_xor_sum(xs, 3) + noise);
  }
}

TEST_CASE("escape: the honest half's noise shares sum to discrete Laplace(epsilon)") {
  // Var DLap = 2a/(1-a)^2, a = e^-eps. 20,000 sums of 8 shares; the sample variance within 10%
  // (about 6 standard errors at the distribution's kurtosis), P(0) within 6.5 sd.
  SeededRng rng(11);
  const double eps = 1, a = std::exp(-eps);
  const int T = 20000;
  double s2 = 0;
  int zeros = 0;
  for (int t = 0; t < T; ++t) {
    std::int64_t z = 0;
    for (int i = 0; i < 8; ++i) z += attacks::noise_share(eps, 8, rng);
    s2 += static_cast<double>(z * z);
    zeros += z == 0;
  }
  CHECK(s2 / T == doctest::Approx(2 * a / ((1 - a) * (1 - a))).epsilon(0.10));
  const double p0 = (1 - a) / (1 + a);
  CHECK(std::abs(zeros / double(T) - p0) <= 6.5 * std::sqrt(p0 * (1 - p0) / T));
}

TEST_CASE("escape: one execution through the garbled circuit releases d_H(x, y) plus noise, replayed, it gives that one answer") {
  const attacks::EscapeHarness harness({.parties = 16, .epsilon = 1});
  SeededRng rng(21);
  std::vector<std::uint8_t> x(8), y(8), y2(8);
  for (int trial = 0; trial < 4; ++trial) {
    std::size_t d = 0, d2 = 0;
    for (std::size_t i = 0; i < 8; ++i) {
      x[i] = rng.bit();
      y[i] = rng.bit();
      y2[i] = y[i] ^ (i % 3 == 0 ? 1 : 0);
      d += x[i] ^ y[i];
      d2 += x[i] ^ y2[i];
    }
    const auto rec = harness.execute(x, y, rng);
    CHECK(rec.answer == static_cast<std::int64_t>(d) + rec.noise);
    for (int r = 0; r < 5; ++r) CHECK(harness.replay(rec) == rec.answer);
    // (b) The corrupted garbler forges labels for y2: it sees invalid keys, and the output is not
    // d_H(x, y2) plus the noise. Forging for the same y changes nothing (the check can fail).
    const auto f = harness.forge(rec, x, y2, rng);
    CHECK(f.wires_changed == 3);
    CHECK(f.detected());
    CHECK(f.output != f.wanted);
    CHECK(static_cast<std::int64_t>(d2) + rec.noise == f.wanted);
    const auto same = harness.forge(rec, x, y, rng);
    CHECK(same.invalid_keys == 0);
    CHECK(same.output == rec.answer);
  }
}
