// The parties hosted by one process share a link: each still proves its own key, the link is
// refused whole if one key is missing, a frame limit splits the parties over as few links as it
// allows, and a link whose connection drops mid-round reconnects and sends its batch again.
#include <sodium.h>

#include <condition_variable>
#include <functional>
#include <future>
#include <limits>
#include <mutex>
#include <set>
#include <thread>

#include "net/harness.hpp"
#include "support/link_shape.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/registry.hpp"

namespace {

using namespace shufflempc;
using namespace shufflempc::test;

// central-laplace: one message of one byte per party, sealed to the analyzer on the wire.
const std::vector<RoundShape> wire_plan = {RoundShape::exactly(1 + 48, Delivery::analyzer_only, 1)};

RoundRules rules_for(std::size_t n, std::size_t max_messages = 1) {
  RoundRules spec;
  spec.shape = RoundShape{1, Delivery::analyzer_only, 1, max_messages};
  for (PartyId i = 0; i < n; ++i) spec.expected.push_back(i);
  return spec;
}

Submissions batches_of(const std::vector<PartyId>& ids) {
  Submissions local;
  local.messages = MessageBatch(1);
  for (PartyId id : ids) {
    const auto b = static_cast<std::uint8_t>(id % 251);
    local.parties.push_back({id, local.messages.count(), 1});
    local.messages.push_back(std::span(&b, 1));
  }
  return local;
}

std::multiset<std::uint8_t> values_of(const std::vector<PartyId>& ids) {
  std::multiset<std::uint8_t> out;
  for (PartyId id : ids) out.insert(static_cast<std::uint8_t>(id % 251));
  return out;
}

// A TCP relay in front of the shuffler that cuts its first connection once it has carried
// `cut_after` bytes from the client (or when cut() is called), and counts what every connection
// carried.
class CuttingProxy {
 public:
  // Connection 0 is cut once its client has sent `cut_after` bytes, or once the server has sent it
  // `cut_down_after` bytes (what would go beyond is not forwarded).
  CuttingProxy(std::uint16_t target, std::size_t cut_after, std::size_t cut_down_after = std::numeric_limits<std::size_t>::max())
      : target_(target), cut_after_(cut_after), cut_down_after_(cut_down_after), acceptor_(io_) {
    const net::detail::tcp::endpoint ep(asio::ip::make_address("127.0.0.1"), 0);
    acceptor_.open(ep.protocol());
    acceptor_.bind(ep);
    acceptor_.listen();
    port = acceptor_.local_endpoint().port();
    asio::co_spawn(io_, accept_loop(), asio::detached);
    thread_ = std::thread([this] { io_.run(); });
  }
  ~CuttingProxy() {
    io_.stop();
    thread_.join();
  }
  // Waits (at most `limit`) until connection `index` has carried `bytes` from its client.
  bool wait_forwarded(std::size_t index, std::size_t bytes, std::chrono::seconds limit) {
    std::unique_lock lock(m_);
    return cv_.wait_for(lock, limit, [&] { return index < forwarded_.size() && forwarded_[index] >= bytes; });
  }
  std::size_t connections() {
    const std::lock_guard lock(m_);
    return forwarded_.size();
  }
  // Cuts connection `index` now (both of its sockets closed on the relay's thread).
  void cut(std::size_t index) {
    std::promise<void> done;
    asio::post(io_, [&] {
      const std::lock_guard lock(m_);
      if (index < sockets_.size()) {
        std::error_code ignored;
        sockets_[index].first->close(ignored);
        sockets_[index].second->close(ignored);
      }
      done.set_value();
    });
    done.get_future().wait();
  }

  std::uint16_t port = 0;

