// Real sums from shuffled randomized response, one message per digit (docs/recursive-sum.md):
//
//   sum-recursive  Balle, Bell, Gascon, Nissim, "Private summation in the multi-message shuffle model"
//                  (CCS 2020), the recursive protocol (the survey's RSum_RM): x in [0, 1] written as m
//                  digits at precisions p_1..p_m, the last one randomly rounded; each digit goes through
//                  its own randomized response and travels as one labelled message.
//   sum-blanket    the single-message sum of the privacy blanket (Balle, Bell, Gascon, Nissim, CRYPTO
//                  2019; the survey's RSum_KR): the same with m = 1, x randomly rounded to k + 1 levels.
//
// Randomizer, one user:  r = x (min(x, 1 - 2^-52) when m > 1, so that x = 1 keeps its first digit in
//   range); d_j = floor(r p_j), r = r p_j - d_j for j < m; d_m = randomized_round(r, p_m) in {0..p_m};
//   y_j = d_j with probability 1 - g_j, else uniform on level j's k_j values (k_j = p_j, k_m = p_m + 1).
// Analyzer:  S_j the sum of level j's values over its n_j messages;
//   estimate = sum_j (S_j - n_j g_j (k_j - 1)/2) / ((1 - g_j) q_j),  q_j = p_1 ... p_j   (unbiased)
// Privacy:  level j is k_j-ary randomized response for n users; g_j = k_j / (e^eps0_j + k_j - 1) with
//   eps0_j the largest local epsilon the accountant certifies at (eps_j, delta_j) (delta_j = delta/m,
//   sum eps_j = eps: basic composition over the levels), by the bound asked for: tightest by default,
//   bennett for the authors' own calibration.
// Error:  MSE <= n / (4 q_m^2) + sum_j B_j / q_j^2,
//   B_j = n [g_j (k_j^2 - 1)/12 + (k_j - 1)^2 g_j (1 - g_j)/4] / (1 - g_j)^2   (worst case over inputs).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/accounting/amplification.hpp"
#include "shufflempc/inputs.hpp"
#include "shufflempc/mechanism.hpp"
#include "shufflempc/params.hpp"

namespace shufflempc::recursive_sum {

// How the precisions (and the epsilon split) were chosen.
enum class Precisions {
  generic,   // the paper's: eps_j = eps/m, a = ((3^m - 1) n eps^2 / m^3)^(3^-(m+1)), p_t = ceil(a^(3^t)),
             // each capped where the blanket's closed form would need g_t > 1
  searched,  // the integers p_j and the split of eps minimising the MSE bound under the chosen accountant
  given      // the caller's
};
[[nodiscard]] std::string precisions_name(Precisions p);

struct Level {
  std::uint32_t precision = 0;  // p_j
  std::uint32_t values = 0;     // k_j: p_j, or p_m + 1 for the last level
  double scale = 1;             // q_j = p_1 ... p_j
  double epsilon = 0, delta = 0;
  RrCalibration rr;             // eps0_j, g_j and the bound that gave them
};

struct Config {
  std::uint64_t parties = 0;      // the users the amplification is computed for
  std::uint64_t all_parties = 0;  // every user that may submit (the predicted error is for all of them; 0: parties)
  double epsilon = 1, delta = 0;
  RrBound bound = RrBound::tightest;
  Precisions precisions = Precisions::generic;
  std::vector<Level> levels;
  [[nodiscard]] std::size_t messages() const { return levels.size(); }
  // A message: its level (one byte, only when m > 1), then its value (one byte up to 256 values, else two).
  [[nodiscard]] std::size_t width() const;
};

// The largest precision a level may have: 65535 (two bytes of value).
inline constexpr std::uint32_t max_precision = 65535;

// The paper's generic precisions for m levels (eps_j = eps/m).
[[nodiscard]] std::vector<std::uint32_t> generic_precisions(std::uint64_t parties, double epsilon, double delta, std::size_t messages);

// Levels for the given precisions and split (fractions of eps, summing to 1), each calibrated by the bound.
[[nodiscard]] std::vector<Level> make_levels(std::uint64_t parties, double epsilon, double delta, std::span<const std::uint32_t> precisions,
                                             std::span<const double> split, RrBound bound);

// The parameters sum-recursive and sum-blanket declare that configure() takes as numbers: epsilon
// (both) and messages (sum-recursive's m). configure() refuses a value outside them in the command
// line's words.
[[nodiscard]] ParamSpec epsilon_param();
[[nodiscard]] ParamSpec messages_param();

// sum-recursive. `given` and `split` are used when how == given (split empty: equal); the others
// ignore them. Throws std::invalid_argument naming the parameter.
[[nodiscard]] Config configure(std::uint64_t parties, double epsilon, double delta, std::size_t messages, Precisions how,
                               std::vector<std::uint32_t> given, std::vector<double> split, RrBound bound);
// sum-blanket: k = 0 searches the k minimising the MSE bound.
[[nodiscard]] Config configure_single(std::uint64_t parties, double epsilon, double delta, std::uint32_t k, RrBound bound);

// The MSE bound above for n users (worst case over the inputs), and one level's term B_j (before
// the division by q_j^2) for lying probability g over k values.
[[nodiscard]] double mse_bound(std::span<const Level> levels, std::uint64_t n);
[[nodiscard]] double level_mse(std::uint64_t n, double g, double k);

struct Message {
  std::uint32_t level = 0, value = 0;
};
[[nodiscard]] Message decode(std::span<const std::uint8_t> m, const Config& c);
// A message an honest user can send: its level exists and its value is in that level's domain.
[[nodiscard]] bool valid(std::span<const std::uint8_t> m, const Config& c);
// The digits of x before randomized response (d_1..d_m); encode adds the randomized response.
[[nodiscard]] std::vector<std::uint32_t> digits(double x, const Config& c, Rng& rng);
void encode(double x, const Config& c, Rng& rng, MessageBatch& out);
// The estimate from valid messages (a message outside its domain is a protocol violation here:
// the mechanism discards them before).
[[nodiscard]] double analyze(const MessageBatch& shuffled, const Config& c);
[[nodiscard]] Value describe(const Config& c);

struct RecursiveSumMechanism {
  using Input = double;
  using Output = double;
  Config config;
  [[nodiscard]] RoundShape shape() const { return RoundShape::exactly(config.width(), Delivery::analyzer_only, config.messages()); }
  // A message with a level or a value out of range is discarded and counted (mechanism.hpp).
  [[nodiscard]] bool valid(std::span<const std::uint8_t> m) const { return recursive_sum::valid(m, config); }
  [[nodiscard]] double parse_input(PartyId id, const Value& v) const { return parse_unit_real(id, v); }
  [[nodiscard]] UnitRealSampler input_sampler(std::string_view spec) const { return unit_real_sampler(spec); }
  [[nodiscard]] double random_input(std::string_view spec, Rng& rng) const { return random_unit_real(spec, rng); }
  void encode(double x, Rng& rng, MessageBatch& out) const { recursive_sum::encode(x, config, rng, out); }
  [[nodiscard]] double analyze(const MessageBatch& shuffled, const RoundOutcome&, Rng&) const { return recursive_sum::analyze(shuffled, config); }
  [[nodiscard]] double truth(std::span<const double> xs) const;
  [[nodiscard]] Value describe() const { return recursive_sum::describe(config); }
  // The square root of the MSE bound (the worst case over the inputs).
  [[nodiscard]] double predicted_sd() const;
};

static_assert(Mechanism<RecursiveSumMechanism>);

}  // namespace shufflempc::recursive_sum
