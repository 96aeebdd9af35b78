// Registry entry of counting-correlated (correlated_noise.hpp).
#include <algorithm>
#include <cmath>

#include "shufflempc/protocols/correlated_noise/correlated_noise.hpp"
#include "shufflempc/registry.hpp"

namespace shufflempc {
namespace correlated_noise {

std::int64_t CorrelatedCountingMechanism::truth(std::span<const bool> xs) const { return std::count(xs.begin(), xs.end(), true); }

Value CorrelatedCountingMechanism::run_details(const RoundOutcome& outcome) const {
  // More submitters than min_parties only add independent noise to both counts (post-processing),
  // so the calibrated delta bounds what any number of submitters from min_parties up achieved.
  return {{"achieved",
           {{"submitted", outcome.submitted.size()},
            {"calibrated_for", config.min_parties},
            {"epsilon", config.epsilon},
            {"delta_at_most", config.delta_total()},
            {"noise_sd", config.noise_sd(outcome.submitted.size())}}}};
}

Value CorrelatedCountingMechanism::describe() const {
  const Config& c = config;
  const double central_a = std::exp(-c.epsilon);
  return {{"epsilon", c.epsilon},
          {"delta", c.delta},
          {"epsilon_central_noise", c.epsilon_c},
          {"a", c.a},
          {"min_parties", c.min_parties},
          {"flood_pairs", c.flood.mean},
          {"flood_dispersion", c.flood.dispersion},
          {"flood_shape", c.flood.shape()},
          {"view_delta", c.view_delta},
          {"truncation_delta", c.truncation_delta},
          {"max_noise_messages", c.max_noise},
          {"max_flood_pairs", c.max_pairs},
          {"max_messages", c.max_messages()},
          {"max_influence", c.max_messages()},  // a lying party moves the count by at most this
          {"expected_messages_per_party", c.expected_messages()},
          {"noise_sd", predicted_sd()},
          {"central_laplace_sd", std::sqrt(2 * central_a) / (1 - central_a)}};
}

}  // namespace correlated_noise

namespace protocols {

void register_correlated_noise(Registry& registry) {
  using namespace correlated_noise;
  registry.add({.name = "counting-correlated",
                .summary = "counting bits with almost central error in 1 + o(1) messages per party: the bit, discrete Laplace noise split "
                           "into +1/-1 shares, and flooding pairs that cancel (after Ghazi, Kumar, Manurangsi, Pagh, Sinha, ICML 2021)",
                .params = parameters(),
                .input_help = bit_input_help,
                .random_inputs = bit_forms(),
                .create = [](const Params& p, const Population& pop) -> std::unique_ptr<Protocol> {
                  const Flood flood{.mean = p.real("flood-pairs"), .dispersion = p.real("flood-dispersion")};
                  return make_one_round(CorrelatedCountingMechanism{
                      .config = configure(pop.parties, pop.min_parties, p.real("epsilon"), p.real("delta"), flood)});
                }});
}

}  // namespace protocols
}  // namespace shufflempc
