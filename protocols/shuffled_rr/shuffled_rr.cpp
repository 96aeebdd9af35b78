#include "shufflempc/protocols/shuffled_rr/shuffled_rr.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "shufflempc/amplification.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/samplers.hpp"

namespace shufflempc::shuffled_rr {

Bound bound_of(const std::string& name) {
  if (name == "fmt") return Bound::fmt;
  if (name == "blanket") return Bound::blanket;
  if (name == "blanket-exact") return Bound::blanket_exact;
  if (name == "ldp-blanket") return Bound::ldp_blanket;
  if (name == "rr-exact-all") return Bound::rr_exact_all;
  if (name == "tightest") return Bound::tightest;
  throw std::invalid_argument("bound = " + name + " is not one of: fmt, blanket, blanket-exact, ldp-blanket, rr-exact-all, tightest");
}

namespace {

std::string bound_name(Bound b) {
  switch (b) {
    case Bound::fmt: return "Feldman-McMillan-Talwar 2021, numeric";
    case Bound::blanket: return "Balle-Bell-Gascon-Nissim 2019, privacy blanket";
    case Bound::blanket_exact: return "Balle-Bell-Gascon-Nissim 2019, privacy blanket summed exactly";
    case Bound::ldp_blanket: return "privacy blanket summed exactly, worst case over every eps0-LDP randomizer";
    case Bound::rr_exact_all: return "exact value for binary randomized response, the largest divergence over every dataset";
    case Bound::tightest: break;
  }
  return "tightest";
}

}  // namespace

Config configure(std::uint64_t parties, std::uint32_t domain, double epsilon, double delta, Model model, Bound bound) {
  if (domain < 2 || domain > 65536) throw std::invalid_argument("domain = " + std::to_string(domain) + " is out of range: must be in [2, 65536]");
  if (!(epsilon > 0)) throw std::invalid_argument("epsilon must be positive");
  if (!(delta > 0 && delta < 1)) throw std::invalid_argument("delta must be in (0, 1)");
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
  } else if (bound == Bound::blanket) {
    const auto e0 = blanket_local_epsilon(parties, epsilon, delta, domain);
    if (!e0)
      throw std::invalid_argument(fmt::format(
          "parties = {} is too few for the privacy blanket at epsilon = {}, delta = {}, k = {}: its bound needs epsilon <= 1 and "
          "(n - 1) min(eps^2 / (14 ln(2/delta)), eps / 27) > k (use --bound fmt, blanket-exact or tightest)",
          parties, epsilon, delta, domain));
    c.epsilon0 = *e0;
  } else if (bound == Bound::rr_exact_all || (bound == Bound::tightest && domain == 2 && parties <= rr_exact_all_max_parties)) {
    // Binary randomized response needs no bound: its exact value over every dataset, which no valid
    // bound can beat (one round; docs/accounting.md says why rounds compose by the bounds).
    if (domain != 2)
      throw std::invalid_argument("bound = rr-exact-all is the exact value of binary randomized response: domain must be 2, got " +
                                  std::to_string(domain) + " (use tightest)");
    if (parties > rr_exact_all_max_parties)
      throw std::invalid_argument(fmt::format("parties = {} is out of range for bound = rr-exact-all: must be at most {} (use tightest)",
                                              parties, rr_exact_all_max_parties));
    c.used = Bound::rr_exact_all;
    c.epsilon0 = rr_exact_all_local_epsilon(parties, epsilon, delta);
    c.achieved_delta = rr_exact_all_delta(parties, c.epsilon0, epsilon);
  } else {
    // The numeric bounds: each certifies the largest eps0 it can; tightest takes the largest. With
    // k = 2, ldp-blanket is blanket-exact itself (the worst case is binary randomized response), so
    // it is searched only for k > 2, where the blanket of k-ary randomized response loses what
    // its step 2 gives away (docs/accounting.md).
    const bool tightest = bound == Bound::tightest;
    const bool try_fmt = bound == Bound::fmt || tightest;
    const bool try_exact = bound == Bound::blanket_exact || tightest;
    const bool try_ldp = bound == Bound::ldp_blanket || (tightest && domain > 2);
    const double by_fmt = try_fmt ? fmt_local_epsilon(parties, epsilon, delta) : 0;
    const double by_exact = try_exact ? blanket_exact_local_epsilon(parties, epsilon, delta, domain) : 0;
    const double by_ldp = try_ldp ? ldp_blanket_local_epsilon(parties, epsilon, delta) : 0;
    if (by_ldp > by_exact && by_ldp > by_fmt) {
      c.used = Bound::ldp_blanket;
      c.epsilon0 = by_ldp;
      c.achieved_delta = ldp_blanket_delta(parties, c.epsilon0, epsilon);
    } else if (by_exact > by_fmt) {
      c.used = Bound::blanket_exact;
      c.epsilon0 = by_exact;
      c.achieved_delta = blanket_exact_delta(parties, c.epsilon0, epsilon, domain);
    } else {
      c.used = Bound::fmt;
      c.epsilon0 = by_fmt;
      c.achieved_delta = fmt_delta(parties, c.epsilon0, epsilon);
    }
  }
  const double k = domain;
  c.gamma = k / (std::exp(c.epsilon0) + k - 1);
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
    v["bound"] = bound_name(c.used);
    if (c.bound == Bound::tightest)
      v["bound_choice"] = c.used == Bound::rr_exact_all ? "tightest: the exact value (binary randomized response)"
                                                        : "tightest of fmt, blanket-exact and ldp-blanket";
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

Value AmplifiedHistogramMechanism::describe() const {
  Value v = shuffled_rr::describe(config);
  v["noise_sd_per_bin"] = predicted_sd();
  return v;
}

}  // namespace shufflempc::shuffled_rr
