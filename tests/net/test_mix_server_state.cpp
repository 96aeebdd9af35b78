// A further mix server's state directory (MixServerOptions::state_dir, docs/mix-chain.md), one
// server stopped and started again on it in this process: an onion chain's server answers the batch
// it mixed with the same bytes and refuses another; a verifiable chain's gives the same shuffle and
// the same decryption shares for the same frames and refuses other evidence; the goodbye ends the
// session in the state; a torn answer is refused at start; on a full disk (a 1 MB tmpfs) nothing is
// sent that was not kept, and a restart with room goes on. The crash tests with real processes and
// SIGKILL are tests/cli/test_mix_server_state.cpp.
#include <doctest/doctest.h>

#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "net/mix_server_thread.hpp"
#include "net/verifiable_server.hpp"
#include "shufflempc/hex.hpp"
#include "shufflempc/mixnet/transcript.hpp"
#include "shufflempc/net/store.hpp"
#include "support/proved_input.hpp"
#include "support/small_disk.hpp"
#include "support/temp_dir.hpp"

using namespace shufflempc;
using shufflempc::test::OneServer;
using shufflempc::test::VerifiableServer;

TEST_CASE("mix server state: started again on its state directory, it answers the batch it mixed with the same bytes, refuses another, and goes on") {
  const test::TempDir dir("shufflempc-mixstate");
  net::MixServerOptions options;
  options.state_dir = dir / "state";
  OneServer s(options);
  const MessageBatch first = s.batch(0, 0xa1);
  const auto ask = [&](std::uint32_t round, const MessageBatch& batch) {
    net::detail::Frame answer;
    s.as_entry([&](net::detail::SecureLink& link) -> asio::awaitable<void> {
      link.send(net::FrameType::mix, round, static_cast<std::uint32_t>(batch.width()), static_cast<std::uint32_t>(batch.count()), batch.bytes());
      answer = co_await link.receive();
    });
    return answer;
  };
  const auto answer = ask(0, first);
  REQUIRE(answer.header.type == net::FrameType::mixed);
  // Stopped (as if it crashed: a stop records nothing) and started again on the directory.
  s.restart(options);
  {
    std::lock_guard lock(s.log_mutex);
    REQUIRE(s.log.size() == 1);
    CHECK(s.log[0].find("round 0's answer taken back from the state directory") != std::string::npos);
  }
  // The same batch: the same records in the same order, the same signed report.
  const auto again = ask(0, first);
  CHECK(again.header.type == net::FrameType::mixed);
  CHECK(again.payload == answer.payload);
  // Another batch for round 0: refused, as before the restart (a second mix of the round would let
  // a corrupt entry compare two outputs).
  const auto other = ask(0, s.batch(0, 0xb2));
  CHECK(other.header.type == net::FrameType::abort);
  CHECK(std::string(other.payload.begin(), other.payload.end()).find("round 0 was mixed already, with another batch") != std::string::npos);
  // Round 1 goes on, and the goodbye ends the session in the state too (round 0's report taken
  // back, round 1's made).
  CHECK(ask(1, s.batch(1, 0xc3)).header.type == net::FrameType::mixed);
  s.goodbye_ends_session(2, options);
  // A torn answer in the state is refused at start, never served.
  const test::TempDir torn_dir("shufflempc-mixstate-torn");
  {
    auto store = net::open_state_directory(torn_dir / to_hex(s.local.config.session), s.local.config.session, s.local.config.digest(), "test");
    store->keep("last", std::vector<std::uint8_t>(7, 1));
  }
  options.state_dir = torn_dir.path();
  CHECK_THROWS_WITH_AS(s.restart(options), doctest::Contains("its state directory keeps a torn answer: refused"), std::runtime_error);
}

