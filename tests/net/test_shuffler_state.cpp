// The shuffler's state directory (`shuffler --state-dir`, net/store.hpp) with real processes: a
// batch is on disk before its link is told (a signed receipt), and a shuffler killed with SIGKILL
// and started again on the same directory puts every batch it acknowledged in the round's output
// exactly once; the states it must refuse are refused with one line.
#include <signal.h>
#include <sodium.h>
#include <sys/wait.h>

#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include "net/shuffler_peers.hpp"
#include "shufflempc/mixnet/signing.hpp"
#include "shufflempc/net/batch_commitment.hpp"

namespace {
using namespace shufflempc;
using namespace shufflempc::test;
using net::FrameType;

std::shared_ptr<net::detail::SecureLink> connect_party(asio::io_context& io, const NetSession& s, std::uint16_t port, PartyId id) {
  auto link = dial(io, port, s.config.limits());
  SystemRng rng;
  run_sync(io, link->connect_as(s.config.session, s.config.digest(), id, s.parties[id], s.config.shuffler_key, rng));
  return link;
}

// Party `id` sends its sealed batch and reads the shuffler's answer; returns the batch as the
// shuffler keeps it and the answer.
std::pair<net::Admission, net::detail::Frame> submit_and_hear(asio::io_context& io, net::detail::SecureLink& link, PartyId id,
                                                              const std::vector<std::uint8_t>& batch) {
  send_batch(link, 0, 1 + crypto_box_SEALBYTES, 1, batch);
  net::Admission sent{.round = 0, .first = id, .counts = {1}, .width = 1 + crypto_box_SEALBYTES, .messages = batch};
  return {sent, run_sync(io, link.receive())};
}

// The receipt holds: an admitted frame naming the batch, with the shuffler's signature of it.
void check_receipt(const NetSession& s, const net::Admission& sent, const net::detail::Frame& f) {
  REQUIRE(f.header.type == FrameType::admitted);
  CHECK(f.header.round == sent.round);
  REQUIRE(f.payload.size() == net::admitted_payload_bytes);
  net::RecordDigest digest{};
  std::copy_n(f.payload.begin(), digest.size(), digest.begin());
  mixnet::Signature signature{};
  std::copy_n(f.payload.begin() + 32, signature.size(), signature.begin());
  CHECK(digest == sent.digest());
  REQUIRE(s.config.shuffler_signer.has_value());
  CHECK(mixnet::signature_holds(signature, net::admission_statement(s.config.session, sent.round, sent.first, digest), *s.config.shuffler_signer));
  // Another party's, round's or session's statement does not hold under it.
  CHECK_FALSE(mixnet::signature_holds(signature, net::admission_statement(s.config.session, sent.round, sent.first + 1, digest),
                                      *s.config.shuffler_signer));
}

// Parties `first` .. `last` - 1, each on a link of its own: its sealed batch, its receipt checked,
// and it leaves.
void submit_and_leave(asio::io_context& io, const NetSession& s, std::uint16_t port, PartyId first, PartyId last) {
  for (PartyId id = first; id < last; ++id) {
    auto link = connect_party(io, s, port, id);
    const auto [sent, answer] = submit_and_hear(io, *link, id, sealed(s, messages_of(id)));
    check_receipt(s, sent, answer);
    link->socket().close();
  }
}

// The analyzer's round: every record of the output opened, as the multiset of their bytes.
std::multiset<std::uint8_t> analyzer_output(asio::io_context& io, const NetSession& s, std::uint16_t port) {
  auto analyzer = connect_analyzer(io, s, port);
  const auto f = run_sync(io, analyzer->receive(), std::chrono::seconds(30));
  REQUIRE(f.header.type == FrameType::result);
  const auto r = net::decode_result(f.header, f.payload, s.config.parties, s.config.limits());
  std::multiset<std::uint8_t> out;
  const std::size_t w = f.header.width;
  for (std::size_t i = 0; i < f.header.count; ++i) {
    std::uint8_t plain = 0;
    REQUIRE(crypto_box_seal_open(&plain, r.output.data() + i * w, w, s.analyzer.public_key().data(), s.analyzer.secret_key().data()) == 0);
    out.insert(plain);
  }
  confirm_last(io, *analyzer, 0);
  // The result came once: after the confirmation the shuffler closes the link, with no second copy
  // (an analyzer whose arrival closes the round was once sent it twice).
  CHECK_THROWS_AS((void)run_sync(io, analyzer->receive(), std::chrono::seconds(30)), std::system_error);
  return out;
}

void kill_hard(ShufflerProcess& sh) {
  REQUIRE(::kill(sh.process.pid(), SIGKILL) == 0);
  CHECK(sh.process.wait() != 0);
}

TEST_CASE("shuffler state: a batch is told admitted once it is kept, in a receipt signed by the shuffler, and the round goes on") {
  NetSession s(n_parties, 41);
  ShufflerProcess sh(s, {"--state-dir", s.path("state")});
  asio::io_context io;
  auto party3 = connect_party3(io, s, sh.port);
  const auto [sent, answer] = submit_and_hear(io, *party3, 3, sealed(s, messages_of(3)));
  check_receipt(s, sent, answer);
  // The honest parties on a TcpChannel take their receipts too, check them and keep them.
  net::TcpChannel channel(s.config, honest_identities(s), "127.0.0.1", sh.port);
  const auto out = honest_round(channel);
  CHECK(out.submitted == std::vector<PartyId>{0, 1, 2, 3});
  const auto receipts = channel.admission_receipts();
  CHECK(receipts.size() == honest.size());
  for (const auto& r : receipts)
    CHECK(mixnet::signature_holds(r.signature, net::admission_statement(s.config.session, 0, r.batch.first, r.digest), *s.config.shuffler_signer));
}

TEST_CASE("shuffler state: killed with SIGKILL after k of 4 parties were told, started again, every told batch is in the output once") {
  for (std::size_t k = 0; k <= n_parties; ++k) {
    CAPTURE(k);
    NetSession s(n_parties, 50 + k);
    const std::vector<std::string> state = {"--state-dir", s.path("state")};
    asio::io_context io;
    std::map<PartyId, std::vector<std::uint8_t>> batches;
    for (PartyId id = 0; id < n_parties; ++id) batches[id] = sealed(s, messages_of(id));
    std::uint16_t port = 0;
    {
      ShufflerProcess first(s, state);
      port = first.port;
      // Parties 0 .. k-1 submit, are told, and leave: they will not send again.
      for (PartyId id = 0; id < k; ++id) {
        auto link = connect_party(io, s, port, id);
        const auto [sent, answer] = submit_and_hear(io, *link, id, batches[id]);
        check_receipt(s, sent, answer);
        link->socket().close();
      }
      kill_hard(first);
    }
    ShufflerProcess again(s, state, "127.0.0.1:" + std::to_string(port), "shuffler-again.log");
    CHECK(again.port == port);
    if (k > 0) CHECK(again.log().find("round 0: " + std::to_string(k) + " batch") != std::string::npos);
    // A party told before the crash that sends its batch again is told again: kept once.
    if (k > 0) {
      auto link = connect_party(io, s, port, 0);
      const auto [sent, answer] = submit_and_hear(io, *link, 0, batches[0]);
      check_receipt(s, sent, answer);
      link->socket().close();
    }
    for (PartyId id = static_cast<PartyId>(k); id < n_parties; ++id) {
      auto link = connect_party(io, s, port, id);
      const auto [sent, answer] = submit_and_hear(io, *link, id, batches[id]);
      check_receipt(s, sent, answer);
      link->socket().close();
    }
    CHECK(analyzer_output(io, s, port) == expected({0, 1, 2, 3}));
    CHECK_MESSAGE(again.process.wait() == 0, again.log());
    // The session ended with its result confirmed: the state says so, and a third start refuses it.
    ShufflerProcess::Refused third(s, state, "shuffler-third.log");
    CHECK(third.status != 0);
    CHECK_MESSAGE(third.log.find("has ended already (the analyzer confirmed the session's result") != std::string::npos, third.log);
  }
}

TEST_CASE("shuffler state: the analyzer lost during delivery, never confirming, and the shuffler started again: the same committed batch") {
  NetSession s(n_parties, 66);
  const std::vector<std::string> state = {"--state-dir", s.path("state"), "--reconnect-grace-ms", "200"};
  asio::io_context io;
  std::uint16_t port = 0;
  // The commitment to the batch in an analyzer's result frame (its reports, with no chain).
  const auto commitment_of = [&](const net::detail::Frame& f) {
    REQUIRE(f.header.type == FrameType::result);
    return net::decode_batch_commitment(net::decode_result(f.header, f.payload, s.config.parties, s.config.limits()).reports);
  };
  net::BatchCommitment first_commitment;
  {
    ShufflerProcess first(s, state);
    port = first.port;
    submit_and_leave(io, s, port, 0, n_parties);  // every party told, and gone
    // The analyzer takes the result and is lost before it confirms (as if killed during delivery).
    auto analyzer = connect_analyzer(io, s, port);
    first_commitment = commitment_of(run_sync(io, analyzer->receive(), std::chrono::seconds(30)));
    analyzer->socket().close();
    CHECK(first.process.wait() != 0);  // it waited the grace for the analyzer, then gave up, saying the state is kept
    CHECK_MESSAGE(first.log().find("did not reconnect within 200 ms") != std::string::npos, first.log());
    CHECK_MESSAGE(first.log().find("start the shuffler again on it to deliver the round again") != std::string::npos, first.log());
  }
  // Not ended: a shuffler started again takes every kept batch back and delivers the same batch.
  ShufflerProcess again(s, state, "127.0.0.1:" + std::to_string(port), "shuffler-again.log");
  CHECK_MESSAGE(again.log().find("round 0: 4 batches") != std::string::npos, again.log());
  auto analyzer = connect_analyzer(io, s, port);
  const auto f = run_sync(io, analyzer->receive(), std::chrono::seconds(30));
  const auto second_commitment = commitment_of(f);
  // The records were shuffled again; the commitment, over their sorted leaves, is the same batch.
  CHECK(second_commitment.root == first_commitment.root);
  CHECK(second_commitment.count == n_parties);
  std::multiset<std::uint8_t> out;
  const auto r = net::decode_result(f.header, f.payload, s.config.parties, s.config.limits());
  for (std::size_t i = 0; i < f.header.count; ++i) {
    std::uint8_t plain = 0;
    REQUIRE(crypto_box_seal_open(&plain, r.output.data() + i * f.header.width, f.header.width, s.analyzer.public_key().data(),
                                 s.analyzer.secret_key().data()) == 0);
    out.insert(plain);
  }
  CHECK(out == expected({0, 1, 2, 3}));
  confirm_last(io, *analyzer, 0);
  CHECK_MESSAGE(again.process.wait() == 0, again.log());
}

TEST_CASE("shuffler state: a second shuffler on the same state directory is refused with one line, the first goes on") {
  NetSession s(n_parties, 61);
  const std::vector<std::string> state = {"--state-dir", s.path("state")};
  ShufflerProcess first(s, state);
  ShufflerProcess::Refused second(s, state, "second.log");
  CHECK(second.status != 0);
  CHECK_MESSAGE(second.log.find("is in use by another process (pid " + std::to_string(first.process.pid()) + ")") != std::string::npos,
                second.log);
  asio::io_context io;
  auto party3 = connect_party3(io, s, first.port);
  const auto [sent, answer] = submit_and_hear(io, *party3, 3, sealed(s, messages_of(3)));
  check_receipt(s, sent, answer);
}

TEST_CASE("shuffler state: a state that is not whole, or a session of two rounds, is refused with one line") {
  SUBCASE("a database file of other bytes") {
    NetSession s(n_parties, 62);
    std::filesystem::create_directories(s.path("state/" + to_hex(s.config.session)));
    std::ofstream(s.path("state/" + to_hex(s.config.session) + "/state.sqlite")) << std::string(4096, 'x');
    ShufflerProcess::Refused sh(s, {"--state-dir", s.path("state")}, "refused.log");
    CHECK(sh.status != 0);
    CHECK_MESSAGE(sh.log.find("is not a shufflempc state database (file is not a database): refused") != std::string::npos, sh.log);
  }
  SUBCASE("two rounds") {
    NetSession s(n_parties, 63);
    two_mpc_rounds(s);
    ShufflerProcess::Refused sh(s, {"--state-dir", s.path("state")}, "refused.log");
    CHECK(sh.status != 0);
    CHECK_MESSAGE(sh.log.find("--state-dir keeps sessions of one round (a collection round)") != std::string::npos, sh.log);
  }
}

}  // namespace

