#include "shufflempc/inproc.hpp"

namespace shufflempc {

RoundOutcome InProcessChannel::exchange(const RoundRules& spec, Submissions local) {
  auto round_rng = rng_.split();  // a fresh permutation every round
  return complete_round(spec, std::move(local), *round_rng, shuffler_);
}

RunResult run_in_process(const Protocol& protocol, std::span<const Value> inputs, Rng& rng, const RunOptions& options) {
  // Parties draw from the RoundDriver's run split, taken before the first round; the channel then splits
  // a fresh generator from `rng` for every round's permutation. So the parties' messages are the same
  // as over TCP (run_over_loopback) for the same seed, and no permutation is ever reused.
  InProcessChannel channel(rng);
  return run_all_parties(protocol, channel, inputs, rng, options);
}

}  // namespace shufflempc
