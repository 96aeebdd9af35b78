// Further server 1 of a LocalDeployment's chain as the tests of a mix server drive it: a
// TcpMixServer serving on a thread of its own with its log kept, stopped and started again on
// demand (a crash and a restart on its state directory), and links to it as its entry; and such a
// server of an onion chain of two rounds (OneServer).
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "shufflempc/net/detail/link.hpp"
#include "shufflempc/net/local.hpp"
#include "shufflempc/net/mix_server.hpp"
#include "shufflempc/net/onion.hpp"
#include "shufflempc/random.hpp"

namespace shufflempc::test {

struct MixServerThread {
  SystemRng rng;
  net::LocalDeployment local;
  std::unique_ptr<net::TcpMixServer> server;
  std::thread thread;
  std::mutex log_mutex;
  std::vector<std::string> log;
  std::vector<net::MixServerReport> reports;

  MixServerThread() = default;
  MixServerThread(const MixServerThread&) = delete;
  MixServerThread& operator=(const MixServerThread&) = delete;
  ~MixServerThread() { stop(); }

  // Server 1 of `local`'s chain, serving on a thread of its own.
  void start(const net::MixServerOptions& options) {
    server = std::make_unique<net::TcpMixServer>(local.further_server_keys[0], std::vector<net::SessionConfig>{local.config}, "127.0.0.1", 0,
                                                 [this](const std::string& l) {
                                                   std::lock_guard lock(log_mutex);
                                                   log.push_back(l);
                                                 },
                                                 options);
    thread = std::thread([this] { reports = server->run(); });
  }
  void stop() {
    if (!thread.joinable()) return;
    server->stop();
    thread.join();
  }
  // The server stopped (as if it crashed: a stop records nothing), and another made of the same
  // key and config with `options` (a server started again); its log starts empty.
  void restart(const net::MixServerOptions& options) {
    stop();
    log.clear();
    server.reset();  // its state directory's lock goes with it
    start(options);
  }
  bool logged(const std::string& text) {
    std::lock_guard lock(log_mutex);
    return std::any_of(log.begin(), log.end(), [&](const std::string& l) { return l.find(text) != std::string::npos; });
  }

  // Connects as identity `id` holding `keys`, runs `body` on the link, on a fresh io_context until
  // it completes; rethrows what failed.
  template <class Body>
  void connect_as(PartyId id, const net::KeyPair& keys, Body body) {
    asio::io_context io;
    std::exception_ptr error;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
          auto link = std::make_shared<net::detail::SecureLink>(asio::ip::tcp::socket(io), local.config.limits());
          co_await link->socket().async_connect({asio::ip::make_address("127.0.0.1"), server->port()}, asio::use_awaitable);
          co_await link->connect_as(local.config.session, local.config.digest(), id, keys, local.config.mix_chain[1].key, rng);
          co_await body(*link);
          link->close();
        },
        [&](std::exception_ptr e) { error = e; });
    io.run();
    if (error) std::rethrow_exception(error);
  }
  // The same as the chain's entry (the shuffler's key).
  template <class Body>
  void as_entry(Body body) {
    connect_as(net::entry_id, local.shuffler, std::move(body));
  }

  // The entry's goodbye after `rounds` rounds: the session ends with every round reported and no
  // error, in the state directory too, so that a third start on it refuses the session.
  void goodbye_ends_session(std::size_t rounds, const net::MixServerOptions& options) {
    as_entry([&](net::detail::SecureLink& link) -> asio::awaitable<void> {
      link.send(net::FrameType::abort, static_cast<std::uint32_t>(rounds - 1), {});
      co_return;
    });
    thread.join();
    REQUIRE(reports.size() == 1);
    CHECK(reports[0].error.empty());
    CHECK(reports[0].rounds.size() == rounds);
    CHECK_THROWS_WITH_AS(restart(options), doctest::Contains("has ended already (the entry said goodbye after the session's last round"),
                         std::runtime_error);
  }
};

// A further server of a two-round chain (tests/net/mix_server_thread.hpp), and what its entry sends.
struct OneServer : MixServerThread {
  explicit OneServer(const net::MixServerOptions& options = {}) {
    net::SessionConfig base;
    base.protocol = "(test)";
    base.deadline = std::chrono::milliseconds(10'000);
    base.rounds = {RoundShape{.width = 8 + 3 * 48, .delivery = Delivery::all_parties, .min_messages = 1, .max_messages = 1},
                   RoundShape{.width = 8 + 3 * 48, .delivery = Delivery::all_parties, .min_messages = 1, .max_messages = 1}};
    local = net::LocalDeployment::create(4, rng, base, 3);
    start(options);
  }
  // Four 8-byte records wrapped for the chain's round `round`, as hop 0 forwards them (its layer peeled).
  MessageBatch batch(std::uint32_t round, std::uint8_t fill) {
    std::vector<std::uint8_t> messages(4 * 8, fill);
    for (std::size_t i = 0; i < 4; ++i) messages[8 * i] = static_cast<std::uint8_t>(i);
    std::vector<net::PublicKey> keys;
    for (const auto& m : local.config.mix_chain) keys.push_back(m.key);
    const auto wrapped = net::onion::wrap(messages, 8, Delivery::all_parties, local.analyzer.public_key(), keys, local.config.session, round);
    return net::onion::peel(wrapped, local.shuffler, {local.config.session, round, 0}).records;
  }
};

}  // namespace shufflempc::test
