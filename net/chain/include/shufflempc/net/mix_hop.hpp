// One hop of a chain of mix servers, without sockets: it opens its onion layer of a round's batch
// (onion::peel), shuffles what opened with its own CSPRNG and signs, with Ed25519, what it received
// and what it sent. The receivers of the chain's output (the parties in MPC mode, the analyzer in
// ESA mode) check the chain of signed reports with verify_chain: every hop signed, each hop received
// what the one before it signed it sent, and the last hop sent what arrived. A signature does not
// prove a shuffle correct; it pins each hop to what it claimed, so that a hop that drops, adds or
// swaps records between hops is named.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/messages.hpp"
#include "shufflempc/mixnet/signing.hpp"
#include "shufflempc/net/fault.hpp"
#include "shufflempc/net/keys.hpp"
#include "shufflempc/net/onion.hpp"
#include "shufflempc/random.hpp"
#include "shufflempc/shuffle.hpp"

namespace shufflempc::net {

using Signature = mixnet::Signature;
using BatchDigest = std::array<std::uint8_t, 32>;
using mixnet::SigningKeyPair;

// A mix server's signing key (its Ed25519 identity, MixServerKeys::signer), derived from its X25519
// secret key (BLAKE2b keyed by it), so that one key file holds the whole identity of a server.
[[nodiscard]] SigningKeyPair signing_key_of(const KeyPair& keys);

// The Merkle root of a batch (shufflempc/merkle.hpp): it binds the width, the count and every
// record in order, and a path of log2 n hashes shows one record in it (a sender's receipt).
[[nodiscard]] BatchDigest batch_digest(const MessageBatch& batch);
// The same of records of `width` bytes held as bytes (`bytes` a whole number of them), without a copy.
[[nodiscard]] BatchDigest batch_digest(std::size_t width, std::span<const std::uint8_t> bytes);

// What a hop signs for one round.
struct HopReport {
  onion::Place place;  // session, round, hop
  std::uint64_t records_in = 0, records_out = 0, not_opened = 0, duplicates = 0;
  BatchDigest received{}, sent{};
  Signature signature{};
  // The signed bytes: a label, the place, the counts and both digests.
  [[nodiscard]] std::vector<std::uint8_t> signed_bytes() const;
};
// A report on the wire: the place (16 + 4 + 4), the counts (4 x 8), both digests and the signature.
inline constexpr std::size_t hop_report_bytes = 16 + 8 + 32 + 64 + 64;
[[nodiscard]] std::vector<std::uint8_t> encode_reports(std::span<const HopReport> reports);
// Throws std::system_error(malformed_frame) on a size that is not a whole number of reports.
[[nodiscard]] std::vector<HopReport> decode_reports(std::span<const std::uint8_t> bytes);
// The chain's keys of a session (MixServerKeys::signer, in order).
[[nodiscard]] std::vector<SigningPublicKey> signers_of(std::span<const MixServerKeys> chain);

class MixHop {
 public:
  MixHop(std::uint32_t hop, KeyPair layer_keys, SigningKeyPair signing_keys);
  struct Mixed {
    MessageBatch records;  // peeled and shuffled
    HopReport report;
  };
  // Mixes one round's batch of `session`.
  [[nodiscard]] Mixed mix(const MessageBatch& batch, const SessionId& session, std::uint32_t round, Rng& rng);

 private:
  std::uint32_t hop_;
  KeyPair layer_keys_;
  SigningKeyPair signing_keys_;
  Shuffler shuffler_;
};

// Checks the reports of every hop of the chain (`hops`: their signing keys, hop 0 first) for round
// `round` of `session`, given the batch that arrived from the last hop and, where the checker knows
// it, the digest of the batch hop 0 was sent. Returns the fault of the first hop at fault (its code,
// the round, the hop, and a line naming it), or nothing when the chain holds.
[[nodiscard]] std::optional<Fault> verify_chain(std::span<const HopReport> reports, std::span<const SigningPublicKey> hops, const SessionId& session,
                                                std::uint32_t round, const MessageBatch& delivered,
                                                const std::optional<BatchDigest>& submitted = std::nullopt);

}  // namespace shufflempc::net