 private:
  using tcp = net::detail::tcp;
  asio::awaitable<void> accept_loop() {
    for (;;) {
      auto client = std::make_shared<tcp::socket>(co_await acceptor_.async_accept(asio::use_awaitable));
      auto server = std::make_shared<tcp::socket>(io_);
      co_await server->async_connect({asio::ip::make_address("127.0.0.1"), target_}, asio::use_awaitable);
      std::size_t index = 0;
      {
        const std::lock_guard lock(m_);
        index = forwarded_.size();
        forwarded_.push_back(0);
        sockets_.emplace_back(client, server);
      }
      asio::co_spawn(io_, pump(client, server, index, true), asio::detached);
      asio::co_spawn(io_, pump(server, client, index, false), asio::detached);
    }
  }
  asio::awaitable<void> pump(std::shared_ptr<tcp::socket> from, std::shared_ptr<tcp::socket> to, std::size_t index, bool upstream) {
    std::array<std::uint8_t, 4096> buf{};
    try {
      for (;;) {
        std::size_t n = co_await from->async_read_some(asio::buffer(buf), asio::use_awaitable);
        bool cut = false;
        if (upstream) {
          const std::lock_guard lock(m_);
          if (index == 0 && forwarded_[0] + n >= cut_after_) {
            n = cut_after_ - forwarded_[0];
            cut = true;
          }
        } else if (index == 0 && down_ + n > cut_down_after_) {
          n = cut_down_after_ - down_;
          cut = true;
        }
        if (!upstream && index == 0) down_ += n;
        co_await asio::async_write(*to, asio::buffer(buf.data(), n), asio::use_awaitable);
        if (upstream) {
          const std::lock_guard lock(m_);
          forwarded_[index] += n;
          cv_.notify_all();
        }
        if (cut) break;
      }
    } catch (const std::exception&) {
    }
    std::error_code ignored;
    from->close(ignored);
    to->close(ignored);
  }

  std::uint16_t target_;
  std::size_t cut_after_;
  std::size_t cut_down_after_;
  std::size_t down_ = 0;  // bytes sent down connection 0 (the relay's thread only)
  asio::io_context io_;
  net::detail::tcp::acceptor acceptor_;
  std::thread thread_;
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<std::size_t> forwarded_;
  std::vector<std::pair<std::shared_ptr<net::detail::tcp::socket>, std::shared_ptr<net::detail::tcp::socket>>> sockets_;
};

}  // namespace

namespace {

// Parties 0..2 on one shared link through `proxy`, running the session's one round on a thread of
// their own: their outcome lands in `theirs`, their channel's log lines in `log`, what they throw in
// `error`; `after` sees the channel once its round is done.
std::thread relayed_parties(const NetSession& s, CuttingProxy& proxy, RoundOutcome& theirs, std::string& log, std::exception_ptr& error,
                            std::function<void(net::TcpChannel&)> after = {}) {
  return std::thread([&s, &proxy, &theirs, &log, &error, after = std::move(after)] {
    try {
      std::vector<net::Identity> ids = {{0, s.parties[0]}, {1, s.parties[1]}, {2, s.parties[2]}};
      net::TcpChannel channel(s.config, std::move(ids), "127.0.0.1", proxy.port, [&log](const std::string& l) { log += l + "\n"; },
                              {.share_links = true});
      theirs = channel.exchange(rules_for(4), batches_of({0, 1, 2}));
      if (after) after(channel);
    } catch (...) {
      error = std::current_exception();
    }
  });
}

}  // namespace

TEST_CASE("shared links: 300 parties of one process on one connection, or as few as the frame limit allows") {
  // 16384 bytes hold the analyzer's result (300 ids and 300 sealed messages of 49 bytes) and one
  // link's frame for all 300 parties (a count and a message each): one link. A plan allowing two
  // messages per party halves what a link holds (102 bytes a party): two links.
  const std::size_t n = 300;
  const std::vector<RoundShape> up_to_two = {RoundShape{1 + 48, Delivery::analyzer_only, 1, 2}};
  for (const auto* plan : {&wire_plan, &up_to_two}) {
    const bool two = plan == &up_to_two;
    CAPTURE(two);
    NetSession s(n, two ? 71 : 70);
    s.config.max_frame_bytes = 16384;
    s.config.rounds = *plan;  // the shuffler enforces the config's shapes, whatever the protocol
    s.config.save(s.path("session.json"));
    ShufflerProcess sh(s);
    std::vector<net::Identity> ids;
    std::vector<PartyId> all;
    for (PartyId id = 0; id < n; ++id) {
      ids.push_back({id, s.parties[id]});
      all.push_back(id);
    }
    ids.push_back({net::analyzer_id, s.analyzer});
    net::TcpChannel channel(s.config, std::move(ids), "127.0.0.1", sh.port, {}, {.share_links = true});
    const std::size_t capacity = net::link_capacity(s.config);
    CHECK(capacity == 16384 / (two ? 102 : 53));
    CHECK(channel.connections() == (two ? 2 : 1) + 1);
    const RoundOutcome out = channel.exchange(rules_for(n, two ? 2 : 1), batches_of(all));
    CHECK(received(out) == values_of(all));
    CHECK(out.submitted == all);
    // Each party's share of its link's traffic: its message, its count and its share of the
    // framing and handshake; independent of the number of parties.
    const auto counters = channel.counters();
    CHECK(counters.at(0).messages_sent == 1);
    CHECK(counters.at(0).bytes_sent < 53 + 256 / std::min(capacity, n) + 2);
    CHECK(sh.process.wait() == 0);
  }
}

