#include "shufflempc/samplers.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace shufflempc {

namespace detail {

bool bernoulli_rest(Rng& rng, double rest) {
  while (rest != 0) {
    rest *= 256;
    const auto digit = static_cast<unsigned>(rest);  // floor: rest is in [0, 256)
    const unsigned u = rng.next_u8();
    if (u != digit) return u < digit;
    rest -= digit;
  }
  return false;  // U agrees with p on every digit p has: U >= p
}

[[noreturn]] void bad_bernoulli(double p) { throw std::invalid_argument("bernoulli: p must be in [0, 1], got " + std::to_string(p)); }

}  // namespace detail

bool bernoulli_rational(Rng& rng, std::uint64_t num, std::uint64_t den) {
  if (den == 0 || num > den) throw std::invalid_argument("bernoulli_rational: need 0 <= num <= den and den >= 1");
  return rng.uniform(den) < num;
}

namespace {
// Bernoulli(exp(-g)) for g = num/den in [0, 1]: CKS Algorithm 1.
bool bernoulli_exp_small(Rng& rng, std::uint64_t num, std::uint64_t den) {
  std::uint64_t k = 1;
  while (true) {
    // Bernoulli(g / k) = Bernoulli(num / (den * k)); den * k cannot overflow in practice
    // (k exceeds 20 with probability below 1e-18), but guard anyway.
    if (den > std::numeric_limits<std::uint64_t>::max() / k) return (k & 1u) == 1u;
    if (!bernoulli_rational(rng, num, den * k)) break;
    ++k;
  }
  return (k & 1u) == 1u;
}
}  // namespace

bool bernoulli_exp(Rng& rng, std::uint64_t num, std::uint64_t den) {
  if (den == 0) throw std::invalid_argument("bernoulli_exp: den must be at least 1");
  for (std::uint64_t i = 0; i < num / den; ++i)
    if (!bernoulli_exp_small(rng, 1, 1)) return false;
  return bernoulli_exp_small(rng, num % den, den);
}

std::uint64_t binomial(Rng& rng, std::uint64_t n, double p) {
  if (!(p >= 0.0 && p <= 1.0)) throw std::invalid_argument("binomial: p must be in [0, 1], got " + std::to_string(p));
  std::uint64_t k = 0;
  for (std::uint64_t i = 0; i < n; ++i) k += bernoulli(rng, p) ? 1 : 0;
  return k;
}

std::uint64_t geometric_exp(Rng& rng, std::uint64_t num, std::uint64_t den) {
  if (num == 0 || den == 0) throw std::invalid_argument("geometric_exp: need num >= 1 and den >= 1");
  // CKS Algorithm 2 without the sign: X = U + den*V has P(X = x) proportional to exp(-x/den),
  // accepted with probability exp(-U/den); floor(X/num) is then geometric with a = exp(-num/den).
  while (true) {
    const std::uint64_t u = rng.uniform(den);
    if (!bernoulli_exp(rng, u, den)) continue;
    std::uint64_t v = 0;
    while (bernoulli_exp(rng, 1, 1)) ++v;
    const unsigned __int128 x = static_cast<unsigned __int128>(u) + static_cast<unsigned __int128>(den) * v;
    return static_cast<std::uint64_t>(x / num);
  }
}

std::int64_t discrete_laplace(Rng& rng, std::uint64_t num, std::uint64_t den) {
  while (true) {
    const std::uint64_t y = geometric_exp(rng, num, den);
    const bool negative = rng.bit();
    if (negative && y == 0) continue;  // zero would otherwise be counted twice
    return negative ? -static_cast<std::int64_t>(y) : static_cast<std::int64_t>(y);
  }
}

