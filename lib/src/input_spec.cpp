#include "shufflempc/input_spec.hpp"

#include <stdexcept>

#include "shufflempc/inputs.hpp"
#include "shufflempc/numbers.hpp"

namespace shufflempc {

namespace {

std::string form_text(const InputForm& f) {
  std::string s = f.name;
  const std::size_t required = f.args.size() - std::min(f.optional, f.args.size());
  for (std::size_t i = 0; i < f.args.size(); ++i) s += i < required ? ":" + f.args[i] : "[:" + f.args[i];
  for (std::size_t i = required; i < f.args.size(); ++i) s += "]";
  return s;
}

std::vector<std::string> split_colons(std::string_view text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = text.find(':', start);
    parts.emplace_back(text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

}  // namespace

std::string describe(std::span<const InputForm> forms) {
  if (forms.empty()) return "nothing (this protocol takes no input)";
  std::string s;
  for (std::size_t i = 0; i < forms.size(); ++i) {
    if (i > 0) s += i + 1 == forms.size() ? " or " : ", ";
    s += form_text(forms[i]);
  }
  return s;
}

InputSpec InputSpec::parse(std::string_view text, std::span<const InputForm> forms) {
  InputSpec spec;
  spec.text_ = std::string(text);
  const auto refuse = [&] {
    return std::invalid_argument("--random-inputs '" + std::string(text) + "' is not understood: use " + describe(forms));
  };
  if (text.empty()) {
    if (!forms.empty()) {
      spec.form_ = forms[0].name;
      spec.names_ = forms[0].args;
    }
    return spec;
  }
  std::vector<std::string> parts;
  if (const std::size_t dots = text.find(".."); dots != std::string_view::npos && text.find(':') == std::string_view::npos)
    parts = {"uniform", std::string(text.substr(0, dots)), std::string(text.substr(dots + 2))};
  else parts = split_colons(text);
  for (const auto& f : forms) {
    if (f.name != parts[0]) continue;
    const std::size_t given = parts.size() - 1;
    if (given > f.args.size() || given + std::min(f.optional, f.args.size()) < f.args.size()) throw refuse();
    for (std::size_t i = 1; i < parts.size(); ++i)
      if (parts[i].empty()) throw refuse();
    spec.form_ = f.name;
    spec.names_ = f.args;
    spec.args_.assign(parts.begin() + 1, parts.end());
    return spec;
  }
  throw refuse();
}

const std::string& InputSpec::arg(std::size_t i) const {
  if (i >= args_.size()) throw std::logic_error("InputSpec '" + text_ + "': argument " + std::to_string(i) + " was not given");
  return args_[i];
}

void InputSpec::bad(std::size_t i, const std::string& accepted) const {
  throw std::invalid_argument("--random-inputs '" + text_ + "': " + (i < names_.size() ? names_[i] : std::string("an argument")) +
                              " must be " + accepted + ", got '" + arg(i) + "'");
}

double InputSpec::real(std::size_t i) const {
  if (const auto v = parse_real(arg(i))) return *v;
  bad(i, "a number");
}

double InputSpec::real(std::size_t i, double lo, double hi) const {
  const auto v = parse_real(arg(i));
  if (!v || !(*v >= lo && *v <= hi)) bad(i, "a number in [" + shortest_real(lo) + ", " + shortest_real(hi) + "]");
  return *v;
}

double InputSpec::positive(std::size_t i) const {
  const auto v = parse_real(arg(i));
  if (!v || !(*v > 0)) bad(i, "a number > 0");
  return *v;
}

std::int64_t InputSpec::integer(std::size_t i, std::int64_t lo, std::int64_t hi) const {
  const auto v = parse_integer(arg(i));
  if (!v || *v < lo || *v > hi) bad(i, "a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return *v;
}

BigInt InputSpec::big_integer(std::size_t i, const BigInt& lo, const BigInt& hi) const {
  const auto v = integer_from_value(Value(arg(i)));
  if (!v || *v < lo || *v > hi) bad(i, "a whole number in [" + lo.str() + ", " + hi.str() + "]");
  return *v;
}

bool InputSpec::bit(std::size_t i) const {
  if (const auto b = bool_from_text(arg(i))) return *b;
  bad(i, "0 or 1 (or yes / no)");
}

}  // namespace shufflempc
