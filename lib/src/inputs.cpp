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

const std::vector<InputForm>& bit_forms() {
  static const std::vector<InputForm> forms{{"bernoulli", {"P"}, 1}, {"constant", {"B"}}};
  return forms;
}

const std::vector<InputForm>& unit_real_forms() {
  static const std::vector<InputForm> forms{{"uniform", {}}, {"constant", {"X"}}, {"normal", {"MEAN", "SD"}}};
  return forms;
}

const std::vector<InputForm>& element_forms() {
  static const std::vector<InputForm> forms{{"uniform", {"K"}, 1}, {"constant", {"E"}}, {"normal", {"MEAN", "SD"}}};
  return forms;
}

BitSampler bit_sampler(std::string_view text) {
  const auto spec = InputSpec::parse(text, bit_forms());
  if (spec.is("constant")) return {spec.bit(0) ? 1.0 : 0.0};
  return {spec.has(0) ? spec.real(0, 0, 1) : 0.5};
}

bool BitSampler::operator()(Rng& rng) const { return bernoulli(rng, p); }

bool random_bit(std::string_view spec, Rng& rng) { return bit_sampler(spec)(rng); }

namespace {

// A standard normal by Box-Muller (simulated inputs only).
double standard_normal(Rng& rng) {
  const double u = 1.0 - rng.uniform01();  // (0, 1]
  return std::sqrt(-2 * std::log(u)) * std::cos(2 * 3.14159265358979323846 * rng.uniform01());
}

}  // namespace

UnitRealSampler unit_real_sampler(std::string_view text) {
  const auto spec = InputSpec::parse(text, unit_real_forms());
  if (spec.is("normal")) return {UnitRealSampler::Form::normal, spec.real(0), spec.positive(1)};
  if (spec.is("constant")) return {UnitRealSampler::Form::constant, spec.real(0, 0, 1), 0};
  return {};
}

double UnitRealSampler::operator()(Rng& rng) const {
  switch (form) {
    case Form::normal: return std::clamp(a + b * standard_normal(rng), 0.0, 1.0);
    case Form::constant: return a;
    case Form::uniform: break;
  }
  return rng.uniform01();
}

double random_unit_real(std::string_view text, Rng& rng) { return unit_real_sampler(text)(rng); }

double parse_unit_real(PartyId id, const Value& v) {
  if (v.is_number() && v.get<double>() >= 0 && v.get<double>() <= 1) return v.get<double>();
  throw std::invalid_argument(party_name(id) + " must be a real number in [0, 1], got " + v.dump());
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

std::uint32_t random_element(std::string_view text, std::uint32_t domain, Rng& rng) {
  const auto spec = InputSpec::parse(text, element_forms());
  if (spec.is("normal")) {
    const double x = std::round(spec.real(0) + spec.positive(1) * standard_normal(rng));
    return static_cast<std::uint32_t>(std::clamp(x, 0.0, static_cast<double>(domain - 1)));
  }
  if (spec.is("constant")) return static_cast<std::uint32_t>(spec.integer(0, 0, std::int64_t{domain} - 1));
  const std::uint64_t k = spec.has(0) ? static_cast<std::uint64_t>(spec.integer(0, 1, domain)) : std::max<std::uint32_t>(1, domain / 2);
  return static_cast<std::uint32_t>(rng.uniform(k));
}

}  // namespace shufflempc
