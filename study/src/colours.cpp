// One colour per protocol and per series in every figure (study.hpp: colour_of, figure_colours).
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "shufflempc/study/study.hpp"

namespace shufflempc::study {
namespace {

// Dark, distinct colours on white (gnuplot's default sixth is a pale yellow).
constexpr std::array<const char*, 12> palette = {"#7b2cbf", "#1b9e77", "#377eb8", "#d95f02", "#e7298a", "#222222",
                                                 "#a6761d", "#66a61e", "#8c8c8c", "#b2182b", "#00a0b0", "#e6ab02"};
enum Colour : std::size_t { purple, teal, blue, orange, pink, black, brown, green, grey, red, cyan, mustard };

// The fixed colours. The baselines keep one role colour across the presets (central: black; the
// local randomizers: grey, Laplace's local sum brown), a protocol its colour wherever it appears,
// and the protocols of one preset (counting_series, histogram_series, sum_series in presets.cpp)
// or of one function of `study rounds` differ (tests/study/test_colours.cpp checks both).
const std::map<std::string, std::size_t, std::less<>>& fixed() {
  static const std::map<std::string, std::size_t, std::less<>> table = {
      // Baselines.
      {"central-laplace", black},
      {"histogram-central-laplace", black},
      {"sum-central-laplace", black},
      {"randomized-response", grey},
      {"histogram-rr-amplified model=local", grey},
      {"sum-harmony", grey},
      {"sum-local-laplace", brown},
      // Counting, histograms and sums in the shuffle model.
      {"counting", blue},
      {"counting noise=calibrated", blue},
      {"counting noise=lecture", purple},
      {"counting-balcer-cheu", orange},
      {"counting-rr-amplified", teal},
      {"counting-correlated", pink},
      {"split-mix-dp-sum", green},
      {"histogram noise=lecture", purple},
      {"histogram noise=lecture variant=parallel", blue},
      {"histogram-rr-amplified", teal},
      {"sum-blanket", orange},
      {"sum-recursive messages=2", blue},
      {"sum-recursive messages=3", purple},
      // What each round buys (`study rounds`).
      {"split-mix-sum", green},
      {"mpc2", blue},
      {"circuit v1", orange},
      {"circuit v2", teal},
      {"circuit v3", pink},
      {"circuit bgw", purple},
      {"card-and", brown},
      {"xor-sum-rr", red},
      {"xor-sum-exact", cyan},
  };
  return table;
}

std::size_t index_of(const std::string& name) {
  const auto& t = fixed();
  if (const auto it = t.find(name); it != t.end()) return it->second;
  // FNV-1a: a name's colour must not change from one build or platform to the next (std::hash may).
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const unsigned char c : name) h = (h ^ c) * 0x100000001b3ULL;
  return static_cast<std::size_t>(h % palette.size());
}

bool literal(const std::string& name) { return name.size() == 7 && name[0] == '#'; }

}  // namespace

std::string colour_of(const std::string& name) { return literal(name) ? name : palette[index_of(name)]; }

std::vector<std::string> figure_colours(const std::vector<std::string>& names) {
  std::map<std::string, std::string> given;  // name -> its colour in this figure
  std::vector<bool> taken(palette.size(), false);
  const auto give = [&](const std::string& name) {
    if (given.count(name)) return;
    if (literal(name)) {
      given.emplace(name, name);
      return;
    }
    std::size_t i = index_of(name);
    if (taken[i]) {
      const auto free = std::find(taken.begin(), taken.end(), false);
      if (free != taken.end()) i = static_cast<std::size_t>(free - taken.begin());  // else more names than colours: shared
    }
    taken[i] = true;
    given.emplace(name, palette[i]);
  };
  // The names with a fixed colour first, so that a hashed name never moves one of them.
  for (const auto& name : names)
    if (fixed().count(name)) give(name);
  for (const auto& name : names) give(name);
  std::vector<std::string> out;
  out.reserve(names.size());
  for (const auto& name : names) out.push_back(given.at(name));
  return out;
}

}  // namespace shufflempc::study
