#include "shufflempc/secret_messages.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

#include <sodium.h>

#include "shufflempc/error.hpp"

namespace shufflempc::osm {
namespace {

// BLAKE2b-256(domain | u32le(a) | u32le(b) | what `more` hashes): every key of this file.
template <class More>
Key derive(std::string_view domain, PartyId a, PartyId b, More&& more) {
  crypto_generichash_state st;
  crypto_generichash_init(&st, nullptr, 0, key_bytes);
  crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(domain.data()), domain.size());
  std::array<std::uint8_t, 8> ids{};
  store_le<std::uint32_t>(ids.data(), a);
  store_le<std::uint32_t>(ids.data() + 4, b);
  crypto_generichash_update(&st, ids.data(), ids.size());
  more(st);
  Key k{};
  crypto_generichash_final(&st, k.data(), k.size());
  return k;
}

// The kdf keys: derive over the key bytes of each chaff in `chaffs`. A chaff span holds its labels'
// payloads one after another, `payload` bytes each; the first min(payload, key_prefix_bytes) of
// each enter the hash.
Key chaff_key(std::string_view domain, PartyId a, PartyId b, std::size_t payload, std::initializer_list<std::span<const std::uint8_t>> chaffs) {
  for (const auto chaff : chaffs)
    if (payload == 0 || chaff.size() % payload != 0)
      throw std::invalid_argument("secret messages: " + std::to_string(chaff.size()) + " chaff bytes are not whole payloads of " +
                                  std::to_string(payload));
  const std::size_t take = std::min(payload, key_prefix_bytes);
  return derive(domain, a, b, [&](crypto_generichash_state& st) {
    for (const auto chaff : chaffs)
      for (std::size_t at = 0; at < chaff.size(); at += payload) crypto_generichash_update(&st, chaff.data() + at, take);
  });
}

std::string party_text(PartyId p) { return "party " + std::to_string(p); }

}  // namespace

const char* to_string(KeyMode m) { return m == KeyMode::kdf ? "kdf" : "coset"; }

void write_header(std::span<std::uint8_t> message, const Header& h) {
  message[0] = h.kind;
  store_le<std::uint32_t>(message.data() + 1, h.a);
  store_le<std::uint32_t>(message.data() + 5, h.b);
  store_le<std::uint32_t>(message.data() + 9, h.index);
}

Header read_header(std::span<const std::uint8_t> message) {
  return {message[0], load_le<std::uint32_t>(message.data() + 1), load_le<std::uint32_t>(message.data() + 5),
          load_le<std::uint32_t>(message.data() + 9)};
}

std::size_t Config::chunk_bytes() const { return mode == KeyMode::kdf ? payload_bytes() - mac_bytes : payload_bytes(); }

std::size_t Config::chunks(std::size_t bytes) const { return bytes == 0 ? 0 : (bytes + chunk_bytes() - 1) / chunk_bytes(); }

void Config::validate() const {
  if (parties < 2) throw std::invalid_argument("secret messages: parties = " + std::to_string(parties) + ": must be at least 2");
  const std::size_t min_width = header_bytes + (mode == KeyMode::kdf ? mac_bytes + 1 : 8);
  if (width < min_width || width > MessageBatch::max_width)
    throw std::invalid_argument("secret messages: width = " + std::to_string(width) + ": must be in [" +
                                std::to_string(min_width) + ", " + std::to_string(MessageBatch::max_width) + "]");
  if (hubs > parties)
    throw std::invalid_argument("secret messages: hubs = " + std::to_string(hubs) + ": must be in [0, parties = " +
                                std::to_string(parties) + "]");
  if (chaff < 1 || chaff > max_chaff)
    throw std::invalid_argument("secret messages: chaff = " + std::to_string(chaff) + ": must be in [1, " +
                                std::to_string(max_chaff) + "]");
}

Key direction_key(PartyId sender, PartyId recipient, std::span<const std::uint8_t> sender_chaff, std::size_t payload_bytes) {
  return chaff_key("shufflempc/osm/v2", sender, recipient, payload_bytes, {sender_chaff});
}

