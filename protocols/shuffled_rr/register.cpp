// Registry entries: counting-rr-amplified and histogram-rr-amplified (shuffled_rr.hpp).
#include "shufflempc/protocols/shuffled_rr/shuffled_rr.hpp"
#include "shufflempc/registry.hpp"

namespace shufflempc::protocols {
namespace {

std::vector<ParamSpec> common_params() {
  return {{.name = "epsilon", .type = ParamType::real, .default_value = "1",
           .help = "the central epsilon (model shuffle) or the local one (model local)", .min = 0.0, .max = 20.0, .min_exclusive = true},
          {.name = "delta", .type = ParamType::real, .default_value = "1e-6", .help = "the central delta", .min = 0.0, .max = 0.5,
           .min_exclusive = true},
          {.name = "model", .type = ParamType::choice, .default_value = "shuffle",
           .help = "shuffle: the largest local epsilon0 the bound certifies for (epsilon, delta) after shuffling; local: epsilon0 = epsilon, the local-model baseline",
           .choices = {"shuffle", "local"}},
          {.name = "bound", .type = ParamType::choice, .default_value = "tightest",
           .help = "the amplification bound: fmt (Feldman-McMillan-Talwar 2021, numeric), blanket (Balle-Bell-Gascon-Nissim 2019, closed "
                   "form), blanket-exact (the same blanket summed exactly, for randomized response), ldp-blanket (the blanket summed "
                   "exactly in its worst case over every eps0-LDP randomizer), rr-exact-all (not a bound: the exact value of binary "
                   "randomized response over every dataset, domain 2 only), bennett (the blanket with Bennett's inequality, as "
                   "Balle-Bell-Gascon-Nissim's code evaluates it) or tightest (rr-exact-all where it applies, else the largest eps0 of "
                   "fmt, blanket-exact, ldp-blanket and bennett)",
           .choices = {"fmt", "blanket", "blanket-exact", "ldp-blanket", "rr-exact-all", "bennett", "tightest"}}};
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
  auto params = common_params();
  params.push_back({.name = "domain", .type = ParamType::integer, .default_value = "16", .help = "domain size k", .min = 2.0, .max = 65536.0});
  registry.add({.name = "histogram-rr-amplified",
                .summary = "k-ary randomized response amplified by shuffling (eps0 from the tightest valid bound): one message per user",
                .params = params,
                .min_parties = 2,
                .input_help = "one element in [0, domain) per party (--random-inputs uniform[:K]: the first K, by default domain/2)",
                .random_inputs = element_forms(),
                .create = [](const Params& p, const Population& pop) -> std::unique_ptr<Protocol> {
                  return make_one_round(shuffled_rr::AmplifiedHistogramMechanism{config_of(p, pop, static_cast<std::uint32_t>(p.integer("domain")))});
                }});
}

}  // namespace shufflempc::protocols
