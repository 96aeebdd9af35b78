#include "shufflempc/net/fault.hpp"

namespace shufflempc::net {

std::string_view to_string(FaultCode code) noexcept {
  switch (code) {
    case FaultCode::session_ended: return "session_ended";
    case FaultCode::already_connected: return "already_connected";
    case FaultCode::outside_session: return "outside_session";
    case FaultCode::not_in_session: return "not_in_session";
    case FaultCode::wrong_round: return "wrong_round";
    case FaultCode::wrong_width: return "wrong_width";
    case FaultCode::wrong_count: return "wrong_count";
    case FaultCode::duplicate: return "duplicate";
    case FaultCode::late_leave: return "late_leave";
    case FaultCode::over_limit: return "over_limit";
    case FaultCode::wrong_frame: return "wrong_frame";
    case FaultCode::dropped_records: return "dropped_records";
    case FaultCode::malformed: return "malformed";
    case FaultCode::proof_fails: return "proof_fails";
    case FaultCode::missing_reports: return "missing_reports";
    case FaultCode::wrong_place: return "wrong_place";
    case FaultCode::bad_signature: return "bad_signature";
    case FaultCode::counts_mismatch: return "counts_mismatch";
    case FaultCode::input_mismatch: return "input_mismatch";
    case FaultCode::output_mismatch: return "output_mismatch";
    case FaultCode::no_chain: return "no_chain";
    case FaultCode::left_out: return "left_out";
    case FaultCode::wrong_path: return "wrong_path";
    case FaultCode::out_of_order: return "out_of_order";
  }
  return "unknown";
}

}  // namespace shufflempc::net
