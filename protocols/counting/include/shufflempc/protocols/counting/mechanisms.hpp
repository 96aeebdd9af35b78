// The counting family as one-round mechanisms (shufflempc/mechanism.hpp): counting (lectures),
// counting-balcer-cheu (literature), histogram (parallel and inverted), and the baselines
// randomized-response (local) and central-laplace (central). Studies and attacks use these
// directly; register.cpp turns each into a registered protocol.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "shufflempc/protocols/counting/counting.hpp"
#include "shufflempc/inputs.hpp"
#include "shufflempc/mechanism.hpp"
#include "shufflempc/accounting/privacy.hpp"
#include "shufflempc/samplers.hpp"

namespace shufflempc::counting {

// What the bit mechanisms share: one bit per party, the count of ones as the truth, one-byte bit messages.
struct BitInputs {
  using Input = bool;
  [[nodiscard]] bool parse_input(PartyId id, const Value& v) const { return parse_bit(v, party_name(id)); }
  [[nodiscard]] bool random_input(std::string_view spec, Rng& rng) const { return random_bit(spec, rng); }
  [[nodiscard]] BitSampler input_sampler(std::string_view spec) const { return bit_sampler(spec); }
  [[nodiscard]] Value input_value(bool x) const { return x ? 1 : 0; }
  [[nodiscard]] std::int64_t truth(std::span<const bool> xs) const;
  // Every message of these mechanisms is one byte, 0 or 1: another is discarded and counted
  // (mechanism.hpp), never a veto.
  [[nodiscard]] bool valid(std::span<const std::uint8_t> m) const { return m[0] <= 1; }
};

// The lectures' protocol: x and a Bernoulli(p) noise bit; the analyzer returns sum - n p.
struct CountingMechanism : BitInputs {
  using Output = double;
  Config config;
  [[nodiscard]] RoundShape shape() const { return RoundShape::exactly(1, Delivery::analyzer_only, 2); }
  void encode(bool x, Rng& rng, MessageBatch& out) const { counting::encode(x, config.p, rng, out); }
  [[nodiscard]] double analyze(const MessageBatch& shuffled, const RoundOutcome& outcome, Rng&) const {
    return counting::analyze(shuffled, outcome.submitted.size(), config.p);
  }
  // The exact delta of the parties who submitted (their Binomial(submitted, p) noise).
  [[nodiscard]] Value run_details(const RoundOutcome& outcome) const;
  [[nodiscard]] Value describe() const;
  [[nodiscard]] double predicted_sd() const;
};

// Balcer-Cheu (ITC 2020): x + Bernoulli(1 - gamma) unit messages, padded with dummies to exactly two.
struct BalcerCheuMechanism : BitInputs {
  using Output = double;
  std::uint64_t parties = 0;  // the submitters gamma is calibrated for
  double epsilon = 1;
  double gamma = 0;
  std::uint64_t all_parties = 0;  // every party that may submit: the predicted sd is for all of them
  BalcerCheuMechanism(std::uint64_t n, double eps, double delta, std::uint64_t all = 0)
      : parties(n), epsilon(eps), gamma(balcer_cheu_gamma(n, eps, delta)), all_parties(all == 0 ? n : all) {}
  [[nodiscard]] RoundShape shape() const { return RoundShape::exactly(1, Delivery::analyzer_only, 2); }
  void encode(bool x, Rng& rng, MessageBatch& out) const { encode_balcer_cheu(x, gamma, rng, out); }
  [[nodiscard]] double analyze(const MessageBatch& shuffled, const RoundOutcome& outcome, Rng&) const {
    return analyze_balcer_cheu(shuffled, outcome.submitted.size(), gamma);
  }
  [[nodiscard]] Value run_details(const RoundOutcome& outcome) const;
  [[nodiscard]] Value describe() const;
  [[nodiscard]] double predicted_sd() const;
  // The exact zero makes the error depend on the count: zero_below_mse with p = gamma.
  [[nodiscard]] double predicted_mse(std::span<const bool> xs) const;
};

// Local baseline: the bit flipped with probability 1/(1 + e^eps), debiased sum.
struct RandomizedResponseMechanism : BitInputs {
  using Output = double;
  std::uint64_t parties = 0;
  double epsilon = 1;
  double flip = 0;  // 1/(1 + e^eps)
  RandomizedResponseMechanism(std::uint64_t n, double eps) : parties(n), epsilon(eps), flip(randomized_response_flip(eps)) {}
  [[nodiscard]] RoundShape shape() const { return RoundShape::exactly(1, Delivery::analyzer_only, 1); }
  void encode(bool x, Rng& rng, MessageBatch& out) const { out.append()[0] = x != bernoulli(rng, flip) ? 1 : 0; }
  [[nodiscard]] double analyze(const MessageBatch& shuffled, const RoundOutcome& outcome, Rng&) const {
    return analyze_randomized_response(shuffled, outcome.submitted.size(), epsilon);
  }
  [[nodiscard]] Value describe() const;
  [[nodiscard]] double predicted_sd() const;
  [[nodiscard]] TrustModel trust_model() const { return TrustModel::local; }
};

// Central baseline: the bit in the clear; the trusted analyzer adds exact discrete Laplace noise.
struct CentralLaplaceMechanism : BitInputs {
  using Output = double;
  double epsilon = 1;
  [[nodiscard]] RoundShape shape() const { return RoundShape::exactly(1, Delivery::analyzer_only, 1); }
  void encode(bool x, Rng&, MessageBatch& out) const { out.append()[0] = x ? 1 : 0; }
  [[nodiscard]] double analyze(const MessageBatch& shuffled, const RoundOutcome& outcome, Rng& rng) const;
  [[nodiscard]] Value describe() const;
  [[nodiscard]] double predicted_sd() const;
  [[nodiscard]] TrustModel trust_model() const { return TrustModel::central; }
};

inline constexpr const char* histogram_input_help = "one element in [0, domain) per party (--random-inputs uniform[:K]: the first K, by default domain/2)";

// Histograms over {0, ..., domain - 1}: one counting instance per element, parallel or inverted.
struct HistogramMechanism {
  using Input = std::uint32_t;
  using Output = std::vector<double>;
  Config config;
  std::uint32_t domain = 16;
  HistogramVariant variant = HistogramVariant::inverted;
  [[nodiscard]] RoundShape shape() const { return RoundShape::exactly(histogram_width, Delivery::analyzer_only, 2 * std::size_t{domain}); }
  // A message for an element outside the domain or with a bit other than 0 or 1 is discarded and counted.
  [[nodiscard]] bool valid(std::span<const std::uint8_t> m) const { return load_le<std::uint16_t>(m.data()) < domain && m[2] <= 1; }
  [[nodiscard]] std::uint32_t parse_input(PartyId id, const Value& v) const;
  // random_element's specs (shufflempc/inputs.hpp): uniform:K, constant:E, normal:MEAN:SD.
  [[nodiscard]] std::uint32_t random_input(std::string_view spec, Rng& rng) const;
  void encode(std::uint32_t x, Rng& rng, MessageBatch& out) const { encode_histogram(x, domain, variant, config.p, rng, out); }
  [[nodiscard]] std::vector<double> analyze(const MessageBatch& shuffled, const RoundOutcome& outcome, Rng&) const {
    return analyze_histogram(shuffled, domain, variant, outcome.submitted.size(), config.p);
  }
  [[nodiscard]] Value run_details(const RoundOutcome& outcome) const;
  [[nodiscard]] std::vector<std::int64_t> truth(std::span<const std::uint32_t> xs) const;
  [[nodiscard]] Value describe() const;
  // A bin's noise sd (parallel: every bin's error; inverted: a bin held by many).
  [[nodiscard]] double predicted_sd() const;
  // The mean over bins of each bin's squared error on these inputs: parallel, the noise variance;
  // inverted, zero_below_mse of the bin's count (an empty bin is exactly 0, a bin held by fewer
  // than about n p is reported as 0 and errs by its count).
  [[nodiscard]] double predicted_mse(std::span<const std::uint32_t> xs) const;
};

// Central baseline for histograms: each element in the clear (2 bytes); the trusted analyzer adds
// exact discrete Laplace noise of scale epsilon/2 to every bin (one user moves two bins by one).
struct HistogramCentralMechanism {
  using Input = std::uint32_t;
  using Output = std::vector<double>;
  std::uint32_t domain = 16;
  double epsilon = 1;
  [[nodiscard]] RoundShape shape() const { return RoundShape::exactly(2, Delivery::analyzer_only, 1); }
  [[nodiscard]] bool valid(std::span<const std::uint8_t> m) const { return load_le<std::uint16_t>(m.data()) < domain; }
  [[nodiscard]] std::uint32_t parse_input(PartyId id, const Value& v) const;
  [[nodiscard]] std::uint32_t random_input(std::string_view spec, Rng& rng) const { return random_element(spec, domain, rng); }
  void encode(std::uint32_t x, Rng&, MessageBatch& out) const { store_le<std::uint16_t>(out.append().data(), static_cast<std::uint16_t>(x)); }
  [[nodiscard]] std::vector<double> analyze(const MessageBatch& shuffled, const RoundOutcome& outcome, Rng& rng) const;
  [[nodiscard]] std::vector<std::int64_t> truth(std::span<const std::uint32_t> xs) const;
  [[nodiscard]] Value describe() const;
  [[nodiscard]] double predicted_sd() const;
  [[nodiscard]] TrustModel trust_model() const { return TrustModel::central; }
};

static_assert(Mechanism<HistogramCentralMechanism>);
static_assert(Mechanism<CountingMechanism> && Mechanism<BalcerCheuMechanism> && Mechanism<RandomizedResponseMechanism> &&
              Mechanism<CentralLaplaceMechanism> && Mechanism<HistogramMechanism>);

}  // namespace shufflempc::counting
