// The shuffler process against bad peers: strangers, wrong keys, other sessions, malformed,
// oversized, truncated and random input, replays, duplicate submissions, a party that dies
// mid-round, an expired deadline, too few parties. Each test checks the shuffler's log line and
// that every honest party's message reached the analyzer exactly once.
#include <sodium.h>

#include <algorithm>
#include <functional>
#include <set>
#include <thread>

#include "net/harness.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/registry.hpp"

namespace {

using namespace shufflempc;
using namespace shufflempc::test;
using net::FrameType;

constexpr std::size_t n_parties = 4;  // parties 0..2 are honest, party 3 is the one under test
const std::vector<PartyId> honest = {0, 1, 2};

// The session's protocol (central-laplace) declares exactly one message per party per round.
std::vector<std::uint8_t> messages_of(PartyId id) { return {static_cast<std::uint8_t>(10 * id + 1)}; }

std::multiset<std::uint8_t> expected(const std::vector<PartyId>& ids) {
  std::multiset<std::uint8_t> all;
  for (PartyId id : ids)
    for (auto b : messages_of(id)) all.insert(b);
  return all;
}

// Party 3's batch as it goes on the wire in ESA mode: each message sealed to the analyzer.
std::vector<std::uint8_t> sealed(const NetSession& s, const std::vector<std::uint8_t>& plain) {
  std::vector<std::uint8_t> out(plain.size() * (1 + crypto_box_SEALBYTES));
  for (std::size_t i = 0; i < plain.size(); ++i)
    crypto_box_seal(out.data() + i * (1 + crypto_box_SEALBYTES), &plain[i], 1, s.config.analyzer_key.data());
  return out;
}

// Parties 0..2 and the analyzer in one TcpChannel (each on its own link): one round, after
// `computing` (a protocol computing the parties' messages, played by a pause).
RoundOutcome run_honest(const NetSession& s, std::uint16_t port, net::TcpChannelOptions options = {},
                        std::chrono::milliseconds computing = {}) {
  std::vector<net::Identity> ids;
  for (PartyId id : honest) ids.push_back({id, s.parties[id]});
  ids.push_back({net::analyzer_id, s.analyzer});
  net::TcpChannel channel(s.config, std::move(ids), "127.0.0.1", port, {}, std::move(options));
  std::this_thread::sleep_for(computing);
  RoundRules spec;
  spec.shape = RoundShape::exactly(1, Delivery::analyzer_only, 1);
  for (PartyId i = 0; i < n_parties; ++i) spec.expected.push_back(i);
  Submissions local;
  local.messages = MessageBatch(1);
  for (PartyId id : honest) {
    const std::size_t first = local.messages.count();
    for (auto b : messages_of(id)) local.messages.push_back(std::span(&b, 1));
    local.parties.push_back({id, first, local.messages.count() - first});
  }
  return channel.exchange(spec, std::move(local));
}

// Party 3 connects with its real key (a compromised but authenticated party).
std::shared_ptr<net::detail::SecureLink> connect_party3(asio::io_context& io, const NetSession& s, std::uint16_t port) {
  auto link = dial(io, port, s.config.limits());
  SystemRng rng;
  run_sync(io, link->connect_as(s.config.session, s.config.digest(), 3, s.parties[3], s.config.shuffler_key, rng));
  return link;
}

// Sends an empty frame of `type` for `round` on `link`, and returns the reason of the abort frame
// the shuffler answers with.
std::string refusal_of(asio::io_context& io, net::detail::SecureLink& link, FrameType type, std::uint32_t round) {
  link.send(type, round, {});
  const auto answer = run_sync(io, link.receive());
  CHECK(answer.header.type == FrameType::abort);
  return std::string(answer.payload.begin(), answer.payload.end());
}

// One message of one byte per party, in MPC mode.
const RoundShape mpc_round = RoundShape::exactly(1, Delivery::all_parties, 1);

// Rewrites the session as two MPC rounds (the shuffler enforces the config's shapes).
void two_mpc_rounds(NetSession& s) {
  s.config.rounds = {mpc_round, mpc_round};
  s.config.save(s.path("session.json"));
}

// `body` on a thread of its own; what it throws lands in `error` (rethrown by the test after join).
template <class F>
std::thread on_thread(std::exception_ptr& error, F body) {
  return std::thread([&error, body = std::move(body)]() mutable {
    try {
      body();
    } catch (...) {
      error = std::current_exception();
    }
  });
}

// The analyzer's identity on a link of its own (the test plays it).
std::shared_ptr<net::detail::SecureLink> connect_analyzer(asio::io_context& io, const NetSession& s, std::uint16_t port) {
  auto link = dial(io, port, s.config.limits());
  SystemRng rng;
  run_sync(io, link->connect_as(s.config.session, s.config.digest(), net::analyzer_id, s.analyzer, s.config.shuffler_key, rng));
  return link;
}

// The analyzer's empty batch naming `round` (its one count, 0: "that round's result again"), and
// the result frame it gets back.
net::detail::Frame ask_again(asio::io_context& io, net::detail::SecureLink& analyzer, std::uint32_t round) {
  analyzer.send(FrameType::submit, round, 1, 0, std::vector<std::uint8_t>(4, 0));
  return run_sync(io, analyzer.receive());
}

// The analyzer confirms the session's last result (a done frame) and closes its link once the frame is out.
void confirm_last(asio::io_context& io, net::detail::SecureLink& analyzer, std::uint32_t round) {
  analyzer.send(FrameType::done, round, {});
  analyzer.close_after_flush();
  io.restart();
  io.run_for(std::chrono::seconds(5));
}

// Every party (0 .. 3) on one TcpChannel without the analyzer: one message `10 * round + id` each.
RoundOutcome all_parties_round(net::TcpChannel& channel, std::uint32_t round, const RoundShape& shape) {
  RoundRules spec;
  spec.round = round;
  spec.shape = shape;
  Submissions local;
  local.messages = MessageBatch(1);
  for (PartyId id = 0; id < n_parties; ++id) {
    spec.expected.push_back(id);
    const std::uint8_t b = static_cast<std::uint8_t>(10 * round + id);
    local.parties.push_back({id, local.messages.count(), 1});
    local.messages.push_back(std::span(&b, 1));
  }
  return channel.exchange(spec, std::move(local));
}

std::vector<net::Identity> every_party(const NetSession& s) {
  std::vector<net::Identity> ids;
  for (PartyId id = 0; id < n_parties; ++id) ids.push_back({id, s.parties[id]});
  return ids;
}

void check_honest_only(const NetSession& s, const ShufflerProcess& sh, const std::vector<PartyId>& dropped) {
  const RoundOutcome out = run_honest(s, sh.port);
  CHECK(received(out) == expected(honest));
  CHECK(out.dropped == dropped);
  CHECK(out.submitted == honest);
}

}  // namespace

