// Ed25519 signing identities (libsodium crypto_sign) of the servers of a chain, and what a server of
// a verifiable chain signs for its hop.
//
// A proof of shuffle shows that a hop's output is a re-encrypted permutation of its input; it does
// not show who made it: re-encryption needs only the public key, so whoever holds a batch can make
// and prove every hop itself. The unlinkability of a chain comes from a hop whose permutation an
// honest server chose, so every hop is also signed by its server (the key the session config lists
// for it) over the session, the round, the hop, the round's key and digests of the batch it took,
// the batch it made and its proof. A receiver and `shufflempc verify` accept a hop only with its
// server's signature.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "shufflempc/mixnet/elgamal.hpp"
#include "shufflempc/mixnet/shuffle_proof.hpp"
#include "shufflempc/random.hpp"

namespace shufflempc::mixnet {

using SigningPublicKey = std::array<std::uint8_t, 32>;
using Signature = std::array<std::uint8_t, 64>;

// An Ed25519 key pair; the secret half is wiped on destruction.
class SigningKeyPair {
 public:
  SigningKeyPair() = default;
  SigningKeyPair(const SigningKeyPair&) = default;
  SigningKeyPair& operator=(const SigningKeyPair&) = default;
  ~SigningKeyPair();
  // A fresh key pair from `rng` (SystemRng for a real key).
  [[nodiscard]] static SigningKeyPair generate(Rng& rng);
  // The key pair whose seed is BLAKE2b-256 keyed by `secret` over `label`: one long-term secret
  // (a server's X25519 key file) then holds its whole identity.
  [[nodiscard]] static SigningKeyPair derive(std::span<const std::uint8_t> secret, std::string_view label);
  [[nodiscard]] const SigningPublicKey& public_key() const { return public_; }
  [[nodiscard]] Signature sign(std::span<const std::uint8_t> message) const;

 private:
  SigningPublicKey public_{};
  std::array<std::uint8_t, 64> secret_{};
};

// Whether `signature` is `signer`'s over `message`.
[[nodiscard]] bool signature_holds(const Signature& signature, std::span<const std::uint8_t> message, const SigningPublicKey& signer);

// What the server of hop `context.hop` signs: a label, the session, round and hop, the round's key,
// the Merkle root of the batch it took (`input`, input_root), and BLAKE2b-256 of the batch it made
// (`output`) and of its proof. Hop 0's statement is the entry's signed commitment to the batch it
// admitted: a sender checks its records in it with the root and a path (net/receipts.hpp).
[[nodiscard]] std::vector<std::uint8_t> hop_statement(const ProofContext& context, const Point& key, const CiphertextBatch& input,
                                                      const CiphertextBatch& output, const ShuffleProof& proof);
// The Merkle root of a batch of ciphertexts (shufflempc/merkle.hpp, records of limbs x 64 bytes).
[[nodiscard]] std::array<std::uint8_t, 32> input_root(const CiphertextBatch& input);
// The input root a hop statement commits to, if `statement` is one for `context` and `key`.
[[nodiscard]] std::optional<std::array<std::uint8_t, 32>> statement_input_root(std::span<const std::uint8_t> statement,
                                                                               const ProofContext& context, const Point& key);

}  // namespace shufflempc::mixnet