namespace {
// Uniform double in the open interval (0, 1): 53 random bits, centred in their cell.
double uniform_open01(Rng& rng) { return (static_cast<double>(rng.next_u64() >> 11) + 0.5) * 0x1.0p-53; }

// Standard normal by Marsaglia's polar method (the second variate is discarded, so that every
// call consumes a whole number of draws and seeded runs stay easy to reason about).
double standard_normal(Rng& rng) {
  while (true) {
    const double u = 2 * uniform_open01(rng) - 1;
    const double v = 2 * uniform_open01(rng) - 1;
    const double s = u * u + v * v;
    if (s > 0 && s < 1) return u * std::sqrt(-2 * std::log(s) / s);
  }
}

// Hoermann's PTRS for lambda >= 10.
std::uint64_t poisson_ptrs(Rng& rng, double lambda) {
  const double slam = std::sqrt(lambda);
  const double loglam = std::log(lambda);
  const double b = 0.931 + 2.53 * slam;
  const double a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
  const double vr = 0.9277 - 3.6224 / (b - 2);
  while (true) {
    const double u = uniform_open01(rng) - 0.5;
    const double v = uniform_open01(rng);
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + lambda + 0.43);
    if (us >= 0.07 && v <= vr) return static_cast<std::uint64_t>(k);
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + std::log(inv_alpha) - std::log(a / (us * us) + b) <= -lambda + k * loglam - std::lgamma(k + 1))
      return static_cast<std::uint64_t>(k);
  }
}
}  // namespace

double gamma_variate(Rng& rng, double shape, double scale) {
  if (!(shape > 0) || !std::isfinite(shape))
    throw std::invalid_argument("gamma_variate: shape must be positive and finite, got " + std::to_string(shape));
  if (!(scale > 0) || !std::isfinite(scale))
    throw std::invalid_argument("gamma_variate: scale must be positive and finite, got " + std::to_string(scale));
  if (shape < 1) {
    // Gamma(a) = Gamma(a + 1) * U^(1/a); computed in log space, so that a tiny shape (1e-9) gives
    // a tiny value rather than an overflowing intermediate. Underflow to 0 is the right limit.
    const double g = gamma_variate(rng, shape + 1, 1.0);
    return scale * std::exp(std::log(g) + std::log(uniform_open01(rng)) / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9 * d);
  while (true) {
    double x = 0;
    double v = 0;
    do {
      x = standard_normal(rng);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = uniform_open01(rng);
    if (u < 1 - 0.0331 * (x * x) * (x * x)) return scale * d * v;
    if (std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v))) return scale * d * v;
  }
}

std::uint64_t poisson(Rng& rng, double lambda) {
  if (!(lambda >= 0) || !(lambda <= 1e15))
    throw std::invalid_argument("poisson: lambda must be in [0, 1e15], got " + std::to_string(lambda));
  if (lambda == 0) return 0;
  if (lambda >= 10) return poisson_ptrs(rng, lambda);
  // Knuth: the number of uniforms whose running product stays above e^-lambda.
  const double limit = std::exp(-lambda);
  std::uint64_t k = 0;
  double product = uniform_open01(rng);
  while (product > limit) {
    ++k;
    product *= uniform_open01(rng);
  }
  return k;
}

std::uint64_t polya(Rng& rng, double r, double a) {
  if (!(r > 0) || !std::isfinite(r)) throw std::invalid_argument("polya: r must be positive and finite, got " + std::to_string(r));
  if (!(a >= 0 && a < 1)) throw std::invalid_argument("polya: a must be in [0, 1), got " + std::to_string(a));
  if (a == 0) return 0;
  // The Poisson rate is at most ~1e15 unless the Gamma draw is astronomically far in its tail.
  const double lambda = std::min(gamma_variate(rng, r, a / (1 - a)), 1e15);
  return poisson(rng, lambda);
}

Rational rational_at_most(double x, const char* name) {
  if (!(x > 0.0) || !std::isfinite(x) || x > 1e6)
    throw std::invalid_argument(std::string(name) + " must be a positive finite number at most 1e6");
  constexpr std::uint64_t den = std::uint64_t{1} << 32;
  const auto num = static_cast<std::uint64_t>(std::floor(x * static_cast<double>(den)));
  if (num == 0) throw std::invalid_argument(std::string(name) + " is too small (below 2^-32)");
  return {num, den};
}

}  // namespace shufflempc