TEST_CASE("shared links: a link claiming parties whose keys it does not all hold is refused whole") {
  NetSession s(4, 80, 0, std::chrono::seconds(20));
  ShufflerProcess sh(s);
  asio::io_context io;
  SystemRng rng;
  const auto stranger = net::KeyPair::generate(rng);
  // Parties 0..2 on one link, holding the keys of 0 and 2 but not 1's.
  const std::vector<net::detail::StaticSecret> secrets = {
      net::detail::static_secret(s.parties[0].secret_key(), s.config.shuffler_key),
      net::detail::static_secret(stranger.secret_key(), s.config.shuffler_key),
      net::detail::static_secret(s.parties[2].secret_key(), s.config.shuffler_key)};
  auto link = dial(io, sh.port, s.config.limits());
  try {
    run_sync(io, link->connect_as(s.config.session, s.config.digest(), 0, 3, net::detail::identity_proof(secrets, 0),
                                  s.config.shuffler_key, rng));
    FAIL("a link without party 1's key was accepted");
  } catch (const std::system_error& e) {
    CHECK(e.code() == Errc::unauthenticated);
  }
  // None of the three was admitted: the honest processes take their places and the round completes.
  std::vector<net::Identity> ids;
  for (PartyId id = 0; id < 4; ++id) ids.push_back({id, s.parties[id]});
  ids.push_back({net::analyzer_id, s.analyzer});
  net::TcpChannel channel(s.config, std::move(ids), "127.0.0.1", sh.port, {}, {.share_links = true});
  const RoundOutcome out = channel.exchange(rules_for(4), batches_of({0, 1, 2, 3}));
  CHECK(received(out) == values_of({0, 1, 2, 3}));
  CHECK(sh.log().find("key confirmation failed: the peer does not hold the secret keys of the identities it claims") != std::string::npos);
}

TEST_CASE("shared links: parties sharing one key: its holder proves any of its run, not a party of another run") {
  // Parties 0..2 hold key A and 3..5 key B, as `local` gives each party process one key.
  NetSession s(6, 82, 0, std::chrono::seconds(20));
  for (PartyId id : {1, 2}) s.parties[id] = s.parties[0];
  for (PartyId id : {4, 5}) s.parties[id] = s.parties[3];
  for (PartyId id = 0; id < 6; ++id) s.config.party_keys[id] = s.parties[id].public_key();
  s.config.save(s.path("session.json"));
  REQUIRE(s.config.to_json()["party_keys"].size() == 2);
  ShufflerProcess sh(s);
  asio::io_context io;
  SystemRng rng;
  const auto with_a = net::detail::static_secret(s.parties[0].secret_key(), s.config.shuffler_key);
  // Key A's holder claiming parties 1..3 (3 is B's): refused whole.
  {
    const std::vector<net::detail::StaticSecret> secrets(3, with_a);
    auto link = dial(io, sh.port, s.config.limits());
    try {
      run_sync(io, link->connect_as(s.config.session, s.config.digest(), 1, 3, net::detail::identity_proof(secrets, 1),
                                    s.config.shuffler_key, rng));
      FAIL("key A's holder was accepted for party 3");
    } catch (const std::system_error& e) {
      CHECK(e.code() == Errc::unauthenticated);
    }
  }
  std::vector<net::Identity> ids;
  for (PartyId id = 0; id < 6; ++id) ids.push_back({id, s.parties[id]});
  ids.push_back({net::analyzer_id, s.analyzer});
  net::TcpChannel channel(s.config, std::move(ids), "127.0.0.1", sh.port, {}, {.share_links = true});
  CHECK(channel.connections() == 2);  // the six parties on one link (proved with A, A, A, B, B, B), and the analyzer's
  const RoundOutcome out = channel.exchange(rules_for(6), batches_of({0, 1, 2, 3, 4, 5}));
  CHECK(received(out) == values_of({0, 1, 2, 3, 4, 5}));
  CHECK(sh.log().find("key confirmation failed: the peer does not hold the secret keys of the identities it claims") != std::string::npos);
  CHECK(sh.process.wait() == 0);
}

