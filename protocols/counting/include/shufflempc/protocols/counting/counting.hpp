// Counting bits in the shuffle model, as in the lectures (docs/counting.md).
//
//   R(x):  y ~ Bernoulli(p);  send m1 = x, m2 = y             (two 1-byte messages)
//   A(b):  return sum(b) - n p
//
// with p = 48 ln(2/delta) / (eps^2 n) (the lectures' rule) or the smallest p that the exact
// privacy oracle accepts (the calibrated rule). Also: the histogram in its parallel and
// "inverted" forms, and the baselines (local randomized response, central discrete Laplace).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/messages.hpp"
#include "shufflempc/params.hpp"
#include "shufflempc/random.hpp"

namespace shufflempc::counting {

enum class NoiseRule { lecture, calibrated };

struct Config {
  std::uint64_t parties = 0;
  std::uint64_t min_parties = 0;  // the noise is calibrated for this many submitters (<= parties)
  double epsilon = 1;
  double delta = 1e-6;
  NoiseRule rule = NoiseRule::lecture;
  double p = 0;             // the noise rate in use
  double p_lecture = 0;     // 48 ln(2/delta) / (eps^2 n)
  double p_calibrated = 0;  // smallest p meeting (eps, delta) exactly (0 if not computed)
};

// The privacy parameters the family's registry entries declare: epsilon in (0, max] (1 for the
// lectures' counting and histogram, whose analysis assumes eps <= 1; 20 for the baselines) and delta
// in (0, 1). configure() checks its numbers against the same declarations.
[[nodiscard]] ParamSpec epsilon_param(double max);
[[nodiscard]] ParamSpec delta_param();
inline constexpr double lecture_max_epsilon = 1;

// Validates eps against epsilon_param(lecture_max_epsilon), delta against delta_param() (in the
// command line's words) and the lectures' assumption on n (the noise rate must be at most 1/2),
// then picks p. Throws std::invalid_argument naming the violated condition.
// The noise is calibrated for `min_parties` submitters (0: all `parties`): with more submitters
// there is more noise, so the guarantee holds for whoever is left after dropouts.
[[nodiscard]] Config configure(std::uint64_t parties, double epsilon, double delta, NoiseRule rule, std::uint64_t min_parties = 0);

// The party's randomizer: appends its two messages (x, then a Bernoulli(p) bit) to `out`.
void encode(bool x, double p, Rng& rng, MessageBatch& out);
// The analyzer: sum of the bits minus (parties who submitted) * p.
[[nodiscard]] double analyze(const MessageBatch& shuffled, std::uint64_t submitted, double p);
// Standard deviation of the estimate: sqrt(n p (1 - p)).
[[nodiscard]] double noise_sd(std::uint64_t parties, double p);
// The mean squared error of a count of f that the analyzer reports as f - (M - n p) when M < f and
// as exactly 0 otherwise, M ~ Binomial(n, p) the noise: E[(M - n p)^2; M < f] + f^2 P(M >= f). The
// inverted histogram's bins (M the noise bits of a bin) and Balcer-Cheu's count (M the dummies
// missing, p = gamma) have this error; it is 0 for f = 0 and tends to n p (1 - p) as f grows.
[[nodiscard]] double zero_below_mse(std::uint64_t n, double p, std::uint64_t f);

// ---- Histograms over the domain {0, ..., d-1} ----
// Messages are 3 bytes: element (uint16, little endian) and a bit.
inline constexpr std::size_t histogram_width = 3;
enum class HistogramVariant { parallel, inverted };

// Parallel: for every element e, the counting randomizer on [x == e] (2d messages).
// Inverted: for every element e, the bit [x != e] plus a noise bit (2d messages); an element
// nobody holds gets count exactly 0.
void encode_histogram(std::uint32_t x, std::uint32_t domain, HistogramVariant variant, double p, Rng& rng,
                      MessageBatch& out);
[[nodiscard]] std::vector<double> analyze_histogram(const MessageBatch& shuffled, std::uint32_t domain,
                                                    HistogramVariant variant, std::uint64_t submitted, double p);

// ---- Literature version: Balcer & Cheu (ITC 2020) ----
// gamma = 50 ln(2/delta) / (eps^2 n); each user sends (x + z) unit messages, z ~ Bernoulli(1 - gamma),
// as two 1-byte messages x and z (a 0 is a dummy the analyzer ignores: the count never depends on x);
// the analyzer returns c - n (1 - gamma) if c > n, else exactly 0.
[[nodiscard]] double balcer_cheu_gamma(std::uint64_t parties, double epsilon, double delta);
void encode_balcer_cheu(bool x, double gamma, Rng& rng, MessageBatch& out);
[[nodiscard]] double analyze_balcer_cheu(const MessageBatch& shuffled, std::uint64_t submitted, double gamma);

// ---- Baselines ----
// Local model: each user reports x flipped with probability 1/(1+e^eps); debiased sum.
void encode_randomized_response(bool x, double epsilon, Rng& rng, MessageBatch& out);
[[nodiscard]] double analyze_randomized_response(const MessageBatch& shuffled, std::uint64_t submitted, double epsilon);
// Central model: the trusted analyzer adds exact discrete Laplace noise, P(k) ~ exp(-eps |k|).
[[nodiscard]] std::int64_t central_count(std::int64_t true_count, double epsilon, Rng& rng);


}  // namespace shufflempc::counting
