// An anonymous channel through a verifiable re-encryption mix, every server in this process: the
// parties encrypt each record (ElGamal of a point that carries it) under the round's key and prove they
// know its plaintext (knowledge.hpp), the entry checks the round as every channel does
// (complete_round) and the proofs, each of the k hops re-encrypts,
// permutes, proves and signs its shuffle, the next hop (and at the end the receiver) checks that
// proof and signature before it goes on, and the trustees decrypt with proved shares. The k servers
// hold a key shared t-of-k (threshold.hpp; t = k by default: all of them needed); in ESA mode the
// records are encrypted under that key plus the analyzer's, and the analyzer opens what the
// servers' shares leave (decryption.hpp, RoundKey). The round's whole record
// goes into a Transcript that anyone can check with verify_transcript.
//
// What this adds over InProcessMixChain is the defence against a malicious server (one that
// drops, copies, replaces or alters a record is caught by the proof) and a public transcript, at
// the cost of group operations per record instead of X25519 per hop. One process still holds
// every key: the privacy is that of the protocol, the checks those of the networked chain.
#pragma once

#include <functional>
#include <span>
#include <string>

#include "shufflempc/channel.hpp"
#include "shufflempc/mixnet/knowledge.hpp"
#include "shufflempc/mixnet/threshold.hpp"
#include "shufflempc/mixnet/transcript.hpp"
#include "shufflempc/parallel.hpp"
#include "shufflempc/runtime.hpp"

namespace shufflempc::mixnet {

// Why `protocol` cannot run over the verifiable mix (a round whose records are wider than
// max_record_bytes), or "" if it can.
[[nodiscard]] std::string protocol_fit(const Protocol& protocol);

class VerifiableMixChannel final : public AnonymousChannel {
 public:
  // `hops` in [1, max_hops]; `threshold` in [1, hops] (0: hops), the servers needed to decrypt an
  // MPC-mode round. The keys, the session id, the encryption and re-encryption randomness and the
  // proofs' nonces come from the system CSPRNG; every round's permutations come from a fresh
  // rng.split(), as in InProcessChannel.
  VerifiableMixChannel(std::size_t hops, Rng& rng, unsigned threads = hardware_threads(), std::size_t threshold = 0);
  ~VerifiableMixChannel() override;
  // Throws std::invalid_argument if the round's records do not fit, std::system_error
  // (Errc::protocol_violation) naming the hop or trustee whose proof fails, or when fewer servers
  // than the threshold are there to decrypt.
  [[nodiscard]] RoundOutcome exchange(const RoundRules& spec, Submissions local) override;
  [[nodiscard]] const Transcript& transcript() const { return transcript_; }

  // Fault injection for the tests: called with every hop's output after its proof is made, so a
  // test plays a server that alters its output.
  using HopFault = std::function<void(std::uint32_t round, std::uint32_t hop, CiphertextBatch& output)>;
  void inject_hop_fault(HopFault fault) { fault_ = std::move(fault); }
  // Fault injection: these servers (0-based) are gone when a round is decrypted.
  void inject_absent_servers(std::vector<std::uint32_t> servers) { absent_ = std::move(servers); }

 private:
  Rng& rng_;
  unsigned threads_;
  std::unique_ptr<Rng> secret_rng_;
  TagKey tag_secret_{};  // the parties' tag keys derive from it (knowledge.hpp)
  DealtKey server_key_;
  ElGamalKey analyzer_key_;
  std::vector<SigningKeyPair> signing_;  // each hop's server's
  std::vector<std::uint32_t> absent_;
  Transcript transcript_;
  HopFault fault_;
};

struct VerifiableMixRun {
  RunResult result;
  Transcript transcript;
};
// Runs `protocol` with one party per input over a VerifiableMixChannel of `hops` hops (party i
// gets inputs[i]; parties draw from `rng` exactly as in run_in_process). Throws
// std::invalid_argument if the protocol's records do not fit or `hops` is out of range.
[[nodiscard]] VerifiableMixRun run_over_verifiable_mix(const Protocol& protocol, std::span<const Value> inputs, Rng& rng, std::size_t hops,
                                                       const RunOptions& options = {}, std::size_t threshold = 0);

}  // namespace shufflempc::mixnet