TEST_CASE("shared links: a link cut after its batch reconnects, its batch counts once, and its parties get the result") {
  NetSession s(4, 81, 0, std::chrono::seconds(20));
  ShufflerProcess sh(s);
  // Parties 0..2 share a link through the proxy; it is cut right after their submit frame:
  // hello (96) + confirm frame (80) + submit frame (80 + 3 counts and 3 sealed messages).
  const std::size_t frame = net::frame_prefix_bytes + net::aead_tag_bytes;
  const std::size_t through_submit = net::hello_bytes + frame + frame + 3 * (4 + 49);
  CuttingProxy proxy(sh.port, through_submit);

  // Party 3 and the analyzer connect directly; the round cannot close before party 3 submits.
  std::vector<net::Identity> direct = {{3, s.parties[3]}, {net::analyzer_id, s.analyzer}};
  net::TcpChannel main_channel(s.config, std::move(direct), "127.0.0.1", sh.port, {}, {.share_links = true});

  RoundOutcome theirs;
  std::exception_ptr error;
  std::string client_log;
  std::thread parties = relayed_parties(s, proxy, theirs, client_log, error, [](net::TcpChannel& channel) { CHECK(channel.connections() == 2); });
  // The second connection has carried the same batch again: now party 3 submits.
  const bool resent = proxy.wait_forwarded(1, through_submit, std::chrono::seconds(30));
  CHECK(resent);
  const RoundOutcome out = main_channel.exchange(rules_for(4), batches_of({3}));
  parties.join();
  if (error) std::rethrow_exception(error);
  CHECK(received(out) == values_of({0, 1, 2, 3}));  // the resent batch counted once
  CHECK(out.submitted == std::vector<PartyId>{0, 1, 2, 3});
  CHECK(theirs.submitted == std::vector<PartyId>{0, 1, 2});
  CHECK(theirs.dropped.empty());
  CHECK(client_log.find("round 0: the link of parties 0..2 was lost; reconnecting until the deadline") != std::string::npos);
  CHECK(proxy.connections() == 2);
}

// The analyzer on a channel of its own through `proxy` (whose connection 0 is the analyzer's),
// the four parties directly, one round, which is the session's last. `after_connect` runs once the
// analyzer's channel is connected. Whatever the relay cut, the analyzer's link was lost once and
// came back, every message reached it once, and the shuffler ended cleanly.
namespace {

void analyzer_through_relay(const NetSession& s, ShufflerProcess& sh, CuttingProxy& proxy, const std::function<void()>& after_connect) {
  std::string analyzer_log;
  std::vector<net::Identity> ids = {{net::analyzer_id, s.analyzer}};
  net::TcpChannel analyzer_channel(s.config, std::move(ids), "127.0.0.1", proxy.port,
                                   [&](const std::string& l) { analyzer_log += l + "\n"; }, {.share_links = true});
  after_connect();
  RoundOutcome seen;
  std::exception_ptr error;
  std::thread analyzer([&] {
    try {
      seen = analyzer_channel.exchange(rules_for(4), batches_of({}));
    } catch (...) {
      error = std::current_exception();
    }
  });
  std::vector<net::Identity> parties;
  for (PartyId id = 0; id < 4; ++id) parties.push_back({id, s.parties[id]});
  net::TcpChannel channel(s.config, std::move(parties), "127.0.0.1", sh.port, {}, {.share_links = true});
  const RoundOutcome out = channel.exchange(rules_for(4), batches_of({0, 1, 2, 3}));
  analyzer.join();
  if (error) std::rethrow_exception(error);
  CHECK(out.submitted == std::vector<PartyId>{0, 1, 2, 3});
  CHECK(received(seen) == values_of({0, 1, 2, 3}));
  CHECK(analyzer_log.find("round 0: the analyzer's link was lost; reconnecting until the deadline") != std::string::npos);
  CHECK(proxy.connections() == 2);
  CHECK(sh.process.wait() == 0);
  CHECK(sh.log().find("did not confirm") == std::string::npos);
}

}  // namespace

