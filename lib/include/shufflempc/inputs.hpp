// Parsers of the inputs protocols share, in one place: bits and yes/no answers as JSON values or
// text, and the --random-inputs specifications of a bit. Each throws std::invalid_argument naming
// who gave the bad value and what is accepted.
#pragma once

#include <optional>
#include <string_view>

#include "shufflempc/algebra.hpp"
#include "shufflempc/input_spec.hpp"
#include "shufflempc/random.hpp"
#include "shufflempc/runtime.hpp"

namespace shufflempc {

// "true", "1", "yes", "on" -> true; "false", "0", "no", "off" -> false; anything else -> nullopt.
[[nodiscard]] std::optional<bool> bool_from_text(std::string_view text);
// A JSON boolean, the integers 0 and 1, or one of the texts above.
[[nodiscard]] std::optional<bool> bool_from_value(const Value& v);

// A party's bit: "<who> must be 0 or 1, got ..." otherwise.
[[nodiscard]] bool parse_bit(const Value& v, std::string_view who);
// The same for a yes/no answer: "<who> must answer yes or no (or 1 / 0), got ..." otherwise.
[[nodiscard]] bool parse_answer(const Value& v, std::string_view who);
// An integer given as a JSON integer or as a decimal string ("-12", "340282366920938463463374607431768211507";
// at most 2500 digits), for values beyond 64 bits; nullopt for anything else.
[[nodiscard]] std::optional<BigInt> integer_from_value(const Value& v);
// The other way: a JSON number when it fits 64 bits (signed or unsigned), a decimal string otherwise.
[[nodiscard]] Value integer_to_value(const BigInt& x);
// "input of party <id>", the name parse_bit and the protocols give a party.
[[nodiscard]] std::string party_name(PartyId id);

// The shared --random-inputs forms (shufflempc/input_spec.hpp) and the samplers that read them.
// Bits: bernoulli[:P] (P = 1/2 by default) or constant:B.
[[nodiscard]] const std::vector<InputForm>& bit_forms();
// Reals in [0, 1]: uniform, constant:X or normal:MEAN:SD (clipped to [0, 1]).
[[nodiscard]] const std::vector<InputForm>& unit_real_forms();
// Elements of {0, ..., domain - 1}: uniform[:K] (the first K; by default the first half of the
// domain, so that some bins are empty), constant:E or normal:MEAN:SD (rounded and clipped).
[[nodiscard]] const std::vector<InputForm>& element_forms();

[[nodiscard]] bool random_bit(std::string_view spec, Rng& rng);
// The same distribution with the spec parsed once: a study draws millions of inputs.
struct BitSampler {
  double p = 0.5;  // P(1)
  [[nodiscard]] bool operator()(Rng& rng) const;
};
[[nodiscard]] BitSampler bit_sampler(std::string_view spec);
[[nodiscard]] double random_unit_real(std::string_view spec, Rng& rng);
// The same with the spec parsed once (the sums' input_sampler: a study draws millions).
struct UnitRealSampler {
  enum class Form { uniform, constant, normal };
  Form form = Form::uniform;
  double a = 0, b = 0;  // constant: a; normal: mean a, sd b (clipped to [0, 1])
  [[nodiscard]] double operator()(Rng& rng) const;
};
[[nodiscard]] UnitRealSampler unit_real_sampler(std::string_view spec);
// A party's real in [0, 1] (the sums' input): "<party> must be a real number in [0, 1], got ..." otherwise.
[[nodiscard]] double parse_unit_real(PartyId id, const Value& v);
// An element of {0, ..., domain - 1} (std::invalid_argument naming the party), and the histogram
// of a list of them.
[[nodiscard]] std::uint32_t parse_element(PartyId id, const Value& v, std::uint32_t domain);
[[nodiscard]] std::vector<std::int64_t> element_counts(std::span<const std::uint32_t> xs, std::uint32_t domain);
[[nodiscard]] std::uint32_t random_element(std::string_view spec, std::uint32_t domain, Rng& rng);
inline constexpr const char* bit_input_help = "one bit per party (0 or 1)";

}  // namespace shufflempc
