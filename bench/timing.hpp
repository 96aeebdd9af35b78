// What the benchmarks time with: wall seconds of one call.
#pragma once

#include <chrono>

namespace shufflempc::bench {

template <class F>
double seconds_of(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace shufflempc::bench
