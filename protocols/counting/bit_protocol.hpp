// Shared scaffolding for one-round protocols where each party holds one bit and the analyzer
// estimates their sum (counting, Balcer-Cheu, the baselines). A derived class supplies
// encode() and estimate(); this supplies parties, the analyzer, inputs and the truth.
#pragma once

#include <stdexcept>
#include <string>

#include "shufflempc/registry.hpp"
#include "shufflempc/runtime.hpp"

namespace shufflempc::counting {

[[nodiscard]] bool input_bit(PartyId id, const Value& v);
// "" or "bernoulli:P" (default P = 0.5), "constant:0", "constant:1".
[[nodiscard]] Value random_bit(std::string_view spec, Rng& rng);
inline constexpr const char* bit_input_help =
    "one bit per party (0 or 1); --random-inputs bernoulli:P (default bernoulli:0.5) or constant:B";

class BitProtocol : public Protocol {
 public:
  [[nodiscard]] std::uint32_t rounds() const override { return 1; }
  [[nodiscard]] RoundShape round(std::uint32_t) const override { return {1, Delivery::analyzer_only}; }
  [[nodiscard]] std::unique_ptr<Party> make_party(PartyId id, const Value& input) const override;
  [[nodiscard]] std::unique_ptr<Analyzer> make_analyzer() const override;
  [[nodiscard]] Value random_input(PartyId, std::string_view spec, Rng& rng) const override { return random_bit(spec, rng); }
  [[nodiscard]] std::optional<Value> truth(std::span<const Value> inputs) const override;

  virtual void encode(bool x, Rng& rng, MessageBatch& out) const = 0;
  [[nodiscard]] virtual double estimate(const MessageBatch& shuffled, std::uint64_t submitted, Rng& rng) const = 0;
};

}  // namespace shufflempc::counting
