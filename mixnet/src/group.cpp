#include "shufflempc/mixnet/group.hpp"

#include <sodium.h>

#include <atomic>
#include <stdexcept>

namespace shufflempc::mixnet {
namespace {

std::atomic<std::uint64_t> mults{0}, base_mults{0}, adds{0}, hashes{0};

Point make_base() {
  ensure_sodium();
  Point g;
  Scalar one = scalar_from_u64(1);
  // 1·G never yields the identity, so the call cannot fail.
  if (crypto_scalarmult_ristretto255_base(g.bytes.data(), one.bytes.data()) != 0) throw std::logic_error("ristretto255 base point");
  return g;
}

}  // namespace

const Point& base_point() {
  static const Point g = make_base();
  return g;
}

bool valid_point(const Point& p) {
  ensure_sodium();
  // RFC 9496 rejects an encoding with bit 255 set; libsodium before 1.0.19 ignores that bit (and
  // would accept two encodings of one point).
  if ((p.bytes[31] & 0x80) != 0) return false;
  return crypto_core_ristretto255_is_valid_point(p.bytes.data()) == 1;
}

bool valid_scalar(const Scalar& s) {
  // L = 2^252 + 27742317777372353535851937790883648493, little-endian.
  static constexpr std::array<std::uint8_t, 32> order = {0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7,
                                                         0xa2, 0xde, 0xf9, 0xde, 0x14, 0,    0,    0,    0,    0,    0,
                                                         0,    0,    0,    0,    0,    0,    0,    0,    0,    0x10};
  for (std::size_t i = 32; i-- > 0;) {
    if (s.bytes[i] != order[i]) return s.bytes[i] < order[i];
  }
  return false;  // equal to L
}

// libsodium's add and sub cannot fail on valid encodings (the identity included); the mults return
// -1 when the result is the identity, whose encoding (all zeros) they have written: not an error.
Point operator+(const Point& a, const Point& b) {
  Point r;
  if (crypto_core_ristretto255_add(r.bytes.data(), a.bytes.data(), b.bytes.data()) != 0)
    throw std::invalid_argument("ristretto255: not a valid point");
  adds.fetch_add(1, std::memory_order_relaxed);
  return r;
}

Point operator-(const Point& a, const Point& b) {
  Point r;
  if (crypto_core_ristretto255_sub(r.bytes.data(), a.bytes.data(), b.bytes.data()) != 0)
    throw std::invalid_argument("ristretto255: not a valid point");
  adds.fetch_add(1, std::memory_order_relaxed);
  return r;
}

Point operator*(const Scalar& s, const Point& p) {
  Point r;
  if (crypto_scalarmult_ristretto255(r.bytes.data(), s.bytes.data(), p.bytes.data()) != 0 && !valid_point(p))
    throw std::invalid_argument("ristretto255: not a valid point");
  mults.fetch_add(1, std::memory_order_relaxed);
  return r;
}

Point mul_base(const Scalar& s) {
  Point r;
  (void)crypto_scalarmult_ristretto255_base(r.bytes.data(), s.bytes.data());  // -1 only for s = 0: r is the identity
  base_mults.fetch_add(1, std::memory_order_relaxed);
  return r;
}

Scalar operator+(const Scalar& a, const Scalar& b) {
  Scalar r;
  crypto_core_ristretto255_scalar_add(r.bytes.data(), a.bytes.data(), b.bytes.data());
  return r;
}

Scalar operator-(const Scalar& a, const Scalar& b) {
  Scalar r;
  crypto_core_ristretto255_scalar_sub(r.bytes.data(), a.bytes.data(), b.bytes.data());
  return r;
}

Scalar operator*(const Scalar& a, const Scalar& b) {
  Scalar r;
  crypto_core_ristretto255_scalar_mul(r.bytes.data(), a.bytes.data(), b.bytes.data());
  return r;
}

Scalar operator-(const Scalar& a) {
  Scalar r;
  crypto_core_ristretto255_scalar_negate(r.bytes.data(), a.bytes.data());
  return r;
}

Scalar scalar_from_u64(std::uint64_t v) {
  Scalar r;
  for (std::size_t i = 0; i < 8; ++i) r.bytes[i] = static_cast<std::uint8_t>(v >> (8 * i));
  return r;
}

Scalar reduce_wide(std::span<const std::uint8_t, 64> wide) {
  ensure_sodium();
  Scalar r;
  crypto_core_ristretto255_scalar_reduce(r.bytes.data(), wide.data());
  return r;
}

Scalar random_scalar(Rng& rng) {
  std::array<std::uint8_t, 64> wide;
  rng.fill(wide);
  const Scalar r = reduce_wide(wide);
  sodium_memzero(wide.data(), wide.size());
  return r;
}

Point hash_to_point(std::string_view label, std::span<const std::uint8_t> data) {
  const auto h = wide_hash(label, data);
  Point r;
  crypto_core_ristretto255_from_hash(r.bytes.data(), h.data());
  hashes.fetch_add(1, std::memory_order_relaxed);
  return r;
}

Scalar hash_to_scalar(std::string_view label, std::span<const std::uint8_t> data) {
  return reduce_wide(wide_hash(label, data));
}

std::array<std::uint8_t, 64> wide_hash(std::string_view label, std::span<const std::uint8_t> data) {
  ensure_sodium();
  crypto_generichash_state st;
  crypto_generichash_init(&st, nullptr, 0, 64);
  const std::uint8_t len = static_cast<std::uint8_t>(label.size());
  if (label.size() > 255) throw std::invalid_argument("hash label longer than 255 bytes");
  crypto_generichash_update(&st, &len, 1);
  crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(label.data()), label.size());
  crypto_generichash_update(&st, data.data(), data.size());
  std::array<std::uint8_t, 64> out;
  crypto_generichash_final(&st, out.data(), out.size());
  return out;
}

OpCounts op_counts() {
  return {mults.load(std::memory_order_relaxed), base_mults.load(std::memory_order_relaxed), adds.load(std::memory_order_relaxed),
          hashes.load(std::memory_order_relaxed)};
}

}  // namespace shufflempc::mixnet