TEST_CASE("shuffler process: a stranger's key is refused and cannot inject a message") {
  NetSession s(n_parties, 1, 3, std::chrono::milliseconds(800));  // party 3 never joins: the deadline closes the round
  ShufflerProcess sh(s);
  asio::io_context io;
  SystemRng rng;
  const auto stranger = net::KeyPair::generate(rng);
  auto link = dial(io, sh.port);
  try {
    run_sync(io, link->connect_as(s.config.session, s.config.digest(), 3, stranger, s.config.shuffler_key, rng));
    FAIL("the stranger was accepted");
  } catch (const std::system_error& e) {
    CHECK(e.code() == Errc::unauthenticated);
  }
  check_honest_only(s, sh, {3});
  CHECK(sh.log().find("key confirmation failed: the peer does not hold the secret keys of the identities it claims") != std::string::npos);
}

TEST_CASE("shuffler process: a peer without the secret key fails key confirmation") {
  NetSession s(n_parties, 2, 3, std::chrono::milliseconds(800));  // party 3 never joins: the deadline closes the round
  ShufflerProcess sh(s);
  asio::io_context io;
  // Party 3 claimed in the hello, but no secret key to derive the link keys: the confirm frame it
  // sends cannot authenticate.
  net::Hello hello;
  hello.session = s.config.session;
  hello.first = 3;
  hello.count = 1;
  hello.config = s.config.digest();
  SystemRng rng;
  hello.ephemeral_key = net::KeyPair::generate(rng).public_key();
  auto link = dial(io, sh.port);
  const auto hb = net::encode_hello(hello);
  link->send_raw({hb.begin(), hb.end()});
  std::vector<std::uint8_t> forged(net::frame_prefix_bytes + net::aead_tag_bytes);
  rng.fill(forged.data() + 8, forged.size() - 8);  // sequence 0, random ciphertext
  link->send_raw(forged);
  (void)wait_closed(io, *link);
  check_honest_only(s, sh, {3});
  CHECK(sh.log().find("key confirmation failed") != std::string::npos);
}

