// The one grammar of --random-inputs (and of a study's --inputs): how simulated inputs are drawn
// for demos, tests and studies (never secrets).
//
//   SPEC := ""                      the protocol's first form, every argument at its default
//         | FORM                    e.g. uniform, max
//         | FORM ":" ARG {":" ARG}  e.g. bernoulli:0.3, normal:0.5:0.1, buckets:4:0.3, constant:yes
//         | LO ".." HI              shorthand for uniform:LO:HI (e.g. -100..100)
//
// A protocol declares the forms it accepts (a name, its arguments' names, how many of the last may
// be left out). InputSpec::parse checks the form and the number of arguments once; the typed
// readers check one argument's type and range. Every error names the spec, the argument and what
// is accepted, in the same words for every protocol; describe() writes the forms for --help.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "shufflempc/algebra.hpp"

namespace shufflempc {

struct InputForm {
  std::string name;               // "bernoulli"
  std::vector<std::string> args;  // "P"
  std::size_t optional = 0;       // how many of the last arguments may be left out
};

class InputSpec {
 public:
  // Throws std::invalid_argument ("--random-inputs 'X' is not understood: use ...") for a form not
  // in `forms` or a wrong number of arguments. An empty `forms` accepts only "" (no input).
  [[nodiscard]] static InputSpec parse(std::string_view text, std::span<const InputForm> forms);

  [[nodiscard]] const std::string& form() const { return form_; }
  [[nodiscard]] bool is(std::string_view form) const { return form_ == form; }
  [[nodiscard]] bool has(std::size_t i) const { return i < args_.size(); }

  // Argument i (which must be given: check has(i) for an optional one), typed and in range; else
  // std::invalid_argument "--random-inputs 'X': NAME must be ..., got 'V'".
  [[nodiscard]] double real(std::size_t i) const;                          // any finite number
  [[nodiscard]] double real(std::size_t i, double lo, double hi) const;    // in [lo, hi]
  [[nodiscard]] double positive(std::size_t i) const;                      // > 0
  [[nodiscard]] std::int64_t integer(std::size_t i, std::int64_t lo, std::int64_t hi) const;  // in [lo, hi]
  [[nodiscard]] BigInt big_integer(std::size_t i, const BigInt& lo, const BigInt& hi) const;  // in [lo, hi]
  [[nodiscard]] bool bit(std::size_t i) const;  // 0, 1, yes, no, true, false, on, off

 private:
  [[nodiscard]] const std::string& arg(std::size_t i) const;
  // "--random-inputs 'X': NAME must be ACCEPTED, got 'V'".
  [[noreturn]] void bad(std::size_t i, const std::string& accepted) const;
  std::string text_, form_;
  std::vector<std::string> args_, names_;
};

// "bernoulli[:P] or constant:B"; "nothing (no input)" for no forms.
[[nodiscard]] std::string describe(std::span<const InputForm> forms);

}  // namespace shufflempc
