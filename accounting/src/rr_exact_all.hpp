// Internal to the accountant (amplification.cpp): the exact delta(eps) of shuffled binary randomized
// response over every pair of neighbouring datasets (amplification.hpp, rr_exact_all_delta).
#pragma once

#include <cstdint>
#include <functional>

namespace shufflempc::detail {

// What one evaluation found: delta (the maximum over every dataset, the window's tails included)
// and where it is attained.
struct ExactAllDelta {
  double delta = 0;
  double added = 0;              // of delta at the maximum: what the window's truncation added
  std::uint64_t worst_ones = 0;  // c: ones among the other n - 1 users at the maximum
  double drift = 0;              // the largest |1 - sum of the window| met: the rounding (not added)
};

// The sweep over c = 0 .. n - 1 (amplification.hpp says what it computes), in blocks of at most
// `block` values of c, each started from a pmf computed afresh, on every core; `block_done(f)` is
// told (under a lock) the fraction of blocks done. The same number whatever the machine.
// `tail_exponent` X sets the windows: each cut tail is at most e^-X (the accountant uses 50; a
// test narrows it to see that what is cut is added).
ExactAllDelta rr_exact_all_sweep(std::uint64_t n, double eps0, double eps, const std::function<void(double)>& block_done,
                                 std::uint64_t block = 16384, double tail_exponent = 50);

}  // namespace shufflempc::detail
