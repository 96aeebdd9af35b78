#include "shufflempc/protocols/split_mix/dp_sum.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "shufflempc/samplers.hpp"

namespace shufflempc::split_mix {

double DpConfig::noise_variance(std::uint64_t submitted) const {
  const double p = static_cast<double>(precision);
  const double share = static_cast<double>(submitted == 0 ? parties : submitted) / static_cast<double>(noise_parties);
  return share * 2 * alpha / ((1 - alpha) * (1 - alpha) * p * p);
}

ParamSpec dp_epsilon_param() {
  return {.name = "epsilon", .type = ParamType::real, .default_value = "1", .help = "privacy parameter epsilon", .min = 0.01, .max = 10.0};
}

DpConfig configure_dp_sum(std::uint64_t parties, double epsilon, double sigma, std::uint64_t precision,
                          std::size_t messages, bool accept_input_leakage, std::uint64_t min_parties) {
  if (min_parties > parties)
    throw std::invalid_argument("min-parties = " + std::to_string(min_parties) + " is out of range: must be at most parties = " +
                                std::to_string(parties));
  dp_epsilon_param().check_range(epsilon);
  if (precision > 1'000'000) throw std::invalid_argument("precision must be in [0, 1000000] (0: ceil(sqrt(n))), got " + std::to_string(precision));
  if (!(sigma > 0 && sigma <= 1024)) throw std::invalid_argument("sigma must be in (0, 1024], got " + std::to_string(sigma));
  DpConfig c;
  c.parties = parties;
  c.noise_parties = min_parties == 0 ? parties : min_parties;
  c.epsilon = epsilon;
  c.precision = precision != 0 ? precision : static_cast<std::uint64_t>(std::ceil(std::sqrt(static_cast<double>(parties))));
  const double p = static_cast<double>(c.precision);
  // exp(-eps/p) rounded up by one ulp: the noise is never smaller than the eps asked for.
  c.alpha = std::nextafter(std::exp(-epsilon / p), 1.0);
  // T is the smallest integer with 2 a^(T+1) / (1 + a) <= 2^-sigma, i.e. with
  // T + 1 >= (sigma ln 2 + ln(2 / (1 + a))) / (-ln a).
  const double need = (sigma * std::numbers::ln2 + std::log(2 / (1 + c.alpha))) / (-std::log(c.alpha));
  c.tail = need <= 1 ? 0 : static_cast<std::uint64_t>(std::ceil(need)) - 1;
  if (c.noise_parties < parties) {
    // All n submit: the noise is X - Y with X, Y ~ Polya(r, a), r = n / m. Chernoff at e^lambda = a^-1/2:
    // P(X > t) <= (1 + sqrt a)^r a^(t/2), so P(|X - Y| > T) <= 2 (1 + sqrt a)^r a^(T/2) <= 2^-sigma.
    const double r = static_cast<double>(parties) / static_cast<double>(c.noise_parties);
    const double t = 2 * (sigma * std::numbers::ln2 + std::numbers::ln2 + r * std::log1p(std::sqrt(c.alpha))) / (-std::log(c.alpha));
    c.tail = std::max(c.tail, static_cast<std::uint64_t>(std::ceil(t)));
  }
  // q = 2^k > 2 (n p + T): every sum of rounded inputs plus noise within the tail lifts correctly.
  const double span = 2 * (static_cast<double>(parties) * p + static_cast<double>(c.tail)) + 2;
  const auto bits = static_cast<std::size_t>(std::ceil(std::log2(span)));
  if (bits > 62) throw std::invalid_argument("precision: n p is too large for the 62-bit modulus of the DP sum");
  c.split = configure_sum(parties, sigma, 1, bits, messages, accept_input_leakage);
  c.delta = (1 + std::exp(epsilon)) * std::exp2(-c.split.sigma_guaranteed);
  return c;
}

std::int64_t noise_share(const DpConfig& c, Rng& rng) {
  const double r = 1.0 / static_cast<double>(c.noise_parties);
  return static_cast<std::int64_t>(polya(rng, r, c.alpha)) - static_cast<std::int64_t>(polya(rng, r, c.alpha));
}

void encode_dp(double x, const DpConfig& c, Rng& rng, MessageBatch& out) {
  if (!(x >= 0 && x <= 1)) throw std::invalid_argument("encode_dp: x must be in [0, 1], got " + std::to_string(x));
  const std::int64_t v = randomized_round(x, c.precision, rng) + noise_share(c, rng);
  // q = 2^k with k <= 62: reduce a signed value into [0, q).
  const auto q = static_cast<std::int64_t>(c.split.modulus.value());
  const std::int64_t reduced = ((v % q) + q) % q;
  c.split.modulus.split(static_cast<std::uint64_t>(reduced), c.split.messages, rng, out);
}

double analyze_dp(const MessageBatch& shuffled, const DpConfig& c) {
  const auto q = static_cast<std::int64_t>(c.split.modulus.value());
  auto s = static_cast<std::int64_t>(c.split.modulus.sum(shuffled));
  if (s > q / 2) s -= q;
  return static_cast<double>(s) / static_cast<double>(c.precision);
}

// ---- Comparison with the local and central models ----

namespace {
std::int64_t laplace_noise(const DpConfig& c, Rng& rng) {
  const Rational scale = rational_at_most(c.epsilon / static_cast<double>(c.precision), "epsilon / precision");
  return discrete_laplace(rng, scale.num, scale.den);
}
}  // namespace

double central_estimate(std::span<const double> inputs, const DpConfig& c, Rng& rng) {
  double sum = 0;
  for (double x : inputs) sum += x;
  const double rounded = std::round(sum * static_cast<double>(c.precision));
  return (rounded + static_cast<double>(laplace_noise(c, rng))) / static_cast<double>(c.precision);
}

double local_estimate(std::span<const double> inputs, const DpConfig& c, Rng& rng) {
  std::int64_t total = 0;
  for (double x : inputs) total += randomized_round(x, c.precision, rng) + laplace_noise(c, rng);
  return static_cast<double>(total) / static_cast<double>(c.precision);
}

double shuffle_estimate(std::span<const double> inputs, const DpConfig& c, Rng& rng) {
  MessageBatch messages(c.split.modulus.width());
  messages.reserve(inputs.size() * c.split.messages);
  for (double x : inputs) encode_dp(x, c, rng, messages);
  return analyze_dp(messages, c);
}

ModelErrors compare_models(std::span<const double> inputs, const DpConfig& c, std::size_t runs, Rng& rng) {
  double truth = 0;
  double rounding = 0;  // sum of the randomized roundings' variances, in output units squared
  const double p = static_cast<double>(c.precision);
  for (double x : inputs) {
    truth += x;
    const double f = x * p - std::floor(x * p);
    rounding += f * (1 - f) / (p * p);
  }
  ModelErrors e;
  for (std::size_t i = 0; i < runs; ++i) {
    e.local += std::pow(local_estimate(inputs, c, rng) - truth, 2);
    e.shuffle += std::pow(shuffle_estimate(inputs, c, rng) - truth, 2);
    e.central += std::pow(central_estimate(inputs, c, rng) - truth, 2);
  }
  const auto n = static_cast<double>(runs);
  e.local = std::sqrt(e.local / n);
  e.shuffle = std::sqrt(e.shuffle / n);
  e.central = std::sqrt(e.central / n);
  const double noise = c.noise_variance();
  const double central_rounding = std::round(truth * p) / p - truth;
  e.predicted_local = std::sqrt(static_cast<double>(inputs.size()) * noise + rounding);
  e.predicted_shuffle = std::sqrt(noise + rounding);
  e.predicted_central = std::sqrt(noise + central_rounding * central_rounding);
  return e;
}

}  // namespace shufflempc::split_mix
