// The shuffler process and its deadlines: a party that misses one, a round that keeps moving,
// parties that prepare their batches for longer than the deadline and say so, an analyzer that does
// not come back, too few parties, a party lost between two rounds. Each test checks the
// shuffler's line and what the others receive.
#include <algorithm>
#include <functional>
#include <set>
#include <thread>

#include "net/shuffler_peers.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/registry.hpp"

namespace {
using namespace shufflempc;
using namespace shufflempc::test;
using net::FrameType;
}  // namespace

TEST_CASE("shuffler process: a party that misses the deadline is dropped and told so") {
  NetSession s(n_parties, 12, 3, std::chrono::milliseconds(1500));
  ShufflerProcess sh(s);
  asio::io_context io;
  auto link = connect_party3(io, s, sh.port);  // connects, then stays silent
  check_honest_only(s, sh, {3});
  const auto frame = run_sync(io, link->receive());
  CHECK(frame.header.type == FrameType::abort);
  CHECK(std::string(frame.payload.begin(), frame.payload.end()).find("missed the deadline") != std::string::npos);
  // Connected, it owed a batch and said nothing for the deadline: given up alone, named at once.
  CHECK(sh.log().find("round 0: party 3 sent nothing for 1500 ms (no batch, no word that a batch was being prepared): missed the deadline, "
                      "dropped") != std::string::npos);
  link->close();
  CHECK(sh.process.wait() == 0);
}

TEST_CASE("shuffler process: a round that keeps moving outlives its deadline" * doctest::test_suite("slow")) {
  // Deadline 10 s. The honest parties submit at once; party 3 connects 6 s later (a slow machine)
  // and submits 6 s after that, 12 s into the round. Its arrival counted as progress, so the
  // round was still open: everyone's batch is in. The pauses play the slow party; they are not
  // waits for a peer, and each leaves 4 s of slack to the deadline it must beat.
  NetSession s(n_parties, 15, 0, std::chrono::seconds(10));
  ShufflerProcess sh(s);
  RoundOutcome out;
  std::exception_ptr failed;
  std::thread honest_parties = on_thread(failed, [&] { out = run_honest(s, sh.port); });
  std::this_thread::sleep_for(std::chrono::seconds(6));
  asio::io_context io;
  auto link = connect_party3(io, s, sh.port);
  std::this_thread::sleep_for(std::chrono::seconds(6));
  send_batch(*link, 0, 49, 1, sealed(s, {231}));
  honest_parties.join();
  if (failed) std::rethrow_exception(failed);  // without party 3 the session cannot end well
  auto want = expected(honest);
  want.insert(231);
  CHECK(received(out) == want);
  CHECK(out.submitted == std::vector<PartyId>{0, 1, 2, 3});
  CHECK(sh.log().find("deadline expired") == std::string::npos);
  link->close();
  CHECK(sh.process.wait() == 0);
}

TEST_CASE("shuffler process: parties that compute or seal their batches for longer than the deadline say so and complete, while a silent one is named at the deadline" * doctest::test_suite("slow")) {
  // Deadline 2 s, the round's limit 4.004 s. Parties 0..2 take 2.8 s before they submit, computing
  // their messages or sealing them (the pause plays a slow machine; it waits for no peer): their
  // links say every 0.5 s that they are alive, so the round waits for them. Party 3 connects and
  // says nothing: it is given up 2 s after it was admitted, alone, while the round stays open for
  // the others. Without the alive frames the shuffler gives up all of them at 2 s.
  bool in_channel = false;
  SUBCASE("the channel sealing the batches") { in_channel = true; }
  SUBCASE("the protocol computing the messages") { in_channel = false; }
  NetSession s(n_parties, 17, 3, std::chrono::seconds(2));
  ShufflerProcess sh(s);
  asio::io_context io;
  auto silent = connect_party3(io, s, sh.port);
  const auto start = std::chrono::steady_clock::now();
  net::TcpChannelOptions options;
  // The pause falls where the work does: the protocol computing the messages, or the channel
  // sealing them; the links say they are alive through either.
  if (in_channel) options.preparing = [](std::uint32_t) { std::this_thread::sleep_for(std::chrono::milliseconds(2800)); };
  const RoundOutcome out = run_honest(s, sh.port, std::move(options), std::chrono::milliseconds(in_channel ? 0 : 2800));
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(2800));
  CHECK(received(out) == expected(honest));
  CHECK(out.submitted == honest);
  CHECK(out.dropped == std::vector<PartyId>{3});
  const auto frame = run_sync(io, silent->receive());
  CHECK(frame.header.type == FrameType::abort);
  CHECK(std::string(frame.payload.begin(), frame.payload.end()).find("sent nothing for 2000 ms, missed the deadline") != std::string::npos);
  const std::string log = sh.log();
  CHECK(log.find("round 0: party 3 sent nothing for 2000 ms") != std::string::npos);
  CHECK(log.find("deadline expired") == std::string::npos);
  silent->close();
  CHECK(sh.process.wait() == 0);
}


