// (epsilon, delta) accounting for the shuffle-model counting protocols.
//
// The exact oracle: a sensitivity-1 count released as x + Z with integer noise Z of pmf P is
// (eps, delta)-DP for exactly
//   delta(eps) = max( sum_k [P(k) - e^eps P(k-1)]_+ , sum_k [P(k-1) - e^eps P(k)]_+ ).
// For binomial noise it is evaluated in log space (long double lgamma, log-sum-exp), with a
// rigorous bound on the truncated tail, so deltas far below 1e-300 are still reported (as logs).
#pragma once

#include <cstdint>
#include <span>

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

// ---- Any integer noise ----
// Exact delta at `eps` of a sum with sensitivity `sensitivity` (neighbours move it by at most that
// many units) released with SYMMETRIC integer noise Z, P(Z = k) = exp(log_pmf[k + (size - 1) / 2])
// on an odd-sized window centred at 0: the largest over shifts s = 1..sensitivity of
// sum_k [P(k) - e^eps P(k - s)]_+. `log_tail` is the log of the mass outside the window, added
// whole (every term is at most its P(k)).
[[nodiscard]] DeltaReport symmetric_noise_delta(std::span<const long double> log_pmf, std::uint64_t sensitivity, double eps,
                                                long double log_tail);

// Discrete Laplace P(k) = (1 - a)/(1 + a) a^|k|, a = exp(-scale_epsilon): exact delta at eps for a
// sum of the given sensitivity. 0 when eps >= sensitivity * scale_epsilon.
[[nodiscard]] DeltaReport discrete_laplace_delta(double scale_epsilon, double eps, std::uint64_t sensitivity = 1);
// The largest scale_epsilon (the least noise, to relative 1e-9) whose discrete Laplace makes a
// sum of this sensitivity (eps, delta)-DP. At least eps / sensitivity (pure DP).
[[nodiscard]] double calibrate_discrete_laplace(double eps, double delta, std::uint64_t sensitivity = 1);
// Polya(r, a) - Polya(r, a), a = exp(-scale_epsilon): the noise of the split-mix DP sum when the
// shares of a fraction r of the noise parties arrive (r = 1: discrete Laplace). Exact delta at eps;
// throws std::invalid_argument when the noise's support is too wide to sum (a window of more than
// 60001 values: scale_epsilon below about 3e-3).
[[nodiscard]] DeltaReport polya_difference_delta(double shape, double scale_epsilon, double eps, std::uint64_t sensitivity = 1);

// Randomized response with flip probability 1/(1+e^eps) is eps-DP (local model).
[[nodiscard]] double randomized_response_flip(double eps);
// Its inverse: a bit flipped with probability p in (0, 1/2] is ln((1 - p) / p)-DP (infinity at p = 0).
[[nodiscard]] double randomized_response_epsilon(double flip);

}  // namespace shufflempc
