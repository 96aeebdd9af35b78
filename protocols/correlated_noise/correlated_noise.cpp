#include "shufflempc/protocols/correlated_noise/correlated_noise.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "shufflempc/error.hpp"
#include "shufflempc/numbers.hpp"
#include "shufflempc/samplers.hpp"

namespace shufflempc::correlated_noise {
namespace {

using ld = long double;


// log P(F = k) for F ~ NegativeBinomial(shape, b).
ld nb_log_pmf(ld k, ld shape, ld b) {
  return std::lgamma(k + shape) - std::lgamma(shape) - std::lgamma(k + 1) + k * std::log(b) + shape * std::log1p(-b);
}

// Largest total flooding law summed (in window values); larger laws are refused by configure.
constexpr double max_window = 2e7;

}  // namespace

double polya_tail_bound(double r, double q, std::uint64_t k) {
  if (!(r > 0) || !(q >= 0 && q < 1)) throw std::invalid_argument("polya_tail_bound: needs r > 0 and 0 <= q < 1");
  if (q == 0) return 0;
  // P(X = j + 1) / P(X = j) = q (j + r) / (j + 1), at most rho for every j > k.
  const ld kk = static_cast<ld>(k);
  const ld rho = q * std::max<ld>(1, (kk + 1 + r) / (kk + 2));
  if (rho >= 1) return 1;
  const ld first = std::exp(nb_log_pmf(kk + 1, r, q));
  return static_cast<double>(std::min<ld>(1, first / (1 - rho)));
}

PolyaLaw::PolyaLaw(double r, double q) : r_(r), q_(q) {
  if (!(r > 0) || !(q >= 0 && q < 1)) throw std::invalid_argument("PolyaLaw: needs r > 0 and 0 <= q < 1");
  positive_ = -std::expm1(r * std::log1p(-q));
  first_ = r * q * std::exp(r * std::log1p(-q));
}

std::uint64_t PolyaLaw::operator()(Rng& rng) const {
  if (r_ > 0.1 || q_ == 0) return polya(rng, r_, q_);
  if (!bernoulli(rng, positive_)) return 0;
  // Given X >= 1: P(X = k) / P(X >= 1), walked from k = 1 with P(k + 1) = P(k) q (k + r)/(k + 1).
  double u = rng.uniform01() * positive_;
  double p = first_;
  std::uint64_t k = 1;
  while (u >= p && p > 1e-300) {
    u -= p;
    p *= q_ * (static_cast<double>(k) + r_) / static_cast<double>(k + 1);
    ++k;
  }
  return k;
}

double view_delta(double eps_c, double eps, const Flood& flood) {
  if (!(eps_c > 0 && eps_c <= eps)) throw std::invalid_argument("view_delta: needs 0 < eps_c <= eps");
  if (!(flood.mean > 0 && flood.dispersion > 0 && flood.dispersion < 1)) throw std::invalid_argument("view_delta: needs a flooding law");
  const ld a = std::exp(-static_cast<ld>(eps_c)), a2 = a * a, ea = std::exp(static_cast<ld>(eps)) * a;
  const ld s = flood.shape(), b = flood.b(), mean = flood.mean;
  const ld sd = std::sqrt(mean / static_cast<ld>(flood.dispersion));
  // The window [lo, hi] of F summed: 40 sd either side, widened until the mass outside it, bounded
  // by geometric series on the pmf's ratios, is below 1e-40.
  std::uint64_t lo = mean > 40 * sd ? static_cast<std::uint64_t>(mean - 40 * sd) : 0;
  std::uint64_t hi = static_cast<std::uint64_t>(mean + 40 * sd) + 100;
  const auto low_mass = [&](std::uint64_t k) -> ld {  // P(F < k)
    if (k == 0) return 0;
    const ld kk = static_cast<ld>(k);
    const ld lambda = kk / (b * (kk - 1 + s));  // P(j - 1)/P(j) for j <= k, at most this when s >= 1
    if (s < 1 || lambda >= 1) return 1;
    return std::exp(nb_log_pmf(kk, s, b)) * lambda / (1 - lambda);
  };
  const auto high_mass = [&](std::uint64_t k) -> ld { return polya_tail_bound(static_cast<double>(s), static_cast<double>(b), k); };
  while (lo > 0 && low_mass(lo) > 1e-40L) lo = lo > static_cast<std::uint64_t>(sd) ? lo - static_cast<std::uint64_t>(sd) - 1 : 0;
  while (high_mass(hi) > 1e-40L) hi += static_cast<std::uint64_t>(sd) + 1;
  if (static_cast<double>(hi - lo) > max_window) throw std::invalid_argument("view_delta: the flooding law is too wide to sum");
  const ld dropped = low_mass(lo) + high_mass(hi);
  // delta = (1 - a) max(sum_m (a H(m-1) - e^eps H(m))_+, sum_m (H(m) - e^eps a H(m-1))_+), where
  // H(m) = P(F = m) + a^2 H(m - 1). The first sum is 0 when eps >= eps_c (H(m) >= a^2 H(m-1)).
  // Beyond the window, H falls by a^2 a step and every term is 0. The dropped mass of F changes
  // sum_m H(m) by at most dropped / (1 - a^2), so each term moves by at most that much (1 + e^eps a).
  ld p = std::exp(nb_log_pmf(static_cast<ld>(lo), s, b));
  ld h_prev = 0, sum = 0;
  for (std::uint64_t k = lo; k <= hi; ++k) {
    const ld h = p + a2 * h_prev;
    const ld t = h - ea * h_prev;
    if (t > 0) sum += t;
    h_prev = h;
    p *= b * (static_cast<ld>(k) + s) / (static_cast<ld>(k) + 1);
  }
  const ld delta = (1 - a) * sum + (1 + ea) * dropped / (1 + a);
  return static_cast<double>(delta);
}

void Config::prepare() {
  noise_law = PolyaLaw(1.0 / static_cast<double>(min_parties), a);
  pairs_law = PolyaLaw(flood.shape() / static_cast<double>(min_parties), flood.b());
}

double Config::expected_messages() const {
  return 1 + (2 * a / (1 - a) + 2 * flood.mean) / static_cast<double>(min_parties);
}

double Config::noise_sd(std::uint64_t submitters) const {
  // A - B with A, B ~ Polya(submitters / m, a): variance 2 r a / (1 - a)^2.
  const double r = static_cast<double>(submitters) / static_cast<double>(min_parties);
  return std::sqrt(2 * r * a) / (1 - a);
}

namespace {

// The cap K: the least with `parties` P(X > K) <= budget for X ~ Polya(r, q).
std::uint64_t cap_for(double r, double q, std::uint64_t parties, double budget, const char* what) {
  std::uint64_t k = 0;
  while (static_cast<double>(parties) * polya_tail_bound(r, q, k) > budget) {
    k = k < 16 ? k + 1 : k + k / 8;
    if (k > 1'000'000)
      throw std::invalid_argument(std::string("a party's ") + what + " would need more than 10^6 messages: raise flood-dispersion");
  }
  return k;
}

struct Candidate {
  std::uint64_t max_noise = 0;
  double view = 0, truncation = 0;
};

Candidate evaluate(double eps_c, std::uint64_t parties, std::uint64_t m, double eps, double delta, const Flood& flood,
                   double pairs_tail) {
  Candidate c;
  const double a = std::exp(-eps_c);
  const double budget = delta * 1e-3 / (3 * (1 + std::exp(eps)));
  c.max_noise = cap_for(1.0 / static_cast<double>(m), a, parties, budget, "noise");
  const double noise_tail = polya_tail_bound(1.0 / static_cast<double>(m), a, c.max_noise);
  // A party whose draw exceeds a cap draws again: every party's noise is within total variation
  // 2 P(A > K) + P(F > K_F) of the untruncated law, so the view is within parties times that, and
  // (eps, delta)-DP becomes (eps, delta + (1 + e^eps) TV)-DP.
  c.truncation = (1 + std::exp(eps)) * static_cast<double>(parties) * (2 * noise_tail + pairs_tail);
  c.view = view_delta(eps_c, eps, flood);
  return c;
}

}  // namespace

const std::vector<ParamSpec>& parameters() {
  static const std::vector<ParamSpec> declared{
      {.name = "epsilon", .type = ParamType::real, .default_value = "1", .help = "privacy parameter epsilon",
       .min = 0.0, .max = 20.0, .min_exclusive = true},
      {.name = "delta", .type = ParamType::real, .default_value = "1e-6", .help = "privacy parameter delta",
       .min = 0.0, .max = 1.0, .min_exclusive = true, .max_exclusive = true},
      {.name = "flood-pairs", .type = ParamType::real, .default_value = "1000",
       .help = "expected flooding pairs (+1, -1) in total, shared by the parties", .min = 1.0, .max = 1e7},
      {.name = "flood-dispersion", .type = ParamType::real, .default_value = "0.03",
       .help = "1 - b of the flooding law NegativeBinomial(shape, b): smaller is flatter and wider",
       .min = 1e-4, .max = 1.0, .max_exclusive = true}};
  return declared;
}

Config configure(std::uint64_t parties, std::uint64_t min_parties, double epsilon, double delta, const Flood& flood) {
  if (min_parties > parties)
    throw std::invalid_argument("min-parties = " + std::to_string(min_parties) + " is out of range: must be at most parties = " +
                                std::to_string(parties));
  const std::uint64_t m = min_parties == 0 ? parties : min_parties;
  if (m < 1) throw std::invalid_argument("parties must be at least 1");
  check_declared(parameters(), "epsilon", epsilon);
  check_declared(parameters(), "delta", delta);
  check_declared(parameters(), "flood-pairs", flood.mean);
  check_declared(parameters(), "flood-dispersion", flood.dispersion);
  if (flood.mean / flood.dispersion > 1e12)
    throw std::invalid_argument("flood-pairs / flood-dispersion = " + format_real(flood.mean / flood.dispersion) +
                                " is out of range (the flooding variance): must be at most 1e12");
  Config c;
  c.parties = parties;
  c.min_parties = m;
  c.epsilon = epsilon;
  c.delta = delta;
  c.flood = flood;
  const double pair_shape = flood.shape() / static_cast<double>(m);
  const double budget = delta * 1e-3 / (3 * (1 + std::exp(epsilon)));
  c.max_pairs = cap_for(pair_shape, flood.b(), parties, budget, "flooding");
  const double pairs_tail = polya_tail_bound(pair_shape, flood.b(), c.max_pairs);
  const auto meets = [&](double eps_c, Candidate& out) {
    out = evaluate(eps_c, parties, m, epsilon, delta, flood, pairs_tail);
    return out.view + out.truncation <= delta;
  };
  Candidate best;
  double chosen = epsilon;
  if (!meets(epsilon, best)) {
    double lo = epsilon * 1e-3, hi = epsilon;
    if (!meets(lo, best))
      throw std::invalid_argument("flood-pairs = " + format_real(flood.mean) + " is too few for epsilon = " + format_real(epsilon) + ", delta = " +
                                  format_real(delta) + ": the flooding pairs cannot hide the -1 noise; raise flood-pairs (1000 suits delta >= 1e-9)");
    Candidate at_lo = best;
    while (hi - lo > 1e-9 * epsilon) {
      const double mid = (lo + hi) / 2;
      Candidate at_mid;
      if (meets(mid, at_mid)) {
        lo = mid;
        at_lo = at_mid;
      } else {
        hi = mid;
      }
    }
    chosen = lo;
    best = at_lo;
  }
  c.epsilon_c = chosen;
  c.a = std::exp(-chosen);
  c.max_noise = best.max_noise;
  c.view_delta = best.view;
  c.truncation_delta = best.truncation;
  c.prepare();
  return c;
}

void encode(bool x, const Config& c, Rng& rng, MessageBatch& out) {
  out.append()[0] = x ? plus : dummy;
  std::uint64_t noise_plus = 0, noise_minus = 0, pairs = 0;
  do {
    noise_plus = c.noise_law(rng);
    noise_minus = c.noise_law(rng);
    pairs = c.pairs_law(rng);
  } while (noise_plus > c.max_noise || noise_minus > c.max_noise || pairs > c.max_pairs);
  for (std::uint64_t i = 0; i < noise_plus + pairs; ++i) out.append()[0] = plus;
  for (std::uint64_t i = 0; i < noise_minus + pairs; ++i) out.append()[0] = minus;
}

double analyze(const MessageBatch& shuffled) {
  std::int64_t plus_count = 0, minus_count = 0;
  const std::uint8_t* d = shuffled.data();
  for (std::size_t i = 0; i < shuffled.size_bytes(); ++i) {
    if (d[i] > minus) throw_error(Errc::protocol_violation, "counting-correlated: a message other than 0, 1 or 2");
    plus_count += d[i] == plus ? 1 : 0;
    minus_count += d[i] == minus ? 1 : 0;
  }
  return static_cast<double>(plus_count - minus_count);
}

}  // namespace shufflempc::correlated_noise