Key pair_key(PartyId a, PartyId b, std::span<const std::uint8_t> chaff_a, std::span<const std::uint8_t> chaff_b,
             std::size_t payload_bytes) {
  if (a > b) {
    std::swap(a, b);
    std::swap(chaff_a, chaff_b);
  }
  return chaff_key("shufflempc/osm-pair/v2", a, b, payload_bytes, {chaff_a, chaff_b});
}

std::vector<std::uint8_t> coset_pad(PartyId sender, PartyId recipient, std::span<const std::uint8_t> sender_chaff,
                                    std::size_t bytes) {
  // H's rows come from an XChaCha20 keystream under a public key: anyone can rebuild H, and H is
  // fixed before anyone draws chaff. Each row has as many bits as the chaff; pad bit k is the
  // parity of row k AND vec(chaff).
  static_assert(key_bytes == crypto_stream_xchacha20_KEYBYTES);
  Key key = derive("shufflempc/osm-coset/v1", sender, recipient, [](crypto_generichash_state&) {});

  const std::size_t words = (sender_chaff.size() + 7) / 8;
  std::vector<std::uint64_t> s(words, 0);
  std::memcpy(s.data(), sender_chaff.data(), sender_chaff.size());
  std::vector<std::uint64_t> row(words);
  std::array<std::uint8_t, crypto_stream_xchacha20_NONCEBYTES> nonce{};
  std::vector<std::uint8_t> pad(bytes, 0);
  for (std::size_t k = 0; k < 8 * bytes; ++k) {
    store_le<std::uint64_t>(nonce.data(), k);
    crypto_stream_xchacha20(reinterpret_cast<unsigned char*>(row.data()), words * 8, nonce.data(), key.data());
    std::uint64_t acc = 0;
    for (std::size_t w = 0; w < words; ++w) acc ^= row[w] & s[w];
    if (std::popcount(acc) & 1) pad[k / 8] = static_cast<std::uint8_t>(pad[k / 8] | (1u << (k % 8)));
  }
  sodium_memzero(key.data(), key.size());
  return pad;
}

SecretMessages::SecretMessages(const Config& config, PartyId self, Rng& rng) : c_(config), self_(self) {
  c_.validate();
  if (self >= c_.parties)
    throw std::invalid_argument("secret messages: party " + std::to_string(self) + " is outside [0, " +
                                std::to_string(c_.parties) + ")");
  const std::size_t per_peer = c_.chaff * c_.payload_bytes();
  own_.resize(per_peer * c_.parties);
  for (PartyId p = 0; p < c_.parties; ++p)
    if (c_.linked(self_, p)) rng.fill(std::span(own_).subspan(p * per_peer, per_peer));
  peers_.assign(per_peer * c_.parties, 0);
  have_peer_.assign(c_.parties, false);
  ciphertexts_.resize(c_.parties);
}

std::span<const std::uint8_t> SecretMessages::own_chaff(PartyId peer) const {
  const std::size_t per_peer = c_.chaff * c_.payload_bytes();
  return std::span(own_).subspan(peer * per_peer, per_peer);
}

void SecretMessages::append_chaff(MessageBatch& out) const {
  const std::size_t pb = c_.payload_bytes();
  for (PartyId p = 0; p < c_.parties; ++p) {
    if (!c_.linked(self_, p)) continue;
    const auto chaff = own_chaff(p);
    for (std::size_t t = 0; t < c_.chaff; ++t) {
      auto m = out.append();
      write_header(m, {static_cast<std::uint8_t>(Kind::chaff), std::min(self_, p), std::max(self_, p), static_cast<std::uint32_t>(t)});
      std::memcpy(m.data() + header_bytes, chaff.data() + t * pb, pb);
    }
  }
}

Key SecretMessages::sending_key(PartyId peer) const { return direction_key(self_, peer, own_chaff(peer), c_.payload_bytes()); }

