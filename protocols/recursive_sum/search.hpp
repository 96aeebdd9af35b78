// The search of sum-recursive's precisions and epsilon split, and of sum-blanket's k (recursive_sum.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "shufflempc/protocols/recursive_sum/recursive_sum.hpp"

namespace shufflempc::recursive_sum {

// The levels minimising the MSE bound. Every split of epsilon in twentieths (for m <= 3; beyond,
// coordinate descent from equal shares), and for each the integer precisions: m = 1, k by a ternary
// search; m = 2, every p_1 with the best p_2 for it; then coordinate descent, each precision by a
// ternary search. A level is scored by its bound's eps0 at its share, computed once per share for
// the costly bounds (tightest: the largest of fmt, ldp-blanket and the closed-form bennett, a lower
// bound on its eps0), so a search costs a few dozen accountant calls; the levels chosen are then
// calibrated in full with the bound asked for.
[[nodiscard]] std::vector<Level> search_levels(std::uint64_t parties, double epsilon, double delta, std::size_t messages, RrBound bound);

}  // namespace shufflempc::recursive_sum
