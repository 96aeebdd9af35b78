// One colour per protocol and per series in every figure (study/colours.cpp): a preset's series keep
// their fixed colours and differ from each other, a series has the same colour in every preset that
// draws it, the protocols of `study rounds` differ within each function and across its figure, a
// name without a fixed colour never takes one a fixed name of the same figure holds, and the
// presets' legends speak in words with the model first.
#include <doctest/doctest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "shufflempc/experiments/rounds.hpp"
#include "shufflempc/registry.hpp"
#include "shufflempc/study/study.hpp"

using namespace shufflempc;

namespace {

bool distinct(const std::vector<std::string>& v) { return std::set<std::string>(v.begin(), v.end()).size() == v.size(); }

}  // namespace

TEST_CASE("colours: every preset's series keep their own colours, which differ within the preset, and a series has one colour in every preset") {
  const Registry registry = builtin_registry();
  std::map<std::string, std::string> seen;  // label -> its colour in the first preset that drew it
  for (const auto& name : study::preset_names()) {
    CAPTURE(name);
    study::Spec spec = study::preset(name);
    study::validate(registry, spec);
    std::vector<std::string> labels;
    for (const auto& s : spec.series) labels.push_back(s.label);
    const auto colours = study::figure_colours(labels);
    CHECK(distinct(colours));
    for (std::size_t i = 0; i < labels.size(); ++i) {
      CAPTURE(labels[i]);
      CHECK(colours[i] == study::colour_of(labels[i]));  // its fixed colour: nothing moved it
      const auto [it, first] = seen.emplace(labels[i], colours[i]);
      CHECK(it->second == colours[i]);
    }
    // The legend in words: the model first, never the label's parameter syntax.
    for (const auto& s : spec.series) {
      CAPTURE(s.label);
      CHECK((s.legend.starts_with("local: ") || s.legend.starts_with("shuffle: ") || s.legend.starts_with("central: ")));
      CHECK(s.legend.find('=') == std::string::npos);
    }
  }
  // The baselines keep their role's colour across the presets.
  CHECK(study::colour_of("central-laplace") == study::colour_of("sum-central-laplace"));
  CHECK(study::colour_of("central-laplace") == study::colour_of("histogram-central-laplace"));
  CHECK(study::colour_of("randomized-response") == study::colour_of("histogram-rr-amplified model=local"));
}

TEST_CASE("colours: the protocols of study rounds differ within each function and across its whole figure") {
  experiments::RoundsStudyOptions o;
  o.parties = 3;
  o.trials = 1;
  o.functions = {"sum", "xor-sum", "and", "inner-product", "aes-128", "sha-256"};
  o.length = 2;
  const auto s = experiments::run_rounds_study(o);
  std::vector<std::string> all;
  std::map<std::string, std::vector<std::string>> by_function;
  for (const auto& r : s.rows) {
    if (std::find(all.begin(), all.end(), r.protocol) == all.end()) all.push_back(r.protocol);
    by_function[r.function].push_back(study::colour_of(r.protocol));
  }
  for (const auto& [function, colours] : by_function) {
    CAPTURE(function);
    CHECK(distinct(colours));
  }
  const auto colours = study::figure_colours(all);
  CHECK(distinct(colours));
  for (std::size_t i = 0; i < all.size(); ++i) CHECK(colours[i] == study::colour_of(all[i]));
}

TEST_CASE("colours: within a figure a name takes the first free colour when an earlier name holds its own, and fixed names never move") {
  // Two names with one hashed colour: the second moves, the first keeps it; a name repeated keeps
  // the colour it was given.
  std::string a = "my-protocol-0", b;
  for (int i = 1; i < 10000 && b.empty(); ++i) {
    const std::string candidate = "my-protocol-" + std::to_string(i);
    if (study::colour_of(candidate) == study::colour_of(a)) b = candidate;
  }
  REQUIRE_FALSE(b.empty());
  const auto two = study::figure_colours({a, b, a});
  CHECK(two[0] == study::colour_of(a));
  CHECK(two[1] != two[0]);
  CHECK(two[2] == two[0]);
  // A hashed name before a fixed one that shares its colour: the fixed one keeps it.
  std::string before;
  for (int i = 0; i < 10000 && before.empty(); ++i) {
    const std::string candidate = "other-" + std::to_string(i);
    if (study::colour_of(candidate) == study::colour_of("mpc2")) before = candidate;
  }
  REQUIRE_FALSE(before.empty());
  const auto fixed_wins = study::figure_colours({before, "mpc2"});
  CHECK(fixed_wins[1] == study::colour_of("mpc2"));
  CHECK(fixed_wins[0] != fixed_wins[1]);
  // A colour given as such is itself, and takes no place from a name.
  CHECK(study::colour_of(study::neutral_colour) == study::neutral_colour);
  CHECK(study::figure_colours({study::neutral_colour, "mpc2"}) == std::vector<std::string>{study::neutral_colour, study::colour_of("mpc2")});
}
