// Private channels through the shuffle: one party sends another an encrypted, authenticated,
// fixed-width message that travels through the anonymous channel among everybody else's messages.
//
// Two parties that share a secret (an IKOS key from protocols/ikos_key_exchange, or any other
// secret of at least 16 uniform bytes) derive, for their session, one key per direction of their
// link. A sealed message is
//
//     tag (16 bytes) | ciphertext (payload_width bytes) | MAC (16 bytes)
//
// so every sealed message of a round has the same width and can be shuffled with the others.
// The tag is a pseudorandom function of (direction key, round, sequence number): the recipient
// recognises its messages by their tags in one pass over the round's output, while everybody else
// sees uniformly random-looking bytes that name neither the sender nor the recipient. Random
// cover messages (append_cover_message) are indistinguishable from sealed ones.
//
// Derivation (docs/private-channels.md gives it with test vectors computed in tests/lib):
//   prk      = BLAKE2b-256( "shufflempc/private-channel/v1" | session id (16) | u32le(min(a,b))
//                           | u32le(max(a,b)) | u64le(secret length) | secret )
//   direction d = 0 for min -> max, 1 for max -> min
//   enc key  = crypto_kdf_derive_from_key(32, subkey 2d,     "smpcchan", prk)
//   tag key  = crypto_kdf_derive_from_key(32, subkey 2d + 1, "smpcchan", prk)
//   tag      = BLAKE2b-128 keyed with the tag key, over u32le(round) | u32le(seq)
//   sealed   = ChaCha20-Poly1305-IETF(enc key, nonce = u32le(round) | u32le(seq) | 0^4,
//                                     associated data = tag)
// Each (direction, round, seq) must seal at most one payload: the nonce is derived from it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string_view>
#include <vector>

#include "shufflempc/channel.hpp"
#include "shufflempc/messages.hpp"
#include "shufflempc/random.hpp"

namespace shufflempc {

// A fresh session id (draw it from a SystemRng in production).
[[nodiscard]] SessionId random_session_id(Rng& rng);
// A session id that every party computes from an agreed name: BLAKE2b-128 of
// "shufflempc/session-id/v1" | name.
[[nodiscard]] SessionId session_id_from_name(std::string_view name);

namespace private_channel {
inline constexpr std::size_t tag_bytes = 16;
inline constexpr std::size_t mac_bytes = 16;
inline constexpr std::size_t overhead = tag_bytes + mac_bytes;
inline constexpr std::size_t key_bytes = 32;
inline constexpr std::size_t min_secret_bytes = 16;  // 128 bits: a shorter secret is refused
inline constexpr std::size_t max_secret_bytes = 4096;
using Tag = std::array<std::uint8_t, tag_bytes>;

// Width of a sealed message carrying `payload_width` bytes.
[[nodiscard]] constexpr std::size_t sealed_width(std::size_t payload_width) { return payload_width + overhead; }
}  // namespace private_channel

// The keys of one direction of one link (sender -> recipient). Wiped on destruction.
class LinkKey {
 public:
  // Throws std::invalid_argument if sender == recipient or the secret's length is outside
  // [min_secret_bytes, max_secret_bytes].
  [[nodiscard]] static LinkKey derive(std::span<const std::uint8_t> pair_secret, const SessionId& session, PartyId sender,
                                      PartyId recipient);
  LinkKey(const LinkKey&) = default;
  LinkKey& operator=(const LinkKey&) = default;
  ~LinkKey();

  [[nodiscard]] PartyId sender() const { return sender_; }
  [[nodiscard]] PartyId recipient() const { return recipient_; }

  [[nodiscard]] private_channel::Tag tag(std::uint32_t round, std::uint32_t seq) const;
  // Writes tag | ciphertext | MAC into `out`, whose size must be sealed_width(payload.size())
  // (std::invalid_argument otherwise).
  void seal(std::uint32_t round, std::uint32_t seq, std::span<const std::uint8_t> payload, std::span<std::uint8_t> out) const;
  // Checks the tag and the MAC of `sealed` and decrypts into `payload` (size sealed - overhead).
  // Returns false, leaving `payload` zeroed, if the message is not authentic for (round, seq).
  [[nodiscard]] bool open(std::uint32_t round, std::uint32_t seq, std::span<const std::uint8_t> sealed,
                          std::span<std::uint8_t> payload) const;

  // The derived keys, for known-answer tests.
  [[nodiscard]] const std::array<std::uint8_t, private_channel::key_bytes>& encryption_key() const { return enc_key_; }
  [[nodiscard]] const std::array<std::uint8_t, private_channel::key_bytes>& tag_key() const { return tag_key_; }

 private:
  LinkKey() = default;
  PartyId sender_ = 0;
  PartyId recipient_ = 0;
  std::array<std::uint8_t, private_channel::key_bytes> enc_key_{};
  std::array<std::uint8_t, private_channel::key_bytes> tag_key_{};
};

// One party's end of its private channels to its peers, for messages of one payload width.
class PrivateChannels {
 public:
  struct Received {
    PartyId sender = 0;
    std::uint32_t seq = 0;
    std::vector<std::uint8_t> payload;
  };

  // payload_width in [1, MessageBatch::max_width - overhead].
  PrivateChannels(const SessionId& session, PartyId self, std::size_t payload_width);

  // Derives both directions of the link with `peer` from the secret this party shares with it.
  void add_peer(PartyId peer, std::span<const std::uint8_t> pair_secret);
  [[nodiscard]] bool has_peer(PartyId peer) const { return links_.count(peer) != 0; }
  [[nodiscard]] PartyId self() const { return self_; }
  [[nodiscard]] std::size_t payload_width() const { return payload_width_; }
  [[nodiscard]] std::size_t sealed_width() const { return private_channel::sealed_width(payload_width_); }

  // Appends one sealed message for `recipient` to `out` (whose width must be sealed_width()).
  // `seq` numbers this party's messages to that recipient within `round`, from 0; never seal two
  // payloads under the same (recipient, round, seq).
  void seal(PartyId recipient, std::uint32_t round, std::uint32_t seq, std::span<const std::uint8_t> payload,
            MessageBatch& out) const;

  // Finds the messages addressed to this party in one round's shuffled output: sequence numbers
  // [0, max_per_peer) from every peer. Other messages (other links, cover traffic) are skipped.
  // Returns them sorted by (sender, seq). Throws std::system_error with Errc::unauthenticated if a
  // message carries one of this party's tags but fails authentication, Errc::replayed_frame if
  // a tag appears twice, and Errc::protocol_violation if the output's width is not sealed_width().
  [[nodiscard]] std::vector<Received> open_all(std::uint32_t round, const MessageBatch& output,
                                               std::uint32_t max_per_peer) const;

 private:
  struct Link {
    LinkKey out;  // self -> peer
    LinkKey in;   // peer -> self
  };
  SessionId session_;
  PartyId self_;
  std::size_t payload_width_;
  std::map<PartyId, Link> links_;
};

// Appends one message of uniformly random bytes: cover traffic that outsiders cannot tell from a
// sealed message of the same width.
void append_cover_message(Rng& rng, MessageBatch& out);

}  // namespace shufflempc
