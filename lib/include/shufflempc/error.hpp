// Error codes for network, timeout, authentication and malformed-input failures.
// API misuse and bad parameters throw std::invalid_argument instead (docs/ARCHITECTURE.md, "Errors").
#pragma once

#include <string>
#include <system_error>

namespace shufflempc {

enum class Errc {
  malformed_frame = 1,     // a header field or payload that does not parse or is out of range
  oversized_frame,         // a frame larger than the configured limit
  unauthenticated,         // a peer whose key is not in the session, or a failed MAC
  wrong_session,           // a frame for another session or another round
  replayed_frame,          // a frame whose sequence number was already seen
  duplicate_submission,    // a party submitted twice in one round
  unknown_party,           // a party id outside the session
  timeout,                 // a deadline expired
  too_few_parties,         // fewer parties than the minimum submitted in a round
  peer_closed,             // the other side closed the connection
  session_aborted,         // the session ended with an error announced to everyone
  protocol_violation,      // a message that breaks the protocol's declared shape
};

[[nodiscard]] const std::error_category& error_category() noexcept;
[[nodiscard]] std::error_code make_error_code(Errc e) noexcept;
[[noreturn]] void throw_error(Errc e, const std::string& what);

}  // namespace shufflempc

template <>
struct std::is_error_code_enum<shufflempc::Errc> : std::true_type {};
