#include "shufflempc/net/sealing.hpp"

#include <sodium.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "shufflempc/field25519.hpp"
#include "shufflempc/parallel.hpp"

namespace shufflempc::net::sealing {

static_assert(overhead == crypto_box_SEALBYTES);
static_assert(sizeof(PublicKey) == crypto_box_PUBLICKEYBYTES);
static_assert(crypto_box_SEALBYTES == crypto_box_PUBLICKEYBYTES + crypto_box_MACBYTES);

namespace {

bool clamped(const std::array<std::uint8_t, 32>& s) { return (s[0] & 7) == 0 && (s[31] & 0xc0) == 0x40; }

}  // namespace

void clamp(std::array<std::uint8_t, 32>& s) {
  s[0] &= 248;
  s[31] &= 127;
  s[31] |= 64;
}

void ephemeral_public_keys(std::span<const std::array<std::uint8_t, 32>> secrets, std::span<PublicKey> out) {
  if (secrets.size() != out.size())
    throw std::invalid_argument("ephemeral keys: " + std::to_string(secrets.size()) + " secrets, room for " + std::to_string(out.size()));
  ensure_sodium();
  const std::size_t k = secrets.size();
  // GF(2^255 - 19) from the core (field25519.hpp); only public values pass here (the y of an
  // ephemeral public key and its u, which the record carries in the clear).
  namespace f = field25519;
  std::vector<f::Fe> y(k), one_over(k);
  for (std::size_t i = 0; i < k; ++i) {
    if (!clamped(secrets[i])) throw std::invalid_argument("ephemeral keys: secret " + std::to_string(i) + " is not clamped");
    std::array<std::uint8_t, 32> edwards;
    // e·B; never the identity for a clamped e (it is below the group order times 8 and not 0 mod it).
    if (crypto_scalarmult_ed25519_base_noclamp(edwards.data(), secrets[i].data()) != 0)
      throw std::logic_error("ephemeral keys: the base point times a clamped scalar was the identity");
    y[i] = f::from_bytes(edwards.data());  // bit 255, the sign of x, ignored: u does not depend on it
    one_over[i] = f::sub(f::one(), y[i]);  // 1 - y, never 0 (y = 1 is the identity)
  }
  f::batch_invert(one_over);
  for (std::size_t i = 0; i < k; ++i) f::to_bytes(f::mul(f::add(y[i], f::one()), one_over[i]), out[i].data());
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
