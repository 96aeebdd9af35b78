// The protocol registry (lib/include/shufflempc/registry.hpp).
#include <doctest/doctest.h>

#include <stdexcept>

#include "shufflempc/registry.hpp"

using namespace shufflempc;

TEST_CASE("the builtin registry knows the counting family and refuses unknown names and party counts") {
  const Registry r = builtin_registry();
  for (const char* name : {"counting", "histogram", "counting-balcer-cheu", "randomized-response", "central-laplace"})
    CHECK_MESSAGE(r.find(name) != nullptr, name);
  CHECK_THROWS_WITH_AS((void)r.get("nope"), doctest::Contains("unknown protocol 'nope' (known: "), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)r.create("counting", {}, 0), doctest::Contains("parties = 0 is out of range"), std::invalid_argument);
}
