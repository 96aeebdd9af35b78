// The counting family's mechanisms (mechanisms.hpp): inputs, truths, reports and the central
// baselines' analyzers.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "shufflempc/protocols/counting/mechanisms.hpp"
#include "shufflempc/accounting/privacy.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/registry.hpp"
#include "shufflempc/samplers.hpp"

namespace shufflempc {
namespace counting {

std::int64_t BitInputs::truth(std::span<const bool> xs) const { return std::count(xs.begin(), xs.end(), true); }

// What the parties who submitted achieved: Binomial(submitted, p) noise at epsilon.
Value achieved(std::size_t submitted, double p, double epsilon, std::uint64_t calibrated_for) {
  const auto d = binomial_noise_delta(submitted, p, epsilon);
  return {{"submitted", submitted},
          {"calibrated_for", calibrated_for},
          {"epsilon", epsilon},
          {"delta", d.delta()},
          {"log10_delta", d.log10_delta()}};
}

Value CountingMechanism::run_details(const RoundOutcome& outcome) const {
  return {{"achieved", achieved(outcome.submitted.size(), config.p, config.epsilon, config.min_parties)}};
}

Value BalcerCheuMechanism::run_details(const RoundOutcome& outcome) const {
  return {{"achieved", achieved(outcome.submitted.size(), gamma, epsilon, parties)}};
}

Value HistogramMechanism::run_details(const RoundOutcome& outcome) const {
  Value a = achieved(outcome.submitted.size(), config.p, config.epsilon, config.min_parties);
  a["note"] = "per bin; one user changes two bins, so the histogram is (2 epsilon, 2 delta)-DP";
  return {{"achieved", a}};
}

double CountingMechanism::predicted_sd() const { return noise_sd(config.parties, config.p); }
double BalcerCheuMechanism::predicted_sd() const { return noise_sd(all_parties, gamma); }
double RandomizedResponseMechanism::predicted_sd() const {
  const double q = randomized_response_flip(epsilon);
  return std::sqrt(static_cast<double>(parties) * q * (1 - q)) / (1 - 2 * q);
}
double CentralLaplaceMechanism::predicted_sd() const {
  const double a = std::exp(-epsilon);
  return std::sqrt(2 * a) / (1 - a);
}
double HistogramMechanism::predicted_sd() const { return noise_sd(config.parties, config.p); }

double BalcerCheuMechanism::predicted_mse(std::span<const bool> xs) const {
  return zero_below_mse(xs.size(), gamma, static_cast<std::uint64_t>(std::count(xs.begin(), xs.end(), true)));
}

double HistogramMechanism::predicted_mse(std::span<const std::uint32_t> xs) const {
  const double sd = noise_sd(xs.size(), config.p);
  if (variant == HistogramVariant::parallel) return sd * sd;
  double mse = 0;
  for (const auto f : element_counts(xs, domain)) mse += zero_below_mse(xs.size(), config.p, static_cast<std::uint64_t>(f));
  return mse / domain;
}
double HistogramCentralMechanism::predicted_sd() const {
  const double a = std::exp(-epsilon / 2);
  return std::sqrt(2 * a) / (1 - a);
}

Value CountingMechanism::describe() const {
  const Config& c = config;
  const auto d = binomial_noise_delta(c.min_parties, c.p, c.epsilon);
  return {{"noise", c.rule == NoiseRule::lecture ? "lecture" : "calibrated"},
          {"min_parties", c.min_parties},
          {"calibration", "p is set for min_parties submitters (default: all parties); more submitters only add noise"},
          {"p", c.p},
          {"p_lecture", c.p_lecture},
          {"p_calibrated", c.p_calibrated},
          {"noise_sd", predicted_sd()},
          {"noise_sd_lecture", noise_sd(c.parties, c.p_lecture)},
          {"noise_sd_calibrated", noise_sd(c.parties, c.p_calibrated)},
          {"exact_log10_delta", d.log10_delta()},
          {"exact_log10_delta_if_all_submit", binomial_noise_delta(c.parties, c.p, c.epsilon).log10_delta()},
          {"epsilon", c.epsilon},
          {"delta", c.delta},
          {"max_influence", 2}};  // a lying party's two bits move the sum by at most 2
}

Value BalcerCheuMechanism::describe() const {
  // A lying party moves the count c by at most 2, but the exact zero below c = n makes the output
  // jump from 0 to c - n (1 - gamma) <= n gamma + 2 where c crosses n.
  return {{"gamma", gamma},
          {"noise_sd", predicted_sd()},
          {"exact_log10_delta", binomial_noise_delta(parties, gamma, epsilon).log10_delta()},
          {"max_influence", static_cast<double>(all_parties) * gamma + 2}};
}

Value RandomizedResponseMechanism::describe() const {
  const double q = randomized_response_flip(epsilon);
  return {{"flip_probability", q}, {"noise_sd", predicted_sd()}, {"max_influence", 1 / (1 - 2 * q)}};  // one report, debiased
}

double CentralLaplaceMechanism::analyze(const MessageBatch& shuffled, const RoundOutcome& outcome, Rng& rng) const {
  const auto count = static_cast<std::int64_t>(counting::analyze(shuffled, outcome.submitted.size(), 0));
  return static_cast<double>(central_count(count, epsilon, rng));
}

Value CentralLaplaceMechanism::describe() const {
  return {{"noise", "discrete Laplace"}, {"noise_sd", predicted_sd()}, {"max_influence", 1}};
}

std::uint32_t HistogramMechanism::parse_input(PartyId id, const Value& v) const { return parse_element(id, v, domain); }

std::uint32_t HistogramMechanism::random_input(std::string_view spec, Rng& rng) const { return random_element(spec, domain, rng); }

std::vector<std::int64_t> HistogramMechanism::truth(std::span<const std::uint32_t> xs) const { return element_counts(xs, domain); }

Value HistogramMechanism::describe() const {
  return {{"variant", variant == HistogramVariant::parallel ? "parallel" : "inverted"},
          {"p", config.p},
          {"min_parties", config.min_parties},
          {"p_lecture", config.p_lecture},
          {"p_calibrated", config.p_calibrated},
          {"noise_sd_per_bin", predicted_sd()},
          {"privacy", "each bin is a counting instance at (epsilon, delta); one user changes two bins, so the "
                      "histogram is (2 epsilon, 2 delta)-DP"}};
}

std::uint32_t HistogramCentralMechanism::parse_input(PartyId id, const Value& v) const { return parse_element(id, v, domain); }

std::vector<double> HistogramCentralMechanism::analyze(const MessageBatch& shuffled, const RoundOutcome&, Rng& rng) const {
  std::vector<std::int64_t> counts(domain, 0);
  for (std::size_t i = 0; i < shuffled.count(); ++i) {
    const auto e = load_le<std::uint16_t>(shuffled[i].data());
    if (e >= domain) throw_error(Errc::protocol_violation, "histogram-central-laplace: an element " + std::to_string(e) + " outside the domain");
    counts[e] += 1;
  }
  const Rational scale = rational_at_most(epsilon / 2, "epsilon / 2");
  std::vector<double> out(domain);
  for (std::uint32_t e = 0; e < domain; ++e) out[e] = static_cast<double>(counts[e] + discrete_laplace(rng, scale.num, scale.den));
  return out;
}

std::vector<std::int64_t> HistogramCentralMechanism::truth(std::span<const std::uint32_t> xs) const { return element_counts(xs, domain); }

Value HistogramCentralMechanism::describe() const {
  return {{"noise", "discrete Laplace of scale epsilon/2 per bin"}, {"noise_sd_per_bin", predicted_sd()}};
}

}  // namespace counting
}  // namespace shufflempc
