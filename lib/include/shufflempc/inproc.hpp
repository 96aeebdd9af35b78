// The in-process transport: every party, the shuffle and the analyzer in one process.
// The default for tests, simulations and studies.
#pragma once

#include <span>

#include "shufflempc/channel.hpp"
#include "shufflempc/runtime.hpp"

namespace shufflempc {

class InProcessChannel final : public AnonymousChannel {
 public:
  // Every round's permutation comes from a fresh rng.split(); `rng` must outlive the channel.
  explicit InProcessChannel(Rng& rng) : rng_(rng) {}
  [[nodiscard]] RoundOutcome exchange(const RoundRules& spec, Submissions local) override;

 private:
  Rng& rng_;
  Shuffler shuffler_;  // scratch reused across rounds
};

// Runs `protocol` with one party per input, all in this process. Party i gets inputs[i]. Parties
// draw from forks of one split of `rng` (see RoundDriver); each round's shuffle from a later split.
// Calling it twice with the same `rng` gives independent runs.
[[nodiscard]] RunResult run_in_process(const Protocol& protocol, std::span<const Value> inputs, Rng& rng,
                                       const RunOptions& options = {});

}  // namespace shufflempc
