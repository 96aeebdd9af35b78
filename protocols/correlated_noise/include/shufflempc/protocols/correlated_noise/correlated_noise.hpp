// counting-correlated: counting bits with almost the central model's error in almost one message per
// party, by correlated noise (after Ghazi, Kumar, Manurangsi, Pagh and Sinha, "Differentially
// private aggregation in the shuffle model: almost central accuracy in almost a single message",
// ICML 2021). docs/correlated-noise.md has the derivation of the exact accounting below.
//
//   R(x):  one message: +1 if x = 1, else a dummy 0. Then A ~ Polya(1/m, a) messages +1,
//          B ~ Polya(1/m, a) messages -1 and F ~ Polya(f/m, b) pairs (+1, -1), where m is the
//          number of parties guaranteed to submit.
//   A(y):  (number of +1) - (number of -1).
//
// With m submitters the totals are A, B ~ Geometric(a) and F ~ NegativeBinomial(f, b), so the
// estimate is the count plus A - B, which is exactly discrete Laplace(a) (the central model's noise
// at epsilon_c = -ln a). The flooding pairs cancel in the estimate; they are there because the
// analyzer sees the two counts, not only their difference: N- = B + F would otherwise betray B.
// More submitters only add independent noise to both counts (post-processing), so the guarantee
// calibrated for m holds for any number of submitters from m up.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "shufflempc/inputs.hpp"
#include "shufflempc/mechanism.hpp"
#include "shufflempc/messages.hpp"
#include "shufflempc/params.hpp"
#include "shufflempc/random.hpp"

namespace shufflempc::correlated_noise {

// Message values (one byte each).
inline constexpr std::uint8_t dummy = 0;  // the input message of a party whose bit is 0
inline constexpr std::uint8_t plus = 1;   // +1
inline constexpr std::uint8_t minus = 2;  // -1

// The total flooding law NegativeBinomial(shape, b): P(F = k) = Gamma(k + shape)/(k! Gamma(shape))
// b^k (1 - b)^shape, mean shape b/(1 - b). Users give the mean (expected pairs in all) and the
// dispersion theta = 1 - b; the shape follows.
struct Flood {
  double mean = 0;        // expected flooding pairs in total (with m submitters)
  double dispersion = 0;  // theta = 1 - b in (0, 1): small theta, a flatter and wider law
  [[nodiscard]] double b() const { return 1 - dispersion; }
  [[nodiscard]] double shape() const { return mean * dispersion / (1 - dispersion); }
};

// Exact delta at `eps` of the analyzer's view (N+, N-) between neighbouring inputs (one bit
// changed), with A, B ~ Geometric(a = e^-eps_c) and F ~ NegativeBinomial(flood): reduced to a
// one-dimensional sum over H(k) = sum_j a^(2j) P(F = k - j) (docs/correlated-noise.md), the mass of
// F beyond the summed window bounded rigorously and added whole. Needs 0 < eps_c <= eps.
[[nodiscard]] double view_delta(double eps_c, double eps, const Flood& flood);

// Polya(r, q) as the parties draw it. For r <= 0.1 (the usual case: r = 1/m or f/m) a
// Bernoulli(1 - (1 - q)^r) decides whether X > 0, and only then is X drawn given X >= 1, by
// inversion on the pmf's recurrence: one random byte for most parties instead of a Gamma and a
// Poisson draw. Larger r uses the library's polya. Both are exact in law up to IEEE doubles.
// The law's constants are computed once, not per party.
class PolyaLaw {
 public:
  PolyaLaw() = default;
  PolyaLaw(double r, double q);
  [[nodiscard]] std::uint64_t operator()(Rng& rng) const;

