// The one --random-inputs grammar (shufflempc/input_spec.hpp): forms, argument counts, the LO..HI
// shorthand, typed readers and the words of every refusal.
#include <doctest/doctest.h>

#include <stdexcept>
#include <vector>

#include "shufflempc/input_spec.hpp"

using namespace shufflempc;

namespace {

const std::vector<InputForm> forms{{"uniform", {"LO", "HI"}, 2}, {"normal", {"MEAN", "SD"}}, {"buckets", {"K", "P"}, 1}, {"max", {}}};

std::string refusal(std::string_view text) {
  try {
    (void)InputSpec::parse(text, forms);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("input spec: the empty spec is the first form with every argument at its default") {
  const auto s = InputSpec::parse("", forms);
  CHECK(s.form() == "uniform");
  CHECK_FALSE(s.has(0));
  const auto none = InputSpec::parse("", {});
  CHECK(none.form().empty());
}

TEST_CASE("input spec: forms take their arguments, optional ones may be left out, LO..HI is uniform:LO:HI") {
  const auto n = InputSpec::parse("normal:0.5:0.1", forms);
  CHECK(n.is("normal"));
  CHECK(n.real(0) == 0.5);
  CHECK(n.positive(1) == 0.1);
  const auto b = InputSpec::parse("buckets:3", forms);
  CHECK(b.integer(0, 1, 4) == 3);
  CHECK_FALSE(b.has(1));
  CHECK(InputSpec::parse("buckets:3:0.25", forms).real(1, 0, 1) == 0.25);
  const auto r = InputSpec::parse("-100..100", forms);
  CHECK(r.is("uniform"));
  CHECK(r.integer(0, -1000, 1000) == -100);
  CHECK(r.integer(1, -1000, 1000) == 100);
  CHECK(InputSpec::parse("max", forms).is("max"));
}

TEST_CASE("input spec: an unknown form, a wrong count of arguments or an empty argument is refused with the accepted forms") {
  const std::string accepted = "use uniform[:LO[:HI]], normal:MEAN:SD, buckets:K[:P] or max";
  for (const char* text : {"gaussian", "normal:1", "normal:1:2:3", "max:1", "buckets", "buckets::0.5", "uniform:", "1..2:3", ":"}) {
    CAPTURE(text);
    const auto e = refusal(text);
    CHECK(e.find("--random-inputs '" + std::string(text) + "' is not understood") == 0);
    CHECK(e.find(accepted) != std::string::npos);
  }
  CHECK_THROWS_WITH_AS((void)InputSpec::parse("x", {}), doctest::Contains("nothing (this protocol takes no input)"), std::invalid_argument);
}

TEST_CASE("input spec: the typed readers name the argument, its range and what was given") {
  const auto b = InputSpec::parse("buckets:9:1.5", forms);
  CHECK_THROWS_WITH_AS((void)b.integer(0, 1, 4), "--random-inputs 'buckets:9:1.5': K must be a whole number in [1, 4], got '9'", std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)b.real(1, 0, 1), "--random-inputs 'buckets:9:1.5': P must be a number in [0, 1], got '1.5'", std::invalid_argument);
  const auto n = InputSpec::parse("normal:x:-1", forms);
  CHECK_THROWS_WITH_AS((void)n.real(0), doctest::Contains("MEAN must be a number, got 'x'"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)n.positive(1), doctest::Contains("SD must be a number > 0, got '-1'"), std::invalid_argument);
  CHECK(InputSpec::parse("buckets:1e3", forms).integer(0, 1, 1000) == 1000);  // a real that is a whole number
  CHECK_THROWS_AS((void)InputSpec::parse("buckets:2.5", forms).integer(0, 1, 4), std::invalid_argument);
  const std::vector<InputForm> constant{{"constant", {"V"}}};
  const auto big = InputSpec::parse("constant:340282366920938463463374607431768211455", constant);
  CHECK(big.big_integer(0, 0, (BigInt(1) << 128) - 1) == (BigInt(1) << 128) - 1);
  CHECK_THROWS_WITH_AS((void)big.big_integer(0, 0, 10), doctest::Contains("V must be a whole number in [0, 10]"), std::invalid_argument);
  CHECK(InputSpec::parse("constant:yes", constant).bit(0));
  CHECK_FALSE(InputSpec::parse("constant:0", constant).bit(0));
  CHECK_THROWS_WITH_AS((void)InputSpec::parse("constant:2", constant).bit(0), doctest::Contains("V must be 0 or 1"), std::invalid_argument);
  CHECK_THROWS_AS((void)b.real(2), std::logic_error);  // an argument not given is the caller's bug
}

TEST_CASE("input spec: describe writes optional arguments in brackets") {
  CHECK(describe(forms) == "uniform[:LO[:HI]], normal:MEAN:SD, buckets:K[:P] or max");
  CHECK(describe(std::vector<InputForm>{{"uniform", {}}}) == "uniform");
}
