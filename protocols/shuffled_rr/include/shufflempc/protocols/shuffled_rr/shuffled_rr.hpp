// Single-message randomized response amplified by shuffling (docs/shuffled-rr.md).
//
//   R(x):  with probability gamma send a uniform element of {0..k-1}, else send x   (one message)
//   A(c):  n_j = (c_j - n gamma / k) / (1 - gamma)                                   (unbiased)
//
// The local randomizer is eps0-LDP with e^eps0 = 1 + k (1 - gamma) / gamma. The central
// (eps, delta) is not a hand formula: the accountant (shufflempc/accounting/amplification.hpp) picks the
// largest eps0 that its bound certifies for n shuffled reports, by
//   fmt            Feldman, McMillan, Talwar, "Hiding among the clones" (FOCS 2021), numeric
//   blanket        Balle, Bell, Gascon, Nissim, "The privacy blanket of the shuffle model" (CRYPTO 2019)
//   blanket-exact  the same blanket decomposition summed exactly (amplification.hpp)
//   ldp-blanket    the blanket summed exactly in its worst case over every eps0-LDP randomizer
//                  (binary randomized response's; for k > 2 it can beat blanket-exact)
//   rr-exact-all   not a bound: the exact (eps, delta) of shuffled binary randomized response, the
//                  largest divergence over every dataset (k = 2 only; amplification.hpp)
//   bennett        the privacy blanket with Bennett's inequality, as Balle et al.'s code evaluates it
//   tightest       for k = 2 (up to rr_exact_all_max_parties submitters) rr-exact-all; otherwise the
//                  largest eps0 of fmt, blanket-exact, ldp-blanket and bennett, all valid for k-ary
//                  randomized response (the registered protocols' default)
// or, as the local baseline, eps0 = eps (model local, no shuffle needed).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/accounting/amplification.hpp"
#include "shufflempc/inputs.hpp"
#include "shufflempc/mechanism.hpp"
#include "shufflempc/params.hpp"

