#include "shufflempc/net/sealing.hpp"

#include <sodium.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "shufflempc/little_endian.hpp"
#include "shufflempc/parallel.hpp"

namespace shufflempc::net::sealing {

static_assert(overhead == crypto_box_SEALBYTES);
static_assert(sizeof(PublicKey) == crypto_box_PUBLICKEYBYTES);
static_assert(crypto_box_SEALBYTES == crypto_box_PUBLICKEYBYTES + crypto_box_MACBYTES);

namespace {

// GF(2^255 - 19) in four 64-bit limbs (little-endian), values kept below 2^256 and made canonical
// when written out. Only public values pass here (the y of an ephemeral public key and its u, which
// the record carries in the clear), so that these routines are not constant-time reveals nothing.
// Checked against libsodium's crypto_scalarmult_base on random inputs (tests/net/test_sealing.cpp).
using Limbs = std::array<std::uint64_t, 4>;
using u128 = unsigned __int128;
constexpr Limbs field_p = {0xffffffffffffffedULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL, 0x7fffffffffffffffULL};

// a + 38 * c (2^256 = 38 mod p) until no carry is left.
void fold(Limbs& a, u128 c) {
  while (c != 0) {
    c *= 38;
    for (auto& limb : a) {
      c += limb;
      limb = static_cast<std::uint64_t>(c);
      c >>= 64;
    }
  }
}

// a + k b, below 2^256 after folding.
Limbs add_times(const Limbs& a, const Limbs& b, std::uint64_t k) {
  Limbs r;
  u128 c = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    c += static_cast<u128>(a[i]) + static_cast<u128>(b[i]) * k;
    r[i] = static_cast<std::uint64_t>(c);
    c >>= 64;
  }
  fold(r, c);
  return r;
}

Limbs mul(const Limbs& a, const Limbs& b) {
  std::array<std::uint64_t, 8> t{};
  for (std::size_t i = 0; i < 4; ++i) {
    u128 carry = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      carry += static_cast<u128>(a[i]) * b[j] + t[i + j];
      t[i + j] = static_cast<std::uint64_t>(carry);
      carry >>= 64;
    }
    t[i + 4] = static_cast<std::uint64_t>(carry);
  }
  return add_times(Limbs{t[0], t[1], t[2], t[3]}, Limbs{t[4], t[5], t[6], t[7]}, 38);  // low + 2^256 high
}

// a - b for a >= b.
Limbs sub(const Limbs& a, const Limbs& b) {
  Limbs r;
  std::uint64_t borrow = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    const u128 d = static_cast<u128>(a[i]) - b[i] - borrow;
    r[i] = static_cast<std::uint64_t>(d);
    borrow = static_cast<std::uint64_t>(d >> 64) != 0 ? 1 : 0;
  }
  return r;
}

bool at_least_p(const Limbs& a) {
  for (std::size_t i = 4; i-- > 0;)
    if (a[i] != field_p[i]) return a[i] > field_p[i];
  return true;
}

Limbs canonical(Limbs a) {
  while (at_least_p(a)) a = sub(a, field_p);
  return a;
}

// 1 - y for a canonical y: p + 1 - y, at most p + 1.
Limbs one_minus(const Limbs& y) { return sub({field_p[0] + 1, field_p[1], field_p[2], field_p[3]}, y); }

// a^(p - 2) = 1/a for a != 0 (Fermat), by square and multiply over p - 2's bits.
Limbs invert(const Limbs& a) {
  const Limbs e = {field_p[0] - 2, field_p[1], field_p[2], field_p[3]};
  Limbs r = {1, 0, 0, 0}, base = a;
  for (unsigned bit = 0; bit < 255; ++bit) {
    if ((e[bit / 64] >> (bit % 64)) & 1) r = mul(r, base);
    base = mul(base, base);
  }
  return r;
}

Limbs from_le(const std::uint8_t* bytes) {
  Limbs v;
  for (std::size_t i = 0; i < 4; ++i) v[i] = load_le<std::uint64_t>(bytes + 8 * i);
  return v;
}

void to_le(const Limbs& v, std::uint8_t* out) {
  const Limbs c = canonical(v);
  for (std::size_t i = 0; i < 4; ++i) store_le<std::uint64_t>(out + 8 * i, c[i]);
}

bool clamped(const std::array<std::uint8_t, 32>& s) { return (s[0] & 7) == 0 && (s[31] & 0xc0) == 0x40; }

void clamp(std::array<std::uint8_t, 32>& s) {
  s[0] &= 248;
  s[31] &= 127;
  s[31] |= 64;
}

}  // namespace

