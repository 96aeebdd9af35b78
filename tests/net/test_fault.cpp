// The transport cores' typed fault (net/fault.hpp): every code has a name of its own, the one the
// header spells, so that a log line or a test can name a code without a table of its own.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "shufflempc/net/fault.hpp"

using namespace shufflempc;

TEST_CASE("fault codes: each has its own name, as the header spells it, and a value past the last reads unknown") {
  using net::FaultCode;
  CHECK(net::to_string(FaultCode::session_ended) == "session_ended");
  CHECK(net::to_string(FaultCode::wrong_round) == "wrong_round");
  CHECK(net::to_string(FaultCode::proof_fails) == "proof_fails");
  CHECK(net::to_string(FaultCode::output_mismatch) == "output_mismatch");
  CHECK(net::to_string(FaultCode::out_of_order) == "out_of_order");
  std::set<std::string> names;
  const auto last = static_cast<int>(FaultCode::out_of_order);
  for (int c = 1; c <= last; ++c) {
    const std::string name(net::to_string(static_cast<FaultCode>(c)));
    CHECK_MESSAGE(name != "unknown", "code ", c);
    names.insert(name);
  }
  CHECK(names.size() == static_cast<std::size_t>(last));
  CHECK(net::to_string(static_cast<FaultCode>(last + 1)) == "unknown");
  CHECK(net::to_string(FaultCode{}) == "unknown");  // 0 is no code: a Fault always names one
}

TEST_CASE("a fault carries its place only where one applies") {
  const net::Fault f{.code = net::FaultCode::wrong_round, .text = "submission for round 3 rejected (wrong round)", .round = 3u, .party = 7u};
  CHECK(f.round == 3u);
  CHECK(f.party == 7u);
  CHECK_FALSE(f.hop.has_value());
}
