// ElGamal on ristretto255 for the verifiable mix, the plaintext a group element that carries the
// record's bytes. A record of w bytes is cut into ceil(w/16) limbs of at most 16 bytes; each limb
// is embedded as a point M (embed_limb: its encoding holds the bytes beside fresh random padding)
// and encrypted under the key Y as (c1, c2) = (r·G, M + r·Y). A record is the tuple of its limbs'
// ciphertexts, permuted as one. Re-encryption adds an encryption of the identity,
// (c1 + s·G, c2 + s·Y): the same plaintext, unlinkable to the input for anyone without the secret
// key (DDH). Decryption recovers M, and the bytes are read from M's encoding (extract_limb).
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

// The bytes one limb (one group element) carries.
inline constexpr std::size_t limb_bytes = 16;
// The widest record the verifiable mix carries: 16 bytes, one limb. Wider records belong to the
// decryption chain (docs/mix-chain.md).
inline constexpr std::size_t max_record_bytes = 16;
inline constexpr std::size_t ciphertext_bytes = 2 * point_bytes;

[[nodiscard]] constexpr std::size_t limbs_for(std::size_t record_bytes) { return (record_bytes + limb_bytes - 1) / limb_bytes; }
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

// The point that carries `data` (at most limb_bytes bytes): the group element whose canonical
// encoding s (32 bytes, little-endian) has s[1 .. 16] = the data zero-padded, s[0] an even byte
// and s[17], s[18] bytes drawn from `rng`, s[19 .. 31] zero. About one such s in four encodes a
// point, so fresh padding is drawn until one does (embedding_tries counts the draws): how long
// that takes depends on the padding only, never on the data. Fails (std::runtime_error) after 512
// draws, which happens with probability below 2^-200.
[[nodiscard]] Point embed_limb(std::span<const std::uint8_t> data, Rng& rng, std::size_t* embedding_tries = nullptr);
// The `data.size()` bytes `m` carries, if it is a point embed_limb makes for data of that size
// (s[19 .. 31] and the bytes past the data zero); false otherwise (a random point passes with
// probability 2^-104 at most).
[[nodiscard]] bool extract_limb(const Point& m, std::span<std::uint8_t> data);
// The limbs of a record: bytes [16·l, 16·l + 16) of it, each embedded (embed_limb).
[[nodiscard]] std::vector<Point> embed_record(std::span<const std::uint8_t> record, Rng& rng);
// Every limb of every record of `messages`, record after record, each embedded in order with `rng`.
[[nodiscard]] std::vector<Point> embed_records(const MessageBatch& messages, Rng& rng);
// The record back from its limbs' points; false if one is not an embedding of its bytes.
[[nodiscard]] bool extract_record(std::span<const Point> limbs, std::span<std::uint8_t> record);

// (r·G, m + r·Y).
[[nodiscard]] Ciphertext encrypt_point(const Point& m, const Point& key, const Scalar& r);
[[nodiscard]] Ciphertext reencrypt(const Ciphertext& c, const Point& key, const Scalar& s);

// Encrypts every message of `messages` under `key` (fresh randomness from `rng`, drawn in order, the
// group operations on `threads` threads). Throws std::invalid_argument if the width does not fit.
[[nodiscard]] CiphertextBatch encrypt_batch(const MessageBatch& messages, const Point& key, Rng& rng, unsigned threads);

}  // namespace shufflempc::mixnet
