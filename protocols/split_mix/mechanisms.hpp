// The split-mix family as one-round mechanisms (shufflempc/mechanism.hpp): split-mix-sum (secure
// summation in Z_q) and split-mix-dp-sum (DP summation of reals in [0, 1]). Studies use these
// directly; register.cpp turns each into a registered protocol.
#pragma once

#include <span>
#include <string_view>

#include "shufflempc/inputs.hpp"
#include "shufflempc/mechanism.hpp"
#include "shufflempc/protocols/split_mix/dp_sum.hpp"
#include "shufflempc/protocols/split_mix/split_mix.hpp"

namespace shufflempc::split_mix {

// The --random-inputs forms of split-mix-sum: uniform, max or constant:V.
[[nodiscard]] const std::vector<InputForm>& sum_input_forms();

struct SumMechanism {
  using Input = BigInt;
  using Output = BigInt;
  SumConfig config;
  [[nodiscard]] RoundShape shape() const { return RoundShape::exactly(config.modulus.width(), Delivery::analyzer_only, config.messages); }
  // A share outside Z_q is discarded and counted (mechanism.hpp): a party can shift the sum by any
  // value anyway, so the rest of the run stands.
  [[nodiscard]] bool valid(std::span<const std::uint8_t> m) const { return config.modulus.holds(m); }
  // The accepted inputs: [0, 2^input_bits), or all of Z_q when the modulus was given.
  [[nodiscard]] BigInt input_bound() const;
  [[nodiscard]] BigInt parse_input(PartyId id, const Value& v) const;
  // "" or "uniform": uniform over the accepted inputs; "max": the largest; "constant:V".
  [[nodiscard]] BigInt random_input(std::string_view spec, Rng& rng) const;
  void encode(const BigInt& x, Rng& rng, MessageBatch& out) const;
  [[nodiscard]] BigInt analyze(const MessageBatch& shuffled, const RoundOutcome&, Rng&) const { return config.modulus.sum(shuffled); }
  [[nodiscard]] Value truth(std::span<const BigInt> xs) const;
  [[nodiscard]] Value input_value(const BigInt& x) const { return integer_to_value(x); }
  [[nodiscard]] Value output_value(const BigInt& y) const { return integer_to_value(y); }
  [[nodiscard]] Value describe() const;
};

struct DpSumMechanism {
  using Input = double;
  using Output = double;
  DpConfig config;
  [[nodiscard]] RoundShape shape() const {
    return RoundShape::exactly(config.split.modulus.width(), Delivery::analyzer_only, config.split.messages);
  }
  // A share outside Z_q is discarded and counted (mechanism.hpp): a party can shift the sum by any
  // value anyway, so the rest of the run stands.
  [[nodiscard]] bool valid(std::span<const std::uint8_t> m) const { return config.split.modulus.holds(m); }
  [[nodiscard]] double parse_input(PartyId id, const Value& v) const { return parse_unit_real(id, v); }
  [[nodiscard]] UnitRealSampler input_sampler(std::string_view spec) const { return unit_real_sampler(spec); }
  // "" or "uniform": uniform in [0, 1); "constant:X".
  [[nodiscard]] double random_input(std::string_view spec, Rng& rng) const;
  void encode(double x, Rng& rng, MessageBatch& out) const { encode_dp(x, config, rng, out); }
  [[nodiscard]] double analyze(const MessageBatch& shuffled, const RoundOutcome&, Rng&) const { return analyze_dp(shuffled, config); }
  // The guarantee and the noise of the parties who submitted.
  [[nodiscard]] Value run_details(const RoundOutcome& outcome) const;
  [[nodiscard]] double truth(std::span<const double> xs) const;
  [[nodiscard]] Value describe() const;
  [[nodiscard]] double predicted_sd() const;
};

// The DP sum's baselines as protocols, at the same precision p and noise scale a = exp(-eps/p):
// local, every user releases randomized_round(x) + DLap(a) (8 bytes) and the analyzer adds them
// up (each release eps-DP); central, every user sends x in the clear and the trusted analyzer
// releases (round(p sum x) + DLap(a)) / p (eps-DP: the rounded sum moves by at most p).
struct SumBaselineMechanism {
  using Input = double;
  using Output = double;
  bool local = true;
  std::uint64_t parties = 0;
  double epsilon = 1;
  std::uint64_t precision = 0;  // p
  [[nodiscard]] RoundShape shape() const { return RoundShape::exactly(8, Delivery::analyzer_only, 1); }
  // A release beyond 2^40 (local) or an input outside [0, 1] (central) is discarded and counted.
  [[nodiscard]] bool valid(std::span<const std::uint8_t> m) const;
  [[nodiscard]] double parse_input(PartyId id, const Value& v) const { return parse_unit_real(id, v); }
  [[nodiscard]] UnitRealSampler input_sampler(std::string_view spec) const { return unit_real_sampler(spec); }
  [[nodiscard]] double random_input(std::string_view spec, Rng& rng) const { return random_unit_real(spec, rng); }
  void encode(double x, Rng& rng, MessageBatch& out) const;
  [[nodiscard]] double analyze(const MessageBatch& shuffled, const RoundOutcome& outcome, Rng& rng) const;
  [[nodiscard]] double truth(std::span<const double> xs) const;
  [[nodiscard]] Value describe() const;
  [[nodiscard]] double predicted_sd() const;
  [[nodiscard]] TrustModel trust_model() const { return local ? TrustModel::local : TrustModel::central; }
};

static_assert(Mechanism<SumMechanism> && Mechanism<DpSumMechanism> && Mechanism<SumBaselineMechanism>);

}  // namespace shufflempc::split_mix
