// (epsilon, delta) accounting for the shuffle-model counting protocols.
//
// The exact oracle: a sensitivity-1 count released as x + Z with integer noise Z of pmf P is
// (eps, delta)-DP for exactly
//   delta(eps) = max( sum_k [P(k) - e^eps P(k-1)]_+ , sum_k [P(k-1) - e^eps P(k)]_+ ).
// For binomial noise it is evaluated in log space (long double lgamma, log-sum-exp), with a
// rigorous bound on the truncated tail, so deltas far below 1e-300 are still reported (as logs).
#pragma once

#include <cstdint>

namespace shufflempc {

struct DeltaReport {
  long double log_delta;  // natural log of the exact delta (-inf when delta = 0)
  [[nodiscard]] double delta() const;  // may underflow to 0 below ~1e-308
  [[nodiscard]] double log10_delta() const;
};

// Exact delta at `eps` of the count released with Binomial(n, p) noise, 0 < p < 1.
[[nodiscard]] DeltaReport binomial_noise_delta(std::uint64_t n, double p, double eps);

// The smallest p (to relative precision 1e-6, rounded up) such that Binomial(n, p) noise makes a
// count (eps, delta)-DP by the exact oracle. Throws std::invalid_argument if even p = 1/2 fails.
[[nodiscard]] double calibrate_binomial_p(std::uint64_t n, double eps, double delta);

// The lectures' noise rate p = 48 ln(2/delta) / (eps^2 n).
[[nodiscard]] double lecture_noise_rate(std::uint64_t n, double eps, double delta);

// Randomized response with flip probability 1/(1+e^eps) is eps-DP (local model).
[[nodiscard]] double randomized_response_flip(double eps);

}  // namespace shufflempc
