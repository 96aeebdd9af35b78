#include "shufflempc/net/sealing.hpp"

#include <sodium.h>

#include <algorithm>
#include <array>
#include <boost/multiprecision/cpp_int.hpp>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "shufflempc/parallel.hpp"

namespace shufflempc::net::sealing {

static_assert(overhead == crypto_box_SEALBYTES);
static_assert(sizeof(PublicKey) == crypto_box_PUBLICKEYBYTES);
static_assert(crypto_box_SEALBYTES == crypto_box_PUBLICKEYBYTES + crypto_box_MACBYTES);

namespace {

// GF(2^255 - 19) on Boost.Multiprecision's fixed-width integers. Only public values pass here (the
// y of an ephemeral public key and its u, which the record carries in the clear), so the variable
// time of these integers reveals nothing.
using U256 = boost::multiprecision::uint256_t;
using U512 = boost::multiprecision::uint512_t;
const U256 field_p = (U256(1) << 255) - 19;

// x mod p for x < 2^512, by 2^256 = 38 (mod p).
U256 reduce(U512 x) {
  const U512 low = (U512(1) << 256) - 1;
  x = (x & low) + (x >> 256) * 38;  // < 39 * 2^256
  x = (x & low) + (x >> 256) * 38;  // < 2^256 + 38 * 39
  U256 r = static_cast<U256>(x & low) + static_cast<U256>(x >> 256) * 38;
  while (r >= field_p) r -= field_p;
  return r;
}

U256 mul(const U256& a, const U256& b) { return reduce(U512(a) * b); }

// a^(p - 2) = 1/a for a != 0 (Fermat), by square and multiply.
U256 invert(const U256& a) {
  const U256 e = field_p - 2;
  U256 r = 1, base = a;
  for (unsigned bit = 0; bit < 255; ++bit) {
    if (boost::multiprecision::bit_test(e, bit)) r = mul(r, base);
    base = mul(base, base);
  }
  return r;
}

U256 from_le(const std::uint8_t* bytes) {
  U256 v;
  boost::multiprecision::import_bits(v, std::reverse_iterator(bytes + 32), std::reverse_iterator(bytes), 8, true);
  return v;
}

void to_le(const U256& v, std::uint8_t* out) {
  std::array<std::uint8_t, 32> be{};
  std::vector<std::uint8_t> bytes;
  boost::multiprecision::export_bits(v, std::back_inserter(bytes), 8, true);
  std::copy(bytes.begin(), bytes.end(), be.end() - bytes.size());
  std::reverse_copy(be.begin(), be.end(), out);
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
  std::vector<U256> y(k), prefix(k);
  for (std::size_t i = 0; i < k; ++i) {
    if (!clamped(secrets[i])) throw std::invalid_argument("ephemeral keys: secret " + std::to_string(i) + " is not clamped");
    std::array<std::uint8_t, 32> edwards;
    // e·B; never the identity for a clamped e (it is below the group order times 8 and not 0 mod it).
    if (crypto_scalarmult_ed25519_base_noclamp(edwards.data(), secrets[i].data()) != 0)
      throw std::logic_error("ephemeral keys: the base point times a clamped scalar was the identity");
    edwards[31] &= 127;  // the sign of x: u does not depend on it
    y[i] = from_le(edwards.data());
    // 1 - y, never 0 (y = 1 is the identity), multiplied into the running product.
    const U256 d = field_p + 1 - y[i];
    prefix[i] = i == 0 ? d : mul(prefix[i - 1], d);
  }
  U256 inv = k == 0 ? U256(0) : invert(prefix[k - 1]);  // 1 / the product of every (1 - y)
  for (std::size_t i = k; i-- > 0;) {
    const U256 one_over_d = i == 0 ? inv : mul(inv, prefix[i - 1]);
    inv = mul(inv, field_p + 1 - y[i]);  // now 1 / the product of the first i
    U256 one_plus_y = y[i] + 1;
    if (one_plus_y >= field_p) one_plus_y -= field_p;
    to_le(mul(one_plus_y, one_over_d), out[i].data());
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
