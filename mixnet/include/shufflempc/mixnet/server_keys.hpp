// The keys of a networked verifiable mix, with no dealer: every mix server (and the analyzer)
// derives an ElGamal key from its long-term X25519 secret, publishes the public key with a Schnorr
// proof of possession bound to its X25519 identity, and the servers' keys combine into one key that
// all of them are needed to use.
//
// The combination is additive, Y = Σ_i Y_i, which no server can bias: a proof of possession shows
// that each Y_i was made from a secret its server knows, so no server can choose its key as a
// function of the others' (the rogue-key attack; Ristenpart and Yilek, EUROCRYPT 2007). It is
// written as the t = k case of a Shamir sharing so that the decryption proofs and the transcript of
// threshold.hpp apply unchanged: server i decrypts with x_i / λ_i (λ_i its Lagrange coefficient at
// 0 over all k servers), its public share is Y_i / λ_i, and the commitments A_j are the polynomial
// through those shares, interpolated in the exponent. A t < k key needs a distributed key
// generation (Pedersen, EUROCRYPT 1991): mixnet/dkg.hpp, run over TCP by net/dkg.hpp.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "shufflempc/mixnet/elgamal.hpp"
#include "shufflempc/mixnet/threshold.hpp"

namespace shufflempc::mixnet {

// The ElGamal key derived from a long-term secret: BLAKE2b-512 keyed by the secret over `label`,
// reduced modulo L. One key file thus holds a server's whole identity.
[[nodiscard]] ElGamalKey derive_key(std::span<const std::uint8_t> secret, std::string_view label);

// A Schnorr proof that the prover knows log_G Y, non-interactive by Fiat–Shamir over BLAKE2b, the
// challenge binding `context` (for a server: its X25519 public key), Y and the commitment.
struct PossessionProof {
  Scalar challenge;
  Scalar response;
  static constexpr std::size_t bytes = 2 * scalar_bytes;
  [[nodiscard]] std::vector<std::uint8_t> to_bytes() const;
  // Throws std::invalid_argument naming `what` on a wrong size or a scalar not below L.
  [[nodiscard]] static PossessionProof from_bytes(std::span<const std::uint8_t> bytes, const std::string& what);
  friend bool operator==(const PossessionProof&, const PossessionProof&) = default;
};
[[nodiscard]] PossessionProof prove_possession(std::span<const std::uint8_t> context, const ElGamalKey& key, Rng& rng);
[[nodiscard]] bool check_possession(std::span<const std::uint8_t> context, const Point& key, const PossessionProof& proof);

// The servers' combined key, threshold k = keys.size() (in [1, max_trustees]): key() = Σ keys.
[[nodiscard]] ThresholdKey combined_key(std::span<const Point> keys);
// Server `index`'s decryption key in that sharing: (x / λ_index, Y / λ_index).
[[nodiscard]] ElGamalKey combined_share(const ElGamalKey& own, std::size_t index, std::size_t servers);

}  // namespace shufflempc::mixnet
