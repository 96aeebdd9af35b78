// The random inputs of a run: what `run --random-inputs`, `local`, a study's driver path and the
// Python package draw, one definition so that the same seed gives every one of them the same inputs.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "shufflempc/random.hpp"
#include "shufflempc/runtime.hpp"

namespace shufflempc {

// Party i's input for i < parties, drawn as `spec` says (the protocol's random_input forms; "" =
// its default) from rng.fork(rng_labels::random_inputs), in party order.
[[nodiscard]] std::vector<Value> draw_random_inputs(const Protocol& protocol, std::size_t parties, std::string_view spec, const Rng& rng);

}  // namespace shufflempc
