// Registry entries: xor-sum-exact, xor-sum-rr and xor-sum-noise-ids (xor_sum.hpp).
#include <fmt/format.h>

#include "shufflempc/registry.hpp"
#include "shufflempc/protocols/xor_sum/xor_sum.hpp"

namespace shufflempc::protocols {
namespace {

constexpr const char* input_help =
    "[bucket, bit] per party, bucket in [0, buckets) (--random-inputs: uniform:P draws bit 1 with probability P, constant:B "
    "makes every bit B, buckets:K uses the first K buckets)";

ParamSpec buckets_param() {
  return {.name = "buckets", .type = ParamType::integer, .default_value = "0", .help = "the number of buckets B (0: one per party)",
          .min = 0.0, .max = static_cast<double>(xor_sum::max_buckets)};
}

std::uint32_t buckets_of(const Params& p, const Population& pop) {
  const auto b = p.integer("buckets");
  if (b != 0) return static_cast<std::uint32_t>(b);
  if (pop.parties > xor_sum::max_buckets)
    throw std::invalid_argument(fmt::format("buckets: one per party needs {} > {} buckets; give --buckets", pop.parties, xor_sum::max_buckets));
  return static_cast<std::uint32_t>(pop.parties);
}

ParamSpec alpha_param() {
  return {.name = "alpha", .type = ParamType::real, .default_value = "0.5",
          .help = "the error, as RMSE / sqrt(n) in the replay setting (docs/xor-sum.md); ignored when the probability is given", .min = 0.0,
          .max = 100.0};
}

}  // namespace

void register_xor_sum(Registry& registry) {
  registry.add({.name = "xor-sum-exact",
                .summary = "XOR-sum, the exact endpoint: each party splits its bit into m XOR shares sent with its bucket id (error 0, no privacy)",
                .params = {buckets_param(),
                           {.name = "shares", .type = ParamType::integer, .default_value = "2", .help = "XOR shares per party", .min = 1.0,
                            .max = 64.0}},
                .min_parties = 1,
                .input_help = input_help,
                .random_inputs = xor_sum::item_forms(),
                .create = [](const Params& p, const Population& pop) -> std::unique_ptr<Protocol> {
                  return make_one_round(xor_sum::ExactMechanism{.buckets = buckets_of(p, pop), .shares = static_cast<std::uint32_t>(p.integer("shares"))});
                }});
  registry.add({.name = "xor-sum-rr",
                .summary = "XOR-sum by randomized response on the bit: one message (bucket, bit XOR Bern(p)), per-bucket debiased parities",
                .params = {buckets_param(), alpha_param(),
                           {.name = "flip", .type = ParamType::real, .default_value = "0", .help = "the flip probability p (0: from alpha)",
                            .min = 0.0, .max = 0.5, .max_exclusive = true},
                           {.name = "delta", .type = ParamType::real, .default_value = "1e-6",
                            .help = "the delta at which describe() reports the central epsilon of a party's bit within its bucket",
                            .min = 0.0, .max = 0.5, .min_exclusive = true}},
                .min_parties = 1,
                .input_help = input_help,
                .random_inputs = xor_sum::item_forms(),
                .create = [](const Params& p, const Population& pop) -> std::unique_ptr<Protocol> {
                  xor_sum::RrMechanism m{.buckets = buckets_of(p, pop), .parties = pop.guaranteed(), .delta = p.real("delta")};
                  if (p.real("flip") > 0) {
                    m.flip = p.real("flip");
                  } else {
                    m.alpha = p.real("alpha");
                    m.flip = xor_sum::rr_flip_for_alpha(m.alpha);
                  }
                  return make_one_round(m);
                }});
  registry.add({.name = "xor-sum-noise-ids",
                .summary = "XOR-sum by noise ids: the bucket id of a one bit, plus with probability r a uniform noise id (two fixed slots per party)",
                .params = {buckets_param(), alpha_param(),
                           {.name = "noise-rate", .type = ParamType::real, .default_value = "0",
                            .help = "the probability r of a noise id per party (0: from alpha)", .min = 0.0, .max = 1.0}},
                .min_parties = 1,
                .input_help = input_help,
                .random_inputs = xor_sum::item_forms(),
                .create = [](const Params& p, const Population& pop) -> std::unique_ptr<Protocol> {
                  xor_sum::NoiseIdsMechanism m{.buckets = buckets_of(p, pop), .parties = pop.guaranteed()};
                  if (p.real("noise-rate") > 0) {
                    m.rate = p.real("noise-rate");
                  } else {
                    m.alpha = p.real("alpha");
                    m.rate = xor_sum::noise_rate_for_alpha(m.alpha, m.parties, m.buckets);
                  }
                  return make_one_round(m);
                }});
}

}  // namespace shufflempc::protocols
