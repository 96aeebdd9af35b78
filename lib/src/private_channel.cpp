#include "shufflempc/private_channel.hpp"

#include <sodium.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>

#include "shufflempc/error.hpp"

namespace shufflempc {
namespace {

constexpr std::string_view channel_domain = "shufflempc/private-channel/v1";
constexpr std::string_view session_domain = "shufflempc/session-id/v1";
constexpr char kdf_context[crypto_kdf_CONTEXTBYTES + 1] = "smpcchan";
using Nonce = std::array<std::uint8_t, crypto_aead_chacha20poly1305_IETF_NPUBBYTES>;

static_assert(private_channel::mac_bytes == crypto_aead_chacha20poly1305_IETF_ABYTES);
static_assert(private_channel::key_bytes == crypto_aead_chacha20poly1305_IETF_KEYBYTES);
static_assert(private_channel::key_bytes == crypto_kdf_KEYBYTES);
static_assert(sizeof(kdf_context) - 1 == crypto_kdf_CONTEXTBYTES);

void update(crypto_generichash_state& st, std::string_view s) {
  crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(s.data()), s.size());
}
template <class T>
void update_le(crypto_generichash_state& st, T v) {
  std::array<std::uint8_t, sizeof(T)> b{};
  store_le(b.data(), v);
  crypto_generichash_update(&st, b.data(), b.size());
}

Nonce nonce_of(std::uint32_t round, std::uint32_t seq) {
  Nonce n{};
  store_le(n.data(), round);
  store_le(n.data() + 4, seq);
  return n;
}

struct TagHash {
  std::size_t operator()(const private_channel::Tag& t) const noexcept {
    return static_cast<std::size_t>(load_le<std::uint64_t>(t.data()));  // tags are pseudorandom
  }
};

void check_sealed_size(std::size_t payload, std::size_t sealed) {
  if (sealed != private_channel::sealed_width(payload))
    throw std::invalid_argument("private channel: a sealed message of a " + std::to_string(payload) +
                                "-byte payload takes " + std::to_string(private_channel::sealed_width(payload)) +
                                " bytes, got " + std::to_string(sealed));
}

}  // namespace

SessionId random_session_id(Rng& rng) {
  SessionId id{};
  rng.fill(id.data(), id.size());
  return id;
}

SessionId session_id_from_name(std::string_view name) {
  ensure_sodium();
  crypto_generichash_state st;
  crypto_generichash_init(&st, nullptr, 0, session_id_bytes);
  update(st, session_domain);
  update(st, name);
  SessionId id{};
  crypto_generichash_final(&st, id.data(), id.size());
  return id;
}

LinkKey LinkKey::derive(std::span<const std::uint8_t> pair_secret, const SessionId& session, PartyId sender,
                        PartyId recipient) {
  using namespace private_channel;
  if (sender == recipient)
    throw std::invalid_argument("private channel: sender and recipient must differ (both are party " +
                                std::to_string(sender) + ")");
  if (pair_secret.size() < min_secret_bytes || pair_secret.size() > max_secret_bytes)
    throw std::invalid_argument("private channel: pair_secret must hold " + std::to_string(min_secret_bytes) + " to " +
                                std::to_string(max_secret_bytes) + " bytes, got " + std::to_string(pair_secret.size()));
  ensure_sodium();
  const PartyId low = std::min(sender, recipient);
  const PartyId high = std::max(sender, recipient);
  std::array<std::uint8_t, crypto_kdf_KEYBYTES> prk{};
  crypto_generichash_state st;
  crypto_generichash_init(&st, nullptr, 0, prk.size());
  update(st, channel_domain);
  crypto_generichash_update(&st, session.data(), session.size());
  update_le(st, low);
  update_le(st, high);
  update_le(st, static_cast<std::uint64_t>(pair_secret.size()));
  crypto_generichash_update(&st, pair_secret.data(), pair_secret.size());
  crypto_generichash_final(&st, prk.data(), prk.size());
  sodium_memzero(&st, sizeof st);

  LinkKey key;
  key.sender_ = sender;
  key.recipient_ = recipient;
  const std::uint64_t direction = sender == low ? 0 : 1;
  crypto_kdf_derive_from_key(key.enc_key_.data(), key.enc_key_.size(), 2 * direction, kdf_context, prk.data());
  crypto_kdf_derive_from_key(key.tag_key_.data(), key.tag_key_.size(), 2 * direction + 1, kdf_context, prk.data());
  sodium_memzero(prk.data(), prk.size());
  return key;
}

LinkKey::~LinkKey() {
  sodium_memzero(enc_key_.data(), enc_key_.size());
  sodium_memzero(tag_key_.data(), tag_key_.size());
}

private_channel::Tag LinkKey::tag(std::uint32_t round, std::uint32_t seq) const {
  const Nonce input = nonce_of(round, seq);
  private_channel::Tag t{};
  crypto_generichash(t.data(), t.size(), input.data(), 8, tag_key_.data(), tag_key_.size());
  return t;
}

