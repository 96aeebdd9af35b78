// The shuffler process and links that come back: the analyzer's link cut mid-round, a result lost on
// the way and asked for again, the session's last result confirmed (done frames) by the analyzer
// and by the party links, or not, within the deadline; a handshake closed unanswered tried again.
#include <algorithm>
#include <array>
#include <atomic>
#include <functional>
#include <set>
#include <thread>

#include "net/shuffler_peers.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/registry.hpp"
#include "support/errors.hpp"

namespace {
using namespace shufflempc;
using namespace shufflempc::test;
using net::FrameType;
}  // namespace

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


namespace handshake_retry_test {

using asio::ip::tcp;

// A listener on 127.0.0.1 that takes `connections` connections, reads each one's hello and closes
// it unanswered, as a shuffler killed during the handshake (or one that refuses the hello) does, and
// then stops listening. It gives up after 20 s (a party that never comes).
struct Closer {
  asio::io_context io;
  tcp::acceptor acceptor{io, {asio::ip::make_address("127.0.0.1"), 0}};
  std::atomic<int> closed{0};
  std::thread thread;

  explicit Closer(int connections) {
    asio::co_spawn(
        io,
        [this, connections]() -> asio::awaitable<void> {
          for (int i = 0; i < connections; ++i) {
            tcp::socket s = co_await acceptor.async_accept(asio::use_awaitable);
            std::array<std::uint8_t, 16> hello{};
            co_await asio::async_read(s, asio::buffer(hello), asio::use_awaitable);
            s.close();
            ++closed;
          }
          acceptor.close();
        },
        asio::detached);
    thread = std::thread([this] { io.run_for(std::chrono::seconds(20)); });
  }
  ~Closer() { done(); }
  void done() {
    if (thread.joinable()) thread.join();
  }
  std::uint16_t port() const { return acceptor.local_endpoint().port(); }
};

}  // namespace handshake_retry_test

TEST_CASE("party links: a handshake closed unanswered (the shuffler killed during it) is tried again, and completes with the shuffler started on that port") {
  NetSession s(n_parties, 27, 0, std::chrono::seconds(20));
  handshake_retry_test::Closer closer(1);
  const std::uint16_t port = closer.port();
  RoundOutcome out;
  std::exception_ptr failed;
  std::thread parties = on_thread(failed, [&] {
    net::TcpChannel channel(s.config, every_party(s), "127.0.0.1", port);
    out = all_parties_round(channel, 0, RoundShape::exactly(1, Delivery::analyzer_only, 1));
  });
  closer.done();  // one handshake closed, and the port free again: the shuffler comes back on it
  CHECK(closer.closed == 1);
  ShufflerProcess sh(s, {}, "127.0.0.1:" + std::to_string(port));
  asio::io_context io;
  auto analyzer = connect_analyzer(io, s, sh.port);
  const auto result = run_sync(io, analyzer->receive());
  parties.join();
  if (failed) std::rethrow_exception(failed);
  CHECK(result.header.type == FrameType::result);
  CHECK(out.submitted == std::vector<PartyId>{0, 1, 2, 3});
  confirm_last(io, *analyzer, 0);
  CHECK(sh.process.wait() == 0);
}

TEST_CASE("party links: a shuffler that closes every handshake unanswered is taken, at the third, to refuse the identities: one line") {
  NetSession s(n_parties, 28, 0, std::chrono::seconds(20));
  handshake_retry_test::Closer closer(3);
  const std::string error = shufflempc::test::error_text(
      [&] { net::TcpChannel channel(s.config, {net::Identity{0, s.parties[0]}}, "127.0.0.1", closer.port()); });
  closer.done();
  CHECK(closer.closed == 3);
  CHECK(error.find("the shuffler refused these identities") != std::string::npos);
  CHECK(error.find('\n') == std::string::npos);
}
