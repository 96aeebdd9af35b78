// The split-mix family's mechanisms (mechanisms.hpp): inputs, truths, reports and the DP-sum
// baselines.
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "shufflempc/error.hpp"
#include "shufflempc/inputs.hpp"
#include "shufflempc/samplers.hpp"
#include "shufflempc/registry.hpp"
#include "mechanisms.hpp"

namespace shufflempc {
namespace split_mix {

namespace {

BigInt parse_element(PartyId id, const Value& v, const BigInt& bound) {
  const BigInt x = integer_from_value(v).value_or(-1);
  if (x < 0 || x >= bound)
    throw std::invalid_argument(party_name(id) + " must be an integer in [0, " + bound.str() +
                                ") (a JSON number or a decimal string), got " + v.dump());
  return x;
}

Value split_description(const SumConfig& c) {
  return {{"q", integer_to_value(c.modulus.value())},
          {"modulus", c.modulus_given ? "2^modulus-bits (the output is the sum mod q)" : "n 2^input-bits (holds every sum)"},
          {"log2_q", c.modulus.log2()},
          {"message_bytes", c.modulus.width()},
          {"messages_per_party", c.messages},
          {"messages_bbgn", c.messages_bbgn},
          {"messages_ikos_style", c.messages_ikos},
          {"sigma", c.sigma},
          {"sigma_guaranteed", c.sigma_guaranteed},
          {"below_bbgn_count", c.below_formula}};
}

}  // namespace

BigInt SumMechanism::input_bound() const { return config.modulus_given ? config.modulus.value() : BigInt(1) << config.input_bits; }

BigInt SumMechanism::parse_input(PartyId id, const Value& v) const { return parse_element(id, v, input_bound()); }

const std::vector<InputForm>& sum_input_forms() {
  static const std::vector<InputForm> forms{{"uniform", {}}, {"max", {}}, {"constant", {"V"}}};
  return forms;
}

BigInt SumMechanism::random_input(std::string_view text, Rng& rng) const {
  const auto spec = InputSpec::parse(text, sum_input_forms());
  const BigInt bound = input_bound();
  if (spec.is("max")) return bound - 1;
  if (spec.is("constant")) return spec.big_integer(0, 0, bound - 1);
  return ZqBig(bound).uniform(rng);
}

void SumMechanism::encode(const BigInt& x, Rng& rng, MessageBatch& out) const {
  if (config.modulus.small()) config.modulus.split(static_cast<std::uint64_t>(x), config.messages, rng, out);
  else config.modulus.split(x, config.messages, rng, out);
}

Value SumMechanism::truth(std::span<const BigInt> xs) const {
  BigInt total = 0;
  for (const auto& x : xs) total += x;
  return integer_to_value(total % config.modulus.value());
}

Value SumMechanism::describe() const { return split_description(config); }

double DpSumMechanism::random_input(std::string_view spec, Rng& rng) const { return random_unit_real(spec, rng); }

namespace {
std::int64_t baseline_noise(double epsilon, std::uint64_t precision, Rng& rng) {
  const Rational scale = rational_at_most(epsilon / static_cast<double>(precision), "epsilon / precision");
  return discrete_laplace(rng, scale.num, scale.den);
}
}  // namespace

void SumBaselineMechanism::encode(double x, Rng& rng, MessageBatch& out) const {
  const auto m = out.append();
  if (local) {
    const std::int64_t v = randomized_round(x, precision, rng) + baseline_noise(epsilon, precision, rng);
    store_le<std::uint64_t>(m.data(), static_cast<std::uint64_t>(v));
  } else {
    std::memcpy(m.data(), &x, 8);
  }
}

bool SumBaselineMechanism::valid(std::span<const std::uint8_t> m) const {
  if (local) {
    // One release is randomized_round(x) in [0, p] plus noise; a value beyond 2^40 is no release.
    const auto v = static_cast<std::int64_t>(load_le<std::uint64_t>(m.data()));
    return v <= (std::int64_t{1} << 40) && v >= -(std::int64_t{1} << 40);
  }
  double x = 0;
  std::memcpy(&x, m.data(), 8);
  return x >= 0 && x <= 1;
}

double SumBaselineMechanism::analyze(const MessageBatch& shuffled, const RoundOutcome&, Rng& rng) const {
  const auto p = static_cast<double>(precision);
  if (local) {
    std::int64_t total = 0;
    for (std::size_t i = 0; i < shuffled.count(); ++i) {
      const auto v = static_cast<std::int64_t>(load_le<std::uint64_t>(shuffled[i].data()));
      if (!valid(shuffled[i])) throw_error(Errc::protocol_violation, "sum-local-laplace: a release of " + std::to_string(v) + " is out of range");
      total += v;
    }
    return static_cast<double>(total) / p;
  }
  double sum = 0;
  for (std::size_t i = 0; i < shuffled.count(); ++i) {
    double x = 0;
    if (!valid(shuffled[i])) throw_error(Errc::protocol_violation, "sum-central-laplace: an input outside [0, 1]");
    std::memcpy(&x, shuffled[i].data(), 8);
    sum += x;
  }
  return (std::round(sum * p) + static_cast<double>(baseline_noise(epsilon, precision, rng))) / p;
}

double SumBaselineMechanism::truth(std::span<const double> xs) const {
  double total = 0;
  for (double x : xs) total += x;
  return total;
}

double SumBaselineMechanism::predicted_sd() const {
  const double a = std::exp(-epsilon / static_cast<double>(precision)), p = static_cast<double>(precision);
  const double noise = 2 * a / ((1 - a) * (1 - a));
  // Local: n noises (the roundings, of variance at most 1/4 each, come on top); central: one noise.
  return local ? std::sqrt(static_cast<double>(parties) * noise) / p : std::sqrt(noise) / p;
}

Value SumBaselineMechanism::describe() const {
  return {{"precision", precision},
          {"alpha", std::exp(-epsilon / static_cast<double>(precision))},
          {"noise_sd", predicted_sd()},
          {"privacy", local ? "every release is epsilon-DP (local model)" : "epsilon-DP against the analyzer's output (central model)"}};
}

double DpSumMechanism::truth(std::span<const double> xs) const {
  double total = 0;
  for (double x : xs) total += x;
  return total;
}

Value DpSumMechanism::run_details(const RoundOutcome& outcome) const {
  const std::size_t s = outcome.submitted.size();
  Value a = {{"submitted", s}, {"calibrated_for", config.noise_parties}, {"noise_sd", std::sqrt(config.noise_variance(s))}};
  if (s >= config.noise_parties) {
    a["epsilon"] = config.epsilon;
    a["delta"] = config.delta;
  } else {
    a["epsilon"] = nullptr;  // fewer submitters than the noise was calibrated for: no guarantee
    a["warning"] = "fewer parties submitted than the noise is calibrated for (min-parties)";
  }
  return {{"achieved", a}};
}

double DpSumMechanism::predicted_sd() const { return std::sqrt(config.noise_variance()); }

Value DpSumMechanism::describe() const {
  const DpConfig& c = config;
  const double n = static_cast<double>(c.parties);
  const double p = static_cast<double>(c.precision);
  Value d = split_description(c.split);
  d["epsilon"] = c.epsilon;
  d["delta"] = c.delta;
  d["guarantee"] = "(epsilon, delta)-DP with delta = (1 + e^epsilon) 2^-sigma_guaranteed, whenever at least min_parties submit";
  d["min_parties"] = c.noise_parties;
  d["precision"] = c.precision;
  d["alpha"] = c.alpha;
  d["noise_sd"] = predicted_sd();
  d["rounding_sd_at_most"] = std::sqrt(n) / (2 * p);
  d["rmse_at_most"] = std::sqrt(c.noise_variance() + n / (4 * p * p));
  d["modulus"] = "2^k > 2 (n p + T): the lifted sum is right unless |noise| > T";
  d["noise_tail_T"] = c.tail;
  d["wrap_probability"] = std::exp2(-c.split.sigma);  // at most: P(|noise| > T)
  return d;
}

}  // namespace split_mix
}  // namespace shufflempc
