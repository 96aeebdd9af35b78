#include "shufflempc/protocols/shuffled_rr/shuffled_rr.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "shufflempc/accounting/amplification.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/samplers.hpp"

namespace shufflempc::shuffled_rr {

const std::vector<ParamSpec>& parameters() {
  static const std::vector<ParamSpec> declared{
      {.name = "epsilon", .type = ParamType::real, .default_value = "1",
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
       .choices = {"fmt", "blanket", "blanket-exact", "ldp-blanket", "rr-exact-all", "bennett", "tightest"}},
      {.name = "domain", .type = ParamType::integer, .default_value = "16", .help = "domain size k", .min = 2.0, .max = 65536.0}};
  return declared;
}

Config configure(std::uint64_t parties, std::uint32_t domain, double epsilon, double delta, Model model, Bound bound) {
  check_declared(parameters(), "domain", domain);
  check_declared(parameters(), "epsilon", epsilon);
  check_declared(parameters(), "delta", delta);
  if (parties < 2) throw std::invalid_argument("parties must be at least 2");
  Config c;
  c.parties = parties;
  c.domain = domain;
  c.epsilon = epsilon;
  c.delta = delta;
  c.model = model;
  c.bound = bound;
  c.used = bound;
  if (model == Model::local) {
    c.epsilon0 = epsilon;
    c.gamma = static_cast<double>(domain) / (std::exp(epsilon) + domain - 1);
  } else {
    const auto calibrated = calibrate_randomized_response(parties, domain, epsilon, delta, bound);
    c.used = calibrated.used;
    c.epsilon0 = calibrated.epsilon0;
    c.gamma = calibrated.gamma;
    c.achieved_delta = calibrated.achieved_delta;
  }
  return c;
}

void encode(std::uint32_t x, const Config& c, Rng& rng, MessageBatch& out) {
  const std::uint32_t report = bernoulli(rng, c.gamma) ? rng.uniform32(c.domain) : x;
  const auto m = out.append();
  if (m.size() == 1) m[0] = static_cast<std::uint8_t>(report);
  else store_le<std::uint16_t>(m.data(), static_cast<std::uint16_t>(report));
}

std::vector<double> analyze(const MessageBatch& shuffled, const Config& c, std::uint64_t submitted) {
  std::vector<std::uint64_t> counts(c.domain, 0);
  const bool narrow = shuffled.width() == 1;
  for (std::size_t i = 0; i < shuffled.count(); ++i) {
    const auto m = shuffled[i];
    const std::uint32_t e = narrow ? m[0] : load_le<std::uint16_t>(m.data());
    if (e >= c.domain)
      throw_error(Errc::protocol_violation, fmt::format("randomized response: a report {} outside the domain [0, {})", e, c.domain));
    counts[e] += 1;
  }
  const double base = static_cast<double>(submitted) * c.gamma / c.domain;
  std::vector<double> out(c.domain);
  for (std::uint32_t e = 0; e < c.domain; ++e) out[e] = (static_cast<double>(counts[e]) - base) / (1 - c.gamma);
  return out;
}

double count_sd(const Config& c, std::uint64_t submitted, double f) {
  const double b = c.gamma / c.domain, a = 1 - c.gamma + b;
  return std::sqrt(f * a * (1 - a) + (static_cast<double>(submitted) - f) * b * (1 - b)) / (1 - c.gamma);
}

Value describe(const Config& c) {
  Value v = {{"model", c.model == Model::local ? "local" : "shuffle"},
             {"epsilon0", c.epsilon0},
             {"uniform_probability", c.gamma},
             {"domain", c.domain}};
  if (c.model == Model::shuffle) {
    v["bound"] = rr_bound_source(c.used);
    if (c.bound == Bound::tightest)
      v["bound_choice"] = c.used == Bound::rr_exact_all ? "tightest: the exact value (binary randomized response)"
                                                        : "tightest of fmt, blanket-exact, ldp-blanket and bennett";
    v["central"] = {{"epsilon", c.epsilon}, {"delta", c.delta}, {"parties", c.parties}};
    if (c.used != Bound::blanket) v["central"]["delta_at_epsilon0"] = c.achieved_delta;
  } else {
    v["local"] = {{"epsilon", c.epsilon}};
  }
  return v;
}

std::int64_t AmplifiedCountingMechanism::truth(std::span<const bool> xs) const { return std::count(xs.begin(), xs.end(), true); }

Value AmplifiedCountingMechanism::describe() const {
  Value v = shuffled_rr::describe(config);
  v["noise_sd"] = predicted_sd();
  v["max_influence"] = 1 / (1 - config.gamma);  // one report moves the count of ones by one, debiased
  return v;
}

std::uint32_t AmplifiedHistogramMechanism::parse_input(PartyId id, const Value& v) const { return parse_element(id, v, config.domain); }

std::vector<std::int64_t> AmplifiedHistogramMechanism::truth(std::span<const std::uint32_t> xs) const {
  return element_counts(xs, config.domain);
}

double AmplifiedHistogramMechanism::predicted_mse(std::span<const std::uint32_t> xs) const {
  double mse = 0;
  for (const auto f : element_counts(xs, config.domain)) {
    const double sd = count_sd(config, xs.size(), static_cast<double>(f));
    mse += sd * sd;
  }
  return mse / config.domain;
}

Value AmplifiedHistogramMechanism::describe() const {
  Value v = shuffled_rr::describe(config);
  v["noise_sd_per_bin"] = predicted_sd();
  return v;
}

}  // namespace shufflempc::shuffled_rr
