// The in-process transport: every party, the shuffle and the analyzer in one process.
// The default for tests, simulations and studies.
#pragma once

#include <span>

#include "shufflempc/channel.hpp"
#include "shufflempc/runtime.hpp"

namespace shufflempc::net {

class InProcessChannel final : public AnonymousChannel {
 public:
  // `rng` drives the shuffle; it must outlive the channel.
  explicit InProcessChannel(Rng& rng) : rng_(rng) {}
  [[nodiscard]] RoundOutcome exchange(const RoundSpec& spec, Submissions local) override;

 private:
  Rng& rng_;
};

// Runs `protocol` with one party per input, all in this process. Party i gets inputs[i]. The
// shuffle draws from rng.fork(shuffle_label), parties from their own forks (see Session).
[[nodiscard]] RunResult run_in_process(const Protocol& protocol, std::span<const Value> inputs, Rng& rng,
                                       const RunOptions& options = {});

inline constexpr std::uint64_t shuffle_label = 0xffff'ffff'ffff'fff0ull;

}  // namespace shufflempc::net
