// Decryption of the mixed batch by its key holders (the trustees), each proving its work.
//
// The key is shared t-of-m among the trustees (threshold.hpp): trustee k holds x_k and publishes
// Y_k = x_k·G (MPC mode: the mix servers; ESA mode: the analyzer alone, t = m = 1). For every limb
// ciphertext (c1, c2), trustee k publishes its share d = x_k·c1 with a Chaum–Pedersen proof that
// log_G Y_k = log_c1 d (Chaum and Pedersen, CRYPTO '92; non-interactive by Fiat–Shamir over
// BLAKE2b, the challenge binding the context, the trustee, its key, c1 and d). Anyone then computes
// m·G = c2 - Σ_k λ_k d_k over any t trustees (λ their Lagrange coefficients at 0) and m from the
// table of limb points.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/messages.hpp"
#include "shufflempc/mixnet/elgamal.hpp"
#include "shufflempc/mixnet/shuffle_proof.hpp"
#include "shufflempc/mixnet/threshold.hpp"

namespace shufflempc::mixnet {

// One trustee's shares for a whole batch (one per limb ciphertext, record-major) and their proofs:
// for limb i, the commitments A = w·G and B = w·c1 and the response s = w + e·x_k, where the
// challenge e hashes the context, the trustee, Y_k, i, c1, d, A and B; they check if
// s·G = A + e·Y_k and s·c1 = B + e·d. Sent as commitments rather than challenges, the proofs of a
// batch are checked together (check_decryption_shares).
struct DecryptionShares {
  std::vector<Point> shares;
  std::vector<Point> commit_g;   // A
  std::vector<Point> commit_c1;  // B
  std::vector<Scalar> response;
  static constexpr std::size_t bytes_per_share = 3 * point_bytes + scalar_bytes;  // d, A, B, s
  [[nodiscard]] std::vector<std::uint8_t> to_bytes() const;
  [[nodiscard]] static DecryptionShares from_bytes(std::size_t count, std::span<const std::uint8_t> bytes, const std::string& what);
  friend bool operator==(const DecryptionShares&, const DecryptionShares&) = default;
};

// Trustee `trustee`'s shares of every limb of `batch`, proved.
[[nodiscard]] DecryptionShares decryption_shares(const ProofContext& context, std::uint32_t trustee, const ElGamalKey& key,
                                                 const CiphertextBatch& batch, Rng& rng, unsigned threads);
// "" if every share is proved for `public_key`; otherwise the first limb whose proof fails. Every
// equation is weighted by 128 random bits of the verifier's and all are summed in one multi-scalar
// multiplication: a batch with a false proof passes with probability at most 2^-128; a failing
// batch is then checked proof by proof to name the limb.
[[nodiscard]] std::string check_decryption_shares(const ProofContext& context, std::uint32_t trustee, const Point& public_key,
                                                  const CiphertextBatch& batch, const DecryptionShares& shares, unsigned threads);
// The records of `width` bytes from the batch and the shares of the trustees `trustees` (0-based,
// distinct, at least the threshold; checked or not: a wrong share, or too few, give points outside
// the limb table, reported). Throws std::system_error (Errc::protocol_violation) naming the first
// record that does not decode; with `undecodable`, such records are dropped instead and counted
// there (with proved shares, a record that does not decode is one its sender encrypted outside the
// record's range: over a network a party can, and the round goes on without it).
[[nodiscard]] MessageBatch combine_decryption(const CiphertextBatch& batch, std::span<const DecryptionShares> shares,
                                              std::span<const std::uint32_t> trustees, std::size_t width, unsigned threads,
                                              std::size_t* undecodable = nullptr);

}  // namespace shufflempc::mixnet
