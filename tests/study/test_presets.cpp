// The study presets (study/presets.cpp): every preset names registered protocols with parameters
// they declare and passes validate() against the built-in registry, each has a note saying what it
// shows and (with axes) a figure axis among them, the names are unique, and an unknown name is refused with
// the list.
#include <doctest/doctest.h>

#include <set>

#include "shufflempc/registry.hpp"
#include "shufflempc/study/study.hpp"

using namespace shufflempc;

TEST_CASE("study presets: every preset validates against the built-in registry, has a note (its JSON's caption) and plots one of its axes if it has any") {
  const Registry registry = builtin_registry();
  const auto names = study::preset_names();
  REQUIRE(names.size() >= 5);
  CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size());
  for (const auto& name : names) {
    CAPTURE(name);
    study::Spec spec = study::preset(name);
    CHECK(spec.name == name);
    CHECK_FALSE(spec.note.empty());
    CHECK(study::to_json(spec, {}, false)["caption"] == spec.note);  // the caption the figure's title leaves out
    REQUIRE_FALSE(spec.series.empty());
    for (const auto& series : spec.series) CHECK(registry.find(series.protocol) != nullptr);
    CHECK_NOTHROW(study::validate(registry, spec));
    if (spec.axes.empty()) continue;  // a table at one setting (the demo's): nothing to plot
    bool plotted = false;
    for (const auto& axis : spec.axes) plotted = plotted || axis.key == spec.x;
    CHECK(plotted);
  }
}

TEST_CASE("study presets: an unknown name is refused with every name") {
  try {
    (void)study::preset("nosuch");
    FAIL("an unknown preset was accepted");
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    CHECK(what.find("--preset: unknown preset 'nosuch'") == 0);
    for (const auto& name : study::preset_names()) CHECK(what.find(name) != std::string::npos);
  }
}
