// The nearest names to a mistyped one (suggest.hpp): the distance, which names are near, and the
// sentence every refusal of a name appends.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "shufflempc/suggest.hpp"

using shufflempc::did_you_mean;
using shufflempc::edit_distance;
using shufflempc::nearest_names;

TEST_CASE("edit distance counts insertions, deletions, substitutions and adjacent transpositions as one edit each") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("run", "run") == 0);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("abc", "") == 3);
  CHECK(edit_distance("rnu", "run") == 1);          // a transposition
  CHECK(edit_distance("countng", "counting") == 1);  // an insertion
  CHECK(edit_distance("epsilom", "epsilon") == 1);   // a substitution
  CHECK(edit_distance("partys", "parties") == 2);
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("ca", "abc") == 3);  // optimal string alignment: no edit of a transposed pair
  // Symmetric on every pair of a small alphabet's words up to length 3.
  const std::vector<std::string> words{"", "a", "b", "ab", "ba", "aab", "abb", "bab", "bba"};
  for (const auto& x : words)
    for (const auto& y : words) CHECK(edit_distance(x, y) == edit_distance(y, x));
}

TEST_CASE("the nearest names: the closest within a third of the word, ties together, a unique prefix, and none for short or far words") {
  const std::vector<std::string> protocols{"counting", "counting-balcer-cheu", "histogram", "sum-harmony", "sum-blanket", "randomized-response"};
  CHECK(nearest_names("countng", protocols) == std::vector<std::string>{"counting"});
  CHECK(nearest_names("histgram", protocols) == std::vector<std::string>{"histogram"});
  CHECK(nearest_names("HISTOGRAM", protocols) == std::vector<std::string>{"histogram"});  // names are case-sensitive
  CHECK(nearest_names("sum-harmoni", protocols) == std::vector<std::string>{"sum-harmony"});
  CHECK(nearest_names("randomized", protocols) == std::vector<std::string>{"randomized-response"});  // a prefix
  CHECK(nearest_names("sum", protocols).empty());  // a prefix of two: no guess
  CHECK(nearest_names("xyzzy", protocols).empty());
  const std::vector<std::string> flags{"--parties", "--epsilon", "--epsilon0", "--delta", "-n", "-h"};
  CHECK(nearest_names("--partys", flags) == std::vector<std::string>{"--parties"});
  const std::vector<std::string> amplify{"--parties", "--epsilon0", "--delta", "--k", "--rounds"};
  CHECK(nearest_names("--epsilon", amplify) == std::vector<std::string>{"--epsilon0"});
  CHECK(nearest_names("--epsilom", flags) == std::vector<std::string>{"--epsilon"});
  CHECK(nearest_names("--deltas", flags) == std::vector<std::string>{"--delta"});
  CHECK(nearest_names("-x", flags).empty());  // one edit from every one-letter flag: no guess
  const std::vector<std::string> ties{"abcd", "abce", "abcf", "abcg", "zzzz"};
  CHECK(nearest_names("abcz", ties) == std::vector<std::string>{"abcd", "abce", "abcf"});  // at most three, in order
}

TEST_CASE("did you mean: the sentence, with one, two or three names, and nothing when none is near") {
  const std::vector<std::string> two{"lecture", "lectures"};
  CHECK(did_you_mean("lectur", std::vector<std::string>{"lecture", "calibrated"}) == ": did you mean 'lecture'?");
  CHECK(did_you_mean("lecturr", two) == ": did you mean 'lecture'?");
  CHECK(did_you_mean("abcz", std::vector<std::string>{"abcd", "abce"}) == ": did you mean 'abcd' or 'abce'?");
  CHECK(did_you_mean("abcz", std::vector<std::string>{"abcd", "abce", "abcf"}) == ": did you mean 'abcd', 'abce' or 'abcf'?");
  CHECK(did_you_mean("calibratd", std::vector<std::string>{"lecture", "calibrated"}, "; ") == "; did you mean 'calibrated'?");
  CHECK(did_you_mean("zzzzzz", two).empty());
}