TEST_CASE("shuffler process: a hello for another session is refused") {
  NetSession s(n_parties, 3, 3, std::chrono::milliseconds(800));  // party 3 never joins: the deadline closes the round
  ShufflerProcess sh(s);
  asio::io_context io;
  SessionId other = s.config.session;
  other[0] ^= 1;
  SystemRng rng;
  auto link = dial(io, sh.port);
  CHECK_THROWS_AS(run_sync(io, link->connect_as(other, s.config.digest(), 3, s.parties[3], s.config.shuffler_key, rng)), std::system_error);
  check_honest_only(s, sh, {3});
  CHECK(sh.log().find("hello for unknown session") != std::string::npos);
}

TEST_CASE("shuffler process: random bytes instead of a hello are refused") {
  NetSession s(n_parties, 4, 3, std::chrono::milliseconds(800));  // party 3 never joins: the deadline closes the round
  ShufflerProcess sh(s);
  asio::io_context io;
  SeededRng rng(4);
  std::vector<std::uint8_t> junk(300);
  rng.fill(junk);
  auto link = dial(io, sh.port);
  link->send_raw(junk);
  (void)wait_closed(io, *link);
  check_honest_only(s, sh, {3});
  CHECK(sh.log().find("hello: bad magic") != std::string::npos);
}

TEST_CASE("shuffler process: bad input on an authenticated link closes that link only") {
  // Party 3 authenticates with its real key, then misbehaves; the shuffler must log the reason,
  // close party 3's link, and complete the round with every honest message exactly once.
  struct Case {
    const char* what;
    std::function<void(net::detail::SecureLink&)> misbehave;
    std::vector<std::string> logs;  // one of these lines must appear
  };
  const std::vector<Case> cases = {
      {"random bytes",
       [](net::detail::SecureLink& l) {
         SeededRng rng(5);
         std::vector<std::uint8_t> junk(300);
         rng.fill(junk);
         l.send_raw(junk);
       },
       {"sequence number", "failed authentication"}},
      {"payload length against count and width",  // claims 5 messages of 49 bytes, carries 3 bytes
       [](net::detail::SecureLink& l) { l.send(FrameType::submit, 0, 49, 5, std::vector<std::uint8_t>(3, 0)); },
       {"submit: payload of 3 bytes for 5 messages of 49 bytes and a count per party", "count 5 above the limit 1"}},
      {"wrong width",  // unsealed one-byte messages: the wire width is 49
       [](net::detail::SecureLink& l) { send_batch(l, 0, 1, 1, std::vector<std::uint8_t>(1, 7)); },
       {"submission of width 1 rejected, the round's wire width is 49"}},
      {"oversized frame, rejected from its header",  // 100 messages where the plan allows 1
       [](net::detail::SecureLink& l) { send_batch(l, 0, 49, 100, std::vector<std::uint8_t>(49 * 100, 0)); },
       {"count 100 above the limit 1"}},
      {"wrong round",
       [](net::detail::SecureLink& l) { send_batch(l, 7, 49, 0, {}); },
       {"submission for round 7 rejected (wrong round)"}},
  };
  std::uint64_t seed = 5;
  for (const auto& c : cases) {
    CAPTURE(std::string(c.what));
    NetSession s(n_parties, ++seed, 3);
    ShufflerProcess sh(s);
    asio::io_context io;
    auto link = connect_party3(io, s, sh.port);
    c.misbehave(*link);
    (void)wait_closed(io, *link);
    check_honest_only(s, sh, {3});
    const std::string log = sh.log();
    CHECK(std::any_of(c.logs.begin(), c.logs.end(), [&](const std::string& l) { return log.find(l) != std::string::npos; }));
  }
}

