// Decryption of the mixed batch by its key holders (the trustees), each proving its work.
//
// The key is shared t-of-m among the trustees (threshold.hpp): trustee k holds x_k and publishes
// Y_k = x_k·G (MPC mode: the mix servers; ESA mode: the analyzer alone, t = m = 1). For every limb
// ciphertext (c1, c2) of a batch, trustee k publishes its share d = x_k·c1, and one Chaum–Pedersen
// proof (Chaum and Pedersen, CRYPTO '92) covers them all: with 128-bit weights z_i hashed from the
// batch and the shares, C = Σ z_i·c1_i and D = Σ z_i·d_i, it proves log_G Y_k = log_C D (a share
// other than x_k·c1_i leaves D ≠ x_k·C but with probability 2^-128). Non-interactive by
// Fiat–Shamir over BLAKE2b, its hashes bind the context, the trustee, its key, every c1 and every
// share. Anyone then computes M = c2 - Σ_k λ_k d_k over any t trustees (λ their Lagrange
// coefficients at 0) and reads the limb's bytes from M (elgamal.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/messages.hpp"
#include "shufflempc/mixnet/elgamal.hpp"
#include "shufflempc/mixnet/shuffle_proof.hpp"
#include "shufflempc/mixnet/threshold.hpp"

namespace shufflempc::mixnet {

// What a round's records are encrypted under: the mix servers' key, shared t-of-k among them, and
// in a round delivered to the analyzer only the analyzer's key beside it: Y = A_0 + Y_A. A record
// then opens only with t servers' shares and the analyzer's: the servers publish their proved
// shares of the chain's output (never of a batch before it), and only the analyzer can open what is
// left. Whoever holds the analyzer's key and the entry's share (the entry with the analyzer) thus
// cannot open a record it saw sent while fewer than t of the servers are with them: what they learn
// of the permutation is what the onion chain gives them, nothing.
struct RoundKey {
  ThresholdKey servers;
  std::optional<Point> analyzer;  // in an analyzer-only round

  // Y = A_0 (+ Y_A).
  [[nodiscard]] Point key() const;
  // The analyzer's index in its decryption proof's context: after the servers' (k).
  [[nodiscard]] std::uint32_t analyzer_trustee() const { return static_cast<std::uint32_t>(servers.shares.size()); }
  // "" if the servers' key holds (ThresholdKey::check) and the analyzer's, if any, is not the
  // identity; otherwise what fails.
  [[nodiscard]] std::string check() const;
  friend bool operator==(const RoundKey&, const RoundKey&) = default;
};

// One trustee's shares for a whole batch (one per limb ciphertext, record-major) and the one proof
// that covers them: the commitments A = w·G and B = w·C and the response s = w + e·x_k, where the
// challenge e hashes the batch's seed (the context, the trustee, Y_k, every c1 and every share), A
// and B; checked as s·G = A + e·Y_k and s·C = B + e·D.
struct DecryptionShares {
  std::vector<Point> shares;
  Point commit_g;   // A
  Point commit_c;   // B
  Scalar response;  // s
  static constexpr std::size_t proof_bytes = 2 * point_bytes + scalar_bytes;  // A, B, s after the shares
  [[nodiscard]] static constexpr std::size_t size_bytes(std::size_t count) { return count * point_bytes + proof_bytes; }
  [[nodiscard]] std::vector<std::uint8_t> to_bytes() const;
  [[nodiscard]] static DecryptionShares from_bytes(std::size_t count, std::span<const std::uint8_t> bytes, const std::string& what);
  friend bool operator==(const DecryptionShares&, const DecryptionShares&) = default;
};

// Trustee `trustee`'s shares of every limb of `batch`, proved.
[[nodiscard]] DecryptionShares decryption_shares(const ProofContext& context, std::uint32_t trustee, const ElGamalKey& key,
                                                 const CiphertextBatch& batch, Rng& rng, unsigned threads);
// "" if the shares are proved for `public_key`; otherwise what fails. The weighted sums C and D
// are two multi-scalar multiplications of 128-bit weights: about 0.2 of a scalar multiplication a
// share.
[[nodiscard]] std::string check_decryption_shares(const ProofContext& context, std::uint32_t trustee, const Point& public_key,
                                                  const CiphertextBatch& batch, const DecryptionShares& shares, unsigned threads);
// The records of `width` bytes from the batch and the shares of the trustees `trustees` (0-based,
// distinct, at least the threshold; checked or not: a wrong share, or too few, give points that
// carry no record, reported). Throws std::system_error (Errc::protocol_violation) naming the first
// record that does not decode; with `undecodable`, such records are dropped instead and counted
// there (with proved shares, a record that does not decode is one its sender encrypted as a point
// that carries no record of this width: over a network a party can, and the round goes on without
// it). Σ_k λ_k d_k: when the trustees are 0 .. t-1 (every server of a chain with t = k) the λ_k
// are ±binomial(t, k), small integers, and it is a few additions a share; for other sets, one
// interleaved multiplication a limb (Straus).
// `batch` with `shares` taken off every c2: (c1, c2 - d), a batch under the rest of the key (the
// analyzer's shares of an analyzer-only round leave the servers' part). Throws
// std::invalid_argument if the shares do not cover the batch or a point is not canonical.
[[nodiscard]] CiphertextBatch strip_shares(const CiphertextBatch& batch, const DecryptionShares& shares, unsigned threads);
[[nodiscard]] MessageBatch combine_decryption(const CiphertextBatch& batch, std::span<const DecryptionShares> shares,
                                              std::span<const std::uint32_t> trustees, std::size_t width, unsigned threads,
                                              std::size_t* undecodable = nullptr);

}  // namespace shufflempc::mixnet