TEST_CASE("mix server state: a full disk (a 1 MB tmpfs) refuses the round with one line and sends no answer it did not keep, and a restart with room mixes it") {
  const test::TempDir dir("shufflempc-mixstate-full");
  const test::SmallDisk disk(dir / "disk");
  if (!disk.mounted()) return;
  net::MixServerOptions options;
  options.state_dir = disk.path() + "/state";
  OneServer s(options);
  const MessageBatch first = s.batch(0, 0xa1);
  const auto ask = [&] {
    net::detail::Frame answer;
    s.as_entry([&](net::detail::SecureLink& link) -> asio::awaitable<void> {
      link.send(net::FrameType::mix, 0, static_cast<std::uint32_t>(first.width()), 4, first.bytes());
      answer = co_await link.receive();
    });
    return answer;
  };
  const std::string filler = disk.fill();
  const auto refused = ask();
  REQUIRE(refused.header.type == net::FrameType::abort);
  const std::string why(refused.payload.begin(), refused.payload.end());
  CHECK_MESSAGE(why.find("round 0: ") == 0, why);
  CHECK_MESSAGE(why.find("full") != std::string::npos, why);
  s.restart(options);  // the stop joins the server, whose session ended with the refusal
  REQUIRE(s.reports.size() == 1);
  CHECK(s.reports[0].error == why);
  CHECK(s.reports[0].rounds.empty());
  // Nothing was kept: with room again, the server started again mixes the round.
  std::filesystem::remove(filler);
  s.restart(options);
  {
    std::lock_guard lock(s.log_mutex);
    CHECK(s.log.empty());
  }
  CHECK(ask().header.type == net::FrameType::mixed);
}

namespace verifiable_state_test {

using Frame = net::detail::Frame;

// Round `round` of a VerifiableServer's session, four one-byte records proved by their senders and
// shuffled by hop 0 (played here), as the entry sends them on.
mixnet::RoundTranscript round_input(VerifiableServer& s, std::uint32_t round) {
  mixnet::RoundTranscript rt;
  rt.round = round;
  rt.delivery = Delivery::all_parties;
  rt.width = 2;
  rt.key = s.key;
  shufflempc::test::set_proved_input(rt, s.local.config.session, MessageBatch::from_bytes(1, std::vector<std::uint8_t>{1, 2, 3, 4}), s.rng);
  rt.hops.push_back(s.shuffle(round, 0, rt.input));
  return rt;
}

// One frame to the server as its entry, and its answer.
Frame ask(VerifiableServer& s, net::FrameType type, std::uint32_t round, const std::vector<std::uint8_t>& payload) {
  Frame answer;
  s.as_entry([&](net::detail::SecureLink& link) -> asio::awaitable<void> {
    link.send(type, round, 64, 4, payload);
    answer = co_await link.receive();
  });
  return answer;
}

std::string reason(const Frame& f) {
  CHECK(f.header.type == net::FrameType::abort);
  return std::string(f.payload.begin(), f.payload.end());
}

// The server's shuffle of rt's hop 0 taken into rt as hop 1, and hop 2 played here after it.
void complete_chain(VerifiableServer& s, mixnet::RoundTranscript& rt, const Frame& shuffled) {
  rt.hops.push_back(mixnet::decode_hop(shuffled.payload, 4, 1, "server 1's answer"));
  rt.hops.push_back(s.shuffle(rt.round, 2, rt.hops[1].output));
}

}  // namespace verifiable_state_test