void SecretMessages::append_ciphertext(PartyId peer, std::span<const std::uint8_t> plaintext, MessageBatch& out) const {
  if (!c_.linked(self_, peer)) throw std::invalid_argument("secret messages: no link to " + party_text(peer));
  const std::size_t cb = c_.chunk_bytes();
  const std::size_t n = c_.chunks(plaintext.size());
  std::vector<std::uint8_t> chunk(cb);
  if (c_.mode == KeyMode::coset) {
    if (8 * plaintext.size() + coset_margin_bits > c_.chaff)
      throw std::invalid_argument("secret messages: a coset pad of " + std::to_string(8 * plaintext.size()) +
                                  " bits needs chaff >= " + std::to_string(8 * plaintext.size() + coset_margin_bits) +
                                  " labels, the round has " + std::to_string(c_.chaff));
    auto pad = coset_pad(self_, peer, own_chaff(peer), plaintext.size());
    for (std::size_t i = 0; i < pad.size(); ++i) pad[i] ^= plaintext[i];
    for (std::size_t c = 0; c < n; ++c) {
      auto m = out.append();
      write_header(m, {static_cast<std::uint8_t>(Kind::ciphertext), self_, peer, static_cast<std::uint32_t>(c)});
      const std::size_t len = std::min(cb, pad.size() - c * cb);
      std::memset(m.data() + header_bytes, 0, cb);
      std::memcpy(m.data() + header_bytes, pad.data() + c * cb, len);
    }
    sodium_memzero(pad.data(), pad.size());
    return;
  }
  Key key = sending_key(peer);
  std::array<std::uint8_t, crypto_aead_xchacha20poly1305_ietf_NPUBBYTES> nonce{};
  for (std::size_t c = 0; c < n; ++c) {
    auto m = out.append();
    write_header(m, {static_cast<std::uint8_t>(Kind::ciphertext), self_, peer, static_cast<std::uint32_t>(c)});
    const std::size_t len = std::min(cb, plaintext.size() - c * cb);
    // A whole chunk is encrypted where it lies; the last, short one from a zero-padded copy.
    const std::uint8_t* from = plaintext.data() + c * cb;
    if (len < cb) {
      std::fill(chunk.begin(), chunk.end(), 0);
      std::memcpy(chunk.data(), from, len);
      from = chunk.data();
    }
    store_le<std::uint32_t>(nonce.data(), static_cast<std::uint32_t>(c));
    unsigned long long clen = 0;
    crypto_aead_xchacha20poly1305_ietf_encrypt(m.data() + header_bytes, &clen, from, cb, m.data(), header_bytes, nullptr,
                                               nonce.data(), key.data());
  }
  sodium_memzero(chunk.data(), chunk.size());
  sodium_memzero(key.data(), key.size());
}