namespace {

// The session as a collection window closing `ms` from now.
void window_of(NetSession& s, long ms) {
  s.config.close_at =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count() + ms;
  s.config.save(s.path("session.json"));
}

}  // namespace

TEST_CASE("shuffler state: a collection window closes at its time with the batches of the parties that came and left") {
  NetSession s(n_parties, 71, 3);
  window_of(s, 1500);
  ShufflerProcess sh(s, {"--state-dir", s.path("state")});
  asio::io_context io;
  submit_and_leave(io, s, sh.port, 0, 3);  // party 3 never comes
  CHECK(analyzer_output(io, s, sh.port) == expected({0, 1, 2}));
  CHECK(std::chrono::system_clock::now() >= std::chrono::system_clock::time_point(std::chrono::milliseconds(*s.config.close_at)));
  CHECK_MESSAGE(sh.process.wait() == 0, sh.log());
  CHECK(sh.log().find("round 0: the collection window closed (1 of the parties never submitted)") != std::string::npos);
}

TEST_CASE("shuffler state: close_windows closes a collection window long before its time, with the batches of the parties that came") {
  NetSession s(n_parties, 74, 3);
  window_of(s, 600'000);  // ten minutes: the test ends long before
  net::ShufflerOptions options;
  options.state_dir = s.path("state");
  std::mutex mutex;
  std::string log;
  net::TcpShuffler shuffler(s.shuffler, {s.config}, "127.0.0.1", 0,
                            [&](const std::string& line) {
                              std::lock_guard lock(mutex);
                              log += line + "\n";
                            },
                            options);
  std::vector<net::ShufflerReport> reports;
  std::thread serving([&] { reports = shuffler.run(); });
  asio::io_context io;
  submit_and_leave(io, s, shuffler.port(), 0, 3);  // party 3 never comes
  shuffler.close_windows();
  CHECK(analyzer_output(io, s, shuffler.port()) == expected({0, 1, 2}));
  serving.join();
  REQUIRE(reports.size() == 1);
  CHECK_MESSAGE(reports[0].error.empty(), reports[0].error);
  CHECK(reports[0].dropped == std::vector<PartyId>{3});
  CHECK(std::chrono::system_clock::now() < std::chrono::system_clock::time_point(std::chrono::milliseconds(*s.config.close_at)));
  CHECK(log.find("round 0: the collection window is closed now, before its time") != std::string::npos);
}

TEST_CASE("shuffler state: a window already past when the shuffler starts waits for the analyzer and closes when it comes") {
  NetSession s(n_parties, 75, 3);
  window_of(s, -1);  // as after a restart that came too late
  ShufflerProcess sh(s, {"--state-dir", s.path("state")});
  asio::io_context io;
  submit_and_leave(io, s, sh.port, 0, 3);
  CHECK(analyzer_output(io, s, sh.port) == expected({0, 1, 2}));
  CHECK_MESSAGE(sh.process.wait() == 0, sh.log());
  CHECK(sh.log().find("the collection window closed while the analyzer is away; waiting 20000 ms for it") != std::string::npos);
}

TEST_CASE("shuffler state: a collection window that closes below min_parties outputs nothing and says so") {
  NetSession s(n_parties, 72, 3);
  window_of(s, 1000);
  ShufflerProcess sh(s, {"--state-dir", s.path("state")});
  asio::io_context io;
  submit_and_leave(io, s, sh.port, 0, 2);
  auto analyzer = connect_analyzer(io, s, sh.port);
  const auto f = run_sync(io, analyzer->receive(), std::chrono::seconds(30));
  REQUIRE(f.header.type == FrameType::abort);
  const std::string why(f.payload.begin(), f.payload.end());
  CHECK_MESSAGE(why.find("2 of 4 parties submitted, at least 3 needed") != std::string::npos, why);
  CHECK(sh.process.wait() != 0);
}

TEST_CASE("shuffler state: party links that leave with their receipts count, and the analyzer gets every batch") {
  NetSession s(n_parties, 73);
  ShufflerProcess sh(s, {"--state-dir", s.path("state")});
  std::vector<net::Identity> ids;
  for (PartyId id : honest) ids.push_back({id, s.parties[id]});
  RoundOutcome out;
  std::vector<net::AdmissionReceipt> receipts;
  {
    net::TcpChannel parties(s.config, std::move(ids), "127.0.0.1", sh.port, {}, {.leave_after_receipt = true});
    out = honest_round(parties);
    receipts = parties.admission_receipts();
  }
  CHECK(out.submitted == std::vector<PartyId>{0, 1, 2});
  CHECK_FALSE(out.output.has_value());
  CHECK(receipts.size() == honest.size());
  asio::io_context io;
  auto party3 = connect_party3(io, s, sh.port);
  const auto [sent, answer] = submit_and_hear(io, *party3, 3, sealed(s, messages_of(3)));
  check_receipt(s, sent, answer);
  party3->socket().close();  // it leaves too: the shuffler waits for nobody's confirmation
  CHECK(analyzer_output(io, s, sh.port) == expected({0, 1, 2, 3}));
  CHECK_MESSAGE(sh.process.wait() == 0, sh.log());
  // Through a chain a party checks the entry's receipt of the whole round: it may not leave early.
  NetSession chained(n_parties, 74);
  chained.config.mix_chain = {{chained.config.shuffler_key, *chained.config.shuffler_signer, std::nullopt}, {}};
  CHECK_THROWS_WITH_AS(net::TcpChannel(chained.config, {{0, chained.parties[0]}}, "127.0.0.1", 1, {}, {.leave_after_receipt = true}),
                       doctest::Contains("for a session without a chain of mix servers"), std::invalid_argument);
}

namespace {

// One trial of the crash sweep: `n` parties on links of their own send their batches at once; the
// shuffler is killed (SIGKILL) `kill_after_us` microseconds later, somewhere in the admissions and
// their group commits; each link reads what it was told before the connection died. A shuffler
// started again on the directory, the parties without a receipt send the same batch again (those
// with one never do): the analyzer's output holds every party's record exactly once, the receipted
// ones included.
void crash_trial(std::uint64_t seed, std::size_t n, long kill_after_us) {
  CAPTURE(seed);
  CAPTURE(kill_after_us);
  NetSession s(n, 1000 + seed);
  const std::vector<std::string> state = {"--state-dir", s.path("state")};
  asio::io_context io;
  std::vector<std::vector<std::uint8_t>> batches(n);
  for (PartyId id = 0; id < n; ++id) batches[id] = sealed(s, {static_cast<std::uint8_t>(id)});
  std::vector<char> told(n, 0);
  std::uint16_t port = 0;
  {
    ShufflerProcess first(s, state);
    port = first.port;
    std::vector<std::shared_ptr<net::detail::SecureLink>> links;
    for (PartyId id = 0; id < n; ++id) links.push_back(connect_party(io, s, port, id));
    for (PartyId id = 0; id < n; ++id) send_batch(*links[id], 0, 1 + crypto_box_SEALBYTES, 1, batches[id]);
    run_sync(io, [&]() -> asio::awaitable<void> {  // the frames out of this process before the kill's clock starts
      asio::steady_timer t(io, std::chrono::microseconds(kill_after_us));
      co_await t.async_wait(asio::use_awaitable);
    }());
    kill_hard(first);
    for (PartyId id = 0; id < n; ++id) {
      try {
        const auto f = run_sync(io, links[id]->receive(), std::chrono::seconds(5));
        if (f.header.type == FrameType::admitted) {
          check_receipt(s, {.round = 0, .first = id, .counts = {1}, .width = 1 + crypto_box_SEALBYTES, .messages = batches[id]}, f);
          told[id] = 1;
        }
      } catch (const std::system_error&) {
        // the connection died before its receipt: it sends again below
      }
    }
  }
  ShufflerProcess again(s, state, "127.0.0.1:" + std::to_string(port), "shuffler-again.log");
  for (PartyId id = 0; id < n; ++id) {
    if (told[id]) continue;
    auto link = connect_party(io, s, port, id);
    const auto [sent, answer] = submit_and_hear(io, *link, id, batches[id]);
    check_receipt(s, sent, answer);
    link->socket().close();
  }
  std::multiset<std::uint8_t> all;
  for (PartyId id = 0; id < n; ++id) all.insert(static_cast<std::uint8_t>(id));
  CHECK(analyzer_output(io, s, port) == all);
  CHECK_MESSAGE(again.process.wait() == 0, again.log());
}

}  // namespace

TEST_CASE("shuffler state: SIGKILL at a seeded moment of 16 parties' admissions, 6 seeds: after a restart every party's record is in the output once") {
  SeededRng rng(17);
  for (std::uint64_t seed = 0; seed < 6; ++seed) crash_trial(seed, 16, static_cast<long>(rng.uniform(3000)));
}

TEST_CASE("shuffler state: SIGKILL at a seeded moment of 40 parties' admissions, 60 seeds" * doctest::test_suite("slow")) {
  SeededRng rng(18);
  for (std::uint64_t seed = 0; seed < 60; ++seed) crash_trial(100 + seed, 40, static_cast<long>(rng.uniform(6000)));
}
