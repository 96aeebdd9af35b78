// The shared input parsers and --random-inputs specifications (lib/inputs.hpp).
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "shufflempc/inputs.hpp"
#include "support/errors.hpp"

using namespace shufflempc;

TEST_CASE("inputs: bits and answers in every accepted spelling, anything else refused with who gave it") {
  for (const char* t : {"true", "1", "yes", "on"}) CHECK(bool_from_text(t) == true);
  for (const char* t : {"false", "0", "no", "off"}) CHECK(bool_from_text(t) == false);
  CHECK_FALSE(bool_from_text("2").has_value());
  CHECK_FALSE(bool_from_text("").has_value());
  CHECK(bool_from_value(Value(true)) == true);
  CHECK(bool_from_value(Value(0)) == false);
  CHECK(bool_from_value(Value("yes")) == true);
  CHECK_FALSE(bool_from_value(Value(2)).has_value());
  CHECK_FALSE(bool_from_value(Value(0.5)).has_value());
  CHECK(parse_bit(Value(1), party_name(3)));
  CHECK_THROWS_WITH_AS((void)parse_bit(Value(7), party_name(3)), doctest::Contains("input of party 3"), std::invalid_argument);
  CHECK(parse_answer(Value("yes"), "--alice"));
  CHECK_THROWS_WITH_AS((void)parse_answer(Value("maybe"), "--alice"), doctest::Contains("--alice"), std::invalid_argument);
}

TEST_CASE("inputs: integers beyond 64 bits as decimal text, back as JSON numbers when they fit") {
  CHECK(integer_from_value(Value(-12)) == BigInt(-12));
  const std::string big = "340282366920938463463374607431768211507";
  CHECK(integer_from_value(Value(big)) == BigInt(big));
  CHECK_FALSE(integer_from_value(Value("12x")).has_value());
  CHECK_FALSE(integer_from_value(Value(1.5)).has_value());
  CHECK_FALSE(integer_from_value(Value(std::string(2501, '9'))).has_value());
  CHECK(integer_to_value(BigInt(42)) == Value(42));
  CHECK(integer_to_value(BigInt(big)) == Value(big));
  CHECK(integer_to_value(BigInt(-5)) == Value(-5));
}

TEST_CASE("inputs: bit specifications draw with their probability and refuse what they do not understand") {
  SeededRng rng(17);
  CHECK(bit_sampler("").p == 0.5);
  CHECK(bit_sampler("bernoulli:0.25").p == 0.25);
  for (int i = 0; i < 100; ++i) {
    CHECK(random_bit("constant:1", rng));
    CHECK_FALSE(random_bit("constant:0", rng));
  }
  // 20000 draws at P = 0.25: mean 5000, sd 61.2; 6.5 sd is a false failure below 1e-10.
  int ones = 0;
  const auto s = bit_sampler("bernoulli:0.25");
  for (int i = 0; i < 20000; ++i) ones += s(rng) ? 1 : 0;
  CHECK(std::abs(ones - 5000) < 6.5 * 61.24);
  CHECK_THROWS_WITH_AS((void)bit_sampler("bernoulli:1.5"), doctest::Contains("P must be a number in [0, 1]"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)bit_sampler("coin"), doctest::Contains("use bernoulli[:P] or constant:B"), std::invalid_argument);
}

TEST_CASE("inputs: elements and reals in their range whatever the spec, bad specs named") {
  SeededRng rng(18);
  for (int i = 0; i < 2000; ++i) {
    CHECK(random_element("", 10, rng) < 5);  // default: the first half of the domain
    CHECK(random_element("uniform:10", 10, rng) < 10);
    CHECK(random_element("normal:5:100", 10, rng) < 10);  // clamped
    const double x = random_unit_real("normal:0.5:3", rng);
    CHECK((x >= 0 && x <= 1));
  }
  CHECK(random_element("constant:7", 10, rng) == 7);
  CHECK(random_unit_real("constant:0.25", rng) == 0.25);
  CHECK_THROWS_AS((void)random_element("constant:10", 10, rng), std::invalid_argument);
  CHECK_THROWS_AS((void)random_element("uniform:11", 10, rng), std::invalid_argument);
  CHECK_THROWS_AS((void)random_element("normal:1", 10, rng), std::invalid_argument);
  CHECK_THROWS_AS((void)random_unit_real("constant:2", rng), std::invalid_argument);
  CHECK_THROWS_AS((void)random_unit_real("normal:0.5:-1", rng), std::invalid_argument);
  CHECK(parse_element(0, Value(3), 4) == 3);
  CHECK_THROWS_WITH_AS((void)parse_element(2, Value(4), 4), doctest::Contains("input of party 2 must be an element in [0, 4)"),
                       std::invalid_argument);
  CHECK_THROWS_AS((void)parse_element(2, Value("1"), 4), std::invalid_argument);
  const std::vector<std::uint32_t> xs = {0, 2, 2, 3};
  CHECK(element_counts(xs, 4) == std::vector<std::int64_t>{1, 0, 2, 1});
}
