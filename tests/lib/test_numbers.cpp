// The one way numbers are read from text (lib/numbers.hpp), and parameters typed once (lib/params.hpp).
#include <doctest/doctest.h>

#include <limits>
#include <stdexcept>
#include <vector>

#include "shufflempc/numbers.hpp"
#include "shufflempc/params.hpp"

using namespace shufflempc;

TEST_CASE("numbers: the whole text or nothing, finite reals, integers and unsigned within their range") {
  CHECK(parse_real("0.5") == 0.5);
  CHECK(parse_real("-2") == -2.0);
  CHECK(parse_real("1e-6") == 1e-6);
  CHECK(parse_real("+3") == 3.0);
  CHECK(parse_real(".5") == 0.5);
  for (const char* bad : {"", " 1", "1 ", "1x", "0x10", "inf", "nan", "1e999", "+", "++1", "+-1", "--1"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_real(bad).has_value());
  }
  CHECK(parse_integer("-12") == -12);
  CHECK(parse_integer("1e6") == 1'000'000);
  CHECK(parse_integer("+7") == 7);
  CHECK_FALSE(parse_integer("1.5").has_value());
  CHECK_FALSE(parse_integer("1e19").has_value());
  CHECK_FALSE(parse_integer("12a").has_value());
  CHECK(parse_unsigned("0042") == 42u);
  CHECK(parse_unsigned("18446744073709551615") == std::numeric_limits<std::uint64_t>::max());
  CHECK_FALSE(parse_unsigned("18446744073709551616").has_value());
  CHECK_FALSE(parse_unsigned("-1").has_value());
  CHECK_FALSE(parse_unsigned("+1").has_value());
  CHECK_FALSE(parse_unsigned("").has_value());
  CHECK(parse_unsigned("65535", 65535) == 65535u);
  CHECK_FALSE(parse_unsigned("65536", 65535).has_value());
}

TEST_CASE("params: each value is read once into its declared type, and asking for another type is an error") {
  const std::vector<ParamSpec> schema = {
      {.name = "epsilon", .type = ParamType::real, .default_value = "1", .help = "", .min = 0.0, .max = 10.0, .min_exclusive = true},
      {.name = "k", .type = ParamType::integer, .default_value = "1e3", .help = "", .min = 1.0, .max = 1e6},
      {.name = "on", .type = ParamType::boolean, .default_value = "yes", .help = ""},
      {.name = "mode", .type = ParamType::choice, .default_value = "a", .help = "", .choices = {"a", "b"}},
  };
  const Params p = Params::parse(schema, {{"epsilon", "+0.25"}});
  CHECK(p.real("epsilon") == 0.25);
  CHECK(p.integer("k") == 1000);
  CHECK(p.real("k") == 1000.0);  // an integer is also a number
  CHECK(p.boolean("on"));
  CHECK(p.text("mode") == "a");
  CHECK(p.text("epsilon") == "+0.25");  // as given: what a session config records
  CHECK_THROWS_AS((void)p.integer("epsilon"), std::invalid_argument);
  CHECK_THROWS_AS((void)p.boolean("k"), std::invalid_argument);
  CHECK_THROWS_AS((void)p.real("mode"), std::invalid_argument);
  CHECK_THROWS_AS((void)p.real("missing"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)Params::parse(schema, {{"epsilon", "0.5 "}}),
                       "parameter 'epsilon' = 0.5  is not a number: must be a number in (0, 10]", std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)Params::parse(schema, {{"k", "2.5"}}), "parameter 'k' = 2.5 is not an integer: must be an integer in [1, 1e+06]",
                       std::invalid_argument);
}

TEST_CASE("format_real prints six significant digits and parse_real reads them back") {
  CHECK(shufflempc::format_real(0.5) == "0.5");
  CHECK(shufflempc::format_real(1e-6) == "1e-06");
  CHECK(shufflempc::format_real(0.69641616) == "0.696416");
  CHECK(shufflempc::format_real(100000) == "100000");
  CHECK(shufflempc::format_real(1234567) == "1.23457e+06");
  for (double v : {0.5, 1e-6, 3.25, -2.0, 1e300})
    CHECK(shufflempc::parse_real(shufflempc::format_real(v)) == doctest::Approx(v).epsilon(1e-6));
}

TEST_CASE("split_items keeps every item of a list, empty ones too") {
  using V = std::vector<std::string>;
  CHECK(shufflempc::split_items("4,47", ',') == V{"4", "47"});
  CHECK(shufflempc::split_items("", ',') == V{""});
  CHECK(shufflempc::split_items("a::b", ':') == V{"a", "", "b"});
  CHECK(shufflempc::split_items("x,", ',') == V{"x", ""});
}

TEST_CASE("shortest_real prints the fewest digits that read back as the same number") {
  CHECK(shortest_real(0.5) == "0.5");
  CHECK(shortest_real(1) == "1");
  CHECK(shortest_real(1e-6) == "1e-06");
  CHECK(shortest_real(0.1) == "0.1");
  for (const double v : {1.0 / 3, 2.0 / 3, 1e300, 5e-324, 123456.789, -0.015625}) CHECK(parse_real(shortest_real(v)) == v);
}
