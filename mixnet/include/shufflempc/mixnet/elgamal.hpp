// Exponential ElGamal on ristretto255 for the verifiable mix: a record of w bytes is split into
// ceil(w/2) limbs of 16 bits, and limb m is encrypted under the key Y as (c1, c2) = (r·G, m·G + r·Y).
// A record is the tuple of its limbs' ciphertexts, permuted as one. Re-encryption adds an encryption
// of zero, (c1 + s·G, c2 + s·Y): the same plaintext, unlinkable to the input for anyone without the
// secret key (DDH). Decryption recovers m·G and then m from a table of the 2^16 limb points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/messages.hpp"
#include "shufflempc/mixnet/group.hpp"
#include "shufflempc/random.hpp"

namespace shufflempc::mixnet {

inline constexpr std::size_t limb_bits = 16;
// The widest record the verifiable mix carries: 16 bytes (8 limbs). Split-mix shares of 64 bits
// are 4 limbs; wider records belong to the decryption chain (docs/mix-chain.md).
inline constexpr std::size_t max_record_bytes = 16;
inline constexpr std::size_t ciphertext_bytes = 2 * point_bytes;

[[nodiscard]] constexpr std::size_t limbs_for(std::size_t record_bytes) { return (record_bytes + 1) / 2; }
// Why records of `record_bytes` do not fit the verifiable mix, or "" when they do.
[[nodiscard]] std::string record_fit(std::size_t record_bytes);

struct Ciphertext {
  Point c1;  // r·G
  Point c2;  // m·G + r·Y
  friend bool operator==(const Ciphertext&, const Ciphertext&) = default;
};

// N records of `limbs` ciphertexts each, record-major.
class CiphertextBatch {
 public:
  CiphertextBatch() = default;
  CiphertextBatch(std::size_t limbs, std::size_t records) : limbs_(limbs), data_(limbs * records) {}
  [[nodiscard]] std::size_t limbs() const { return limbs_; }
  [[nodiscard]] std::size_t size() const { return limbs_ == 0 ? 0 : data_.size() / limbs_; }
  [[nodiscard]] Ciphertext& at(std::size_t record, std::size_t limb) { return data_[record * limbs_ + limb]; }
  [[nodiscard]] const Ciphertext& at(std::size_t record, std::size_t limb) const { return data_[record * limbs_ + limb]; }
  [[nodiscard]] std::span<Ciphertext> record(std::size_t i) { return {data_.data() + i * limbs_, limbs_}; }
  [[nodiscard]] std::span<const Ciphertext> record(std::size_t i) const { return {data_.data() + i * limbs_, limbs_}; }
  [[nodiscard]] std::span<const Ciphertext> all() const { return data_; }
  [[nodiscard]] std::span<Ciphertext> all() { return data_; }

  // The canonical bytes: every ciphertext as c1 || c2, record after record (what the proofs hash).
  [[nodiscard]] std::vector<std::uint8_t> to_bytes() const;
  // A new batch with record order[k] of this one at k.
  [[nodiscard]] CiphertextBatch permuted(std::span<const std::size_t> order) const;
  // Parses `bytes` as records of `limbs` ciphertexts. Throws std::invalid_argument naming `what` if
  // the size is not a whole number of records or a point is not a canonical encoding.
  [[nodiscard]] static CiphertextBatch from_bytes(std::size_t limbs, std::span<const std::uint8_t> bytes, const std::string& what);
  friend bool operator==(const CiphertextBatch&, const CiphertextBatch&) = default;

 private:
  std::size_t limbs_ = 0;
  std::vector<Ciphertext> data_;
};

// A secret key and its public key Y = x·G. The secret is wiped on destruction.
struct ElGamalKey {
  Scalar secret;
  Point public_key;
  [[nodiscard]] static ElGamalKey generate(Rng& rng);
  ElGamalKey() = default;
  ElGamalKey(const ElGamalKey&) = default;
  ElGamalKey& operator=(const ElGamalKey&) = default;
  ~ElGamalKey();
};

[[nodiscard]] Ciphertext encrypt_limb(std::uint16_t m, const Point& key, const Scalar& r);
[[nodiscard]] Ciphertext reencrypt(const Ciphertext& c, const Point& key, const Scalar& s);

// The limbs of a record (little-endian 16-bit words; an odd last byte is a limb of its own).
[[nodiscard]] std::vector<std::uint16_t> to_limbs(std::span<const std::uint8_t> record);
void from_limbs(std::span<const std::uint16_t> limbs, std::span<std::uint8_t> record);

// Encrypts every message of `messages` under `key` (fresh randomness from `rng`, drawn in order, the
// group operations on `threads` threads). Throws std::invalid_argument if the width does not fit.
[[nodiscard]] CiphertextBatch encrypt_batch(const MessageBatch& messages, const Point& key, Rng& rng, unsigned threads);

// m from m·G for m < 2^16, if the point is one of those. The table (2^16 points, 2.3 MB) is built
// on first use, once per process.
[[nodiscard]] std::optional<std::uint16_t> limb_log(const Point& m_g);

}  // namespace shufflempc::mixnet