TEST_CASE("shuffler process: a truncated frame from a party that dies mid-round never hangs the others") {
  NetSession s(n_parties, 9, 3);
  ShufflerProcess sh(s);
  asio::io_context io;
  auto link = connect_party3(io, s, sh.port);
  const std::vector<std::uint8_t> frame_start(40, 1);
  link->send_raw(frame_start);  // part of a frame prefix, then the connection dies
  io.restart();
  io.run_for(std::chrono::seconds(5));  // flush the write
  link->socket().close();  // what the kernel does when the process is killed
  check_honest_only(s, sh, {3});
  CHECK(sh.log().find("party 3") != std::string::npos);
}

TEST_CASE("shuffler process: a duplicate submission is rejected and the first batch counts once") {
  NetSession s(n_parties, 10, 3);
  ShufflerProcess sh(s);
  asio::io_context io;
  auto link = connect_party3(io, s, sh.port);
  send_batch(*link, 0, 49, 1, sealed(s, {201}));
  send_batch(*link, 0, 49, 1, sealed(s, {203}));
  (void)wait_closed(io, *link);
  const RoundOutcome out = run_honest(s, sh.port);
  auto want = expected(honest);
  want.insert(201);
  CHECK(received(out) == want);
  CHECK(out.submitted == std::vector<PartyId>{0, 1, 2, 3});
  CHECK(sh.log().find("duplicate submission rejected (its first batch stands)") != std::string::npos);
}

TEST_CASE("shuffler process: a replayed frame is rejected and the original counts once") {
  NetSession s(n_parties, 11, 3);
  ShufflerProcess sh(s);
  asio::io_context io;
  auto link = connect_party3(io, s, sh.port);
  const std::uint64_t seq = link->next_send_sequence();
  send_batch(*link, 0, 49, 1, sealed(s, {211}));
  link->set_send_sequence(seq);  // the same sequence number again
  send_batch(*link, 0, 49, 1, sealed(s, {212}));
  (void)wait_closed(io, *link);
  const RoundOutcome out = run_honest(s, sh.port);
  auto want = expected(honest);
  want.insert(211);
  CHECK(received(out) == want);
  // A replayed sequence number reuses the nonce, so authentication or the counter check fails.
  const std::string log = sh.log();
  CHECK((log.find("was already used (replay)") != std::string::npos || log.find("failed authentication") != std::string::npos));
}

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

TEST_CASE("shuffler process: the analyzer's link is cut and comes back, the round waits for it and it gets the result") {
  NetSession s(n_parties, 16, 0, std::chrono::seconds(20));
  ShufflerProcess sh(s);
  asio::io_context io;
  auto cut = connect_analyzer(io, s, sh.port);
  cut->socket().close();  // the connection is lost ...
  auto back = connect_analyzer(io, s, sh.port);  // ... and the analyzer reconnects
  RoundOutcome out;
  std::exception_ptr failed;
  std::thread parties = on_thread(failed, [&] {
    net::TcpChannel channel(s.config, every_party(s), "127.0.0.1", sh.port);
    out = all_parties_round(channel, 0, RoundShape::exactly(1, Delivery::analyzer_only, 1));
  });
  const auto result = run_sync(io, back->receive());
  parties.join();
  if (failed) std::rethrow_exception(failed);
  CHECK(result.header.type == FrameType::result);
  CHECK(result.header.count == n_parties);
  CHECK(out.submitted == std::vector<PartyId>{0, 1, 2, 3});
  confirm_last(io, *back, 0);
  CHECK(sh.process.wait() == 0);
}

TEST_CASE("shuffler process: a result lost on the analyzer's way is sent again when it reconnects and asks, then the next round goes on") {
  // Two MPC rounds. Round 0's result reaches the analyzer's socket but the connection dies before
  // it is read; the analyzer reconnects, asks for round 0 (an empty submit frame) and gets it, then
  // round 1's result as usual.
  NetSession s(n_parties, 17, 0, std::chrono::seconds(20));
  two_mpc_rounds(s);
  ShufflerProcess sh(s);
  asio::io_context io;
  auto lost = connect_analyzer(io, s, sh.port);
  net::TcpChannel channel(s.config, every_party(s), "127.0.0.1", sh.port);
  CHECK(all_parties_round(channel, 0, mpc_round).submitted.size() == n_parties);  // round 0 closed: its result was sent
  lost->socket().close();
  auto back = connect_analyzer(io, s, sh.port);
  const auto again = ask_again(io, *back, 0);
  CHECK(again.header.type == FrameType::result);
  CHECK(again.header.round == 0);
  CHECK(again.header.count == n_parties);
  RoundOutcome second;
  std::exception_ptr failed;
  std::thread parties = on_thread(failed, [&] { second = all_parties_round(channel, 1, mpc_round); });
  const auto next = run_sync(io, back->receive());
  parties.join();
  if (failed) std::rethrow_exception(failed);
  CHECK(next.header.type == FrameType::result);
  CHECK(next.header.round == 1);
  CHECK(received(second) == std::multiset<std::uint8_t>{10, 11, 12, 13});
  confirm_last(io, *back, 1);
  CHECK(sh.process.wait() == 0);
}

