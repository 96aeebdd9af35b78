// Declared parameters (lib/include/shufflempc/params.hpp).
#include <doctest/doctest.h>

#include <stdexcept>

#include "shufflempc/params.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "support/errors.hpp"

using namespace shufflempc;

TEST_CASE("Params: defaults, types, ranges and choices, with messages naming the parameter and its range") {
  std::vector<ParamSpec> schema = {
      {.name = "epsilon", .type = ParamType::real, .default_value = "1", .min = 0.0, .max = 1.0, .min_exclusive = true},
      {.name = "k", .type = ParamType::integer, .default_value = "8", .min = 1.0, .max = 256.0},
      {.name = "mode", .type = ParamType::choice, .default_value = "a", .choices = {"a", "b"}},
      {.name = "flag", .type = ParamType::boolean, .default_value = "false"},
  };
  const auto p = Params::parse(schema, {{"k", "16"}, {"flag", "yes"}});
  CHECK(p.real("epsilon") == 1.0);
  CHECK(p.integer("k") == 16);
  CHECK(p.text("mode") == "a");
  CHECK(p.boolean("flag"));
  CHECK_THROWS_WITH_AS(Params::parse(schema, {{"epsilon", "0"}}), "parameter 'epsilon' = 0 is out of range: must be a number in (0, 1]", std::invalid_argument);
  CHECK_THROWS_WITH_AS(Params::parse(schema, {{"k", "1.5"}}), doctest::Contains("an integer in [1, 256]"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(Params::parse(schema, {{"mode", "c"}}), doctest::Contains("one of: a, b"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(Params::parse(schema, {{"kk", "1"}}), doctest::Contains("unknown parameter 'kk'"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(Params::parse(schema, {{"epsilon", "abc"}}), doctest::Contains("is not a number"), std::invalid_argument);
  CHECK(Params::parse(schema, {{"k", "1e2"}}).integer("k") == 100);
}

TEST_CASE("params: check_range and check_declared refuse a number outside its declaration as Params::parse does") {
  const std::vector<ParamSpec> schema{{.name = "epsilon", .type = ParamType::real, .default_value = "1", .min = 0.0, .max = 20.0, .min_exclusive = true},
                                      {.name = "k", .type = ParamType::integer, .default_value = "2", .min = 2.0, .max = 8.0, .max_exclusive = true}};
  const auto parsed = [&](const std::string& name, const std::string& text) {
    return shufflempc::test::error_text([&] { (void)Params::parse(schema, {{name, text}}); });
  };
  const auto declared = [&](const std::string& name, double value) {
    return shufflempc::test::error_text([&] { check_declared(schema, name, value); });
  };
  CHECK(declared("epsilon", 0) == parsed("epsilon", "0"));
  CHECK(declared("epsilon", 20.5) == parsed("epsilon", "20.5"));
  CHECK(declared("k", 8) == parsed("k", "8"));
  CHECK(declared("k", 1) == parsed("k", "1"));
  CHECK(declared("epsilon", 0) == "parameter 'epsilon' = 0 is out of range: must be a number in (0, 20]");
  CHECK(declared("epsilon", std::nan("")).find("is out of range") != std::string::npos);
  CHECK_NOTHROW(check_declared(schema, "epsilon", 20));
  CHECK_NOTHROW(check_declared(schema, "k", 7));
  // The text as typed stays in the command line's message.
  CHECK(parsed("epsilon", "3e1") == "parameter 'epsilon' = 3e1 is out of range: must be a number in (0, 20]");
  CHECK_THROWS_AS(check_declared(schema, "delta", 0.1), std::logic_error);
}
