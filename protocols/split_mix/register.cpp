// Registry entries of the split-mix family: split-mix-sum (secure summation in Z_q),
// split-mix-dp-sum (differentially private summation of reals in [0, 1]) and the DP-sum baselines.
// The mechanisms are in mechanisms.hpp and mechanisms.cpp; here are only their parameters and
// registry entries.
#include <string>

#include "mechanisms.hpp"
#include "shufflempc/registry.hpp"

namespace shufflempc {
namespace split_mix {
namespace {

ParamSpec sigma_param() {
  return {.name = "sigma", .type = ParamType::integer, .default_value = "40",
          .help = "statistical security: views of inputs with equal sums within distance 2^-sigma", .min = 1.0, .max = 1024.0};
}
ParamSpec messages_param() {
  return {.name = "messages", .type = ParamType::integer, .default_value = "0",
          .help = "shares per party; 0: the BBGN count max(3, ceil((2 sigma + log2 q)/(log2 n - log2 e) + 1))",
          .min = 0.0, .max = 4096.0};
}
ParamSpec leakage_param() {
  return {.name = "accept-input-leakage", .type = ParamType::boolean, .default_value = "false",
          .help = "allow --messages below the BBGN count, although the analyzer's view may then reveal individual inputs"};
}

}  // namespace
}  // namespace split_mix

namespace protocols {

void register_split_mix(Registry& registry) {
  using namespace split_mix;
  registry.add({.name = "split-mix-sum",
                .summary = "secure summation (IKOS split and mix): each party sends m additive shares in Z_q, the analyzer adds them up",
                .params = {sigma_param(),
                           {.name = "input-bits", .type = ParamType::integer, .default_value = "32",
                            .help = "inputs are integers in [0, 2^input-bits); q = n 2^input-bits", .min = 1.0, .max = 4096.0},
                           {.name = "modulus-bits", .type = ParamType::integer, .default_value = "0",
                            .help = "0: q = n 2^input-bits; K: q = 2^K, inputs in Z_q, the output is the sum mod q",
                            .min = 0.0, .max = 8192.0},
                           messages_param(), leakage_param()},
                .min_parties = 3,
                .input_help = "an integer in [0, 2^input-bits) per party (JSON number or decimal string)",
                .random_inputs = sum_input_forms(),
                .create = [](const Params& p, const Population& pop) -> std::unique_ptr<Protocol> {
                  return make_one_round(SumMechanism{configure_sum(
                      pop.parties, static_cast<double>(p.integer("sigma")), static_cast<std::size_t>(p.integer("input-bits")),
                      static_cast<std::size_t>(p.integer("modulus-bits")), static_cast<std::size_t>(p.integer("messages")),
                      p.boolean("accept-input-leakage"))});
                }});
  for (const bool local : {true, false})
    registry.add({.name = local ? "sum-local-laplace" : "sum-central-laplace",
                  .summary = local ? "local-model baseline of the DP sum: each user releases its randomized rounding plus discrete Laplace noise"
                                   : "central-model baseline of the DP sum: a trusted analyzer adds discrete Laplace noise to the rounded sum",
                  .params = {dp_epsilon_param(),
                             {.name = "precision", .type = ParamType::integer, .default_value = "0",
                              .help = "fixed-point precision p; 0: ceil(sqrt(n)), as split-mix-dp-sum", .min = 0.0, .max = 1e6}},
                  .input_help = "a real number in [0, 1] per party",
                  .random_inputs = unit_real_forms(),
                  .create = [local](const Params& p, const Population& pop) -> std::unique_ptr<Protocol> {
                    auto precision = static_cast<std::uint64_t>(p.integer("precision"));
                    if (precision == 0) precision = static_cast<std::uint64_t>(std::ceil(std::sqrt(static_cast<double>(pop.parties))));
                    return make_one_round(SumBaselineMechanism{.local = local, .parties = pop.parties, .epsilon = p.real("epsilon"), .precision = precision});
                  }});
  registry.add({.name = "split-mix-dp-sum",
                .summary = "DP sum of reals in [0, 1]: randomized rounding, Polya noise shares (discrete Laplace in total), then split-mix",
                .params = {dp_epsilon_param(),
                           sigma_param(),
                           {.name = "precision", .type = ParamType::integer, .default_value = "0",
                            .help = "fixed-point precision p; 0: ceil(sqrt(n))", .min = 0.0, .max = 1e6},
                           messages_param(), leakage_param()},
                .min_parties = 3,
                .input_help = "a real number in [0, 1] per party",
                .random_inputs = unit_real_forms(),
                .create = [](const Params& p, const Population& pop) -> std::unique_ptr<Protocol> {
                  return make_one_round(DpSumMechanism{configure_dp_sum(
                      pop.parties, p.real("epsilon"), static_cast<double>(p.integer("sigma")), static_cast<std::uint64_t>(p.integer("precision")),
                      static_cast<std::size_t>(p.integer("messages")), p.boolean("accept-input-leakage"), pop.guaranteed())});
                }});
}

}  // namespace protocols
}  // namespace shufflempc