TEST_CASE("shuffler process: the session's last result lost on the analyzer's way is fetched again after a reconnection, then confirmed") {
  // One round, which is the last. Its result reaches the analyzer's socket but the connection dies
  // before it is read. The shuffler keeps the session's result and its listening socket until the
  // analyzer confirms (a done frame): the analyzer reconnects, asks for round 0 and gets it.
  NetSession s(n_parties, 19, 0, std::chrono::seconds(20));
  ShufflerProcess sh(s);
  asio::io_context io;
  auto lost = connect_analyzer(io, s, sh.port);
  net::TcpChannel channel(s.config, every_party(s), "127.0.0.1", sh.port);
  CHECK(all_parties_round(channel, 0, RoundShape::exactly(1, Delivery::analyzer_only, 1)).submitted.size() == n_parties);
  lost->socket().close();
  auto back = connect_analyzer(io, s, sh.port);  // refused ("has already ended") before the done frame existed
  const auto again = ask_again(io, *back, 0);
  CHECK(again.header.type == FrameType::result);
  CHECK(again.header.round == 0);
  CHECK(again.header.count == n_parties);
  confirm_last(io, *back, 0);
  CHECK(sh.process.wait() == 0);
  CHECK(sh.log().find("did not confirm") == std::string::npos);
  CHECK(sh.log().find("did not reconnect") == std::string::npos);
}

TEST_CASE("shuffler process: an analyzer that never confirms the last result is waited for a while, named, and the shuffler ends") {
  SUBCASE("its link is lost: the reconnect grace") {
    NetSession s(n_parties, 20, 0, std::chrono::seconds(20));
    ShufflerProcess sh(s, {"--reconnect-grace-ms", "300"});
    asio::io_context io;
    auto lost = connect_analyzer(io, s, sh.port);
    net::TcpChannel channel(s.config, every_party(s), "127.0.0.1", sh.port);
    (void)all_parties_round(channel, 0, RoundShape::exactly(1, Delivery::analyzer_only, 1));
    CHECK(run_sync(io, lost->receive()).header.type == FrameType::result);
    lost->close();  // gone without its done frame
    CHECK(sh.process.wait(std::chrono::seconds(15)) == 0);  // the session completed; the analyzer's side failed
    CHECK(sh.log().find("round 0: the analyzer's link was lost before it confirmed the session's last result, and it did not "
                        "reconnect within 300 ms") != std::string::npos);
  }
  SUBCASE("it stays connected and silent: the deadline") {
    NetSession s(n_parties, 21, 0, std::chrono::milliseconds(1500));
    ShufflerProcess sh(s);
    asio::io_context io;
    auto silent = connect_analyzer(io, s, sh.port);
    net::TcpChannel channel(s.config, every_party(s), "127.0.0.1", sh.port);
    (void)all_parties_round(channel, 0, RoundShape::exactly(1, Delivery::analyzer_only, 1));
    CHECK(run_sync(io, silent->receive()).header.type == FrameType::result);
    CHECK(sh.process.wait(std::chrono::seconds(15)) == 0);
    CHECK(sh.log().find("round 0: the analyzer did not confirm the session's last result within 1500 ms") != std::string::npos);
    CHECK_THROWS_AS((void)run_sync(io, silent->receive()), std::system_error);  // the shuffler closed the link
  }
}

