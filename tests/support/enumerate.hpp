// Exhaustive enumeration for the accountant's tests: their independent checks sum over every
// histogram (every vector of counts with a given total).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace shufflempc::test {

// Calls f with every vector of `parts` counts summing to `total` (C(total + parts - 1, parts - 1) of them).
inline void for_each_composition(std::uint64_t total, std::size_t parts, const std::function<void(const std::vector<std::uint64_t>&)>& f) {
  std::vector<std::uint64_t> h(parts, 0);
  std::function<void(std::size_t, std::uint64_t)> rec = [&](std::size_t i, std::uint64_t left) {
    if (i + 1 == parts) {
      h[i] = left;
      f(h);
      return;
    }
    for (std::uint64_t c = 0; c <= left; ++c) {
      h[i] = c;
      rec(i + 1, left - c);
    }
  };
  rec(0, total);
}

}  // namespace shufflempc::test
