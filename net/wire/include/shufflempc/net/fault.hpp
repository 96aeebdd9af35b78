// What the transport's socket-free cores return when an event must not be taken: a typed fault.
// detail::SessionRounds (a party's link admitted, a batch submitted), detail::ChainEntry (a further
// server's answer) and verify_chain (an onion chain's signed reports) each return either nothing
// (taken) or a Fault: what went wrong as a code, where (the round, the hop, the party, when it
// is one), and the line the I/O layer logs, refuses with or aborts the session with. A sender's
// receipt is checked the same way (committed_root, receipt_fault). Callers and tests decide on the
// code and the place; the text is for people.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "shufflempc/channel.hpp"

namespace shufflempc::net {

enum class FaultCode : std::uint8_t {
  // A party's link or submission (detail::SessionRounds).
  session_ended = 1,     // the session has ended: nothing more is admitted or submitted
  already_connected,     // a party (or the analyzer) already has a link in the session
  outside_session,       // parties that are not all in the session, or a link that speaks for others than it may
  not_in_session,        // a party that was dropped or left: it stays out
  wrong_round,           // a frame for another round than the open one
  wrong_width,           // records of another width than the round's
  wrong_count,           // a count of messages outside what the round allows, or a payload that does not hold its count
  duplicate,             // a second, different submission of a party in one round (its first stands)
  late_leave,            // a party that leaves after its batch was accepted
  over_limit,            // the round's result would exceed the frame limit
  // A further server's answer to the entry (detail::ChainEntry).
  wrong_frame,           // an answer that is not this round's (type, round, width or size)
  dropped_records,       // a verifiable hop that returned another number of records than it was sent
  malformed,             // an answer that does not parse
  proof_fails,           // a hop's proof of shuffle or a decryption share's proof does not verify
  // An onion chain's signed reports (verify_chain).
  missing_reports,       // not one report per hop
  wrong_place,           // a report for another session, round or hop
  bad_signature,         // a report whose signature does not verify under its hop's key
  counts_mismatch,       // a report whose counts do not add up
  input_mismatch,        // a hop that signed it received another batch than the one before it sent (or than was submitted)
  output_mismatch,       // the last hop signed it sent another batch than the one delivered
  // A sender's receipt (committed_root, receipt_fault; docs/mix-chain.md).
  no_chain,              // the session has no chain to commit
  left_out,              // a record of the sender's is not in the batch the entry committed to
  wrong_path,            // a record is not at the place its path claims
  out_of_order,          // a record's neighbour is not in the committed order
};

// The code's name as written above ("wrong_round"): stable, for logs and tests.
[[nodiscard]] std::string_view to_string(FaultCode code) noexcept;

struct Fault {
  FaultCode code{};
  std::string text;                    // the line (for the log, a refusal frame or the session's abort)
  std::optional<std::uint32_t> round;  // the round it happened in, where one applies
  std::optional<std::size_t> hop;      // the chain's hop at fault (0 = the entry)
  std::optional<PartyId> party;        // the party at fault, where one is
};

}  // namespace shufflempc::net
