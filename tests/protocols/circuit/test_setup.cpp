// The circuit protocol's shared helpers (protocols/circuit/setup.cpp, internal to the protocol: this
// white-box test reaches its private header): a party's inputs parsed from one hex text or an array
// of them, with the party and the group named when they do not fit; the output as one hex text or
// one per output group; and the zero-sum pad, an involution that depends on its key alone.
#include <doctest/doctest.h>

#include "setup.hpp"

using namespace shufflempc;
using namespace shufflempc::circuit;

namespace {

// Two parties: party 0 owns input groups 0 (8 bits) and 1 (4 bits), party 1 group 2 (4 bits), party 2
// none; two output groups of 4 bits (every output XORs two inputs).
detail::Setup setup() {
  const Circuit c = parse("4 20\n3 8 4 4\n2 4 4\n\n"
                          "2 1 0 12 16 XOR\n2 1 1 13 17 XOR\n2 1 8 14 18 XOR\n2 1 9 15 19 XOR\n",
                          "tiny");
  detail::Setup s;
  s.circuit = std::make_shared<const Circuit>(c);
  s.n = 3;
  s.groups = {{0, 1}, {2}, {}};
  return s;
}

}  // namespace

TEST_CASE("circuit setup: a party's inputs from one hex text or an array of them, and what does not fit named") {
  const auto s = setup();
  const auto bits = detail::parse_input(s, 0, Value::array({"a5", "3"}));
  REQUIRE(bits.size() == 12);
  CHECK(std::vector<std::uint8_t>(bits.begin(), bits.begin() + 8) == bits_from_hex("a5", 8, "x"));
  CHECK(std::vector<std::uint8_t>(bits.begin() + 8, bits.end()) == bits_from_hex("3", 4, "x"));
  CHECK(detail::parse_input(s, 1, Value("f")) == bits_from_hex("f", 4, "x"));
  CHECK(detail::parse_input(s, 2, Value()).empty());
  CHECK_THROWS_WITH_AS((void)detail::parse_input(s, 0, Value("a5")), doctest::Contains("owns input groups 0, 1 of circuit tiny: give an array of 2 hex strings"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)detail::parse_input(s, 2, Value("1")), doctest::Contains("owns no input group of circuit tiny: give null"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)detail::parse_input(s, 1, Value("1f")), doctest::Contains("input group 2 (4 bits)"), std::invalid_argument);
}

TEST_CASE("circuit setup: the output is one hex text per output group, or the one text of a single group") {
  const auto s = setup();
  const std::vector<std::uint8_t> bits = {1, 0, 0, 0, 0, 1, 0, 1};
  const Value v = detail::output_value(s.c(), bits);
  REQUIRE(v.is_array());
  REQUIRE(v.size() == 2);
  CHECK(v[0] == hex_from_bits(std::span(bits).first(4)));
  CHECK(v[1] == hex_from_bits(std::span(bits).last(4)));
  const Circuit one = parse("1 3\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n", "and");
  CHECK(detail::output_value(one, std::vector<std::uint8_t>{1}) == Value("1"));
}

TEST_CASE("circuit setup: the zero-sum pad undoes itself, is the same for the same key and differs for another") {
  osm::Key a{}, b{};
  a[0] = 1;
  b[0] = 2;
  std::vector<std::uint8_t> x(1000), y(1000), z(1000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::uint8_t>(i * 7);
  const auto original = x;
  y = x;
  z = x;
  detail::xor_pad(a, x);
  detail::xor_pad(a, y);
  detail::xor_pad(b, z);
  CHECK(x == y);
  CHECK(x != original);
  CHECK(z != x);
  detail::xor_pad(a, x);
  CHECK(x == original);
}