namespace shufflempc::shuffled_rr {

enum class Model { shuffle, local };
// The bounds and their resolution are the accountant's (calibrate_randomized_response in
// shufflempc/accounting/amplification.hpp), shared with every protocol built on randomized response.
using Bound = RrBound;
[[nodiscard]] inline Bound bound_of(const std::string& name) { return rr_bound_of(name); }

struct Config {
  std::uint64_t parties = 0;  // the submitters the amplification is computed for
  std::uint64_t all_parties = 0;  // every party that may submit (the predicted sd is for all of them; 0: parties)
  std::uint32_t domain = 2;   // k
  double epsilon = 1, delta = 1e-6;
  Model model = Model::shuffle;
  Bound bound = Bound::fmt;   // as asked
  Bound used = Bound::fmt;    // the bound eps0 comes from (tightest resolves to rr_exact_all, fmt, blanket_exact, ldp_blanket or bennett)
  double epsilon0 = 0;        // the local randomizer's epsilon
  double gamma = 0;           // probability of a uniform report: k / (e^eps0 + k - 1)
  double achieved_delta = 0;  // the numeric bound's (or the exact) delta at (epsilon0, epsilon); 0 in the local model and for blanket
};

// The parameters of counting-rr-amplified (epsilon, delta, model, bound) and
// histogram-rr-amplified's domain: what the registry entries declare and configure() checks.
[[nodiscard]] const std::vector<ParamSpec>& parameters();

// Throws std::invalid_argument naming the parameter: a number outside its declaration
// (parameters(), in the command line's words), too few parties for the bound, ...
[[nodiscard]] Config configure(std::uint64_t parties, std::uint32_t domain, double epsilon, double delta, Model model, Bound bound);

// Width of one report: 1 byte up to 256 elements, else 2.
[[nodiscard]] inline std::size_t width(std::uint32_t domain) { return domain <= 256 ? 1 : 2; }
// The element a report names (1 byte for domains up to 256, else 2, little-endian).
[[nodiscard]] inline std::uint32_t report_of(std::span<const std::uint8_t> m) { return m.size() == 1 ? m[0] : load_le<std::uint16_t>(m.data()); }
void encode(std::uint32_t x, const Config& c, Rng& rng, MessageBatch& out);
// The debiased counts; a report outside the domain is a protocol violation.
[[nodiscard]] std::vector<double> analyze(const MessageBatch& shuffled, const Config& c, std::uint64_t submitted);
// Standard deviation of an estimated count whose true value is f: the reports of the f holders
// are Bernoulli(1 - gamma + gamma/k), the others' Bernoulli(gamma/k), divided by 1 - gamma.
[[nodiscard]] double count_sd(const Config& c, std::uint64_t submitted, double f);
[[nodiscard]] Value describe(const Config& c);

// counting-rr-amplified: counting bits, k = 2, the estimate of the number of ones. (The lectures'
// counting protocol is counting::CountingMechanism.)
struct AmplifiedCountingMechanism {
  using Input = bool;
  using Output = double;
  Config config;
  [[nodiscard]] RoundShape shape() const { return RoundShape::exactly(1, Delivery::analyzer_only, 1); }
  // A report outside the domain is discarded and counted (mechanism.hpp), never a veto.
  [[nodiscard]] bool valid(std::span<const std::uint8_t> m) const { return report_of(m) < config.domain; }
  [[nodiscard]] bool parse_input(PartyId id, const Value& v) const { return parse_bit(v, party_name(id)); }
  [[nodiscard]] bool random_input(std::string_view spec, Rng& rng) const { return random_bit(spec, rng); }
  [[nodiscard]] BitSampler input_sampler(std::string_view spec) const { return bit_sampler(spec); }
  [[nodiscard]] Value input_value(bool x) const { return x ? 1 : 0; }
  void encode(bool x, Rng& rng, MessageBatch& out) const { shuffled_rr::encode(x ? 1 : 0, config, rng, out); }
  [[nodiscard]] double analyze(const MessageBatch& shuffled, const RoundOutcome& outcome, Rng&) const {
    return shuffled_rr::analyze(shuffled, config, outcome.submitted.size())[1];
  }
  [[nodiscard]] std::int64_t truth(std::span<const bool> xs) const;
  [[nodiscard]] Value describe() const;
  // The spread is the same for a 0 and a 1: it does not depend on the data.
  [[nodiscard]] double predicted_sd() const { return count_sd(config, config.all_parties ? config.all_parties : config.parties, 0); }
  [[nodiscard]] TrustModel trust_model() const { return config.model == Model::local ? TrustModel::local : TrustModel::shuffle; }
};

// histogram-rr-amplified: histograms over {0..k-1} (the lectures' histograms are
// counting::HistogramMechanism).
struct AmplifiedHistogramMechanism {
  using Input = std::uint32_t;
  using Output = std::vector<double>;
  Config config;
  [[nodiscard]] RoundShape shape() const { return RoundShape::exactly(width(config.domain), Delivery::analyzer_only, 1); }
  // A report outside the domain is discarded and counted (mechanism.hpp), never a veto.
  [[nodiscard]] bool valid(std::span<const std::uint8_t> m) const { return report_of(m) < config.domain; }
  [[nodiscard]] std::uint32_t parse_input(PartyId id, const Value& v) const;
  [[nodiscard]] std::uint32_t random_input(std::string_view spec, Rng& rng) const { return random_element(spec, config.domain, rng); }
  void encode(std::uint32_t x, Rng& rng, MessageBatch& out) const { shuffled_rr::encode(x, config, rng, out); }
  [[nodiscard]] std::vector<double> analyze(const MessageBatch& shuffled, const RoundOutcome& outcome, Rng&) const {
    return shuffled_rr::analyze(shuffled, config, outcome.submitted.size());
  }
  [[nodiscard]] std::vector<std::int64_t> truth(std::span<const std::uint32_t> xs) const;
  [[nodiscard]] Value describe() const;
  // An empty bin's; a bin held by f users adds f (a(1-a) - b(1-b)) to the variance.
  [[nodiscard]] double predicted_sd() const { return count_sd(config, config.all_parties ? config.all_parties : config.parties, 0); }
  // The mean over bins of each bin's variance on these inputs: (n a(1-a) + (k-1) n b(1-b)) / (k (1-gamma)^2)
  // when every input is in the domain, whatever the data (the bins' counts sum to n).
  [[nodiscard]] double predicted_mse(std::span<const std::uint32_t> xs) const;
  [[nodiscard]] TrustModel trust_model() const { return config.model == Model::local ? TrustModel::local : TrustModel::shuffle; }
};

static_assert(Mechanism<AmplifiedCountingMechanism> && Mechanism<AmplifiedHistogramMechanism>);

}  // namespace shufflempc::shuffled_rr
