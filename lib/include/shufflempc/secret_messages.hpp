// One-round secret messages through the shuffle (OSM, "sender-keyed chaff").
//
// Two parties that share no key can send each other secret messages in ONE shuffle round, and
// leave that round with a pairwise key for the next (Beimel-Haitner-Nissim-Stemmer, TCC 2020, state
// that this is possible; the construction here is shufflempc's own, docs/two-round-mpc.md gives
// the argument). For every unordered pair {i, j} both members send N chaff messages under the same
// public labels (CHAFF, min, max, t), t = 0..N-1, each carrying fresh random bytes: s_t from i,
// r_t from j. An observer of the shuffled output sees, at each label, the unordered pair
// {s_t, r_t}: which of the two is i's is one uniform bit, so i's chaff S_i is uniform over 2^D
// candidates, D = #{t : s_t != r_t} = N except with probability N 2^-(8 payload).
//
// The SENDER's key is its own chaff, so it can encrypt in the same round:
//   kdf   (default, computational, both directions from N = 160 labels):
//         K_{i->j} = BLAKE2b-256("shufflempc/osm/v2" | u32le(i) | u32le(j) | P(s_0) | ... | P(s_{N-1}))
//         with P(s) the first key_prefix_bytes (32) of a payload, or all of a shorter one. The
//         observer's uncertainty is the same one bit per label (which of the two messages is i's);
//         the prefixes of the pair's payloads at a label differ except with probability 2^-256, so
//         hashing the rest of each payload (up to 64 field elements wide) adds nothing but time.
//         chunk c = XChaCha20-Poly1305(K_{i->j}, nonce = u32le(c) | 0^20, ad = the message's header)
//   coset (information-theoretic, no MAC): the pad is H vec(S_i) over GF(2), H a public matrix
//         drawn from ChaCha20 under BLAKE2b("shufflempc/osm-coset/v1" | i | j); the pad of l bits is
//         uniform given the observer's view unless the D unknown bits fail to span GF(2)^l, which
//         has probability at most 2^(l - D). Both directions of a pair share the same D unknowns:
//         l_{i->j} + l_{j->i} + 40 <= N keeps both pads jointly uniform up to 2^-40.
// The receiver j, after the round, removes one copy of its own r_t at each label to get s_t,
// rebuilds K_{i->j} (or the pad) and decrypts. Both leave with the pairwise key
//   K_{ij} = BLAKE2b-256("shufflempc/osm-pair/v2" | u32le(min) | u32le(max) | P(S_min) | P(S_max)),
// P(S) the prefixes of S's labels as above.
//
// Every message of the round has the same width: a 13-byte header (kind, a, b, index) and a
// payload. Semi-honest: a party can inject messages under someone else's label (the receiver then
// sees a label with the wrong number of messages and refuses the round: Errc::protocol_violation).
// The transport must deliver the round to the receivers (MPC mode); the shuffler itself sees who
// sent what, as the shuffle model's trusted shuffler does.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "shufflempc/channel.hpp"
#include "shufflempc/messages.hpp"
#include "shufflempc/random.hpp"

namespace shufflempc::osm {

inline constexpr std::size_t header_bytes = 13;  // kind:1 | a:u32le | b:u32le | index:u32le
inline constexpr std::size_t mac_bytes = 16;
inline constexpr std::size_t key_bytes = 32;
inline constexpr std::size_t default_chaff = 160;    // kdf: 2^-128 guessing, with margin
inline constexpr std::size_t coset_margin_bits = 40;  // coset: pads uniform up to 2^-40
inline constexpr std::size_t max_chaff = 1u << 16;
inline constexpr std::size_t key_prefix_bytes = 32;  // kdf: the bytes of each chaff payload a key hashes
using Key = std::array<std::uint8_t, key_bytes>;

// Message kinds 1 and 2 belong to OSM; a protocol that shares the round uses kinds >= 16.
enum class Kind : std::uint8_t { chaff = 1, ciphertext = 2 };
inline constexpr std::uint8_t first_protocol_kind = 16;

enum class KeyMode : std::uint8_t { kdf, coset };
[[nodiscard]] const char* to_string(KeyMode m);

struct Header {
  std::uint8_t kind = 0;
  std::uint32_t a = 0;
  std::uint32_t b = 0;
  std::uint32_t index = 0;
};
void write_header(std::span<std::uint8_t> message, const Header& h);
[[nodiscard]] Header read_header(std::span<const std::uint8_t> message);

struct Config {
  std::size_t parties = 0;
  std::size_t width = 0;  // of every message of the round: header_bytes + payload
  std::size_t chaff = default_chaff;
  KeyMode mode = KeyMode::kdf;
  // The pair schedule: 0 links every pair; h > 0 links a pair only when one of its members is
  // among parties 0..h-1 (a star of hubs: input-only clients talk to the computing parties and
  // never to each other). The schedule is public, like the chaff labels.
  std::size_t hubs = 0;

