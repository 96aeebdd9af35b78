// Registry entries of the counting family: counting, histogram, counting-balcer-cheu,
// randomized-response (local baseline), central-laplace and histogram-central-laplace (central
// baselines). The mechanisms are in mechanisms.hpp and mechanisms.cpp; here are only their
// parameters and registry entries.
#include <string>

#include "shufflempc/protocols/counting/mechanisms.hpp"
#include "shufflempc/registry.hpp"

namespace shufflempc {
namespace counting {
namespace {

ParamSpec noise_param() {
  return {.name = "noise", .type = ParamType::choice, .default_value = "calibrated",
          .help = "noise rate: the lectures' p = 48 ln(2/delta)/(eps^2 n), or the smallest p the exact oracle accepts",
          .choices = {"lecture", "calibrated"}};
}
NoiseRule rule_of(const Params& p) { return p.text("noise") == "calibrated" ? NoiseRule::calibrated : NoiseRule::lecture; }

}  // namespace
}  // namespace counting

namespace protocols {

void register_counting(Registry& registry) {
  using namespace counting;
  registry.add({.name = "counting",
                .summary = "counting bits as in the lectures: each user sends its bit and a Bernoulli(p) noise bit",
                .params = {epsilon_param(lecture_max_epsilon), delta_param(), noise_param()},
                .min_parties = 1,
                .input_help = bit_input_help,
                .random_inputs = bit_forms(),
                .create = [](const Params& p, const Population& pop) -> std::unique_ptr<Protocol> {
                  return make_one_round(CountingMechanism{.config = configure(pop.parties, p.real("epsilon"), p.real("delta"), rule_of(p), pop.guaranteed())});
                }});
  registry.add({.name = "histogram",
                .summary = "histogram over {0..domain-1}: one counting instance per element (parallel) or the inverted encoding with exact empty bins",
                .params = {epsilon_param(lecture_max_epsilon), delta_param(), noise_param(),
                           {.name = "domain", .type = ParamType::integer, .default_value = "16", .help = "domain size d", .min = 2.0, .max = 65536.0},
                           {.name = "variant", .type = ParamType::choice, .default_value = "inverted",
                            .help = "parallel: bit [x == e] per element; inverted: bit [x != e], empty bins exactly 0",
                            .choices = {"parallel", "inverted"}}},
                .input_help = histogram_input_help,
                .random_inputs = element_forms(),
                .create = [](const Params& p, const Population& pop) -> std::unique_ptr<Protocol> {
                  const auto variant = p.text("variant") == "parallel" ? HistogramVariant::parallel : HistogramVariant::inverted;
                  return make_one_round(HistogramMechanism{.config = configure(pop.parties, p.real("epsilon"), p.real("delta"), rule_of(p), pop.guaranteed()),
                                                           .domain = static_cast<std::uint32_t>(p.integer("domain")),
                                                           .variant = variant});
                }});
  registry.add({.name = "histogram-central-laplace",
                .summary = "central-model baseline for histograms: elements in the clear, discrete Laplace noise of scale epsilon/2 on every bin",
                .params = {epsilon_param(20),
                           {.name = "domain", .type = ParamType::integer, .default_value = "16", .help = "domain size d", .min = 2.0, .max = 65536.0}},
                .input_help = histogram_input_help,
                .random_inputs = element_forms(),
                .create = [](const Params& p, const Population&) -> std::unique_ptr<Protocol> {
                  return make_one_round(HistogramCentralMechanism{.domain = static_cast<std::uint32_t>(p.integer("domain")), .epsilon = p.real("epsilon")});
                }});
  registry.add({.name = "counting-balcer-cheu",
                .summary = "literature version (Balcer-Cheu, ITC 2020): x + Bernoulli(1-gamma) unit messages, all-zero data gives exactly 0",
                .params = {epsilon_param(lecture_max_epsilon), delta_param()},
                .input_help = bit_input_help,
                .random_inputs = bit_forms(),
                .create = [](const Params& p, const Population& pop) -> std::unique_ptr<Protocol> {
                  return make_one_round(BalcerCheuMechanism(pop.guaranteed(), p.real("epsilon"), p.real("delta"), pop.parties));
                }});
  registry.add({.name = "randomized-response",
                .summary = "local-model baseline: each user sends its bit flipped with probability 1/(1+e^eps)",
                .params = {epsilon_param(20)},
                .input_help = bit_input_help,
                .random_inputs = bit_forms(),
                .create = [](const Params& p, const Population& pop) -> std::unique_ptr<Protocol> {
                  return make_one_round(RandomizedResponseMechanism(pop.parties, p.real("epsilon")));
                }});
  registry.add({.name = "central-laplace",
                .summary = "central-model baseline: a trusted analyzer adds exact discrete Laplace noise to the true count",
                .params = {epsilon_param(20)},
                .input_help = bit_input_help,
                .random_inputs = bit_forms(),
                .create = [](const Params& p, const Population&) -> std::unique_ptr<Protocol> {
                  return make_one_round(CentralLaplaceMechanism{.epsilon = p.real("epsilon")});
                }});
}

}  // namespace protocols
}  // namespace shufflempc
