// Exact samplers on top of Rng. "Exact" means the output distribution is the stated one with no
// floating-point approximation: Bernoulli(p) for a double p is exact for the value p holds;
// the exponential-family samplers follow Canonne, Kamath and Steinke, "The Discrete Gaussian for
// Differential Privacy" (NeurIPS 2020), using only uniform integers and rational comparisons.
#pragma once

#include <cmath>
#include <cstdint>

#include "shufflempc/random.hpp"

namespace shufflempc {

namespace detail {
bool bernoulli_rest(Rng& rng, double rest);
[[noreturn]] void bad_bernoulli(double p);
}  // namespace detail

// Exact Bernoulli(p) for p in [0, 1] (the exact dyadic value of the double), one random byte on
// average. U < p is decided by comparing the base-256 expansions of a uniform U and of p from the
// first digit on: the first digit where they differ decides, and U's digits are drawn a byte at a
// time (1 + 1/255 bytes on average, whatever p is). Scaling a double by 256 and taking off its
// integer part are exact, so p's digits are exact too, subnormals included. Inline: studies draw
// it for every party.
[[nodiscard]] inline bool bernoulli(Rng& rng, double p) {
  if (!(p >= 0.0 && p <= 1.0)) [[unlikely]] detail::bad_bernoulli(p);
  const double scaled = p * 256;
  const auto digit = static_cast<unsigned>(scaled);  // floor: scaled is in [0, 256]
  const unsigned u = rng.next_u8();
  if (u != digit) [[likely]] return u < digit;  // one predictable branch, whatever the outcome
  return detail::bernoulli_rest(rng, scaled - digit);
}
// Randomized rounding: floor(x p) + Bernoulli(frac(x p)), unbiased for x p, variance
// frac (1 - frac) <= 1/4 (the sums' fixed point).
[[nodiscard]] inline std::int64_t randomized_round(double x, std::uint64_t precision, Rng& rng) {
  const double scaled = x * static_cast<double>(precision);
  const double low = std::floor(scaled);
  return static_cast<std::int64_t>(low) + (bernoulli(rng, scaled - low) ? 1 : 0);
}
// Exact Bernoulli(num / den), 0 <= num <= den, den >= 1.
[[nodiscard]] bool bernoulli_rational(Rng& rng, std::uint64_t num, std::uint64_t den);
// Exact Bernoulli(exp(-num/den)), num >= 0, den >= 1.
[[nodiscard]] bool bernoulli_exp(Rng& rng, std::uint64_t num, std::uint64_t den);
// Exact Binomial(n, p): n Bernoulli(p) trials, O(n). p in [0, 1].
[[nodiscard]] std::uint64_t binomial(Rng& rng, std::uint64_t n, double p);
// Exact geometric on {0, 1, ...} with P(k) = (1 - a) a^k for a = exp(-num/den), num >= 1.
[[nodiscard]] std::uint64_t geometric_exp(Rng& rng, std::uint64_t num, std::uint64_t den);
// Exact discrete Laplace on Z with P(k) = (1 - a)/(1 + a) a^|k| for a = exp(-num/den), num >= 1.
[[nodiscard]] std::int64_t discrete_laplace(Rng& rng, std::uint64_t num, std::uint64_t den);

// ---- Gamma, Poisson and Polya (negative binomial with real shape) ----
// These need floating point: their output is exact in distribution up to the floating-point
// arithmetic of the Gamma and Poisson steps (IEEE doubles, libm's log/exp/lgamma), which shifts
// probabilities by relative amounts of order 1e-15. They are used for the noise SHARES of the
// split-mix DP sum; the total noise there is a difference of two sums of n Polya(1/n, a) shares,
// i.e. a difference of two Geometric(a), i.e. discrete Laplace (docs/split-mix.md).

// Gamma(shape, scale): density x^(shape-1) e^(-x/scale) / (Gamma(shape) scale^shape), x > 0.
// Marsaglia and Tsang (ACM TOMS 2000); shape < 1 through Gamma(shape + 1) * U^(1/shape).
// shape and scale positive and finite.
[[nodiscard]] double gamma_variate(Rng& rng, double shape, double scale);
// Poisson(lambda), lambda in [0, 1e15]: multiplication of uniforms below 10, Hoermann's PTRS
// transformed rejection ("The transformed rejection method for generating Poisson random
// variables", 1993) above.
[[nodiscard]] std::uint64_t poisson(Rng& rng, double lambda);
// Polya(r, a): P(k) = Gamma(k + r) / (k! Gamma(r)) a^k (1 - a)^r, k = 0, 1, ..., the negative
// binomial with real shape r > 0 and success probability 1 - a, a in [0, 1). Sampled as
// Poisson(Gamma(r, a / (1 - a))). The sum of n independent Polya(1/n, a) is Geometric(a).
[[nodiscard]] std::uint64_t polya(Rng& rng, double r, double a);

// A positive double x written as num/den with den = 2^32 and num rounded DOWN, so that a noise
// scale exp(-x) becomes exp(-num/den) >= exp(-x): the sampled noise is never smaller than asked.
struct Rational {
  std::uint64_t num;
  std::uint64_t den;
  [[nodiscard]] double value() const { return static_cast<double>(num) / static_cast<double>(den); }
};
[[nodiscard]] Rational rational_at_most(double x, const char* name);

}  // namespace shufflempc