TEST_CASE("shuffler process: a done frame from the analyzer before the last round is refused with the reason") {
  NetSession s(n_parties, 22, 0, std::chrono::seconds(20));
  two_mpc_rounds(s);
  ShufflerProcess sh(s);
  asio::io_context io;
  auto early = connect_analyzer(io, s, sh.port);
  early->send(FrameType::done, 0, {});
  const auto answer = run_sync(io, early->receive());
  CHECK(answer.header.type == FrameType::abort);
  CHECK(std::string(answer.payload.begin(), answer.payload.end()) ==
        "a done frame from the analyzer in round 0, before the session's last result");
}

namespace {

// Party 3 (played by the test) submits `batch` in the session's one round while the honest parties
// and the analyzer run it on a TcpChannel; returns once the round has closed and every result frame
// has gone out. With `cut_after_submit`, party 3's connection is closed right after its batch, before
// the honest side connects.
void round_with_party3(const NetSession& s, const ShufflerProcess& sh, net::detail::SecureLink& party3, const std::vector<std::uint8_t>& batch,
                       bool cut_after_submit = false) {
  send_batch(party3, 0, 49, 1, batch);
  if (cut_after_submit) party3.socket().close();
  RoundOutcome out;
  std::exception_ptr failed;
  std::thread honest_side = on_thread(failed, [&] { out = run_honest(s, sh.port); });
  honest_side.join();
  if (failed) std::rethrow_exception(failed);
  CHECK(out.submitted == std::vector<PartyId>{0, 1, 2, 3});
}

// Party 3 reconnects after the session's one round, sends `batch` again, gets the result and
// confirms it; the shuffler then ends with status 0, having waited for nobody.
void party3_fetches_last_result(const NetSession& s, ShufflerProcess& sh, asio::io_context& io, const std::vector<std::uint8_t>& batch) {
  auto back = connect_party3(io, s, sh.port);
  send_batch(*back, 0, 49, 1, batch);
  const auto again = run_sync(io, back->receive());
  CHECK(again.header.type == FrameType::result);
  CHECK(again.header.round == 0);
  confirm_last(io, *back, 0);
  CHECK(sh.process.wait() == 0);
  CHECK(sh.log().find("did not confirm") == std::string::npos);
  CHECK(sh.log().find("did not reconnect") == std::string::npos);
}

}  // namespace

TEST_CASE("shuffler process: the session's last result lost on a party link's way is fetched again after a reconnection, then confirmed") {
  // Party links confirm the last result too (a done frame). Party 3's result reaches its socket, the
  // connection dies before it is read; it reconnects, sends its batch again and gets the result.
  NetSession s(n_parties, 23, 0, std::chrono::seconds(20));
  ShufflerProcess sh(s);
  asio::io_context io;
  auto lost = connect_party3(io, s, sh.port);
  const auto batch = sealed(s, {211});
  round_with_party3(s, sh, *lost, batch);
  lost->socket().close();
  // Refused ("has already ended") before party links confirmed. The honest parties' channel and the
  // analyzer confirm at once.
  party3_fetches_last_result(s, sh, io, batch);
}

TEST_CASE("shuffler process: a party link lost after it submitted and before the last round closed fetches the result after a reconnection") {
  // Party 3 submits, its connection dies while the round waits for the others, the round closes
  // without it: its batch counted, so it may come back for the result and confirm it.
  NetSession s(n_parties, 27, 0, std::chrono::seconds(20));
  ShufflerProcess sh(s);
  asio::io_context io;
  auto lost = connect_party3(io, s, sh.port);
  const auto batch = sealed(s, {214});
  round_with_party3(s, sh, *lost, batch, true);
  party3_fetches_last_result(s, sh, io, batch);  // refused ("has already ended") before such links were waited for
}

