// Differentially private summation of reals in [0, 1] over split-mix (Balle, Bell, Gascon,
// Nissim, "Differentially private summation with multi-message shuffling", 2019):
//
//   v = floor(x p) + Bernoulli(x p - floor(x p))          randomized rounding at precision p
//   v += Polya(1/n, a) - Polya(1/n, a),  a = exp(-eps/p)   this party's share of the noise
//   split v mod q into m additive shares                   split-mix (split_mix.hpp)
//   analyzer: S = sum mod q, lifted to (-q/2, q/2], output S / p
//
// The n noise shares add up to Geometric(a) - Geometric(a) = discrete Laplace(a), so the output is
// the central model's discrete Laplace mechanism on the rounded sum: eps-DP ideally, and
// (eps, (1 + e^eps) 2^-sigma)-DP with a sigma-secure split.
#pragma once

#include <cstdint>
#include <span>

#include "shufflempc/params.hpp"
#include "shufflempc/samplers.hpp"
#include "shufflempc/protocols/split_mix/split_mix.hpp"

namespace shufflempc::split_mix {

struct DpConfig {
  std::uint64_t parties = 0;
  std::uint64_t noise_parties = 0;  // each party adds 1/noise_parties of a discrete Laplace: any
                                    // noise_parties submitters already give the full noise
  double epsilon = 1;
  std::uint64_t precision = 0;  // p
  double alpha = 0;             // exp(-eps/p), rounded up: the noise is never smaller than asked
  std::uint64_t tail = 0;       // T: P(|discrete Laplace| > T) <= 2^-sigma, so the lift is right
  SumConfig split;              // q = 2^k > 2 (n p + T), m shares
  double delta = 0;             // (1 + e^eps) 2^-sigma_guaranteed

  // Of the output when `submitted` parties submit (0: all): (submitted / noise_parties) 2a / ((1 - a)^2 p^2).
  [[nodiscard]] double noise_variance(std::uint64_t submitted = 0) const;
};

// The epsilon split-mix-dp-sum and its baselines (sum-local-laplace, sum-central-laplace) declare,
// in [0.01, 10]: configure_dp_sum() refuses one outside it in the command line's words.
[[nodiscard]] ParamSpec dp_epsilon_param();

// precision = 0 picks ceil(sqrt(n)); messages = 0 the BBGN count (below it only with
// accept_input_leakage). Throws std::invalid_argument naming the parameter.
// min_parties (0: all) is how many submitters the noise is calibrated for: the guarantee holds
// for any min_parties of them, and more submitters only add noise (and widen the tail T).
[[nodiscard]] DpConfig configure_dp_sum(std::uint64_t parties, double epsilon, double sigma, std::uint64_t precision,
                                        std::size_t messages, bool accept_input_leakage, std::uint64_t min_parties = 0);

// Polya(1/m, a) - Polya(1/m, a), m = noise_parties: one party's share of the discrete Laplace noise.
[[nodiscard]] std::int64_t noise_share(const DpConfig& c, Rng& rng);
// The party's randomizer: appends its m messages for x in [0, 1].
void encode_dp(double x, const DpConfig& c, Rng& rng, MessageBatch& out);
// The analyzer: the lifted sum divided by p.
[[nodiscard]] double analyze_dp(const MessageBatch& shuffled, const DpConfig& c);

// ---- The same sum in the local and central models, for comparison ----
// Central: a trusted curator releases (round(p sum x) + DLap(a)) / p (eps-DP: the rounded sum
// moves by at most p). Local: every party releases (randomized_round(x) + DLap(a)) / p itself and
// the analyzer adds them up (each release eps-DP).
[[nodiscard]] double central_estimate(std::span<const double> inputs, const DpConfig& c, Rng& rng);
[[nodiscard]] double local_estimate(std::span<const double> inputs, const DpConfig& c, Rng& rng);
// The shuffle model's estimate without the channel: every party encodes, the analyzer sums.
// (The sum does not depend on the order, so the shuffle itself is left out.)
[[nodiscard]] double shuffle_estimate(std::span<const double> inputs, const DpConfig& c, Rng& rng);

struct ModelErrors {
  double local = 0, shuffle = 0, central = 0;  // measured root mean squared errors
  double predicted_local = 0, predicted_shuffle = 0, predicted_central = 0;  // exact for these inputs
};
// `runs` runs of each model on the same inputs.
[[nodiscard]] ModelErrors compare_models(std::span<const double> inputs, const DpConfig& c, std::size_t runs, Rng& rng);

}  // namespace shufflempc::split_mix
