// Declared protocol parameters: a schema (name, type, default, range, help) and validated values.
// The CLI turns each declared parameter into a flag; nothing central knows any protocol's names.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
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
  // The one refusal of a number outside this declaration's range, whoever gave it: the command
  // line (Params::parse, `as_given` the text as typed) or a protocol's own API (its configure(),
  // the number written by format_real). Throws std::invalid_argument "parameter 'epsilon' = 30 is
  // out of range: must be a number in (0, 20]"; nothing when `value` is in range.
  void check_range(double value, std::string_view as_given = {}) const;
};

// check_range of the parameter `name` declared in `schema` (std::logic_error if none is): what a
// protocol's configure() calls for each value it takes that its registry entry declares, so the
// API and the command line refuse the same values in the same words.
void check_declared(std::span<const ParamSpec> schema, std::string_view name, double value);

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
