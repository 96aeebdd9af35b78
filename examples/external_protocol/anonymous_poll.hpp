// "anonymous-poll": every party picks one of `options` answers; the analyzer learns how many parties
// picked each, and, through the shuffle, not who picked what. There is no noise: the tally is exact,
// and its only protection is the anonymity of the shuffle (no differential privacy; a party whose
// answer is the only one of its kind is still seen to exist).
#pragma once

#include "shufflempc/registry.hpp"

namespace poll {

// Adds "anonymous-poll" to the registry (std::invalid_argument if the name is taken).
void register_anonymous_poll(shufflempc::Registry& registry);

}  // namespace poll