 private:
  double r_ = 1, q_ = 0;
  double positive_ = 0;  // P(X >= 1)
  double first_ = 0;     // P(X = 1)
};
[[nodiscard]] inline std::uint64_t draw_polya(Rng& rng, double r, double q) { return PolyaLaw(r, q)(rng); }

// P(X > k) for X ~ Polya(r, q), bounded from above by a geometric series (exact to the bound's
// first term). r > 0, 0 <= q < 1.
[[nodiscard]] double polya_tail_bound(double r, double q, std::uint64_t k);

struct Config {
  std::uint64_t parties = 0;      // every party that may submit
  std::uint64_t min_parties = 0;  // the noise is calibrated for this many submitters
  double epsilon = 1;
  double delta = 1e-6;
  Flood flood;
  double epsilon_c = 0;  // the central noise's parameter: A - B ~ discrete Laplace(e^-epsilon_c)
  double a = 0;          // e^-epsilon_c
  std::uint64_t max_noise = 0;  // at most this many +1 and this many -1 noise messages per party
  std::uint64_t max_pairs = 0;  // at most this many flooding pairs per party
  double view_delta = 0;        // delta of the view at epsilon, with the untruncated noise
  double truncation_delta = 0;  // (1 + e^eps) times the total variation the caps cost
  [[nodiscard]] double delta_total() const { return view_delta + truncation_delta; }
  PolyaLaw noise_law;  // Polya(1/m, a): one party's share of A (and of B)
  PolyaLaw pairs_law;  // Polya(f/m, b): one party's share of F
  // Sets the two laws from min_parties, a and flood (configure calls it).
  void prepare();
  [[nodiscard]] std::size_t max_messages() const { return 1 + 2 * max_noise + 2 * max_pairs; }
  // Expected messages per party when `submitters` submit: 1 + (2 a/(1-a) + 2 mean F) / m.
  [[nodiscard]] double expected_messages() const;
  // Standard deviation of the estimate when every one of `submitters` parties submits.
  [[nodiscard]] double noise_sd(std::uint64_t submitters) const;
};

// The parameters counting-correlated declares (epsilon, delta, flood-pairs, flood-dispersion):
// configure() refuses a number outside them in the command line's words.
[[nodiscard]] const std::vector<ParamSpec>& parameters();

// Picks epsilon_c, the largest value in (0, eps] (to 1e-9, rounded down) with view delta plus the
// caps' cost at most delta. Throws std::invalid_argument naming the parameter that cannot work.
[[nodiscard]] Config configure(std::uint64_t parties, std::uint64_t min_parties, double epsilon, double delta, const Flood& flood);

// The party's randomizer: appends 1 + noise messages.
void encode(bool x, const Config& c, Rng& rng, MessageBatch& out);
// The analyzer: (number of +1) - (number of -1). Dummies count for nothing.
[[nodiscard]] double analyze(const MessageBatch& shuffled);

// ---- The registered mechanism (shufflempc/mechanism.hpp) ----
// One bit per party; a message other than 0, 1 or 2 is discarded and counted, never a veto.
struct CorrelatedCountingMechanism {
  using Input = bool;
  using Output = double;
  Config config;
  [[nodiscard]] RoundShape shape() const { return {1, Delivery::analyzer_only, 1, config.max_messages()}; }
  [[nodiscard]] bool valid(std::span<const std::uint8_t> m) const { return m[0] <= minus; }
  [[nodiscard]] bool parse_input(PartyId id, const Value& v) const { return parse_bit(v, party_name(id)); }
  [[nodiscard]] bool random_input(std::string_view spec, Rng& rng) const { return random_bit(spec, rng); }
  [[nodiscard]] BitSampler input_sampler(std::string_view spec) const { return bit_sampler(spec); }
  [[nodiscard]] std::int64_t truth(std::span<const bool> xs) const;
  void encode(bool x, Rng& rng, MessageBatch& out) const { correlated_noise::encode(x, config, rng, out); }
  [[nodiscard]] double analyze(const MessageBatch& shuffled, const RoundOutcome&, Rng&) const {
    return correlated_noise::analyze(shuffled);
  }
  [[nodiscard]] Value run_details(const RoundOutcome& outcome) const;
  [[nodiscard]] Value describe() const;
  [[nodiscard]] double predicted_sd() const { return config.noise_sd(config.parties); }
};
static_assert(Mechanism<CorrelatedCountingMechanism>);

}  // namespace shufflempc::correlated_noise
