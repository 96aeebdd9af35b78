// The anonymous channel: the one primitive of the shuffle model.
//
// Per round, every party still in the session submits one batch of equal-width messages (possibly
// empty: a party may stay silent in a round). The channel outputs one uniformly random permutation
// of all submitted messages, to every party (MPC mode) or to the analyzer only (ESA mode), and
// reports who dropped out. Transports (net/) implement AnonymousChannel; protocols never see one.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/messages.hpp"
#include "shufflempc/random.hpp"
#include "shufflempc/shuffle.hpp"

namespace shufflempc {

using PartyId = std::uint32_t;

inline constexpr std::size_t session_id_bytes = 16;
// Names one run of a protocol: the TCP transport's frames carry it, and keys derived under
// different session ids are independent (a pair that reuses a secret across sessions still gets
// fresh channel keys).
using SessionId = std::array<std::uint8_t, session_id_bytes>;

enum class Delivery : std::uint8_t {
  all_parties = 0,    // MPC mode: every party (and the analyzer) sees the shuffled output
  analyzer_only = 1,  // ESA mode: only the analyzer sees it
};
[[nodiscard]] const char* to_string(Delivery d);

// What a protocol declares of one of its rounds: the width of every message, who receives the
// shuffled output, and how many messages each party sends. (Over TCP the width is the wire width:
// sealed messages in ESA mode.) Every channel refuses a party's batch whose count is outside
// [min_messages, max_messages], and every analyzer can check the total against the submitters: a
// corrupt party cannot add weight beyond its declared share. A protocol whose count does not
// depend on the input declares min_messages == max_messages (nothing observable reveals it).
struct RoundShape {
  std::size_t width = 0;
  Delivery delivery = Delivery::analyzer_only;
  std::size_t min_messages = 0;  // per party, in this round
  std::size_t max_messages = 0;  // per party; 0 with min 0: every party is silent
  // A wire shape's (net's wire_shape) width of the records inside the wire encoding, where the
  // wire width alone does not fix it: a verifiable chain's ElGamal limbs carry 2 bytes each, so
  // records of 7 and 8 bytes travel alike and only this says which they are. 0 elsewhere.
  std::size_t record_width = 0;

  // `n` messages from every party that submits.
  [[nodiscard]] static RoundShape exactly(std::size_t width, Delivery delivery, std::size_t n) { return {width, delivery, n, n}; }
  [[nodiscard]] bool fixed_count() const { return min_messages == max_messages; }
  [[nodiscard]] bool accepts(std::size_t count) const { return count >= min_messages && count <= max_messages; }
  bool operator==(const RoundShape&) const = default;
};

// What the channel enforces in one round: the shape, who is expected, how many must submit, and
// the deadline.
struct RoundRules {
  std::uint32_t round = 0;
  RoundShape shape;                      // declared width, delivery and messages per party
  std::vector<PartyId> expected;         // parties still in the session, ascending
  std::size_t min_parties = 1;           // the round fails if fewer submit
  std::chrono::milliseconds deadline{0};  // 0: no deadline (in-process)
};

// What the parties hosted at one endpoint submit in one round: their messages back to back in one
// batch, and each party's slice of it.
struct Submissions {
  struct Slice {
    PartyId party;
    std::size_t first;
    std::size_t count;
  };
  MessageBatch messages;
  std::vector<Slice> parties;
};

struct RoundOutcome {
  std::optional<MessageBatch> output;  // the shuffled messages, if this endpoint receives them
  std::vector<PartyId> submitted;      // parties whose batch was accepted, ascending
  std::vector<PartyId> dropped;        // expected parties that did not submit, ascending
  std::size_t messages = 0;            // messages in the round's output
  // Records the channel delivered but could not open (in ESA mode: sealed to another key or
  // altered on the way). They are not in `output`; the analyzer counts them as discarded.
  std::size_t discarded = 0;
};

class AnonymousChannel {
 public:
  virtual ~AnonymousChannel();
  // Submits this endpoint's parties' batches for `spec.round` and waits for the round to finish.
  // Throws std::system_error (shufflempc::Errc) on timeouts, too few parties, or transport errors.
  [[nodiscard]] virtual RoundOutcome exchange(const RoundRules& spec, Submissions local) = 0;
};

// The parties of an ascending list in one phrase for an error line: "party 3", "parties 0-2, 7",
// and after `max_runs` runs of consecutive ids "... and 40 more" (a deadline that misses 10^5
// parties still gives one short line).
[[nodiscard]] std::string name_parties(std::span<const PartyId> ascending, std::size_t max_runs = 6);

// The core of every channel implementation: check a complete round's submissions against the
// spec (width, known parties, no duplicates, enough parties), shuffle everything with `rng`, and
// report who dropped. Throws std::system_error with Errc::too_few_parties, duplicate_submission,
// unknown_party or protocol_violation.
[[nodiscard]] RoundOutcome complete_round(const RoundRules& spec, Submissions all, Rng& rng);
// The same with a caller-owned Shuffler, whose scratch buffers are reused from round to round.
[[nodiscard]] RoundOutcome complete_round(const RoundRules& spec, Submissions all, Rng& rng, Shuffler& shuffler);

}  // namespace shufflempc
