#include "shufflempc/error.hpp"

namespace shufflempc {
namespace {
class Category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "shufflempc"; }
  std::string message(int c) const override {
    switch (static_cast<Errc>(c)) {
      case Errc::malformed_frame: return "malformed frame";
      case Errc::oversized_frame: return "oversized frame";
      case Errc::unauthenticated: return "unauthenticated peer or frame";
      case Errc::wrong_session: return "frame for another session or round";
      case Errc::replayed_frame: return "replayed frame";
      case Errc::duplicate_submission: return "duplicate submission";
      case Errc::unknown_party: return "unknown party";
      case Errc::timeout: return "deadline expired";
      case Errc::too_few_parties: return "too few parties";
      case Errc::peer_closed: return "peer closed the connection";
      case Errc::session_aborted: return "session aborted";
      case Errc::protocol_violation: return "protocol violation";
    }
    return "unknown shufflempc error";
  }
};
}  // namespace

const std::error_category& error_category() noexcept {
  static const Category category;
  return category;
}

std::error_code make_error_code(Errc e) noexcept { return {static_cast<int>(e), error_category()}; }

void throw_error(Errc e, const std::string& what) { throw std::system_error(make_error_code(e), what); }

}  // namespace shufflempc
