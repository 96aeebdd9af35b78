#include "shufflempc/net/onion.hpp"

#include <sodium.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "shufflempc/net/sealing.hpp"
#include "shufflempc/parallel.hpp"

namespace shufflempc::net::onion {

static_assert(layer_overhead == crypto_box_PUBLICKEYBYTES + crypto_box_MACBYTES);

namespace {

constexpr char nonce_label[] = "shufflempc/onion-layer/v1";

// The layer's nonce: BLAKE2b over its ephemeral key, the hop's key and its place.
std::array<std::uint8_t, crypto_box_NONCEBYTES> nonce_of(const std::uint8_t* ephemeral, const PublicKey& hop, const Place& place) {
  crypto_generichash_state st;
  crypto_generichash_init(&st, nullptr, 0, crypto_box_NONCEBYTES);
  crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(nonce_label), sizeof nonce_label - 1);
  crypto_generichash_update(&st, ephemeral, crypto_box_PUBLICKEYBYTES);
  crypto_generichash_update(&st, hop.data(), hop.size());
  crypto_generichash_update(&st, place.session.data(), place.session.size());
  std::array<std::uint8_t, 8> where{};
  store_le(where.data(), place.round);
  store_le(where.data() + 4, place.hop);
  crypto_generichash_update(&st, where.data(), where.size());
  std::array<std::uint8_t, crypto_box_NONCEBYTES> nonce{};
  crypto_generichash_final(&st, nonce.data(), nonce.size());
  return nonce;
}

// One layer around `in` (len bytes) for `hop` at `place`, into `out` (len + 48 bytes).
void add_layer(const std::uint8_t* in, std::size_t len, const PublicKey& hop, const Place& place, std::uint8_t* out) {
  std::array<std::uint8_t, crypto_box_SECRETKEYBYTES> esk{};
  crypto_box_keypair(out, esk.data());
  const auto nonce = nonce_of(out, hop, place);
  const int rc = crypto_box_easy(out + crypto_box_PUBLICKEYBYTES, in, len, nonce.data(), hop.data(), esk.data());
  sodium_memzero(esk.data(), esk.size());
  if (rc != 0) throw std::invalid_argument("onion: a hop's public key is not a valid X25519 key");
}

}  // namespace

std::size_t record_width(std::size_t width, Delivery delivery, std::size_t hops, std::size_t hop) {
  if (hop > hops) throw std::invalid_argument("onion: hop " + std::to_string(hop) + " of a chain of " + std::to_string(hops));
  const std::size_t inner = delivery == Delivery::analyzer_only ? sealing::sealed_width(width) : width;
  return inner + layer_overhead * (hops - hop);
}

MessageBatch wrap(std::span<const std::uint8_t> messages, std::size_t width, Delivery delivery, const PublicKey& analyzer,
                  std::span<const PublicKey> hops, const SessionId& session, std::uint32_t round) {
  if (hops.empty() || hops.size() > max_hops)
    throw std::invalid_argument("onion: a chain has 1 to " + std::to_string(max_hops) + " hops, got " + std::to_string(hops.size()));
  if (width == 0 || messages.size() % width != 0)
    throw std::invalid_argument("onion: " + std::to_string(messages.size()) + " bytes are not whole messages of width " +
                                std::to_string(width));
  ensure_sodium();
  const std::size_t count = messages.size() / width, k = hops.size();
  const std::size_t outer = record_width(width, delivery, k, 0);
  MessageBatch out(outer, count);
  parallel_for(count, count >= 256 ? hardware_threads() : 1, [&](std::size_t m) {
    // Innermost first: two buffers, each layer written 48 bytes further out.
    std::vector<std::uint8_t> a(outer), b(outer);
    std::size_t len = record_width(width, delivery, k, k);
    if (delivery == Delivery::analyzer_only) crypto_box_seal(a.data(), messages.data() + m * width, width, analyzer.data());
    else std::memcpy(a.data(), messages.data() + m * width, width);
    for (std::size_t i = k; i-- > 0;) {
      add_layer(a.data(), len, hops[i], {session, round, static_cast<std::uint32_t>(i)}, b.data());
      len += layer_overhead;
      std::swap(a, b);
    }
    std::memcpy(out[m].data(), a.data(), outer);
  });
  return out;
}

Peeled peel(const MessageBatch& records, const KeyPair& hop, const Place& place) {
  const std::size_t w = records.width(), n = records.count();
  if (w <= layer_overhead) throw std::invalid_argument("onion: records of " + std::to_string(w) + " bytes hold no layer");
  ensure_sodium();
  const std::size_t inner = w - layer_overhead;
  // A copy is refused (the first stands): sort the indices by their bytes, ties by position.
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    const int c = std::memcmp(records[x].data(), records[y].data(), w);
    return c != 0 ? c < 0 : x < y;
  });
  std::vector<char> keep(n, 1);
  Peeled p{MessageBatch(inner), 0, 0};
  for (std::size_t i = 1; i < n; ++i)
    if (std::memcmp(records[order[i]].data(), records[order[i - 1]].data(), w) == 0) {
      keep[order[i]] = 0;
      ++p.duplicates;
    }
  MessageBatch opened(inner, n);
  parallel_for(n, n >= 256 ? hardware_threads() : 1, [&](std::size_t i) {
    if (!keep[i]) return;
    const std::uint8_t* r = records[i].data();
    const auto nonce = nonce_of(r, hop.public_key(), place);
    if (crypto_box_open_easy(opened[i].data(), r + crypto_box_PUBLICKEYBYTES, w - crypto_box_PUBLICKEYBYTES, nonce.data(), r,
                             hop.secret_key().data()) != 0)
      keep[i] = 2;  // did not open
  });
  p.records.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (keep[i] == 1) p.records.push_back(opened[i]);
    else if (keep[i] == 2) ++p.not_opened;
  }
  return p;
}

}  // namespace shufflempc::net::onion
