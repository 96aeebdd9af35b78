// Runs a protocol over real TCP on this machine: a TcpShuffler on 127.0.0.1 (port chosen by the
// OS) in its own thread, and every party and the analyzer on their own authenticated connections,
// driven by one RoundDriver in the calling thread. The same result as run_in_process, through the
// same code path a multi-host deployment uses (handshakes, encryption, sealing, validation).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <span>
#include <vector>

#include "shufflempc/mixnet/transcript.hpp"
#include "shufflempc/net/dkg.hpp"
#include "shufflempc/net/keys.hpp"
#include "shufflempc/net/mix_hop.hpp"
#include "shufflempc/net/mix_server.hpp"

#include "shufflempc/runtime.hpp"

namespace shufflempc::net {

// Party i gets inputs[i]; parties draw from `rng` exactly as in run_in_process. The shuffle and
// every key come from the CSPRNG. options.deadline (default 60 s) is the shuffler's round deadline.
// Throws std::system_error (shufflempc::Errc) if the session fails.
[[nodiscard]] RunResult run_over_loopback(const Protocol& protocol, std::span<const Value> inputs, Rng& rng,
                                          const RunOptions& options = {});
// The same with every link shaped (net/link_shape.hpp) to half `rtt_ms` each way and `mbps` (0:
// unlimited), this process's shape restored after: what `study rounds --rtt` runs (the CLI and the
// Python module give it to the experiment). Throws std::invalid_argument for a shape out of range.
[[nodiscard]] RunResult run_over_shaped_loopback(const Protocol& protocol, std::span<const Value> inputs, Rng& rng, double rtt_ms, double mbps);
// The round trips such a run waits beside one a protocol round: every link's handshake (the hello
// and its reply, then key confirmation, whose answer waits for the first confirm: 2) and the
// analyzer's `done` that closes the session (half of one). The model of `study rounds --rtt`.
inline constexpr double shaped_session_round_trips = 2.5;

// The same over a chain of `mix_servers` servers (2 to max_mix_servers): the shuffler is the entry
// and each further server a TcpMixServer in its own thread, every link over TCP on 127.0.0.1.
// With `kind` verifiable the records are ElGamal ciphertexts and every hop proves its shuffle
// (net/verifiable.hpp); `tamper`, if given, is further server `tamper_hop`'s fault (MixServerOptions::tamper).
struct LoopbackChainRun {
  RunResult result;
  std::map<std::uint32_t, std::vector<HopReport>> reports;  // as the analyzer verified them, by round
  mixnet::Transcript transcript;  // a verifiable chain's rounds, as the analyzer verified them
  std::optional<KeyGeneration> key_generation;  // with LoopbackFault::decryption_threshold
};
struct LoopbackFault {
  std::size_t hop = 0;  // 1 .. mix_servers - 1: that server's output; 0: the entry's admitted batch (ShufflerOptions::tamper_admitted)
  std::function<void(std::uint32_t round, mixnet::CiphertextBatch& output)> tamper;
  // Further server `hop` as a slow machine: called before it computes a verifiable round's hop or
  // decryption (MixServerOptions::computing).
  std::function<void(std::uint32_t round)> computing;
  // The records as their senders submit them (TcpChannelOptions::tamper_records), any chain.
  std::function<void(std::uint32_t round, MessageBatch& records)> submitted;
  // The batch the entry admits, in the chain's encoding (ShufflerOptions::tamper_admitted), any chain.
  std::function<void(std::uint32_t round, MessageBatch& records)> entry;
  // A verifiable chain's key for the rounds delivered to every party made t-of-k over TCP by its
  // servers before the session (net/dkg.hpp), t = decryption_threshold (0: the combined key, t = k);
  // `bad_share` {dealer, recipient}: further server `dealer` deals a bad share to `recipient`.
  std::size_t decryption_threshold = 0;
  std::optional<std::pair<std::size_t, std::size_t>> bad_share;
  // Further servers (1 .. k-1) that go away once they have shuffled (MixServerOptions::gone_after_mix).
  std::vector<std::size_t> gone_after_mix;
};
[[nodiscard]] LoopbackChainRun run_over_loopback_chain(const Protocol& protocol, std::span<const Value> inputs, Rng& rng,
                                                       std::size_t mix_servers, const RunOptions& options = {},
                                                       MixKind kind = MixKind::decryption, const LoopbackFault& fault = {});

}  // namespace shufflempc::net
