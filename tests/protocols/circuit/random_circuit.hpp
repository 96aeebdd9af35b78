// Random Bristol Fashion circuits for differential tests: two input groups of g0 and g1 bits, then
// XOR, AND (a third of them AND(a, a)), INV chains, EQ constants and EQW copies over random
// earlier wires, and `outs` outputs as EQW copies (the first of an input wire, so an output may be
// an input).
#pragma once

#include <string>

#include <fmt/format.h>

#include "shufflempc/protocols/circuit/bristol.hpp"
#include "shufflempc/random.hpp"

namespace shufflempc::test {

inline circuit::Circuit random_circuit(Rng& rng, std::uint32_t g0, std::uint32_t g1, std::uint32_t gates, std::uint32_t outs) {
  std::uint32_t wires = g0 + g1;
  std::string text;
  const auto pick = [&] { return static_cast<std::uint32_t>(rng.uniform(wires)); };
  const auto gate = [&](const std::string& line) {
    text += line + "\n";
    ++wires;
  };
  for (std::uint32_t g = 0; g < gates; ++g) {
    const std::uint32_t a = pick(), b = pick();
    switch (rng.uniform(9)) {
      case 0: gate(fmt::format("2 1 {} {} {} AND", a, a, wires)); break;
      case 1:
      case 2: gate(fmt::format("2 1 {} {} {} AND", a, b, wires)); break;
      case 3:
      case 4: gate(fmt::format("2 1 {} {} {} XOR", a, b, wires)); break;
      case 5:
      case 6: gate(fmt::format("1 1 {} {} INV", wires - 1, wires)); break;  // chains
      case 7: gate(fmt::format("1 1 {} {} EQ", rng.uniform(2), wires)); break;
      default: gate(fmt::format("1 1 {} {} EQW", a, wires)); break;
    }
  }
  for (std::uint32_t o = 0; o < outs; ++o) gate(fmt::format("1 1 {} {} EQW", o == 0 ? rng.uniform(g0 + g1) : pick(), wires));
  return circuit::parse(fmt::format("{} {}\n2 {} {}\n1 {}\n\n{}", gates + outs, wires, g0, g1, outs, text), "random");
}

}  // namespace shufflempc::test
