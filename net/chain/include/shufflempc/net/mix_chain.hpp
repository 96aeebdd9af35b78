// An anonymous channel through a chain of k mix hops, every hop in this process: the parties wrap
// each message in the chain's onion (net/onion.hpp; sealed to the analyzer inside in an
// analyzer-only round), the entry checks the round as every channel does (complete_round) and
// forwards the batch, each hop peels, shuffles and signs its report (net/mix_hop.hpp), and the
// output is delivered only once the chain of reports verifies. Every registered protocol runs over
// it unchanged. The onion and the hops are the ones a networked chain would run; what this adds
// over InProcessChannel is their cost and their checks, not privacy (one process holds every key).
#pragma once

#include <span>
#include <vector>

#include "shufflempc/channel.hpp"
#include "shufflempc/net/mix_hop.hpp"
#include "shufflempc/runtime.hpp"

namespace shufflempc::net {

class InProcessMixChain final : public AnonymousChannel {
 public:
  // `hops` in [1, onion::max_hops]; their keys, the analyzer's and the session id come from the
  // system CSPRNG. Every round's permutations come from a fresh rng.split() (as InProcessChannel):
  // the parties' messages are those of run_in_process for the same seed.
  InProcessMixChain(std::size_t hops, Rng& rng);
  [[nodiscard]] RoundOutcome exchange(const RoundRules& spec, Submissions local) override;
  // Every round's verified reports, hop 0 first.
  [[nodiscard]] const std::vector<std::vector<HopReport>>& reports() const { return reports_; }

 private:
  Rng& rng_;
  SessionId session_{};
  std::vector<MixHop> hops_;
  std::vector<PublicKey> layer_keys_;
  std::vector<SigningPublicKey> signers_;
  KeyPair analyzer_;
  Shuffler shuffler_;
  std::vector<std::vector<HopReport>> reports_;
};

// The result of a run over an in-process chain, and every round's hop reports.
struct MixChainRun {
  RunResult result;
  std::vector<std::vector<HopReport>> reports;  // per round, hop 0 first
};
// Runs `protocol` with one party per input over an InProcessMixChain of `hops` hops. Party i gets
// inputs[i]; parties draw from `rng` exactly as in run_in_process. Throws std::invalid_argument on
// a chain length outside [1, onion::max_hops], std::system_error if a round fails.
[[nodiscard]] MixChainRun run_over_mix_chain(const Protocol& protocol, std::span<const Value> inputs, Rng& rng, std::size_t hops,
                                             const RunOptions& options = {});

}  // namespace shufflempc::net