TEST_CASE("verifiable mix server state: started again on its state directory, the same frames get the same shuffle and shares, others are refused, the session goes on") {
  using namespace verifiable_state_test;
  const test::TempDir dir("shufflempc-vstate");
  net::MixServerOptions options;
  options.state_dir = dir / "state";
  VerifiableServer s(options);
  auto rt = round_input(s, 0);
  const auto sent = rt.hops[0].output.to_bytes();
  const Frame shuffled = ask(s, net::FrameType::shuffle, 0, sent);
  REQUIRE(shuffled.header.type == net::FrameType::shuffled);
  // Stopped (as a crash: a stop records nothing) and started again: the same batch, the same proved
  // shuffle; another batch for the round refused, as before.
  s.restart(options);
  CHECK(s.logged("round 0's answer taken back from the state directory"));
  CHECK(ask(s, net::FrameType::shuffle, 0, sent).payload == shuffled.payload);
  CHECK(reason(ask(s, net::FrameType::shuffle, 0, s.shuffle(0, 0, rt.input).output.to_bytes())).find("round 0 was shuffled already, with another batch") !=
        std::string::npos);
  // The decryption: kept before it went out, the same evidence gets the same shares after a
  // restart, and other evidence for the round is refused (two decryptions would link its records).
  complete_chain(s, rt, shuffled);
  const auto evidence = mixnet::encode_evidence(rt);
  const Frame shares = ask(s, net::FrameType::decrypt, 0, evidence);
  REQUIRE(shares.header.type == net::FrameType::decrypted);
  s.restart(options);
  CHECK(s.logged("and round 0's decryption shares the same evidence"));
  CHECK(ask(s, net::FrameType::decrypt, 0, evidence).payload == shares.payload);
  auto other = rt;
  other.hops[2] = s.shuffle(0, 2, rt.hops[1].output);
  CHECK(reason(ask(s, net::FrameType::decrypt, 0, mixnet::encode_evidence(other))).find("round 0 was decrypted already, with other evidence") !=
        std::string::npos);
  // Round 1, the last: shuffled, then a restart before its decryption, which is still owed.
  auto last = round_input(s, 1);
  const Frame shuffled_1 = ask(s, net::FrameType::shuffle, 1, last.hops[0].output.to_bytes());
  REQUIRE(shuffled_1.header.type == net::FrameType::shuffled);
  s.restart(options);
  CHECK(s.logged("round 1's answer taken back from the state directory"));
  complete_chain(s, last, shuffled_1);
  CHECK(ask(s, net::FrameType::decrypt, 1, mixnet::encode_evidence(last)).header.type == net::FrameType::decrypted);
  // The goodbye ends the session, in the state too: a third start refuses it.
  s.goodbye_ends_session(2, options);
}

TEST_CASE("verifiable mix server state: a full disk (a 1 MB tmpfs) refuses the shuffle, and then the shares, with one line, sends nothing it did not keep, and a restart with room goes on") {
  using namespace verifiable_state_test;
  const test::TempDir dir("shufflempc-vstate-full");
  const test::SmallDisk disk(dir / "disk");
  if (!disk.mounted()) return;
  net::MixServerOptions options;
  options.state_dir = disk.path() + "/state";
  VerifiableServer s(options);
  auto rt = round_input(s, 0);
  const auto sent = rt.hops[0].output.to_bytes();
  // The shuffle cannot be kept: refused, not sent, and the session ends saying why.
  std::string filler = disk.fill();
  const std::string full = reason(ask(s, net::FrameType::shuffle, 0, sent));
  CHECK_MESSAGE(full.find("round 0: ") == 0, full);
  CHECK_MESSAGE(full.find("full") != std::string::npos, full);
  CHECK(full.find('\n') == std::string::npos);
  s.stop();
  REQUIRE(s.reports.size() == 1);
  CHECK(s.reports[0].error == full);
  CHECK(s.reports[0].rounds.empty());
  // With room again, started again: nothing was kept, so the round is shuffled now.
  std::filesystem::remove(filler);
  s.restart(options);
  CHECK_FALSE(s.logged("taken back"));
  const Frame shuffled = ask(s, net::FrameType::shuffle, 0, sent);
  REQUIRE(shuffled.header.type == net::FrameType::shuffled);
  // The shares cannot be kept: refused and not sent; started again with room, they are made.
  complete_chain(s, rt, shuffled);
  const auto evidence = mixnet::encode_evidence(rt);
  filler = disk.fill();
  const std::string full_shares = reason(ask(s, net::FrameType::decrypt, 0, evidence));
  CHECK_MESSAGE(full_shares.find("full") != std::string::npos, full_shares);
  std::filesystem::remove(filler);
  s.restart(options);
  CHECK(s.logged("round 0's answer taken back from the state directory"));
  CHECK_FALSE(s.logged("decryption shares"));
  CHECK(ask(s, net::FrameType::decrypt, 0, evidence).header.type == net::FrameType::decrypted);
}
