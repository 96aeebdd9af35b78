// Numbers from text, the one way shufflempc reads them (parameters, --vary values, input specs,
// addresses, configs): std::from_chars on the WHOLE text, so no locale, no leading space and no
// trailing characters; one leading '+' is allowed. Reals must be finite. Each returns nullopt for
// anything else; the caller names the option and its accepted range in its error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shufflempc {

// A finite decimal number: "0.5", "-2", "1e-6", "+3".
[[nodiscard]] std::optional<double> parse_real(std::string_view text);
// A signed whole number in digits ("-12"), or a real that is exactly one ("1e6") within 2^63.
[[nodiscard]] std::optional<std::int64_t> parse_integer(std::string_view text);
// Digits only ("0042" is 42), at most `max`.
[[nodiscard]] std::optional<std::uint64_t> parse_unsigned(std::string_view text, std::uint64_t max = ~std::uint64_t{0});

// The items of a list ("4,47" by ',' -> {"4", "47"}; "" -> {""}; empty items kept), for a caller to parse.
[[nodiscard]] std::vector<std::string> split_items(std::string_view text, char sep);

// A real as errors and generated values print it: six significant digits, as printf's "%.6g"
// ("0.5", "1e-06", "0.696416"); parse_real reads it back.
[[nodiscard]] std::string format_real(double v);

// The shortest text that reads back as v ("0.5", "1", "1e-06").
[[nodiscard]] std::string shortest_real(double v);

}  // namespace shufflempc