TEST_CASE("shuffler process: a party link that never confirms the last result is waited for a while, named, and the shuffler ends") {
  SUBCASE("its link is lost: the reconnect grace") {
    NetSession s(n_parties, 24, 0, std::chrono::seconds(20));
    ShufflerProcess sh(s, {"--reconnect-grace-ms", "300"});
    asio::io_context io;
    auto lost = connect_party3(io, s, sh.port);
    round_with_party3(s, sh, *lost, sealed(s, {212}));
    CHECK(run_sync(io, lost->receive()).header.type == FrameType::result);
    lost->close();  // gone without its done frame
    CHECK(sh.process.wait(std::chrono::seconds(15)) == 0);  // the session completed
    CHECK(sh.log().find("round 0: party 3's link was lost before it confirmed the session's last result, and it did not reconnect "
                        "within 300 ms") != std::string::npos);
  }
  SUBCASE("its link is lost after it submitted, before the round closed: the reconnect grace") {
    NetSession s(n_parties, 28, 0, std::chrono::seconds(20));
    ShufflerProcess sh(s, {"--reconnect-grace-ms", "300"});
    asio::io_context io;
    auto lost = connect_party3(io, s, sh.port);
    round_with_party3(s, sh, *lost, sealed(s, {215}), true);
    CHECK(sh.process.wait(std::chrono::seconds(15)) == 0);
    CHECK(sh.log().find("round 0: party 3's link was lost before the session's last result was sent to it, and it did not reconnect "
                        "within 300 ms") != std::string::npos);
  }
  SUBCASE("it stays connected and silent: the deadline") {
    NetSession s(n_parties, 25, 0, std::chrono::milliseconds(1500));
    ShufflerProcess sh(s);
    asio::io_context io;
    auto silent = connect_party3(io, s, sh.port);
    round_with_party3(s, sh, *silent, sealed(s, {213}));
    CHECK(run_sync(io, silent->receive()).header.type == FrameType::result);
    CHECK(sh.process.wait(std::chrono::seconds(15)) == 0);
    CHECK(sh.log().find("round 0: 1 party link (party 3) did not confirm the session's last result within 1500 ms") != std::string::npos);
    CHECK_THROWS_AS((void)run_sync(io, silent->receive()), std::system_error);  // the shuffler closed the link
  }
}