void LinkKey::seal(std::uint32_t round, std::uint32_t seq, std::span<const std::uint8_t> payload,
                   std::span<std::uint8_t> out) const {
  using namespace private_channel;
  check_sealed_size(payload.size(), out.size());
  const Tag t = tag(round, seq);
  std::copy(t.begin(), t.end(), out.begin());
  const Nonce nonce = nonce_of(round, seq);
  unsigned long long mac_len = 0;
  crypto_aead_chacha20poly1305_ietf_encrypt_detached(out.data() + tag_bytes, out.data() + tag_bytes + payload.size(),
                                                     &mac_len, payload.data(), payload.size(), t.data(), t.size(),
                                                     nullptr, nonce.data(), enc_key_.data());
}

bool LinkKey::open(std::uint32_t round, std::uint32_t seq, std::span<const std::uint8_t> sealed,
                   std::span<std::uint8_t> payload) const {
  using namespace private_channel;
  check_sealed_size(payload.size(), sealed.size());
  std::fill(payload.begin(), payload.end(), std::uint8_t{0});
  const Tag t = tag(round, seq);
  if (sodium_memcmp(t.data(), sealed.data(), tag_bytes) != 0) return false;
  const Nonce nonce = nonce_of(round, seq);
  const std::uint8_t* mac = sealed.data() + tag_bytes + payload.size();
  if (crypto_aead_chacha20poly1305_ietf_decrypt_detached(payload.data(), nullptr, sealed.data() + tag_bytes,
                                                         payload.size(), mac, t.data(), t.size(), nonce.data(),
                                                         enc_key_.data()) != 0) {
    sodium_memzero(payload.data(), payload.size());
    return false;
  }
  return true;
}

PrivateChannels::PrivateChannels(const SessionId& session, PartyId self, std::size_t payload_width)
    : session_(session), self_(self), payload_width_(payload_width) {
  const std::size_t max_payload = MessageBatch::max_width - private_channel::overhead;
  if (payload_width < 1 || payload_width > max_payload)
    throw std::invalid_argument("private channel: payload_width must be in [1, " + std::to_string(max_payload) +
                                "], got " + std::to_string(payload_width));
}

void PrivateChannels::add_peer(PartyId peer, std::span<const std::uint8_t> pair_secret) {
  Link link{LinkKey::derive(pair_secret, session_, self_, peer), LinkKey::derive(pair_secret, session_, peer, self_)};
  links_.insert_or_assign(peer, std::move(link));
}

void PrivateChannels::seal(PartyId recipient, std::uint32_t round, std::uint32_t seq,
                           std::span<const std::uint8_t> payload, MessageBatch& out) const {
  const auto it = links_.find(recipient);
  if (it == links_.end())
    throw std::invalid_argument("private channel: party " + std::to_string(self_) + " has no key for recipient " +
                                std::to_string(recipient));
  if (payload.size() != payload_width_)
    throw std::invalid_argument("private channel: payload must be " + std::to_string(payload_width_) + " bytes, got " +
                                std::to_string(payload.size()));
  if (out.width() != sealed_width())
    throw std::invalid_argument("private channel: the batch's width must be " + std::to_string(sealed_width()) +
                                ", got " + std::to_string(out.width()));
  it->second.out.seal(round, seq, payload, out.append());
}

std::vector<PrivateChannels::Received> PrivateChannels::open_all(std::uint32_t round, const MessageBatch& output,
                                                                 std::uint32_t max_per_peer) const {
  std::vector<Received> received;
  if (output.empty()) return received;
  if (output.width() != sealed_width())
    throw_error(Errc::protocol_violation, "private channel: round " + std::to_string(round) + " carries " +
                                              std::to_string(output.width()) + "-byte messages, expected " +
                                              std::to_string(sealed_width()));
  struct Expected {
    const LinkKey* key;
    std::uint32_t seq;
    bool seen;
  };
  std::unordered_map<private_channel::Tag, Expected, TagHash> expected;
  expected.reserve(links_.size() * max_per_peer);
  for (const auto& [peer, link] : links_)
    for (std::uint32_t s = 0; s < max_per_peer; ++s) expected.emplace(link.in.tag(round, s), Expected{&link.in, s, false});

  for (std::size_t i = 0; i < output.count(); ++i) {
    const auto message = output[i];
    private_channel::Tag t{};
    std::copy_n(message.begin(), t.size(), t.begin());
    const auto it = expected.find(t);
    if (it == expected.end()) continue;
    Expected& e = it->second;
    if (e.seen)
      throw_error(Errc::replayed_frame, "private channel: message " + std::to_string(e.seq) + " from party " +
                                            std::to_string(e.key->sender()) + " appears twice in round " +
                                            std::to_string(round));
    e.seen = true;
    Received r{e.key->sender(), e.seq, std::vector<std::uint8_t>(payload_width_)};
    if (!e.key->open(round, e.seq, message, r.payload))
      throw_error(Errc::unauthenticated, "private channel: message " + std::to_string(e.seq) + " from party " +
                                             std::to_string(e.key->sender()) + " in round " + std::to_string(round) +
                                             " fails authentication");
    received.push_back(std::move(r));
  }
  std::sort(received.begin(), received.end(),
            [](const Received& a, const Received& b) { return std::tie(a.sender, a.seq) < std::tie(b.sender, b.seq); });
  return received;
}

void append_cover_message(Rng& rng, MessageBatch& out) { rng.fill(out.append()); }

}  // namespace shufflempc
