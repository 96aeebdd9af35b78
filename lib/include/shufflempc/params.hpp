// Declared protocol parameters: a schema (name, type, default, range, help) and validated values.
// The CLI turns each declared parameter into a flag; nothing central knows any protocol's names.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <variant>
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
  // For a parameter whose value may name content read from this host's disk (a program file, a
  // circuit): the path a value reads, nullopt when the value carries everything itself. A session
  // config binds that content's hash, so that every host runs the same program.
  std::function<std::optional<std::string>(const std::string& value)> reads_file;

  // "(0, 1]", "[1, 4096]", "one of: a, b", "true or false", "text"
  [[nodiscard]] std::string range_text() const;
};

class Params {
 public:
  Params() = default;
  // Validates `given` against `schema` (unknown names, types, ranges, choices), fills defaults and
  // reads every number once (shufflempc/numbers.hpp). Throws std::invalid_argument naming the
  // parameter and its accepted range.
  static Params parse(std::span<const ParamSpec> schema, const std::map<std::string, std::string>& given);

  // The typed value; std::invalid_argument if `name` was not declared with that type.
  [[nodiscard]] std::int64_t integer(const std::string& name) const;
  [[nodiscard]] double real(const std::string& name) const;
  [[nodiscard]] bool boolean(const std::string& name) const;
  // Any parameter as it was given (or defaulted): choices and text are read this way.
  [[nodiscard]] const std::string& text(const std::string& name) const;
  [[nodiscard]] bool has(const std::string& name) const { return values_.count(name) != 0; }
  // Every parameter as text (what a session config records).
  [[nodiscard]] const std::map<std::string, std::string>& values() const { return values_; }

 private:
  [[nodiscard]] const std::variant<std::monostate, std::int64_t, double, bool>& typed(const std::string& name) const;
  std::map<std::string, std::string> values_;
  std::map<std::string, std::variant<std::monostate, std::int64_t, double, bool>> typed_;
};

}  // namespace shufflempc