TEST_CASE("shared links: the analyzer's link cut after its handshake reconnects like a party's, and the analyzer gets the round's result") {
  NetSession s(4, 82, 0, std::chrono::seconds(20));
  ShufflerProcess sh(s);
  // The analyzer connects through the relay, which cuts that connection once the handshake is done.
  CuttingProxy proxy(sh.port, std::numeric_limits<std::size_t>::max());
  analyzer_through_relay(s, sh, proxy, [&] { proxy.cut(0); });
}

TEST_CASE("shared links: over links shaped to 20 ms each way, the analyzer's link cut after its handshake reconnects and gets the round's result") {
  const test::ShapedLinks shaped({.delay = std::chrono::milliseconds(20)});  // this process's links: the parties' and the analyzer's
  NetSession s(4, 85, 0, std::chrono::seconds(20));
  ShufflerProcess sh(s);
  CuttingProxy proxy(sh.port, std::numeric_limits<std::size_t>::max());
  analyzer_through_relay(s, sh, proxy, [&] { proxy.cut(0); });
}

TEST_CASE("shared links: the analyzer's link cut as the session's last result comes down reconnects, fetches it again and confirms it") {
  // The relay forwards the analyzer's handshake, then cuts the connection instead of passing on the
  // result frame of the session's one round. The shuffler keeps the result until the analyzer's
  // done frame: the analyzer's channel reconnects, asks for it and confirms it.
  NetSession s(4, 84, 0, std::chrono::seconds(20));
  ShufflerProcess sh(s);
  const std::size_t frame = net::frame_prefix_bytes + net::aead_tag_bytes;
  CuttingProxy proxy(sh.port, std::numeric_limits<std::size_t>::max(), net::hello_reply_bytes + frame);
  analyzer_through_relay(s, sh, proxy, [] {});
}

TEST_CASE("shared links: a party link cut as the session's last result comes down reconnects, fetches it again and confirms it") {
  // Parties 0..2 share a link through the relay, which forwards their handshake and then cuts the
  // connection instead of passing on the result of the session's one round. The shuffler keeps the
  // result until the link's done frame: the channel reconnects, sends its batch again, gets the
  // result and confirms it.
  NetSession s(4, 85, 0, std::chrono::seconds(20));
  ShufflerProcess sh(s);
  const std::size_t frame = net::frame_prefix_bytes + net::aead_tag_bytes;
  CuttingProxy proxy(sh.port, std::numeric_limits<std::size_t>::max(), net::hello_reply_bytes + frame);
  std::vector<net::Identity> direct = {{3, s.parties[3]}, {net::analyzer_id, s.analyzer}};
  net::TcpChannel main_channel(s.config, std::move(direct), "127.0.0.1", sh.port, {}, {.share_links = true});
  RoundOutcome theirs;
  std::exception_ptr error;
  std::string client_log;
  std::thread parties = relayed_parties(s, proxy, theirs, client_log, error);
  const RoundOutcome out = main_channel.exchange(rules_for(4), batches_of({3}));
  parties.join();
  if (error) std::rethrow_exception(error);
  CHECK(received(out) == values_of({0, 1, 2, 3}));
  CHECK(theirs.submitted == std::vector<PartyId>{0, 1, 2});
  CHECK(theirs.dropped.empty());
  CHECK(client_log.find("round 0: the link of parties 0..2 was lost; reconnecting until the deadline") != std::string::npos);
  CHECK(proxy.connections() == 2);
  CHECK(sh.process.wait() == 0);
  CHECK(sh.log().find("did not confirm") == std::string::npos);
}

