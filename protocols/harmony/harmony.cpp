#include "shufflempc/protocols/harmony/harmony.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "shufflempc/error.hpp"
#include "shufflempc/registry.hpp"
#include "shufflempc/samplers.hpp"

namespace shufflempc {
namespace harmony {

double HarmonyMechanism::keep() const { return 1 / (1 + std::exp(-epsilon)); }

double HarmonyMechanism::scale() const { return (std::exp(epsilon) + 1) / std::expm1(epsilon); }

void HarmonyMechanism::encode(double x, Rng& rng, MessageBatch& out) const {
  if (!(x >= 0 && x <= 1)) throw std::invalid_argument("sum-harmony: an input must be a real number in [0, 1], got " + std::to_string(x));
  const bool plus = bernoulli(rng, x);  // +1 with probability (1 + (2x - 1))/2 = x
  const bool kept = bernoulli(rng, keep());
  out.append()[0] = plus == kept ? 1 : 0;
}

double HarmonyMechanism::analyze(const MessageBatch& shuffled, const RoundOutcome&, Rng&) const {
  std::int64_t signs = 0;
  for (std::size_t i = 0; i < shuffled.count(); ++i) {
    if (!valid(shuffled[i])) throw_error(Errc::protocol_violation, "sum-harmony: a report other than 0 or 1");
    signs += shuffled[i][0] ? 1 : -1;
  }
  return (scale() * static_cast<double>(signs) + static_cast<double>(shuffled.count())) / 2;
}

double HarmonyMechanism::truth(std::span<const double> xs) const {
  double total = 0;
  for (double x : xs) total += x;
  return total;
}

double HarmonyMechanism::predicted_sd() const {
  return std::sqrt(static_cast<double>(parties)) * scale() / 2;
}

Value HarmonyMechanism::describe() const {
  return {{"privacy", "every report is epsilon-DP (local model); the shuffle adds nothing to the bound used here"},
          {"keep_probability", keep()},
          {"scale", scale()},
          {"noise_sd_at_most", predicted_sd()}};
}

}  // namespace harmony

namespace protocols {

void register_harmony(Registry& registry) {
  registry.add({.name = "sum-harmony",
                .summary = "the survey's LDP baseline for sums, Harmony (Nguyen et al. 2016): each user rounds its real to one sign and "
                           "sends it through binary randomized response",
                .params = {{.name = "epsilon", .type = ParamType::real, .default_value = "1", .help = "the local epsilon of every report",
                            .min = 0.0, .max = 20.0, .min_exclusive = true}},
                .input_help = "a real number in [0, 1] per party",
                .random_inputs = unit_real_forms(),
                .create = [](const Params& p, const Population& pop) -> std::unique_ptr<Protocol> {
                  return make_one_round(harmony::HarmonyMechanism{.parties = pop.parties, .epsilon = p.real("epsilon")});
                }});
}

}  // namespace protocols
}  // namespace shufflempc
