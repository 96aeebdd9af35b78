// Runs a protocol over real TCP on this machine: a TcpShuffler on 127.0.0.1 (port chosen by the
// OS) in its own thread, and every party and the analyzer on their own authenticated connections,
// driven by one RoundDriver in the calling thread. The same result as run_in_process, through the
// same code path a multi-host deployment uses (handshakes, encryption, sealing, validation).
#pragma once

#include <span>

#include "shufflempc/runtime.hpp"

namespace shufflempc::net {

// Party i gets inputs[i]; parties draw from `rng` exactly as in run_in_process. The shuffle and
// every key come from the CSPRNG. options.deadline (default 60 s) is the shuffler's round deadline.
// Throws std::system_error (shufflempc::Errc) if the session fails.
[[nodiscard]] RunResult run_over_loopback(const Protocol& protocol, std::span<const Value> inputs, Rng& rng,
                                          const RunOptions& options = {});

}  // namespace shufflempc::net