  [[nodiscard]] bool linked(PartyId a, PartyId b) const {
    return a != b && a < parties && b < parties && (hubs == 0 || a < hubs || b < hubs);
  }
  // Peers `p` is linked with.
  [[nodiscard]] std::size_t peers(PartyId p) const {
    if (hubs == 0 || hubs >= parties || p < hubs) return parties - 1;
    return hubs;
  }
  [[nodiscard]] std::size_t payload_bytes() const { return width - header_bytes; }
  // Plaintext bytes one ciphertext message carries (the payload minus the MAC in kdf mode).
  [[nodiscard]] std::size_t chunk_bytes() const;
  // Ciphertext messages for a plaintext of `bytes` bytes.
  [[nodiscard]] std::size_t chunks(std::size_t bytes) const;
  // Throws std::invalid_argument naming the parameter (chaff, width, parties).
  void validate() const;
};

// What an observer of the shuffled output knows of the pairs' chaff: at a label where both members'
// payloads are equal it is certain of that label; everywhere else it has one uniform bit. (kdf mode:
// the payloads' key prefixes, what the keys hash, must differ.)
struct ObserverView {
  std::size_t pairs = 0;
  std::size_t min_uncertain_labels = 0;  // min over pairs of D
  std::size_t collided_labels = 0;       // sum over pairs of N - D
};

// One party's side of the OSM round.
class SecretMessages {
 public:
  // Draws this party's chaff for every peer from `rng`.
  SecretMessages(const Config& config, PartyId self, Rng& rng);

  [[nodiscard]] const Config& config() const { return c_; }
  [[nodiscard]] PartyId self() const { return self_; }
  // Chaff messages this party sends: chaff for each of its linked peers.
  [[nodiscard]] std::size_t chaff_messages() const { return c_.chaff * c_.peers(self_); }

  // Appends the chaff for every linked peer.
  void append_chaff(MessageBatch& out) const;
  // Appends the encryption of `plaintext` to linked `peer` as chunks(plaintext.size()) messages, usable in
  // the same round. In coset mode throws std::invalid_argument when the pad would exceed what the
  // chaff hides (8 |plaintext| + coset_margin_bits > chaff).
  void append_ciphertext(PartyId peer, std::span<const std::uint8_t> plaintext, MessageBatch& out) const;

  // After the round: recovers every submitting peer's chaff from the shuffled output. Throws
  // std::system_error (Errc::protocol_violation) when a label holds the wrong number of messages or
  // none of them is this party's own (someone sent under a label that is not theirs).
  void receive(const MessageBatch& output, std::span<const PartyId> submitted);
  // Decrypts the `bytes`-byte plaintext `sender` sent this party. Throws std::system_error:
  // Errc::protocol_violation if chunks are missing or duplicated, Errc::unauthenticated if one fails
  // its MAC (kdf mode).
  [[nodiscard]] std::vector<std::uint8_t> open(PartyId sender, std::size_t bytes) const;
  // The pairwise key with `peer`, for the next round (after receive()).
  [[nodiscard]] Key pair_key(PartyId peer) const;

  // Key of this party's own direction to `peer` (kdf mode), for tests.
  [[nodiscard]] Key sending_key(PartyId peer) const;

 private:
  [[nodiscard]] std::span<const std::uint8_t> own_chaff(PartyId peer) const;

  Config c_;
  PartyId self_;
  std::vector<std::uint8_t> own_;    // chaff per peer, [peer][t][payload]
  std::vector<std::uint8_t> peers_;  // recovered chaff of each peer, same layout
  std::vector<bool> have_peer_;
  std::vector<std::vector<std::uint8_t>> ciphertexts_;  // per sender: its messages to this party, back to back
};

// Checks an OSM round's output before anything is read from it: it holds exactly `declared`
// messages (the sum of the submitters' declared counts: a party's count may lie anywhere in the
// round's [min, max], so junk within it would otherwise pass), each of kind chaff, ciphertext or one
// of `other_kinds`. Throws std::system_error (Errc::protocol_violation) naming `protocol`.
void check_declared(const MessageBatch& output, std::size_t declared, std::size_t submitters, std::string_view protocol,
                    std::span<const std::uint8_t> other_kinds = {});

// What an observer of the shuffled output (anyone but the pair) learns of each pair's chaff.
[[nodiscard]] ObserverView observe(const Config& config, const MessageBatch& output, std::span<const PartyId> submitted);

// Key derivations (exposed for tests and for the receiver's decoder). A chaff span holds one
// party's payloads for the pair, label after label, `payload_bytes` each; throws
// std::invalid_argument when it is not whole payloads.
[[nodiscard]] Key direction_key(PartyId sender, PartyId recipient, std::span<const std::uint8_t> sender_chaff, std::size_t payload_bytes);
[[nodiscard]] Key pair_key(PartyId a, PartyId b, std::span<const std::uint8_t> chaff_a, std::span<const std::uint8_t> chaff_b,
                           std::size_t payload_bytes);
// The coset pad of `bytes` bytes: H vec(chaff) for the public H of (sender, recipient).
[[nodiscard]] std::vector<std::uint8_t> coset_pad(PartyId sender, PartyId recipient, std::span<const std::uint8_t> sender_chaff,
                                                  std::size_t bytes);

}  // namespace shufflempc::osm
