#include "shufflempc/protocols/recursive_sum/recursive_sum.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "search.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/samplers.hpp"

namespace shufflempc::recursive_sum {

std::string precisions_name(Precisions p) {
  switch (p) {
    case Precisions::generic: return "generic (Balle-Bell-Gascon-Nissim 2020: eps/m each, p_t = ceil(a^(3^t)))";
    case Precisions::searched: return "searched (the integers and the epsilon split minimising the MSE bound)";
    case Precisions::given: break;
  }
  return "given";
}

std::size_t Config::width() const {
  std::uint32_t widest = 0;
  for (const auto& l : levels) widest = std::max(widest, l.values);
  return (levels.size() > 1 ? 1 : 0) + (widest <= 256 ? 1 : 2);
}

std::vector<std::uint32_t> generic_precisions(std::uint64_t parties, double epsilon, double delta, std::size_t messages) {
  const double m = static_cast<double>(messages), n = static_cast<double>(parties);
  const double eps_j = epsilon / m;
  // Where the blanket's closed form g = k max(14 ln(2/delta_j)/((n - 1) eps_j^2), 27/((n - 1) eps_j)) reaches 1.
  const double cap = std::floor((n - 1) * eps_j / std::max(14 * std::log(2 * m / delta) / eps_j, 27.0));
  const double a = std::pow((std::pow(3.0, m) - 1) * n * epsilon * epsilon / (m * m * m), std::pow(3.0, -(m + 1)));
  std::vector<std::uint32_t> out;
  for (std::size_t t = 1; t <= messages; ++t) {
    const double p = std::min(std::ceil(std::pow(a, std::pow(3.0, static_cast<double>(t)))), cap);
    out.push_back(static_cast<std::uint32_t>(std::clamp(p, 2.0, static_cast<double>(max_precision))));
  }
  return out;
}

std::vector<Level> make_levels(std::uint64_t parties, double epsilon, double delta, std::span<const std::uint32_t> precisions,
                               std::span<const double> split, RrBound bound) {
  const std::size_t m = precisions.size();
  if (m == 0) throw std::invalid_argument("messages must be at least 1");
  if (split.size() != m) throw std::invalid_argument(fmt::format("epsilon-split: {} parts for {} levels", split.size(), m));
  std::vector<Level> levels(m);
  double q = 1;
  for (std::size_t j = 0; j < m; ++j) {
    const bool last = j + 1 == m;
    const std::uint32_t p = precisions[j];
    if (p < (last ? 1u : 2u) || p > max_precision)
      throw std::invalid_argument(fmt::format("precision of level {} = {} is out of range: must be in [{}, {}]", j + 1, p, last ? 1 : 2, max_precision));
    if (!(split[j] > 0 && split[j] < 1 + 1e-12))
      throw std::invalid_argument(fmt::format("epsilon-split: level {} has {}, must be in (0, 1]", j + 1, split[j]));
    Level& l = levels[j];
    q *= p;
    l.precision = p;
    l.values = last ? p + 1 : p;
    l.scale = q;
    l.epsilon = epsilon * split[j];
    l.delta = delta / static_cast<double>(m);
    l.rr = calibrate_randomized_response(parties, l.values, l.epsilon, l.delta, bound);
  }
  return levels;
}

ParamSpec epsilon_param() {
  return {.name = "epsilon", .type = ParamType::real, .default_value = "1", .help = "the central epsilon (split over the levels)",
          .min = 0.0, .max = 20.0, .min_exclusive = true};
}
ParamSpec messages_param() {
  return {.name = "messages", .type = ParamType::integer, .default_value = "2", .help = "m, the digits (messages) per party",
          .min = 1.0, .max = 8.0};
}

namespace {

void check_common(std::uint64_t parties, double epsilon, double delta) {
  if (parties < 2) throw std::invalid_argument("parties must be at least 2");
  epsilon_param().check_range(epsilon);
  if (!(delta > 0 && delta < 1)) throw std::invalid_argument("delta must be in (0, 1)");
}

Config base(std::uint64_t parties, double epsilon, double delta, RrBound bound, Precisions how) {
  Config c;
  c.parties = parties;
  c.epsilon = epsilon;
  c.delta = delta;
  c.bound = bound;
  c.precisions = how;
  return c;
}

}  // namespace

Config configure(std::uint64_t parties, double epsilon, double delta, std::size_t messages, Precisions how, std::vector<std::uint32_t> given,
                 std::vector<double> split, RrBound bound) {
  check_common(parties, epsilon, delta);
  messages_param().check_range(static_cast<double>(messages));
  Config c = base(parties, epsilon, delta, bound, how);
  if (how == Precisions::given) {
    if (given.size() != messages)
      throw std::invalid_argument(fmt::format("precisions: {} given for messages = {} (one per level)", given.size(), messages));
    for (std::size_t j = 0; j < given.size(); ++j)
      if (given[j] < 2 || given[j] > max_precision)
        throw std::invalid_argument(fmt::format("precisions: level {} has {}, must be in [2, {}]", j + 1, given[j], max_precision));
    if (split.empty()) split.assign(messages, 1.0 / static_cast<double>(messages));
    double total = 0;
    for (double w : split) total += w;
    if (split.size() != messages || std::fabs(total - 1) > 1e-9)
      throw std::invalid_argument(fmt::format("epsilon-split: {} parts summing to {}, must be {} parts summing to 1", split.size(), total, messages));
    c.levels = make_levels(parties, epsilon, delta, given, split, bound);
  } else if (how == Precisions::generic) {
    const auto p = generic_precisions(parties, epsilon, delta, messages);
    const std::vector<double> equal(messages, 1.0 / static_cast<double>(messages));
    c.levels = make_levels(parties, epsilon, delta, p, equal, bound);
  } else {
    c.levels = search_levels(parties, epsilon, delta, messages, bound);
  }
  return c;
}

Config configure_single(std::uint64_t parties, double epsilon, double delta, std::uint32_t k, RrBound bound) {
  check_common(parties, epsilon, delta);
  if (k > max_precision) throw std::invalid_argument(fmt::format("precision = {} is out of range: must be in [0, {}] (0: searched)", k, max_precision));
  Config c = base(parties, epsilon, delta, bound, k == 0 ? Precisions::searched : Precisions::given);
  if (k == 0) {
    c.levels = search_levels(parties, epsilon, delta, 1, bound);
  } else {
    const std::uint32_t p[] = {k};
    const double whole[] = {1.0};
    c.levels = make_levels(parties, epsilon, delta, p, whole, bound);
  }
  return c;
}

double level_mse(std::uint64_t n, double g, double k) {
  return static_cast<double>(n) * (g * (k * k - 1) / 12 + (k - 1) * (k - 1) * g * (1 - g) / 4) / ((1 - g) * (1 - g));
}

double mse_bound(std::span<const Level> levels, std::uint64_t n) {
  if (levels.empty()) return 0;
  const double q_m = levels.back().scale;
  double mse = static_cast<double>(n) / (4 * q_m * q_m);
  for (const auto& l : levels) mse += level_mse(n, l.rr.gamma, l.values) / (l.scale * l.scale);
  return mse;
}

Message decode(std::span<const std::uint8_t> m, const Config& c) {
  const std::size_t at = c.levels.size() > 1 ? 1 : 0;
  Message out;
  out.level = at ? m[0] : 0;
  out.value = m.size() - at == 1 ? m[at] : load_le<std::uint16_t>(m.data() + at);
  return out;
}

bool valid(std::span<const std::uint8_t> m, const Config& c) {
  if (m.size() != c.width()) return false;
  const auto d = decode(m, c);
  return d.level < c.levels.size() && d.value < c.levels[d.level].values;
}

namespace {

// The digits d_1..d_m of x (at most 8 levels: no allocation on the encoder's path).
using Digits = std::array<std::uint32_t, 8>;
void fill_digits(double x, const Config& c, Rng& rng, Digits& d) {
  if (!(x >= 0 && x <= 1)) throw std::invalid_argument(fmt::format("a sum's input must be a real number in [0, 1], got {}", x));
  const std::size_t m = c.levels.size();
  // x = 1 would make the first digit p_1, outside its level: m > 1 moves it down by 2^-52.
  double r = m > 1 ? std::min(x, 1 - 0x1p-52) : x;
  for (std::size_t j = 0; j + 1 < m; ++j) {
    const double scaled = r * c.levels[j].precision;
    const double low = std::min(std::floor(scaled), static_cast<double>(c.levels[j].precision - 1));
    d[j] = static_cast<std::uint32_t>(low);
    r = scaled - low;
  }
  d[m - 1] = static_cast<std::uint32_t>(randomized_round(r, c.levels[m - 1].precision, rng));
}

}  // namespace

std::vector<std::uint32_t> digits(double x, const Config& c, Rng& rng) {
  Digits d{};
  fill_digits(x, c, rng, d);
  return {d.begin(), d.begin() + static_cast<std::ptrdiff_t>(c.levels.size())};
}

void encode(double x, const Config& c, Rng& rng, MessageBatch& out) {
  Digits d{};
  fill_digits(x, c, rng, d);
  const std::size_t at = c.levels.size() > 1 ? 1 : 0;
  for (std::size_t j = 0; j < c.levels.size(); ++j) {
    const Level& l = c.levels[j];
    const std::uint32_t y = bernoulli(rng, l.rr.gamma) ? rng.uniform32(l.values) : d[j];
    const auto msg = out.append();
    if (at) msg[0] = static_cast<std::uint8_t>(j);
    if (msg.size() - at == 1) msg[at] = static_cast<std::uint8_t>(y);
    else store_le<std::uint16_t>(msg.data() + at, static_cast<std::uint16_t>(y));
  }
}

double analyze(const MessageBatch& shuffled, const Config& c) {
  std::vector<std::uint64_t> sums(c.levels.size(), 0), counts(c.levels.size(), 0);
  if (shuffled.count() > 0 && shuffled.width() != c.width())
    throw_error(Errc::protocol_violation, "sum-recursive: messages of the wrong width");
  for (std::size_t i = 0; i < shuffled.count(); ++i) {
    const auto d = decode(shuffled[i], c);
    if (d.level >= c.levels.size() || d.value >= c.levels[d.level].values)
      throw_error(Errc::protocol_violation, "sum-recursive: a message with a level or a value out of range");
    sums[d.level] += d.value;
    counts[d.level] += 1;
  }
  double estimate = 0;
  for (std::size_t j = 0; j < c.levels.size(); ++j) {
    const Level& l = c.levels[j];
    const double g = l.rr.gamma;
    const double debiased = static_cast<double>(sums[j]) - static_cast<double>(counts[j]) * g * (l.values - 1) / 2;
    estimate += debiased / ((1 - g) * l.scale);
  }
  return estimate;
}

Value describe(const Config& c) {
  Value levels = Value::array();
  for (const auto& l : c.levels)
    levels.push_back({{"precision", l.precision},
                      {"values", l.values},
                      {"scale", l.scale},
                      {"epsilon", l.epsilon},
                      {"delta", l.delta},
                      {"epsilon0", l.rr.epsilon0},
                      {"uniform_probability", l.rr.gamma},
                      {"bound", rr_bound_name(l.rr.used)},
                      {"delta_at_epsilon0", l.rr.achieved_delta}});
  const std::uint64_t n = c.all_parties ? c.all_parties : c.parties;
  Value v = {{"central", {{"epsilon", c.epsilon}, {"delta", c.delta}, {"parties", c.parties}}},
             {"composition", "basic over the levels: sum of the levels' epsilons, delta/m each"},
             {"bound", rr_bound_name(c.bound)},
             {"precisions", precisions_name(c.precisions)},
             {"messages_per_party", c.levels.size()},
             {"message_bytes", c.width()},
             {"levels", levels},
             {"rmse_bound", std::sqrt(mse_bound(c.levels, n))}};
  if (c.levels.size() > 1) v["input_one"] = "x = 1 is encoded as 1 - 2^-52 (its first digit must stay below p_1)";
  return v;
}

double RecursiveSumMechanism::truth(std::span<const double> xs) const {
  double total = 0;
  for (double x : xs) total += x;
  return total;
}

double RecursiveSumMechanism::predicted_sd() const {
  return std::sqrt(mse_bound(config.levels, config.all_parties ? config.all_parties : config.parties));
}

}  // namespace shufflempc::recursive_sum