void SecretMessages::receive(const MessageBatch& output, std::span<const PartyId> submitted) {
  if (output.width() != c_.width)
    throw_error(Errc::protocol_violation, "secret messages: the round's messages are " + std::to_string(output.width()) +
                                              " bytes wide, expected " + std::to_string(c_.width));
  const std::size_t pb = c_.payload_bytes();
  std::vector<bool> present(c_.parties, false);
  for (PartyId p : submitted)
    if (p < c_.parties) present[p] = true;
  // Two slots per (peer, label): the messages seen at that label.
  std::vector<std::uint32_t> seen(c_.parties * c_.chaff, 0);
  std::vector<std::size_t> slot(2 * c_.parties * c_.chaff, 0);
  // One pass over the round: chaff slots, and the positions of the ciphertexts sent to this party
  // (copied after, into room made once: a vector input's shares are megabytes, which growing by
  // doubling would copy twice over).
  std::vector<std::vector<std::size_t>> addressed(c_.parties);
  for (std::size_t i = 0; i < output.count(); ++i) {
    const auto m = output[i];
    const Header h = read_header(m);
    if (h.kind == static_cast<std::uint8_t>(Kind::chaff)) {
      if (h.a >= h.b || !c_.linked(h.a, h.b) || h.index >= c_.chaff)
        throw_error(Errc::protocol_violation, "secret messages: a chaff message names pair (" + std::to_string(h.a) + ", " +
                                                  std::to_string(h.b) + ") label " + std::to_string(h.index) +
                                                  ", outside the round's schedule");
      if (h.a != self_ && h.b != self_) continue;
      const PartyId peer = h.a == self_ ? h.b : h.a;
      const std::size_t at = peer * c_.chaff + h.index;
      if (seen[at] == 2)
        throw_error(Errc::protocol_violation, "secret messages: chaff label " + std::to_string(h.index) + " of the pair with " +
                                                  party_text(peer) + " holds more than two messages");
      slot[2 * at + seen[at]++] = i;
    } else if (h.kind == static_cast<std::uint8_t>(Kind::ciphertext) && h.b == self_) {
      if (!c_.linked(h.a, self_))
        throw_error(Errc::protocol_violation, "secret messages: a ciphertext names sender " + std::to_string(h.a) +
                                                  ", not linked with " + party_text(self_));
      addressed[h.a].push_back(i);
    }
  }
  for (PartyId p = 0; p < c_.parties; ++p) {
    auto& ct = ciphertexts_[p];
    ct.clear();
    ct.reserve(addressed[p].size() * c_.width);
    for (const std::size_t i : addressed[p]) ct.insert(ct.end(), output[i].begin(), output[i].end());
  }
  for (PartyId p = 0; p < c_.parties; ++p) {
    have_peer_[p] = false;
    if (!c_.linked(self_, p) || !present[p]) continue;
    const auto own = own_chaff(p);
    auto* dst = peers_.data() + p * c_.chaff * pb;
    for (std::size_t t = 0; t < c_.chaff; ++t) {
      const std::size_t at = p * c_.chaff + t;
      if (seen[at] != 2)
        throw_error(Errc::protocol_violation, "secret messages: chaff label " + std::to_string(t) + " of the pair with " +
                                                  party_text(p) + " holds " + std::to_string(seen[at]) + " messages, expected 2");
      const auto first = output[slot[2 * at]].subspan(header_bytes);
      const auto second = output[slot[2 * at + 1]].subspan(header_bytes);
      const auto mine = own.subspan(t * pb, pb);
      std::span<const std::uint8_t> theirs;
      if (std::equal(first.begin(), first.end(), mine.begin())) theirs = second;
      else if (std::equal(second.begin(), second.end(), mine.begin())) theirs = first;
      else
        throw_error(Errc::protocol_violation, "secret messages: chaff label " + std::to_string(t) + " of the pair with " +
                                                  party_text(p) + " does not hold this party's own chaff");
      std::memcpy(dst + t * pb, theirs.data(), pb);
    }
    have_peer_[p] = true;
  }
}

std::vector<std::uint8_t> SecretMessages::open(PartyId sender, std::size_t bytes) const {
  if (sender >= c_.parties || sender == self_ || !have_peer_[sender])
    throw_error(Errc::protocol_violation, "secret messages: no chaff from " + party_text(sender) + " in this round");
  const std::size_t n = c_.chunks(bytes);
  const std::size_t cb = c_.chunk_bytes();
  const auto& got = ciphertexts_[sender];
  if (got.size() != n * c_.width)
    throw_error(Errc::protocol_violation, "secret messages: " + party_text(sender) + " sent " +
                                              std::to_string(got.size() / c_.width) + " ciphertext messages to " +
                                              party_text(self_) + ", expected " + std::to_string(n));
  std::vector<const std::uint8_t*> by_index(n, nullptr);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t* m = got.data() + i * c_.width;
    const Header h = read_header({m, c_.width});
    if (h.index >= n || by_index[h.index] != nullptr)
      throw_error(Errc::protocol_violation, "secret messages: " + party_text(sender) + "'s chunk " + std::to_string(h.index) +
                                                " is duplicated or out of range");
    by_index[h.index] = m;
  }
  const std::size_t pb = c_.payload_bytes();
  const auto chaff = std::span(peers_).subspan(sender * c_.chaff * pb, c_.chaff * pb);
  std::vector<std::uint8_t> plain(n * cb, 0);
  if (c_.mode == KeyMode::coset) {
    const auto pad = coset_pad(sender, self_, chaff, bytes);
    for (std::size_t c = 0; c < n; ++c) std::memcpy(plain.data() + c * cb, by_index[c] + header_bytes, cb);
    for (std::size_t i = 0; i < bytes; ++i) plain[i] ^= pad[i];
  } else {
    Key key = direction_key(sender, self_, chaff, pb);
    std::array<std::uint8_t, crypto_aead_xchacha20poly1305_ietf_NPUBBYTES> nonce{};
    for (std::size_t c = 0; c < n; ++c) {
      store_le<std::uint32_t>(nonce.data(), static_cast<std::uint32_t>(c));
      unsigned long long len = 0;
      if (crypto_aead_xchacha20poly1305_ietf_decrypt(plain.data() + c * cb, &len, nullptr, by_index[c] + header_bytes, pb,
                                                     by_index[c], header_bytes, nonce.data(), key.data()) != 0) {
        sodium_memzero(key.data(), key.size());
        throw_error(Errc::unauthenticated, "secret messages: chunk " + std::to_string(c) + " from " + party_text(sender) +
                                               " fails authentication");
      }
    }
    sodium_memzero(key.data(), key.size());
  }
  plain.resize(bytes);
  return plain;
}

