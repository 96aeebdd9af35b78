// Declared protocol parameters: a schema (name, type, default, range, help) and validated values.
// The CLI turns each declared parameter into a flag; nothing central knows any protocol's names.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace shufflempc {

// text: any non-empty string (a functionality program, a prime); the protocol validates it.
enum class ParamType { integer, real, boolean, choice, text };

struct ParamSpec {
  std::string name;           // the flag is --name
  ParamType type = ParamType::real;
  std::string default_value;  // as text; empty: required
  std::string help;
  std::optional<double> min;  // inclusive unless min_exclusive
  std::optional<double> max;  // inclusive unless max_exclusive
  bool min_exclusive = false;
  bool max_exclusive = false;
  std::vector<std::string> choices;  // for ParamType::choice

  // "(0, 1]", "[1, 4096]", "one of: a, b", "true or false", "text"
  [[nodiscard]] std::string range_text() const;
};

class Params {
 public:
  Params() = default;
  // Validates `given` against `schema` (unknown names, types, ranges, choices) and fills defaults.
  // Throws std::invalid_argument naming the parameter and its accepted range.
  static Params parse(std::span<const ParamSpec> schema, const std::map<std::string, std::string>& given);

  [[nodiscard]] std::int64_t integer(const std::string& name) const;
  [[nodiscard]] double real(const std::string& name) const;
  [[nodiscard]] bool boolean(const std::string& name) const;
  [[nodiscard]] const std::string& text(const std::string& name) const;
  [[nodiscard]] bool has(const std::string& name) const { return values_.count(name) != 0; }
  [[nodiscard]] const std::map<std::string, std::string>& values() const { return values_; }

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace shufflempc
