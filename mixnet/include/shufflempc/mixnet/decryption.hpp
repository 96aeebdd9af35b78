// Decryption of the mixed batch by its key holders (the trustees), each proving its work.
//
// The key is Y = Y_0 + ... + Y_{t-1}, Y_k = x_k·G: trustee k alone holds x_k (MPC mode: the mix
// servers, all of them needed to decrypt; ESA mode: the analyzer alone). For every limb ciphertext
// (c1, c2), trustee k publishes its share d = x_k·c1 with a Chaum–Pedersen proof that
// log_G Y_k = log_c1 d (Chaum and Pedersen, CRYPTO '92; non-interactive by Fiat–Shamir over
// BLAKE2b, the challenge binding the context, the trustee, its key, c1 and d). Anyone then computes
// m·G = c2 - Σ_k d_k and m from the table of limb points.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/messages.hpp"
#include "shufflempc/mixnet/elgamal.hpp"
#include "shufflempc/mixnet/shuffle_proof.hpp"

namespace shufflempc::mixnet {

// One trustee's shares for a whole batch (one per limb ciphertext, record-major) and their proofs:
// for limb i, (challenge[i], response[i]) with A = response·G - challenge·Y_k and
// B = response·c1 - challenge·d hashed back to the challenge.
struct DecryptionShares {
  std::vector<Point> shares;
  std::vector<Scalar> challenge;
  std::vector<Scalar> response;
  [[nodiscard]] std::vector<std::uint8_t> to_bytes() const;
  [[nodiscard]] static DecryptionShares from_bytes(std::size_t count, std::span<const std::uint8_t> bytes, const std::string& what);
  friend bool operator==(const DecryptionShares&, const DecryptionShares&) = default;
};

// Trustee `trustee`'s shares of every limb of `batch`, proved.
[[nodiscard]] DecryptionShares decryption_shares(const ProofContext& context, std::uint32_t trustee, const ElGamalKey& key,
                                                 const CiphertextBatch& batch, Rng& rng, unsigned threads);
// "" if every share is proved for `public_key`; otherwise the first limb whose proof fails.
[[nodiscard]] std::string check_decryption_shares(const ProofContext& context, std::uint32_t trustee, const Point& public_key,
                                                  const CiphertextBatch& batch, const DecryptionShares& shares, unsigned threads);
// The records of `width` bytes from the batch and every trustee's shares (checked or not: a wrong
// share gives a point outside the limb table, reported). Throws std::system_error
// (Errc::protocol_violation) naming the first record that does not decode.
[[nodiscard]] MessageBatch combine_decryption(const CiphertextBatch& batch, std::span<const DecryptionShares> trustees, std::size_t width,
                                              unsigned threads);

// The joint key of the trustees' public keys.
[[nodiscard]] Point joint_key(std::span<const Point> trustee_keys);

}  // namespace shufflempc::mixnet
