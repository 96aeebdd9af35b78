#include "shufflempc/protocols/counting/counting.hpp"

#include "shufflempc/error.hpp"

#include <boost/math/distributions/binomial.hpp>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "shufflempc/accounting/privacy.hpp"
#include "shufflempc/numbers.hpp"
#include "shufflempc/samplers.hpp"

namespace shufflempc::counting {

ParamSpec epsilon_param(double max) {
  return {.name = "epsilon", .type = ParamType::real, .default_value = "1",
          .help = max == lecture_max_epsilon ? "privacy parameter epsilon (the lectures' analysis assumes eps <= 1)" : "privacy parameter epsilon",
          .min = 0.0, .max = max, .min_exclusive = true};
}
ParamSpec delta_param() {
  return {.name = "delta", .type = ParamType::real, .default_value = "1e-6", .help = "privacy parameter delta",
          .min = 0.0, .max = 1.0, .min_exclusive = true, .max_exclusive = true};
}

Config configure(std::uint64_t all_parties, double epsilon, double delta, NoiseRule rule, std::uint64_t min_parties) {
  if (min_parties > all_parties)
    throw std::invalid_argument("min-parties = " + std::to_string(min_parties) + " is out of range: must be at most parties = " +
                                std::to_string(all_parties));
  // Every formula below is for the parties guaranteed to submit.
  const std::uint64_t parties = min_parties == 0 ? all_parties : min_parties;
  const std::string who = min_parties == 0 || min_parties == all_parties ? "parties" : "min-parties";
  epsilon_param(lecture_max_epsilon).check_range(epsilon);
  delta_param().check_range(delta);
  if (parties < 1) throw std::invalid_argument("parties must be at least 1");
  Config c;
  c.parties = all_parties;
  c.min_parties = parties;
  c.epsilon = epsilon;
  c.delta = delta;
  c.rule = rule;
  c.p_lecture = lecture_noise_rate(parties, epsilon, delta);
  if (rule == NoiseRule::lecture) {
    if (c.p_lecture > 0.5)
      throw std::invalid_argument(
          who + " = " + std::to_string(parties) + " is too few for epsilon = " + format_real(epsilon) + ", delta = " + format_real(delta) +
          ": the lectures assume n >> ln(1/delta)/eps^2, and their noise rate p = 48 ln(2/delta)/(eps^2 n) = " +
          format_real(c.p_lecture) + " must be at most 1/2, so " + who + " must be at least " +
          std::to_string(static_cast<std::uint64_t>(std::ceil(96 * std::log(2 / delta) / (epsilon * epsilon)))) +
          " (or use --noise calibrated)");
    c.p = c.p_lecture;
  }
  c.p_calibrated = calibrate_binomial_p(parties, epsilon, delta);
  if (rule == NoiseRule::calibrated) c.p = c.p_calibrated;
  return c;
}

void encode(bool x, double p, Rng& rng, MessageBatch& out) {
  out.append()[0] = x ? 1 : 0;
  out.append()[0] = bernoulli(rng, p) ? 1 : 0;
}

double analyze(const MessageBatch& shuffled, std::uint64_t submitted, double p) {
  std::uint64_t sum = 0;
  std::uint8_t seen = 0;  // every bit ever set: a message other than 0 or 1 sets a bit above the first
  const std::uint8_t* d = shuffled.data();
  for (std::size_t i = 0; i < shuffled.size_bytes(); ++i) {
    sum += d[i];
    seen |= d[i];
  }
  if ((seen & 0xfe) != 0) throw_error(Errc::protocol_violation, "counting: a message other than 0 or 1");
  return static_cast<double>(sum) - static_cast<double>(submitted) * p;
}

double noise_sd(std::uint64_t parties, double p) { return std::sqrt(static_cast<double>(parties) * p * (1 - p)); }

double balcer_cheu_gamma(std::uint64_t parties, double epsilon, double delta) {
  if (!(epsilon > 0 && epsilon <= 1)) throw std::invalid_argument("epsilon = " + format_real(epsilon) + " is out of range: must be in (0, 1]");
  if (!(delta > 0 && delta < 1)) throw std::invalid_argument("delta = " + format_real(delta) + " is out of range: must be in (0, 1)");
  const double need = 100 * std::log(2 / delta) / (epsilon * epsilon);
  if (static_cast<double>(parties) < need)
    throw std::invalid_argument("parties = " + std::to_string(parties) + " is too few: Balcer-Cheu needs n >= 100 ln(2/delta)/eps^2 = " +
                                format_real(std::ceil(need)));
  return 50 * std::log(2 / delta) / (epsilon * epsilon * static_cast<double>(parties));
}

void encode_balcer_cheu(bool x, double gamma, Rng& rng, MessageBatch& out) {
  // Always two messages, so that neither their number nor the frame's size tells x: the unit
  // messages are 1, the dummies 0.
  out.append()[0] = x ? 1 : 0;
  out.append()[0] = bernoulli(rng, 1 - gamma) ? 1 : 0;
}

double zero_below_mse(std::uint64_t n, double p, std::uint64_t f) {
  if (f == 0) return 0;
  const boost::math::binomial noise(static_cast<double>(n), p);
  const double mean = static_cast<double>(n) * p, sd = std::sqrt(mean * (1 - p));
  const double ff = static_cast<double>(f);
  double mse = ff * ff * boost::math::cdf(boost::math::complement(noise, ff - 1));  // P(M >= f) f^2
  // M < f: within 14 sd of the mean (beyond, the pmf is below 1e-40 of the whole).
  const double lo = std::max(0.0, std::floor(mean - 14 * sd - 1)), hi = std::min(ff - 1, std::ceil(mean + 14 * sd + 1));
  for (double m = lo; m <= hi; ++m) mse += boost::math::pdf(noise, m) * (m - mean) * (m - mean);
  return mse;
}

double analyze_balcer_cheu(const MessageBatch& shuffled, std::uint64_t submitted, double gamma) {
  const auto c = analyze(shuffled, submitted, 0);  // the unit messages (each checked 0 or 1)
  const auto n = static_cast<double>(submitted);
  return c > n ? c - n * (1 - gamma) : 0.0;
}

void encode_randomized_response(bool x, double epsilon, Rng& rng, MessageBatch& out) {
  const bool flip = bernoulli(rng, randomized_response_flip(epsilon));
  out.append()[0] = (x != flip) ? 1 : 0;
}

double analyze_randomized_response(const MessageBatch& shuffled, std::uint64_t submitted, double epsilon) {
  const double q = randomized_response_flip(epsilon);
  const double s = analyze(shuffled, submitted, 0);
  return (s - static_cast<double>(submitted) * q) / (1 - 2 * q);
}

std::int64_t central_count(std::int64_t true_count, double epsilon, Rng& rng) {
  const Rational e = rational_at_most(epsilon, "epsilon");
  return true_count + discrete_laplace(rng, e.num, e.den);
}

}  // namespace shufflempc::counting
