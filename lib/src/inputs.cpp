#include "shufflempc/inputs.hpp"

#include "shufflempc/numbers.hpp"

#include "shufflempc/samplers.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace shufflempc {

std::optional<bool> bool_from_text(std::string_view s) {
  if (s == "true" || s == "1" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "0" || s == "no" || s == "off") return false;
  return std::nullopt;
}

std::optional<BigInt> integer_from_value(const Value& v) {
  if (v.is_number_unsigned()) return BigInt(v.get<std::uint64_t>());
  if (v.is_number_integer()) return BigInt(v.get<std::int64_t>());
  if (!v.is_string()) return std::nullopt;
  const std::string& s = v.get_ref<const std::string&>();
  const std::size_t sign = s.starts_with('-') ? 1 : 0;
  if (s.size() == sign || s.size() - sign > 2500 || s.find_first_not_of("0123456789", sign) != std::string::npos) return std::nullopt;
  return BigInt(s);
}

Value integer_to_value(const BigInt& x) {
  if (x >= 0 && x <= std::numeric_limits<std::uint64_t>::max()) return static_cast<std::uint64_t>(x);
  if (x < 0 && x >= std::numeric_limits<std::int64_t>::min()) return static_cast<std::int64_t>(x);
  return x.str();
}

std::optional<bool> bool_from_value(const Value& v) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number_integer()) {
    const auto i = v.get<std::int64_t>();
    if (i == 0 || i == 1) return i == 1;
    return std::nullopt;
  }
  if (v.is_string()) return bool_from_text(v.get_ref<const std::string&>());
  return std::nullopt;
}

std::string party_name(PartyId id) { return "input of party " + std::to_string(id); }

bool parse_bit(const Value& v, std::string_view who) {
  if (auto b = bool_from_value(v)) return *b;
  throw std::invalid_argument(std::string(who) + " must be 0 or 1, got " + v.dump());
}

bool parse_answer(const Value& v, std::string_view who) {
  if (auto b = bool_from_value(v)) return *b;
  throw std::invalid_argument(std::string(who) + " must answer yes or no (or 1 / 0), got " + v.dump());
}

BitSampler bit_sampler(std::string_view spec) {
  if (spec.empty() || spec == "bernoulli") return {0.5};
  if (spec.starts_with("bernoulli:")) {
    const auto p = parse_real(spec.substr(10));
    if (!p || !(*p >= 0 && *p <= 1))
      throw std::invalid_argument("--random-inputs bernoulli:P needs P in [0, 1], got '" + std::string(spec.substr(10)) + "'");
    return {*p};
  }
  if (spec == "constant:0") return {0.0};
  if (spec == "constant:1") return {1.0};
  throw std::invalid_argument("--random-inputs '" + std::string(spec) + "' is not understood: use bernoulli:P or constant:B");
}

bool BitSampler::operator()(Rng& rng) const { return bernoulli(rng, p); }

bool random_bit(std::string_view spec, Rng& rng) { return bit_sampler(spec)(rng); }

namespace {

// "normal:MEAN:SD" -> (mean, sd); nullopt for another form.
std::optional<std::pair<double, double>> normal_spec(std::string_view spec, const char* accepted) {
  if (!spec.starts_with("normal:")) return std::nullopt;
  const std::string_view rest = spec.substr(7);
  const std::size_t colon = rest.find(':');
  if (colon != std::string_view::npos) {
    const auto mean = parse_real(rest.substr(0, colon)), sd = parse_real(rest.substr(colon + 1));
    if (mean && sd && *sd > 0) return std::pair{*mean, *sd};
  }
  throw std::invalid_argument("--random-inputs '" + std::string(spec) + "': normal:MEAN:SD needs two numbers, SD > 0 (" + accepted + ")");
}

// A standard normal by Box-Muller (simulated inputs only).
double standard_normal(Rng& rng) {
  const double u = 1.0 - rng.uniform01();  // (0, 1]
  return std::sqrt(-2 * std::log(u)) * std::cos(2 * 3.14159265358979323846 * rng.uniform01());
}

double number_after(std::string_view spec, std::size_t at, const char* accepted) {
  if (const auto v = parse_real(spec.substr(at))) return *v;
  throw std::invalid_argument("--random-inputs '" + std::string(spec) + "' is not understood: use " + accepted);
}

}  // namespace

double random_unit_real(std::string_view spec, Rng& rng) {
  static constexpr const char* accepted = "uniform, constant:X or normal:MEAN:SD";
  if (spec.empty() || spec == "uniform") return rng.uniform01();
  if (const auto n = normal_spec(spec, accepted)) return std::clamp(n->first + n->second * standard_normal(rng), 0.0, 1.0);
  if (spec.starts_with("constant:")) {
    const double x = number_after(spec, 9, accepted);
    if (!(x >= 0 && x <= 1)) throw std::invalid_argument("--random-inputs constant:X needs X in [0, 1]");
    return x;
  }
  throw std::invalid_argument("--random-inputs '" + std::string(spec) + "' is not understood: use " + accepted);
}

std::uint32_t parse_element(PartyId id, const Value& v, std::uint32_t domain) {
  if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() >= domain)
    throw std::invalid_argument(party_name(id) + " must be an element in [0, " + std::to_string(domain) + "), got " + v.dump());
  return static_cast<std::uint32_t>(v.get<std::int64_t>());
}

std::vector<std::int64_t> element_counts(std::span<const std::uint32_t> xs, std::uint32_t domain) {
  std::vector<std::int64_t> counts(domain, 0);
  for (std::uint32_t x : xs) counts.at(x) += 1;
  return counts;
}

std::uint32_t random_element(std::string_view spec, std::uint32_t domain, Rng& rng) {
  static constexpr const char* accepted = "uniform:K, constant:E or normal:MEAN:SD";
  if (const auto n = normal_spec(spec, accepted)) {
    const double x = std::round(n->first + n->second * standard_normal(rng));
    return static_cast<std::uint32_t>(std::clamp(x, 0.0, static_cast<double>(domain - 1)));
  }
  if (spec.starts_with("constant:")) {
    const double e = number_after(spec, 9, accepted);
    if (!(e >= 0 && e < domain && e == std::floor(e)))
      throw std::invalid_argument("--random-inputs constant:E needs an element in [0, " + std::to_string(domain) + ")");
    return static_cast<std::uint32_t>(e);
  }
  double k = std::max<std::uint32_t>(1, domain / 2);
  if (spec.starts_with("uniform:")) k = number_after(spec, 8, accepted);
  else if (!spec.empty() && spec != "uniform") throw std::invalid_argument("--random-inputs '" + std::string(spec) + "' is not understood: use " + accepted);
  if (!(k >= 1 && k <= domain && k == std::floor(k))) throw std::invalid_argument("--random-inputs uniform:K needs K in [1, domain]");
  return static_cast<std::uint32_t>(rng.uniform(static_cast<std::uint64_t>(k)));
}

}  // namespace shufflempc