TEST_CASE("shared links: a link cut inside its submit frame, after every other party submitted, reconnects within the grace and counts") {
  // Without the grace the round would close the moment the cut is seen (everyone else is in) and
  // drop the three parties whose reconnection was on its way; with --reconnect-grace-ms 0 it does.
  for (const bool grace : {true, false}) {
    CAPTURE(grace);
    NetSession s(4, grace ? 82 : 83, 1, std::chrono::seconds(20));
    ShufflerProcess sh(s, grace ? std::vector<std::string>{} : std::vector<std::string>{"--reconnect-grace-ms", "0"});
    // The analyzer is connected first and waits for the round.
    std::vector<net::Identity> analyzer_id = {{net::analyzer_id, s.analyzer}};
    net::TcpChannel analyzer(s.config, std::move(analyzer_id), "127.0.0.1", sh.port);
    RoundOutcome out;
    std::exception_ptr analyzer_error;
    std::thread analyzer_thread([&] {
      try {
        Submissions none;
        none.messages = MessageBatch(1);
        out = analyzer.exchange(rules_for(4), std::move(none));
      } catch (...) {
        analyzer_error = std::current_exception();
      }
    });
    // Party 3 submits on a link of its own, then repeats the round with other bytes: the shuffler
    // refuses that (its first batch stands) in an abort frame, which proves the first was taken.
    {
      asio::io_context io;
      SystemRng rng;
      auto link = dial(io, sh.port, s.config.limits());
      run_sync(io, link->connect_as(s.config.session, s.config.digest(), 3, s.parties[3], s.config.shuffler_key, rng));
      const std::uint8_t three = 3;
      std::vector<std::uint8_t> first(49), second(49);
      crypto_box_seal(first.data(), &three, 1, s.config.analyzer_key.data());
      crypto_box_seal(second.data(), &three, 1, s.config.analyzer_key.data());
      send_batch(*link, 0, 49, 1, first);
      send_batch(*link, 0, 49, 1, second);
      const auto abort = run_sync(io, link->receive());
      CHECK(abort.header.type == net::FrameType::abort);
    }
    // Parties 0..2 share a link through the proxy, cut 20 bytes into its submit frame.
    const std::size_t frame = net::frame_prefix_bytes + net::aead_tag_bytes;
    CuttingProxy proxy(sh.port, net::hello_bytes + frame + 20);
    RoundOutcome theirs;
    std::string error;
    try {
      std::vector<net::Identity> ids = {{0, s.parties[0]}, {1, s.parties[1]}, {2, s.parties[2]}};
      net::TcpChannel channel(s.config, std::move(ids), "127.0.0.1", proxy.port, {}, {.share_links = true});
      RoundRules rules = rules_for(4);
      // Without the grace their reconnection finds the session over: they give up within
      // 2 x 1 s + 4 s instead of the session's 2 x 20 s + 4 s.
      if (!grace) rules.deadline = std::chrono::seconds(1);
      theirs = channel.exchange(rules, batches_of({0, 1, 2}));
    } catch (const std::exception& e) {
      error = e.what();
    }
    analyzer_thread.join();
    if (analyzer_error) std::rethrow_exception(analyzer_error);
    if (grace) {
      CHECK(error.empty());
      CHECK(proxy.connections() == 2);
      CHECK(received(out) == values_of({0, 1, 2, 3}));
      CHECK(out.submitted == std::vector<PartyId>{0, 1, 2, 3});
      CHECK(out.dropped.empty());
      CHECK(theirs.submitted == std::vector<PartyId>{0, 1, 2});
    } else {
      CHECK(out.submitted == std::vector<PartyId>{3});
      CHECK(out.dropped == std::vector<PartyId>{0, 1, 2});
      CHECK_FALSE(error.empty());
    }
    CHECK(sh.process.wait() == 0);
  }
}

TEST_CASE("shared links: a link whose parties all leave says so, and the round does not wait for it") {
  // The grace for lost links is a day here: had the link only closed, the round would wait for it
  // until the session's 60 s deadline, past the 2 x 1 s + 4 s the others wait for their result.
  NetSession s(4, 84, 2, std::chrono::seconds(60));
  ShufflerProcess sh(s, {"--reconnect-grace-ms", "86400000"});
  std::vector<net::Identity> leaving = {{0, s.parties[0]}, {1, s.parties[1]}};
  net::TcpChannel gone(s.config, std::move(leaving), "127.0.0.1", sh.port, {}, {.share_links = true});
  REQUIRE(gone.connections() == 1);
  std::vector<net::Identity> staying = {{2, s.parties[2]}, {3, s.parties[3]}, {net::analyzer_id, s.analyzer}};
  net::TcpChannel channel(s.config, std::move(staying), "127.0.0.1", sh.port, {}, {.share_links = true});
  RoundRules rules = rules_for(4);
  rules.deadline = std::chrono::seconds(1);
  Submissions none;
  none.messages = MessageBatch(1);
  const RoundOutcome left = gone.exchange(rules, std::move(none));  // neither party submits: both leave
  CHECK(left.dropped == std::vector<PartyId>{0, 1});
  const RoundOutcome out = channel.exchange(rules, batches_of({2, 3}));
  CHECK(received(out) == values_of({2, 3}));
  CHECK(out.submitted == std::vector<PartyId>{2, 3});
  CHECK(out.dropped == std::vector<PartyId>{0, 1});
  CHECK(sh.process.wait() == 0);
}
