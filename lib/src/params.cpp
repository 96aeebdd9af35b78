#include "shufflempc/params.hpp"
#include "shufflempc/suggest.hpp"

#include "shufflempc/inputs.hpp"
#include "shufflempc/numbers.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace shufflempc {
namespace {

bool parse_bool(const std::string& s, bool& out) {
  const auto b = bool_from_text(s);
  if (b) out = *b;
  return b.has_value();
}

}  // namespace

std::string ParamSpec::range_text() const {
  switch (type) {
    case ParamType::boolean: return "true or false";
    case ParamType::text: return "text";
    case ParamType::choice: {
      std::string s = "one of: ";
      for (std::size_t i = 0; i < choices.size(); ++i) s += (i ? ", " : "") + choices[i];
      return s;
    }
    case ParamType::integer:
    case ParamType::real: {
      std::string s = type == ParamType::integer ? "an integer in " : "a number in ";
      if (min) s.append(min_exclusive ? "(" : "[").append(format_real(*min));
      else s.append("(-inf");
      s.append(", ");
      if (max) s.append(format_real(*max)).append(max_exclusive ? ")" : "]");
      else s.append("inf)");
      return s;
    }
  }
  return {};
}

void ParamSpec::check_range(double value, std::string_view as_given) const {
  if ((min && (value < *min || (min_exclusive && value == *min))) || (max && (value > *max || (max_exclusive && value == *max))) ||
      std::isnan(value))
    throw std::invalid_argument("parameter '" + name + "' = " + (as_given.empty() ? format_real(value) : std::string(as_given)) +
                                " is out of range: must be " + range_text());
}

void check_declared(std::span<const ParamSpec> schema, std::string_view name, double value) {
  for (const auto& spec : schema)
    if (spec.name == name) return spec.check_range(value);
  throw std::logic_error("check_declared: no parameter '" + std::string(name) + "' is declared");
}

Params Params::parse(std::span<const ParamSpec> schema, const std::map<std::string, std::string>& given) {
  for (const auto& [name, value] : given) {
    bool known = false;
    for (const auto& spec : schema) known = known || spec.name == name;
    if (!known) {
      std::string names;
      std::vector<std::string> all;
      for (const auto& spec : schema) {
        names += (names.empty() ? "" : ", ") + spec.name;
        all.push_back(spec.name);
      }
      throw std::invalid_argument("unknown parameter '" + name + "'" + did_you_mean(name, all) +
                                  (names.empty() ? " (this protocol takes none)" : " (accepted: " + names + ")"));
    }
  }
  Params p;
  for (const auto& spec : schema) {
    auto it = given.find(spec.name);
    const std::string value = it != given.end() ? it->second : spec.default_value;
    if (value.empty()) throw std::invalid_argument("missing parameter '" + spec.name + "': " + spec.range_text());
    const auto bad = [&](const std::string& why) {
      return std::invalid_argument("parameter '" + spec.name + "' = " + value + " " + why + ": must be " +
                                   spec.range_text());
    };
    double number = 0;
    std::variant<std::monostate, std::int64_t, double, bool> typed;
    switch (spec.type) {
      case ParamType::boolean: {
        bool b = false;
        if (!parse_bool(value, b)) throw bad("is not a boolean");
        typed = b;
        break;
      }
      case ParamType::choice: {
        bool ok = false;
        for (const auto& c : spec.choices) ok = ok || c == value;
        if (!ok) throw std::invalid_argument(bad("is not accepted").what() + did_you_mean(value, spec.choices, "; "));
        break;
      }
      case ParamType::integer: {
        const auto v = parse_integer(value);
        if (!v) throw bad("is not an integer");
        number = static_cast<double>(*v);
        typed = *v;
        break;
      }
      case ParamType::real: {
        const auto v = parse_real(value);
        if (!v) throw bad("is not a number");
        number = *v;
        typed = *v;
        break;
      }
      case ParamType::text: break;
    }
    if (spec.type == ParamType::integer || spec.type == ParamType::real) spec.check_range(number, value);
    p.values_[spec.name] = value;
    p.typed_[spec.name] = typed;
  }
  return p;
}

const std::string& Params::text(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw std::invalid_argument("parameter '" + name + "' was not declared");
  return it->second;
}

const std::variant<std::monostate, std::int64_t, double, bool>& Params::typed(const std::string& name) const {
  auto it = typed_.find(name);
  if (it == typed_.end()) throw std::invalid_argument("parameter '" + name + "' was not declared");
  return it->second;
}

std::int64_t Params::integer(const std::string& name) const {
  const auto* v = std::get_if<std::int64_t>(&typed(name));
  if (!v) throw std::invalid_argument("parameter '" + name + "' is not declared as an integer");
  return *v;
}

double Params::real(const std::string& name) const {
  const auto& t = typed(name);
  if (const auto* v = std::get_if<double>(&t)) return *v;
  if (const auto* v = std::get_if<std::int64_t>(&t)) return static_cast<double>(*v);
  throw std::invalid_argument("parameter '" + name + "' is not declared as a number");
}

bool Params::boolean(const std::string& name) const {
  const auto* v = std::get_if<bool>(&typed(name));
  if (!v) throw std::invalid_argument("parameter '" + name + "' is not declared as a boolean");
  return *v;
}

}  // namespace shufflempc