TEST_CASE("shuffler process: an analyzer that does not come back ends the session after the grace, with one line naming it" * doctest::test_suite("slow")) {
  NetSession s(n_parties, 18, 0, std::chrono::seconds(60));
  ShufflerProcess sh(s);
  asio::io_context io;
  auto cut = connect_analyzer(io, s, sh.port);
  cut->socket().close();
  net::TcpChannel channel(s.config, every_party(s), "127.0.0.1", sh.port);
  try {
    (void)all_parties_round(channel, 0, RoundShape::exactly(1, Delivery::analyzer_only, 1));
    FAIL("the round should have failed without the analyzer");
  } catch (const std::system_error& e) {
    CHECK(e.code() == Errc::session_aborted);
    CHECK(std::string(e.what()).find("round 0: the analyzer's link was lost and it did not reconnect within 2000 ms") != std::string::npos);
  }
  CHECK(sh.process.wait(std::chrono::seconds(30)) == 1);  // a bound far under the 60 s deadline
}

TEST_CASE("shuffler process: too few parties ends the session with one clear error to everyone") {
  NetSession s(n_parties, 13, 4, std::chrono::milliseconds(1000));
  ShufflerProcess sh(s);
  try {
    (void)run_honest(s, sh.port);
    FAIL("the round should have failed");
  } catch (const std::system_error& e) {
    CHECK(e.code() == Errc::session_aborted);
    CHECK(std::string(e.what()).find("3 of 4 parties submitted, at least 4 needed; missing: party 3") != std::string::npos);
  }
  CHECK(sh.process.wait() == 1);
  CHECK(sh.log().find("session aborted: round 0: 3 of 4 parties submitted, at least 4 needed; missing: party 3") != std::string::npos);
}

TEST_CASE("shuffler process: a party lost between two MPC rounds ends round 1 at once, and the error names it" * doctest::test_suite("slow")) {
  // Two rounds in MPC mode, every party needed. Party 3 submits round 0, reads its result and dies
  // (its socket closes, as when its process is killed). The shuffler gives it up after the
  // reconnection grace (2 s), not at the 60 s deadline, and every honest party gets one line
  // naming party 3.
  NetSession s(n_parties, 14, 0, std::chrono::seconds(60));
  two_mpc_rounds(s);
  ShufflerProcess sh(s);
  std::vector<net::Identity> ids;
  for (PartyId id : honest) ids.push_back({id, s.parties[id]});
  ids.push_back({net::analyzer_id, s.analyzer});
  net::TcpChannel channel(s.config, std::move(ids), "127.0.0.1", sh.port);
  const auto round_of = [&](std::uint32_t round) {
    RoundRules spec;
    spec.round = round;
    spec.shape = mpc_round;
    spec.expected = {0, 1, 2, 3};
    Submissions local;
    local.messages = MessageBatch(1);
    for (PartyId id : honest) {
      const std::uint8_t b = static_cast<std::uint8_t>(10 * round + id);
      local.parties.push_back({id, local.messages.count(), 1});
      local.messages.push_back(std::span(&b, 1));
    }
    return channel.exchange(spec, std::move(local));
  };
  asio::io_context io;
  auto link = connect_party3(io, s, sh.port);
  RoundOutcome first;
  std::exception_ptr failed;
  std::thread round0 = on_thread(failed, [&] { first = round_of(0); });
  send_batch(*link, 0, 1, 1, {3});
  const auto result = run_sync(io, link->receive());
  round0.join();
  if (failed) std::rethrow_exception(failed);
  CHECK(result.header.type == FrameType::result);
  CHECK(first.submitted == std::vector<PartyId>{0, 1, 2, 3});
  link->socket().close();  // party 3's process is gone
  try {
    (void)round_of(1);
    FAIL("round 1 should have failed without party 3");
  } catch (const std::system_error& e) {
    CHECK(e.code() == Errc::session_aborted);
    CHECK(std::string(e.what()).find("round 1: 3 of 4 parties submitted, at least 4 needed; missing: party 3") != std::string::npos);
  }
  // Well before the deadline: the wait below is a bound, far under the 60 s the round would take.
  CHECK(sh.process.wait(std::chrono::seconds(30)) == 1);
  CHECK(sh.log().find("session aborted: round 1: 3 of 4 parties submitted, at least 4 needed; missing: party 3") != std::string::npos);
  CHECK(sh.log().find("deadline") == std::string::npos);
}

