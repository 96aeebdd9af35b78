// ESA mode's sealing. In a round whose output goes to the analyzer only, every message leaves its
// party's process sealed to the analyzer's public key with libsodium's crypto_box_seal (an ephemeral
// X25519 key per record, XSalsa20-Poly1305), so the shuffler and anyone on the wire forward records
// they can neither read nor link to a plaintext; the analyzer opens them after the shuffle. The
// channel calls this unit on both ends; a layer of another kind (a mix server's onion layer) is a
// unit of the same shape: a record width, a seal over a run of records, an open that counts what
// did not open.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "shufflempc/messages.hpp"
#include "shufflempc/net/keys.hpp"

namespace shufflempc::net::sealing {

// The bytes a seal adds to a message (crypto_box_SEALBYTES: the ephemeral public key and the MAC).
inline constexpr std::size_t overhead = 48;

// The width of one sealed record of a `width`-byte message.
[[nodiscard]] constexpr std::size_t sealed_width(std::size_t width) { return width + overhead; }

// Seals each `width`-byte message of `messages` (a whole number of them) to `analyzer`, into `out`
// (sealed_width(width) bytes per message, in the same order). Throws std::invalid_argument on sizes
// that do not fit. The records are crypto_box_seal's, byte for byte in form (crypto_box_seal_open
// opens them), each with a fresh ephemeral key from libsodium's CSPRNG; the ephemeral public keys
// of a run of records are made together (ephemeral_public_keys), which costs less than
// crypto_box_seal's own X25519 of the base point for each.
void seal(std::span<const std::uint8_t> messages, std::size_t width, const PublicKey& analyzer, std::span<std::uint8_t> out);

// The messages of `records` (sealed_width(width) bytes each) that open under `analyzer`, in order,
// and how many did not (sealed to another key, or altered on the way): those are discarded.
struct Opened {
  MessageBatch messages;
  std::size_t discarded = 0;
};
[[nodiscard]] Opened open(std::span<const std::uint8_t> records, std::size_t width, const KeyPair& analyzer);

// Clamps an X25519 secret scalar in place as X25519 does before it multiplies (the 3 low bits and
// bit 255 cleared, bit 254 set): the public key of a secret is that of its clamped copy.
void clamp(std::array<std::uint8_t, 32>& secret);

// X25519 public keys of clamped secret scalars (bit 255 and the 3 low bits clear, bit 254 set, as
// X25519 clamps), equal to crypto_scalarmult_base's: each e·B on Edwards25519 by libsodium's
// fixed-base multiplication (crypto_scalarmult_ed25519_base_noclamp, with its precomputed table),
// then the Montgomery u = (1 + y) / (1 - y) of all of them with one field inversion (Montgomery's
// trick), on public values only. Throws std::invalid_argument on sizes that differ or a secret
// that is not clamped.
void ephemeral_public_keys(std::span<const std::array<std::uint8_t, 32>> secrets, std::span<PublicKey> out);

}  // namespace shufflempc::net::sealing

namespace shufflempc::net {
// Bytes per message on the wire: sealed to the analyzer (sealing::overhead more) in ESA mode.
[[nodiscard]] constexpr std::size_t wire_width(std::size_t width, Delivery delivery) {
  return delivery == Delivery::analyzer_only ? sealing::sealed_width(width) : width;
}
}  // namespace shufflempc::net
