// The shuffler against idle-connection floods, and parties that start before it: its descriptors
// stay bounded, its log stays short, and the honest parties still complete their round.
#include <doctest/doctest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "net/harness.hpp"
#include "shufflempc/registry.hpp"

using namespace shufflempc;

TEST_CASE("shuffler: 400 idle connections neither exhaust it nor lock the honest parties out, the log stays short") {
  const std::size_t n = 4;
  const test::NetSession local(n, 90);  // central-laplace, test keys
  auto protocol = builtin_registry().create(local.config.protocol, {}, n);
  std::mutex log_mutex;
  std::vector<std::string> log;
  net::ShufflerOptions options;
  options.max_unauthenticated = 16;
  options.handshake_timeout = std::chrono::seconds(3);
  options.log_lines_per_second = 5;
  net::TcpShuffler shuffler(local.shuffler, {local.config}, "127.0.0.1", 0,
                            [&](const std::string& line) {
                              std::lock_guard lock(log_mutex);
                              log.push_back(line);
                            },
                            options);
  std::thread server([&] { (void)shuffler.run(); });

  // The flood: 400 connections that never say a word.
  asio::io_context io;
  std::vector<asio::ip::tcp::socket> idle;
  for (int i = 0; i < 400; ++i) {
    idle.emplace_back(io);
    idle.back().connect({asio::ip::make_address("127.0.0.1"), shuffler.port()});
  }
  // Then the honest parties and the analyzer, each on its own authenticated link.
  RunResult result;
  {
    net::TcpChannel channel(local.config, local.all_identities(), "127.0.0.1", shuffler.port());
    SeededRng rng(91);
    RoundDriver driver(*protocol, channel, rng, n);
    for (PartyId i = 0; i < n; ++i) driver.add_party(i, 1);
    driver.host_analyzer();
    result = driver.run({});
  }
  server.join();
  CHECK(result.messages == n);
  CHECK(result.dropped.empty());
  // The shuffler closed all but the newest few idle connections (a read sees the end of the stream).
  const std::size_t closed = test::count_closed(idle);
  CHECK(closed >= 400 - options.max_unauthenticated);
  std::lock_guard lock(log_mutex);
  std::size_t evictions = 0;
  for (const auto& line : log) evictions += line.find("the oldest is closed") != std::string::npos ? 1 : 0;
  CHECK(evictions >= 1);
  CHECK(evictions <= 2 * options.log_lines_per_second);  // at most two one-second windows of them
  CHECK(log.size() < 60);
}

TEST_CASE("a party started before the shuffler retries until it listens, then completes its round") {
  const std::size_t n = 3;
  const test::NetSession local(n, 92);  // central-laplace, test keys
  auto protocol = builtin_registry().create(local.config.protocol, {}, n);
  // A port nobody listens on yet (the OS's choice, released at once).
  std::uint16_t port = 0;
  {
    asio::io_context io;
    asio::ip::tcp::acceptor probe(io, {asio::ip::make_address("127.0.0.1"), 0});
    port = probe.local_endpoint().port();
  }
  std::mutex m;
  std::condition_variable retrying;
  bool said = false;
  RunResult result;
  std::exception_ptr error;
  std::thread parties([&] {
    try {
      net::TcpChannel channel(local.config, local.all_identities(), "127.0.0.1", port, [&](const std::string& line) {
        if (line.find("is not listening yet") == std::string::npos) return;
        std::lock_guard lock(m);
        said = true;
        retrying.notify_all();
      });
      SeededRng rng(93);
      RoundDriver driver(*protocol, channel, rng, n);
      for (PartyId i = 0; i < n; ++i) driver.add_party(i, 1);
      driver.host_analyzer();
      result = driver.run({});
    } catch (...) {
      error = std::current_exception();
    }
  });
  {
    std::unique_lock lock(m);
    REQUIRE(retrying.wait_for(lock, std::chrono::seconds(20), [&] { return said; }));
  }
  // Only now does the shuffler start, on the port the parties keep trying.
  net::TcpShuffler shuffler(local.shuffler, {local.config}, "127.0.0.1", port);
  std::thread server([&] { (void)shuffler.run(); });
  parties.join();
  server.join();
  if (error) std::rethrow_exception(error);
  CHECK(result.messages == n);
  CHECK(result.output.is_number());
}

TEST_CASE("shuffler: strangers' hellos claiming every party, from four threads, leave the honest round to finish") {
  // Each hello names the real session and digest (visible in any hello) and claims all n parties:
  // checking such a claim costs the shuffler a bounded number of hashes (IdentityTree), not n.
  const std::size_t n = 2000;
  const test::NetSession local(n, 94);  // central-laplace, test keys
  net::SessionConfig config = local.config;
  config.max_frame_bytes = 1u << 20;  // room for the round's sealed result
  auto protocol = builtin_registry().create(config.protocol, {}, n);
  net::ShufflerOptions options;
  options.handshake_timeout = std::chrono::seconds(2);
  options.log_lines_per_second = 5;
  net::TcpShuffler shuffler(local.shuffler, {config}, "127.0.0.1", 0, [](const std::string&) {},
                            options);
  const std::uint16_t port = shuffler.port();
  std::thread server([&] { (void)shuffler.run(); });
  std::atomic<bool> done{false};
  std::atomic<std::size_t> sent{0};
  net::Hello hello;
  hello.session = config.session;
  hello.first = 0;
  hello.count = static_cast<std::uint32_t>(n);
  hello.config = config.digest();
  std::vector<std::thread> strangers;
  for (int t = 0; t < 4; ++t)
    strangers.emplace_back([&, t] {
      SeededRng rng(100 + static_cast<std::uint64_t>(t));
      asio::io_context io;
      while (!done) {
        net::Hello h = hello;
        rng.fill(h.ephemeral_key);
        const auto bytes = net::encode_hello(h);
        asio::ip::tcp::socket s(io);
        std::error_code ec;
        s.connect({asio::ip::make_address("127.0.0.1"), port}, ec);
        if (ec) continue;
        asio::write(s, asio::buffer(bytes), ec);
        std::array<std::uint8_t, 128> reply{};
        (void)s.read_some(asio::buffer(reply), ec);  // the shuffler's reply: it did the claimed range's work
        ++sent;
      }
    });
  RunResult result;
  std::string error;
  const auto start = std::chrono::steady_clock::now();
  try {
    net::TcpChannel channel(config, local.all_identities(), "127.0.0.1", port);
    SeededRng rng(95);
    RoundDriver driver(*protocol, channel, rng, n);
    for (PartyId i = 0; i < n; ++i) driver.add_party(i, 1);
    driver.host_analyzer();
    result = driver.run({});
  } catch (const std::exception& e) {
    error = e.what();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  done = true;
  for (auto& t : strangers) t.join();
  server.join();
  REQUIRE_MESSAGE(error.empty(), error);
  MESSAGE("honest round of " << n << " parties under " << sent.load() << " strangers' hellos: " << seconds << " s");
  CHECK(result.messages == n);
  CHECK(result.dropped.empty());
  CHECK(sent.load() > 0);
}
