// The onion of a chain of k mix servers (hops 0 .. k-1): the unit that lets an anonymous channel
// rest on no single server. A party wraps each record in one layer per hop, the innermost first:
//
//   c_k = m                                 (a round delivered to every party)
//   c_k = crypto_box_seal(m, analyzer)      (a round delivered to the analyzer only: sealing.hpp)
//   c_i = layer_i(c_{i+1})                  for i = k-1 .. 0
//
// A layer is an X25519 box (XSalsa20-Poly1305) from a fresh ephemeral key to hop i's public key,
// like crypto_box_seal, except that its nonce is BLAKE2b over the ephemeral key, the hop's key and
// the layer's place (session, round, hop): the same 48 bytes (ephemeral key and MAC), and a layer
// opens only at its own hop of its own round of its own session. A record replayed into another
// round or session, or moved to another hop, does not open.
//
// Hop i opens its layer of every record (peel), refuses a record seen twice in the round and one
// that does not open (both counted), shuffles what opened with its own CSPRNG and forwards it: every
// record of a round has the same width at a hop, and the bytes a hop forwards share nothing with
// the bytes it received. With one honest hop, whoever holds every other hop's keys and
// permutations cannot link an output record to its sender (tests/net/test_onion.cpp enumerates it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "shufflempc/channel.hpp"
#include "shufflempc/messages.hpp"
#include "shufflempc/net/keys.hpp"

namespace shufflempc::net::onion {

// The bytes one layer adds (the ephemeral public key and the MAC, as a sealed record).
inline constexpr std::size_t layer_overhead = 48;
// Most hops a chain may have.
inline constexpr std::size_t max_hops = max_mix_servers;

// Where a layer belongs.
struct Place {
  SessionId session{};
  std::uint32_t round = 0;
  std::uint32_t hop = 0;
};

// The width of a record as hop `hop` of `hops` receives it, for a `width`-byte message in a round
// delivered as `delivery` (hop == hops: what the last hop forwards).
[[nodiscard]] std::size_t record_width(std::size_t width, Delivery delivery, std::size_t hops, std::size_t hop);

// Wraps each `width`-byte message of `messages` for the chain `hops` (hop 0 first) in round `round`
// of `session`, sealed to `analyzer` inside the layers in an analyzer-only round. Throws
// std::invalid_argument on sizes that do not fit or a chain of 0 or more than max_hops hops.
[[nodiscard]] MessageBatch wrap(std::span<const std::uint8_t> messages, std::size_t width, Delivery delivery,
                                const PublicKey& analyzer, std::span<const PublicKey> hops, const SessionId& session,
                                std::uint32_t round);

// What a hop opened of a batch, in the batch's order, and what it refused.
struct Peeled {
  MessageBatch records;         // each 48 bytes narrower than the records received
  std::size_t not_opened = 0;   // another hop's, round's or session's layer, or altered on the way
  std::size_t duplicates = 0;   // a record identical to an earlier one of the batch
};
// Opens hop `place.hop`'s layer of every record of `records` (a batch of one width) with the hop's
// key pair.
[[nodiscard]] Peeled peel(const MessageBatch& records, const KeyPair& hop, const Place& place);

}  // namespace shufflempc::net::onion
