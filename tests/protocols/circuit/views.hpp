// What the garbled-circuit privacy tests of v1 and v2 (test_bmr.cpp, test_bmr_shamir.cpp) share: a
// value's bits and the comparison of the views enumerated per output.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace shufflempc::test {

// The n low bits of v, least significant first, one a byte.
inline std::vector<std::uint8_t> bits_of(std::uint64_t v, std::size_t n) {
  std::vector<std::uint8_t> b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = (v >> i) & 1;
  return b;
}

// Per output value (its bits as a string), the views of each input with that output.
using Views = std::map<std::string, std::vector<std::vector<std::string>>>;

// True when, for every output, every input's view is the same: the scheme hides the inputs.
inline bool equal_within_outputs(const Views& views) {
  for (const auto& [out, list] : views)
    for (const auto& v : list)
      if (v != list.front()) return false;
  return true;
}

}  // namespace shufflempc::test
