#include "shufflempc/mixnet/elgamal.hpp"

#include <sodium.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>

#include "shufflempc/parallel.hpp"

namespace shufflempc::mixnet {

std::string record_fit(std::size_t record_bytes) {
  if (record_bytes <= max_record_bytes) return {};
  return "records of " + std::to_string(record_bytes) + " bytes do not fit the verifiable mix (at most " + std::to_string(max_record_bytes) +
         " bytes, one ElGamal ciphertext of a point carrying them)";
}

CiphertextBatch CiphertextBatch::permuted(std::span<const std::size_t> order) const {
  CiphertextBatch out(limbs_, order.size());
  for (std::size_t k = 0; k < order.size(); ++k) std::copy_n(record(order[k]).begin(), limbs_, out.record(k).begin());
  return out;
}

std::vector<std::uint8_t> CiphertextBatch::to_bytes() const {
  std::vector<std::uint8_t> out(data_.size() * ciphertext_bytes);
  for (std::size_t i = 0; i < data_.size(); ++i) {
    std::copy(data_[i].c1.bytes.begin(), data_[i].c1.bytes.end(), out.begin() + static_cast<std::ptrdiff_t>(i * ciphertext_bytes));
    std::copy(data_[i].c2.bytes.begin(), data_[i].c2.bytes.end(),
              out.begin() + static_cast<std::ptrdiff_t>(i * ciphertext_bytes + point_bytes));
  }
  return out;
}

CiphertextBatch CiphertextBatch::from_bytes(std::size_t limbs, std::span<const std::uint8_t> bytes, const std::string& what) {
  if (limbs == 0) throw std::invalid_argument(what + ": records of 0 limbs");
  const std::size_t record = limbs * ciphertext_bytes;
  if (bytes.size() % record != 0)
    throw std::invalid_argument(what + ": " + std::to_string(bytes.size()) + " bytes are not whole records of " + std::to_string(record) + " bytes");
  CiphertextBatch batch(limbs, bytes.size() / record);
  auto all = batch.all();
  for (std::size_t i = 0; i < all.size(); ++i) {
    std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(i * ciphertext_bytes), point_bytes, all[i].c1.bytes.begin());
    std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(i * ciphertext_bytes + point_bytes), point_bytes, all[i].c2.bytes.begin());
    if (!valid_point(all[i].c1) || !valid_point(all[i].c2))
      throw std::invalid_argument(what + ": record " + std::to_string(i / limbs) + " limb " + std::to_string(i % limbs) +
                                  " is not a canonical ristretto255 encoding");
  }
  return batch;
}

ElGamalKey ElGamalKey::generate(Rng& rng) {
  ElGamalKey k;
  k.secret = random_scalar(rng);
  k.public_key = mul_base(k.secret);
  return k;
}

ElGamalKey::~ElGamalKey() { sodium_memzero(secret.bytes.data(), secret.bytes.size()); }

Ciphertext encrypt_point(const Point& m, const Point& key, const Scalar& r) { return {mul_base(r), m + r * key}; }

Ciphertext reencrypt(const Ciphertext& c, const Point& key, const Scalar& s) { return {c.c1 + mul_base(s), c.c2 + s * key}; }

namespace {

// The layout of an embedding's encoding s: s[0] even padding, the data, two bytes of padding, zeros.
constexpr std::size_t data_at = 1, pad_at = data_at + limb_bytes, zero_at = pad_at + 2;
constexpr std::size_t max_embedding_tries = 512;  // each fails with probability about 3/4: (3/4)^512 < 2^-212

}  // namespace

Point embed_limb(std::span<const std::uint8_t> data, Rng& rng, std::size_t* embedding_tries) {
  if (data.size() > limb_bytes) throw std::invalid_argument("embed_limb: " + std::to_string(data.size()) + " bytes, a limb carries at most " + std::to_string(limb_bytes));
  Point p;
  std::copy(data.begin(), data.end(), p.bytes.begin() + data_at);
  for (std::size_t t = 1; t <= max_embedding_tries; ++t) {
    std::array<std::uint8_t, 3> pad;
    rng.fill(pad);
    p.bytes[0] = static_cast<std::uint8_t>(pad[0] & 0xfe);  // even: a non-negative field element, as every canonical encoding is
    p.bytes[pad_at] = pad[1];
    p.bytes[pad_at + 1] = pad[2];
    if (crypto_core_ristretto255_is_valid_point(p.bytes.data()) == 1) {
      if (embedding_tries) *embedding_tries = t;
      return p;
    }
  }
  throw std::runtime_error("embed_limb: no padding of " + std::to_string(max_embedding_tries) + " gave a point (the random source is broken)");
}

bool extract_limb(const Point& m, std::span<std::uint8_t> data) {
  if (data.size() > limb_bytes) return false;
  for (std::size_t i = data_at + data.size(); i < pad_at; ++i)
    if (m.bytes[i] != 0) return false;
  for (std::size_t i = zero_at; i < point_bytes; ++i)
    if (m.bytes[i] != 0) return false;
  std::copy_n(m.bytes.begin() + data_at, data.size(), data.begin());
  return true;
}

std::vector<Point> embed_record(std::span<const std::uint8_t> record, Rng& rng) {
  std::vector<Point> limbs(limbs_for(record.size()));
  for (std::size_t l = 0; l < limbs.size(); ++l) limbs[l] = embed_limb(record.subspan(l * limb_bytes, std::min(limb_bytes, record.size() - l * limb_bytes)), rng);
  return limbs;
}

std::vector<Point> embed_records(const MessageBatch& messages, Rng& rng) {
  std::vector<Point> m;
  m.reserve(messages.count() * limbs_for(messages.width()));
  for (std::size_t i = 0; i < messages.count(); ++i)
    for (const Point& p : embed_record(messages[i], rng)) m.push_back(p);
  return m;
}

bool extract_record(std::span<const Point> limbs, std::span<std::uint8_t> record) {
  if (limbs.size() != limbs_for(record.size())) return false;
  for (std::size_t l = 0; l < limbs.size(); ++l)
    if (!extract_limb(limbs[l], record.subspan(l * limb_bytes, std::min(limb_bytes, record.size() - l * limb_bytes)))) return false;
  return true;
}

CiphertextBatch encrypt_batch(const MessageBatch& messages, const Point& key, Rng& rng, unsigned threads) {
  if (auto why = record_fit(messages.width()); !why.empty()) throw std::invalid_argument(why);
  const std::size_t limbs = limbs_for(messages.width());
  CiphertextBatch out(limbs, messages.count());
  std::vector<Scalar> r(out.all().size());
  std::vector<Point> m = embed_records(messages, rng);
  for (auto& s : r) s = random_scalar(rng);
  parallel_for(out.all().size(), threads, [&](std::size_t i) { out.all()[i] = encrypt_point(m[i], key, r[i]); });
  for (auto& s : r) sodium_memzero(s.bytes.data(), s.bytes.size());
  for (auto& p : m) sodium_memzero(p.bytes.data(), p.bytes.size());
  return out;
}

}  // namespace shufflempc::mixnet
