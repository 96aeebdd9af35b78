// IKOS key exchange over the shuffle (Ishai, Kushilevitz, Ostrovsky, Sahai, "Cryptography from
// Anonymity", FOCS 2006), for all pairs of n parties in one round (docs/ikos-key-exchange.md).
//
// For every pair i < j and every label l in [0, L), party i sends (i, j, l, a_l) and party j sends
// (i, j, l, b_l), all bits uniform. The label names the pair, never which member sent the message.
// Everyone sees the shuffled output, so both members learn the unordered pair {a_l, b_l}; each
// knows its own bit, hence the other's. D = { l : a_l != b_l }. If |D| >= k the key is the first
// party's bits (a_l) at the first k labels of D, ascending; otherwise the pair fails, publicly.
// An eavesdropper sees the same unordered pairs: it learns D and the common bit wherever the two
// agree, but on D it sees only {0, 1}, so the key is uniform given its view.
//
// L = 3k by default: P[success] = P[Bin(3k, 1/2) >= k]. L = k = 1 is the one-bit protocol
// (success 1/2).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "shufflempc/algebra.hpp"
#include "shufflempc/channel.hpp"
#include "shufflempc/hex.hpp"
#include "shufflempc/messages.hpp"
#include "shufflempc/random.hpp"

namespace shufflempc::ikos {

// u32le low party | u32le high party | u32le label | u8 bit
inline constexpr std::size_t message_width = 13;
inline constexpr std::uint32_t max_key_bits = 4096;
inline constexpr std::uint32_t max_labels = 65536;
// The whole round's output, L n (n-1) messages, is held in memory by every observer: cap it.
inline constexpr std::uint64_t max_messages = std::uint64_t{1} << 25;

struct Config {
  std::uint32_t parties = 2;
  std::uint32_t key_bits = 128;  // k
  std::uint32_t labels = 384;    // L, labels per pair
  [[nodiscard]] std::uint64_t pairs() const { return std::uint64_t{parties} * (parties - 1) / 2; }
  [[nodiscard]] std::uint64_t messages_per_party() const { return std::uint64_t{labels} * (parties - 1); }
  [[nodiscard]] std::uint64_t messages() const { return messages_per_party() * parties; }
};

// Validates parties >= 2, k in [1, max_key_bits], L in [k, max_labels] (labels = 0 means 3k) and
// L n (n-1) <= max_messages. Throws std::invalid_argument naming the parameter and its range.
[[nodiscard]] Config configure(std::uint64_t parties, std::int64_t key_bits, std::int64_t labels = 0);

// P[Bin(L, 1/2) >= k] = favourable / 2^L, computed exactly.
struct SuccessProbability {
  BigInt favourable;    // #{ d in {0,1}^L : |d| >= k }
  std::uint32_t labels = 0;
  double success = 0;   // favourable / 2^L, correctly rounded to ~1e-16 relative
  double failure = 0;   // 1 - success, computed from its own exact numerator (accurate when tiny)
};
[[nodiscard]] SuccessProbability success_probability(std::uint32_t key_bits, std::uint32_t labels);

struct Message {
  PartyId low = 0;
  PartyId high = 0;
  std::uint32_t label = 0;
  bool bit = false;
};
void write_message(std::span<std::uint8_t> out, const Message& m);
// Parses and validates one message: low < high < n, label < L, bit in {0, 1}. Throws
// std::system_error with Errc::protocol_violation otherwise.
[[nodiscard]] Message read_message(std::span<const std::uint8_t> in, const Config& c);

// A key of k bits, packed: bit t is bit (t mod 8) of byte t / 8; unused high bits are zero.
using Key = std::vector<std::uint8_t>;

struct PairKey {
  PartyId peer = 0;
  bool agreed = false;          // complete and |D| >= k
  bool complete = false;        // every label carried exactly two consistent messages
  std::uint32_t differing = 0;  // |D|
  Key key;                      // empty unless agreed
};

// One party's side of the all-pairs exchange.
class KeyExchange {
 public:
  KeyExchange(const Config& config, PartyId self);

  // Draws this party's bits and appends its L (n-1) messages to `out` (width message_width).
  void send(Rng& rng, MessageBatch& out);
  // The same with given bits: bits[p * L + l] for the p-th peer (ascending, self skipped).
  // For exhaustive tests.
  void send_bits(std::span<const std::uint8_t> bits, MessageBatch& out);
  // Reads the round's shuffled output and computes one key per peer.
  void receive(const MessageBatch& shuffled);

  [[nodiscard]] PartyId self() const { return self_; }
  [[nodiscard]] const Config& config() const { return config_; }
  // One entry per peer, ascending (after receive()).
  [[nodiscard]] const std::vector<PairKey>& keys() const { return keys_; }
  [[nodiscard]] const PairKey& key_with(PartyId peer) const;

 private:
  [[nodiscard]] std::size_t peer_index(PartyId peer) const { return peer < self_ ? peer : peer - 1; }
  Config config_;
  PartyId self_;
  std::vector<std::uint8_t> bits_;  // own bits, peer-major
  std::vector<PairKey> keys_;
};

// What a passive observer of the public output knows about one pair's key.
struct PairView {
  PartyId low = 0;
  PartyId high = 0;
  bool complete = false;                // every label carried exactly two messages
  bool success = false;                 // complete && |D| >= k: public
  std::vector<std::uint32_t> differing; // D, ascending
  std::vector<std::uint32_t> key_labels;  // the first k labels of D: where the key bits sit
  // Labels where both bits agree, with the common bit: known to the observer, never key bits.
  std::vector<std::pair<std::uint32_t, bool>> known;
  // Key bits the observer knows: always 0 (on D it sees only {0, 1}).
  [[nodiscard]] std::uint32_t key_bits_known() const { return 0; }
};

// The eavesdropper: everything it can compute from the shuffled output alone.
class Eavesdropper {
 public:
  explicit Eavesdropper(const Config& config);
  void observe(const MessageBatch& shuffled);
  [[nodiscard]] PairView view(PartyId a, PartyId b) const;
  [[nodiscard]] const Config& config() const { return config_; }

 private:
  [[nodiscard]] std::size_t pair_index(PartyId low, PartyId high) const;
  Config config_;
  std::vector<std::uint8_t> ones_;   // per (pair, label): number of 1 bits (saturating)
  std::vector<std::uint8_t> count_;  // per (pair, label): number of messages (saturating)
};

}  // namespace shufflempc::ikos