void ephemeral_public_keys(std::span<const std::array<std::uint8_t, 32>> secrets, std::span<PublicKey> out) {
  if (secrets.size() != out.size())
    throw std::invalid_argument("ephemeral keys: " + std::to_string(secrets.size()) + " secrets, room for " + std::to_string(out.size()));
  ensure_sodium();
  const std::size_t k = secrets.size();
  std::vector<Limbs> y(k), prefix(k);
  for (std::size_t i = 0; i < k; ++i) {
    if (!clamped(secrets[i])) throw std::invalid_argument("ephemeral keys: secret " + std::to_string(i) + " is not clamped");
    std::array<std::uint8_t, 32> edwards;
    // e·B; never the identity for a clamped e (it is below the group order times 8 and not 0 mod it).
    if (crypto_scalarmult_ed25519_base_noclamp(edwards.data(), secrets[i].data()) != 0)
      throw std::logic_error("ephemeral keys: the base point times a clamped scalar was the identity");
    edwards[31] &= 127;  // the sign of x: u does not depend on it
    y[i] = from_le(edwards.data());
    // 1 - y, never 0 (y = 1 is the identity), multiplied into the running product.
    prefix[i] = i == 0 ? one_minus(y[i]) : mul(prefix[i - 1], one_minus(y[i]));
  }
  Limbs inv = k == 0 ? Limbs{} : invert(prefix[k - 1]);  // 1 / the product of every (1 - y)
  for (std::size_t i = k; i-- > 0;) {
    const Limbs one_over_d = i == 0 ? inv : mul(inv, prefix[i - 1]);
    inv = mul(inv, one_minus(y[i]));  // now 1 / the product of the first i
    to_le(mul(add_times(y[i], Limbs{1, 0, 0, 0}, 1), one_over_d), out[i].data());
  }
}

void seal(std::span<const std::uint8_t> messages, std::size_t width, const PublicKey& analyzer, std::span<std::uint8_t> out) {
  if (width == 0 || messages.size() % width != 0)
    throw std::invalid_argument("sealing: " + std::to_string(messages.size()) + " bytes are not whole messages of width " +
                                std::to_string(width));
  const std::size_t count = messages.size() / width;
  if (out.size() != count * sealed_width(width))
    throw std::invalid_argument("sealing: the output holds " + std::to_string(out.size()) + " bytes, " + std::to_string(count) +
                                " sealed records need " + std::to_string(count * sealed_width(width)));
  ensure_sodium();
  // On every core, in runs of records that share the inversion of their ephemeral public keys;
  // each record still costs a fixed-base multiplication and one X25519 with the analyzer's key.
  const std::size_t ww = sealed_width(width);
  constexpr std::size_t run = 256;
  const std::size_t runs = (count + run - 1) / run;
  parallel_for(runs, count >= 1024 ? hardware_threads() : 1, [&](std::size_t r) {
    const std::size_t first = r * run, k = std::min(run, count - first);
    std::array<std::array<std::uint8_t, 32>, run> secrets;
    std::array<PublicKey, run> ephemeral;
    for (std::size_t i = 0; i < k; ++i) {
      randombytes_buf(secrets[i].data(), 32);
      clamp(secrets[i]);
    }
    ephemeral_public_keys(std::span(secrets.data(), k), std::span(ephemeral.data(), k));
    for (std::size_t i = 0; i < k; ++i) {
      // crypto_box_seal's record: the ephemeral public key, then crypto_box of the message under
      // the key shared with the analyzer and the nonce BLAKE2b-192(ephemeral key | analyzer key).
      std::uint8_t* rec = out.data() + (first + i) * ww;
      std::array<std::uint8_t, crypto_box_BEFORENMBYTES> shared;
      std::array<std::uint8_t, crypto_box_NONCEBYTES> nonce;
      if (crypto_box_beforenm(shared.data(), analyzer.data(), secrets[i].data()) != 0)
        throw std::invalid_argument("sealing: the analyzer's key is not a usable X25519 public key");
      crypto_generichash_state h;
      crypto_generichash_init(&h, nullptr, 0, nonce.size());
      crypto_generichash_update(&h, ephemeral[i].data(), ephemeral[i].size());
      crypto_generichash_update(&h, analyzer.data(), analyzer.size());
      crypto_generichash_final(&h, nonce.data(), nonce.size());
      std::memcpy(rec, ephemeral[i].data(), ephemeral[i].size());
      crypto_box_easy_afternm(rec + crypto_box_PUBLICKEYBYTES, messages.data() + (first + i) * width, width, nonce.data(), shared.data());
      sodium_memzero(shared.data(), shared.size());
    }
    sodium_memzero(secrets.data(), sizeof secrets);
  });
}

Opened open(std::span<const std::uint8_t> records, std::size_t width, const KeyPair& analyzer) {
  const std::size_t ww = sealed_width(width);
  if (width == 0 || records.size() % ww != 0)
    throw std::invalid_argument("sealing: " + std::to_string(records.size()) + " bytes are not whole sealed records of width " +
                                std::to_string(ww));
  ensure_sodium();
  const std::size_t count = records.size() / ww;
  // Every record opened on every core (one X25519 each: at 2·10^6 records about a minute on one
  // core), each into its own slot; then the ones that opened are packed in their order.
  Opened o{MessageBatch(width), 0};
  o.messages.resize(count);
  std::vector<char> opened(count, 0);
  parallel_for(count, count >= 1024 ? hardware_threads() : 1, [&](std::size_t i) {
    opened[i] = crypto_box_seal_open(o.messages.data() + i * width, records.data() + i * ww, ww, analyzer.public_key().data(),
                                     analyzer.secret_key().data()) == 0;
  });
  std::size_t kept = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (!opened[i]) continue;
    if (kept != i) std::memmove(o.messages.data() + kept * width, o.messages.data() + i * width, width);
    ++kept;
  }
  o.messages.resize(kept);
  o.discarded = count - kept;
  return o;
}

}  // namespace shufflempc::net::sealing
