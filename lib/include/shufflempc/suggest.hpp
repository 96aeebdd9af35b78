// The nearest names to a mistyped one, for errors that suggest what was meant ("unknown protocol
// 'countng': did you mean 'counting'?"), as git and cargo do. One mechanism for every name the
// library and the command line refuse: commands, flags, protocols, presets, choices, parameters.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace shufflempc {

// Edit distance with adjacent transpositions (optimal string alignment: "rnu" is 1 from "run").
[[nodiscard]] std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidates nearest to `word`, at most three, best first: those at the smallest edit distance
// when it is at most a third of the word's length (at least 1, at most 3), else the one candidate
// `word` is a prefix of, else none; a word of fewer than three characters has none ("-x" is one edit
// from every one-letter flag). Case is ignored ("HISTOGRAM" suggests "histogram"); leading dashes ("--partys") are compared without them.
[[nodiscard]] std::vector<std::string> nearest_names(std::string_view word, std::span<const std::string> candidates);

// ": did you mean 'X'?" / ": did you mean 'X' or 'Y'?" for nearest_names (`lead` first: ": " by
// default), or "" when none is near.
[[nodiscard]] std::string did_you_mean(std::string_view word, std::span<const std::string> candidates,
                                       std::string_view lead = ": ");

}  // namespace shufflempc
