// Registry entries: counting-rr-amplified and histogram-rr-amplified (shuffled_rr.hpp).
#include "shufflempc/protocols/shuffled_rr/shuffled_rr.hpp"
#include "shufflempc/registry.hpp"

namespace shufflempc::protocols {
namespace {

// Every parameter but the histogram's domain.
std::vector<ParamSpec> common_params() {
  std::vector<ParamSpec> common;
  for (const auto& p : shuffled_rr::parameters())
    if (p.name != "domain") common.push_back(p);
  return common;
}

shuffled_rr::Config config_of(const Params& p, const Population& pop, std::uint32_t domain) {
  auto c = shuffled_rr::configure(pop.guaranteed(), domain, p.real("epsilon"), p.real("delta"),
                                  p.text("model") == "local" ? shuffled_rr::Model::local : shuffled_rr::Model::shuffle,
                                  shuffled_rr::bound_of(p.text("bound")));
  c.all_parties = pop.parties;
  return c;
}

}  // namespace

void register_shuffled_rr(Registry& registry) {
  registry.add({.name = "counting-rr-amplified",
                .summary = "single-message randomized response amplified by shuffling (eps0 from the exact privacy over every dataset): each user sends one bit, "
                           "replaced by a uniform bit with probability gamma",
                .params = common_params(),
                .min_parties = 2,
                .input_help = bit_input_help,
                .random_inputs = bit_forms(),
                .create = [](const Params& p, const Population& pop) -> std::unique_ptr<Protocol> {
                  return make_one_round(shuffled_rr::AmplifiedCountingMechanism{config_of(p, pop, 2)});
                }});
  registry.add({.name = "histogram-rr-amplified",
                .summary = "k-ary randomized response amplified by shuffling (eps0 from the tightest valid bound): one message per user",
                .params = shuffled_rr::parameters(),
                .min_parties = 2,
                .input_help = "one element in [0, domain) per party (--random-inputs uniform[:K]: the first K, by default domain/2)",
                .random_inputs = element_forms(),
                .create = [](const Params& p, const Population& pop) -> std::unique_ptr<Protocol> {
                  return make_one_round(shuffled_rr::AmplifiedHistogramMechanism{config_of(p, pop, static_cast<std::uint32_t>(p.integer("domain")))});
                }});
}

}  // namespace shufflempc::protocols
