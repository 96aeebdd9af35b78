// sum-harmony: the local-model baseline of the survey's sum comparison, Harmony's mean estimator
// (Nguyen, Xiao, Yang, Hui, Shin, Shin, "Collecting and analyzing data from smart device users with
// local differential privacy", arXiv 1606.05053, 2016), one bit per user (docs/harmony.md).
//
//   R(x), x in [0, 1]:  t = 2x - 1 in [-1, 1]; s = +1 with probability (1 + t)/2 = x, else -1;
//                       report s with probability e^eps/(e^eps + 1), else -s      (eps-LDP)
//   A:                  c = (e^eps + 1)/(e^eps - 1); sum of x = (c sum of reports + n) / 2   (unbiased)
//   Var(sum of x) = sum_i (c^2 - t_i^2) / 4 <= n c^2 / 4.
#pragma once

#include <span>
#include <string_view>

#include "shufflempc/inputs.hpp"
#include "shufflempc/mechanism.hpp"

namespace shufflempc::harmony {

struct HarmonyMechanism {
  using Input = double;
  using Output = double;
  std::uint64_t parties = 0;
  double epsilon = 1;
  [[nodiscard]] RoundShape shape() const { return RoundShape::exactly(1, Delivery::analyzer_only, 1); }
  // A report other than 0 (for -1) or 1 (for +1) is discarded and counted (mechanism.hpp).
  [[nodiscard]] bool valid(std::span<const std::uint8_t> m) const { return m.size() == 1 && m[0] <= 1; }
  [[nodiscard]] double parse_input(PartyId id, const Value& v) const { return parse_unit_real(id, v); }
  [[nodiscard]] UnitRealSampler input_sampler(std::string_view spec) const { return unit_real_sampler(spec); }
  [[nodiscard]] double random_input(std::string_view spec, Rng& rng) const { return random_unit_real(spec, rng); }
  // The probability of keeping the rounded sign: e^eps/(e^eps + 1).
  [[nodiscard]] double keep() const;
  // c = (e^eps + 1)/(e^eps - 1): a report times c is unbiased for 2x - 1.
  [[nodiscard]] double scale() const;
  void encode(double x, Rng& rng, MessageBatch& out) const;
  [[nodiscard]] double analyze(const MessageBatch& shuffled, const RoundOutcome& outcome, Rng& rng) const;
  [[nodiscard]] double truth(std::span<const double> xs) const;
  [[nodiscard]] Value describe() const;
  // The worst case over the inputs: sqrt(n) c / 2.
  [[nodiscard]] double predicted_sd() const;
  [[nodiscard]] TrustModel trust_model() const { return TrustModel::local; }
};

static_assert(Mechanism<HarmonyMechanism>);

}  // namespace shufflempc::harmony