Key SecretMessages::pair_key(PartyId peer) const {
  if (peer >= c_.parties || peer == self_ || !have_peer_[peer])
    throw_error(Errc::protocol_violation, "secret messages: no chaff from " + party_text(peer) + " in this round");
  const std::size_t per_peer = c_.chaff * c_.payload_bytes();
  return osm::pair_key(self_, peer, own_chaff(peer), std::span(peers_).subspan(peer * per_peer, per_peer), c_.payload_bytes());
}

void check_declared(const MessageBatch& output, std::size_t declared, std::size_t submitters, std::string_view protocol,
                    std::span<const std::uint8_t> other_kinds) {
  if (output.count() != declared)
    throw_error(Errc::protocol_violation, std::string(protocol) + ": round 1 holds " + std::to_string(output.count()) + " messages; the " +
                                              std::to_string(submitters) + " submitters' declared counts add up to " +
                                              std::to_string(declared));
  for (std::size_t i = 0; i < output.count(); ++i) {
    const std::uint8_t kind = output[i][0];
    if (kind == static_cast<std::uint8_t>(Kind::chaff) || kind == static_cast<std::uint8_t>(Kind::ciphertext) ||
        std::find(other_kinds.begin(), other_kinds.end(), kind) != other_kinds.end())
      continue;
    throw_error(Errc::protocol_violation, std::string(protocol) + ": a round-1 message has kind " + std::to_string(kind) +
                                              ", which the round does not carry");
  }
}

ObserverView observe(const Config& config, const MessageBatch& output, std::span<const PartyId> submitted) {
  config.validate();
  // A label hides a bit when the two payloads differ where the key reads them: kdf keys hash each
  // payload's prefix, a coset pad all of it.
  const std::size_t compared = config.mode == KeyMode::kdf ? std::min(config.payload_bytes(), key_prefix_bytes) : config.payload_bytes();
  std::vector<bool> present(config.parties, false);
  for (PartyId p : submitted)
    if (p < config.parties) present[p] = true;
  // First payload seen at each (pair, label), and whether the second differed.
  std::map<std::uint64_t, std::pair<std::size_t, int>> labels;
  for (std::size_t i = 0; i < output.count(); ++i) {
    const Header h = read_header(output[i]);
    if (h.kind != static_cast<std::uint8_t>(Kind::chaff) || h.a >= h.b || !config.linked(h.a, h.b) || h.index >= config.chaff) continue;
    const std::uint64_t key = (std::uint64_t{h.a} * config.parties + h.b) * config.chaff + h.index;
    auto [it, fresh] = labels.try_emplace(key, i, 0);
    if (!fresh) {
      const auto a = output[it->second.first].subspan(header_bytes, compared);
      const auto b = output[i].subspan(header_bytes, compared);
      it->second.second = std::equal(a.begin(), a.end(), b.begin()) ? 1 : 2;
    }
  }
  ObserverView v;
  v.min_uncertain_labels = config.chaff;
  for (PartyId a = 0; a < config.parties; ++a)
    for (PartyId b = a + 1; b < config.parties; ++b) {
      if (!present[a] || !present[b] || !config.linked(a, b)) continue;
      ++v.pairs;
      std::size_t d = 0;
      for (std::size_t t = 0; t < config.chaff; ++t) {
        auto it = labels.find((std::uint64_t{a} * config.parties + b) * config.chaff + t);
        if (it != labels.end() && it->second.second == 2) ++d;
      }
      v.min_uncertain_labels = std::min(v.min_uncertain_labels, d);
      v.collided_labels += config.chaff - d;
    }
  if (v.pairs == 0) v.min_uncertain_labels = 0;
  return v;
}

}  // namespace shufflempc::osm