TEST_CASE("shuffler process: a done frame from a party before the last result, or an alive frame for a round to come, is refused with the reason") {
  NetSession s(n_parties, 26, 3, std::chrono::seconds(20));
  ShufflerProcess sh(s);
  asio::io_context io;
  auto early = connect_party3(io, s, sh.port);
  SUBCASE("done") {
    CHECK(refusal_of(io, *early, FrameType::done, 0) == "a done frame from party 3 in round 0, before the session's last result");
  }
  SUBCASE("alive") {
    CHECK(refusal_of(io, *early, FrameType::alive, 5) == "an alive frame for round 5 in round 0");
  }
  check_honest_only(s, sh, {3});  // the others' round is untouched
  early->close();
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

TEST_CASE("shuffler process: a corrupt party with a valid key cannot send more messages than the round declares") {
  // central-laplace declares one message per party: 50,000 (and 0) are refused at the shuffler,
  // that link alone is closed, and the honest parties' round completes without party 3.
  for (const std::uint32_t count : {50'000u, 0u}) {
    NetSession s(n_parties, 40 + count % 7, 3);
    s.config.max_frame_bytes = 8u << 20;
    s.config.save(s.path("session.json"));
    ShufflerProcess sh(s);
    asio::io_context io;
    auto link = connect_party3(io, s, sh.port);
    send_batch(*link, 0, 49, count, std::vector<std::uint8_t>(std::size_t{count} * 49, 1));  // opaque to the shuffler
    (void)wait_closed(io, *link);
    check_honest_only(s, sh, {3});
    // 50,000 is refused from the frame header (the plan's bound on a party's frame), 0 by the round.
    CHECK((sh.log().find("count 50000 above the limit 1") != std::string::npos ||
           sh.log().find("submission of 0 messages by party 3 rejected, the round allows 1 to 1") != std::string::npos));
  }
}

TEST_CASE("shuffler process: counting over TCP, each party counts at most twice and a third message is refused") {
  // counting with delta = 0.5 accepts 140 parties. Party 3 holds a valid key and submits three
  // messages; the shuffler refuses its batch (the round declares exactly two per party), and the
  // analyzer's estimate comes from the 139 honest parties, checked against the two-per-party total.
  const std::size_t n = 140;
  NetSession s(n, 50, n - 1, std::chrono::seconds(30), "counting", {{"delta", "0.5"}});
  s.config.max_frame_bytes = 1u << 20;
  s.config.save(s.path("session.json"));
  ShufflerProcess sh(s);
  asio::io_context io;
  auto link = connect_party3(io, s, sh.port);
  send_batch(*link, 0, 49, 3, sealed(s, {1, 1, 1}));
  (void)wait_closed(io, *link);
  std::vector<net::Identity> ids;
  for (PartyId id = 0; id < n; ++id)
    if (id != 3) ids.push_back({id, s.parties[id]});
  ids.push_back({net::analyzer_id, s.analyzer});
  net::TcpChannel channel(s.config, std::move(ids), "127.0.0.1", sh.port);
  const auto protocol = builtin_registry().create("counting", s.config.params, n);
  SeededRng rng(51);
  RoundDriver driver(*protocol, channel, rng, n);
  for (PartyId id = 0; id < n; ++id)
    if (id != 3) driver.add_party(id, 1);
  driver.host_analyzer();
  RunOptions options;
  options.min_parties = n - 1;
  const RunResult r = driver.run(options);
  CHECK(r.messages == 2 * (n - 1));
  CHECK(r.dropped == std::vector<PartyId>{3});
  // The estimate: 139 ones plus Binomial(139, p) noise minus 139 p, within two of any extreme.
  const double p = protocol->describe()["p"].get<double>();
  CHECK(r.output.get<double>() >= 139 - 139 * p - 1e-9);
  CHECK(r.output.get<double>() <= 2 * 139.0);
  CHECK(sh.log().find("count 3 above the limit 2") != std::string::npos);
}


namespace {
// The peak resident memory of a process, in bytes (VmHWM in /proc/PID/status).
std::size_t peak_memory(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stoul(line.substr(6)) * 1024;
  return 0;
}
}  // namespace

TEST_CASE("shuffler process: frame headers claiming huge payloads are refused before anything is allocated") {
  // Eight authenticated parties each send only a frame prefix whose header claims 196 MB. The round
  // plan allows one 49-byte message per party, so each header is refused at once and the
  // shuffler's memory stays small (it once allocated every claimed payload: 1.6 GB here).
  constexpr std::size_t n = 8;
  NetSession s(n, 60);
  s.config.max_frame_bytes = 256u << 20;  // the session's frame limit is not what protects it
  s.config.save(s.path("session.json"));
  ShufflerProcess sh(s);
  asio::io_context io;
  std::vector<std::shared_ptr<net::detail::SecureLink>> links;
  SystemRng rng;
  for (PartyId id = 0; id < n; ++id) {
    links.push_back(dial(io, sh.port, s.config.limits()));
    run_sync(io, links.back()->connect_as(s.config.session, s.config.digest(), id, s.parties[id], s.config.shuffler_key, rng));
    links.back()->send_prefix_only(FrameType::submit, 0, 49, 4'000'000, 196'000'000);  // a consistent header
  }
  for (auto& link : links) CHECK(wait_closed(io, *link) == Errc::peer_closed);
  // Under 256 MiB even with AddressSanitizer's shadow memory (about 6 MB in a Release build, 68 MB
  // under ASan); honouring the claims would take 1.57 GB.
  CHECK(peak_memory(sh.process.pid()) < (256u << 20));
  CHECK(sh.log().find("count 4000000 above the limit 1") != std::string::npos);
}

TEST_CASE("shuffler process: a party whose session config differs (one protocol parameter) is refused") {
  NetSession s(n_parties, 70, 3, std::chrono::milliseconds(1500));
  ShufflerProcess sh(s);
  asio::io_context io;
  net::SessionConfig other = s.config;
  other.params["epsilon"] = "0.5";  // same session id, keys and parties: only a parameter differs
  CHECK(other.digest() != s.config.digest());
  auto link = dial(io, sh.port, s.config.limits());
  SystemRng rng;
  try {
    run_sync(io, link->connect_as(other.session, other.digest(), 3, s.parties[3], other.shuffler_key, rng));
    FAIL("a party with another config was accepted");
  } catch (const std::system_error& e) {
    CHECK(e.code() == Errc::unauthenticated);
    CHECK(std::string(e.what()).find("is the config the same?") != std::string::npos);
  }
  check_honest_only(s, sh, {3});
  CHECK(sh.log().find("holds a session config that differs from the shuffler's") != std::string::npos);
  // The address is not part of the digest: each host may spell it its own way.
  other = s.config;
  other.shuffler_address = "shuffler.example:4000";
  CHECK(other.digest() == s.config.digest());
}

