#include "shufflempc/inputs.hpp"

#include "shufflempc/samplers.hpp"

#include <charconv>
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
    const std::string text(spec.substr(10));
    std::size_t used = 0;
    double p = -1;
    try {
      p = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != text.size() || !(p >= 0 && p <= 1))
      throw std::invalid_argument("--random-inputs bernoulli:P needs P in [0, 1], got '" + text + "'");
    return {p};
  }
  if (spec == "constant:0") return {0.0};
  if (spec == "constant:1") return {1.0};
  throw std::invalid_argument("--random-inputs '" + std::string(spec) + "' is not understood: use bernoulli:P or constant:B");
}

bool BitSampler::operator()(Rng& rng) const { return bernoulli(rng, p); }

bool random_bit(std::string_view spec, Rng& rng) { return bit_sampler(spec)(rng); }

}  // namespace shufflempc
