// Exact samplers on top of Rng. "Exact" means the output distribution is the stated one with no
// floating-point approximation: Bernoulli(p) for a double p is exact for the value p holds;
// the exponential-family samplers follow Canonne, Kamath and Steinke, "The Discrete Gaussian for
// Differential Privacy" (NeurIPS 2020), using only uniform integers and rational comparisons.
#pragma once

#include <cstdint>

#include "shufflempc/random.hpp"

namespace shufflempc {

// Exact Bernoulli(p) for p in [0, 1] (the exact dyadic value of the double).
[[nodiscard]] bool bernoulli(Rng& rng, double p);
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

// A positive double x written as num/den with den = 2^32 and num rounded DOWN, so that a noise
// scale exp(-x) becomes exp(-num/den) >= exp(-x): the sampled noise is never smaller than asked.
struct Rational {
  std::uint64_t num;
  std::uint64_t den;
  [[nodiscard]] double value() const { return static_cast<double>(num) / static_cast<double>(den); }
};
[[nodiscard]] Rational rational_at_most(double x, const char* name);

}  // namespace shufflempc
