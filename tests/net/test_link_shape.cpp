// The link shaper (net/link_shape.hpp): over a real loopback TCP connection between two of the
// transport's links, a frame and its answer take at least 2D more than unshaped (the timers wait on
// the clock) and at most 2D plus 100 ms more; frames queued on a link of B Mbit/s arrive in their
// bytes' time at B, within 10%, and in order; the shape is refused out of range naming the field;
// links already open keep the shape they had.
#include <doctest/doctest.h>

#include <chrono>

#include "shufflempc/net/detail/link.hpp"
#include "support/link_shape.hpp"

using namespace shufflempc;
using net::detail::SecureLink;
using asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Two links over one loopback connection, made with this process's shape at the time.
struct LinkPair {
  asio::io_context io;
  std::shared_ptr<SecureLink> a, b;
  LinkPair() {
    tcp::acceptor acceptor(io, {asio::ip::make_address("127.0.0.1"), 0});
    tcp::socket client(io);
    client.connect(acceptor.local_endpoint());
    tcp::socket server = acceptor.accept();
    a = std::make_shared<SecureLink>(std::move(client), net::Limits{});
    b = std::make_shared<SecureLink>(std::move(server), net::Limits{});
  }
  // Runs `body` to its end on this pair's context.
  template <class Body>
  void run(Body body) {
    std::exception_ptr error;
    asio::co_spawn(io, body, [&](std::exception_ptr e) { error = e; });
    io.run();
    if (error) std::rethrow_exception(error);
  }
};

// Seconds for `bytes` from a to b and as many back, over links shaped `shape`.
double round_trip(const net::LinkShape& shape, std::size_t bytes) {
  const test::ShapedLinks shaped(shape);
  LinkPair p;
  double seconds = 0;
  p.run([&]() -> asio::awaitable<void> {
    std::vector<std::uint8_t> in(bytes);
    const auto t0 = Clock::now();
    p.a->send_raw(std::vector<std::uint8_t>(bytes, 1));
    co_await asio::async_read(p.b->socket(), asio::buffer(in), asio::use_awaitable);
    p.b->send_raw(std::vector<std::uint8_t>(bytes, 2));
    co_await asio::async_read(p.a->socket(), asio::buffer(in), asio::use_awaitable);
    seconds = since(t0);
    CHECK(in == std::vector<std::uint8_t>(bytes, 2));
  });
  return seconds;
}

}  // namespace

TEST_CASE("link shaper: a frame and its answer take at least 2D more than unshaped, and at most 2D plus 100 ms more") {
  const double plain = round_trip({}, 64);
  for (const int ms : {20, 100}) {
    CAPTURE(ms);
    const double shaped = round_trip({.delay = std::chrono::milliseconds(ms)}, 64);
    CHECK(shaped >= 2 * ms / 1000.0);
    CHECK(shaped <= plain + 2 * ms / 1000.0 + 0.1);
  }
}

TEST_CASE("link shaper: frames queued on a link of B Mbit/s arrive in their bytes' time at B, within 10%, and in order") {
  // Four frames of 500,000 bytes at 16 Mbit/s (2 MB/s): the last arrives 1.0 s after the first left,
  // plus the one-way delay.
  for (const int ms : {0, 50}) {
    CAPTURE(ms);
    const test::ShapedLinks shaped({.delay = std::chrono::milliseconds(ms), .mbps = 16});
    LinkPair p;
    double seconds = 0;
    p.run([&]() -> asio::awaitable<void> {
      constexpr std::size_t frame = 500'000;
      const auto t0 = Clock::now();
      for (std::uint8_t k = 0; k < 4; ++k) p.a->send_raw(std::vector<std::uint8_t>(frame, k));
      std::vector<std::uint8_t> in(frame);
      for (std::uint8_t k = 0; k < 4; ++k) {
        co_await asio::async_read(p.b->socket(), asio::buffer(in), asio::use_awaitable);
        CHECK(in.front() == k);
        CHECK(in.back() == k);
      }
      seconds = since(t0);
    });
    const double expected = 4 * 500'000 * 8 / 16e6 + ms / 1000.0;
    CHECK(seconds >= expected * 0.9);
    CHECK(seconds <= expected * 1.1);
  }
}

TEST_CASE("link shaper: a shape out of range is refused naming the field, and a link keeps the shape it was made with") {
  CHECK_THROWS_WITH_AS(net::set_link_shape({.delay = std::chrono::seconds(11)}), doctest::Contains("the link delay must be in [0, 10000] ms"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(net::set_link_shape({.delay = std::chrono::microseconds(-1)}), doctest::Contains("the link delay"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(net::set_link_shape({.mbps = 0.0001}), doctest::Contains("the link rate must be in [0.001, 1000000] Mbit/s"),
                       std::invalid_argument);
  CHECK_FALSE(net::link_shape().shaped());
  // Made shaped, used after the process's shape is back to none: the frame still waits.
  std::unique_ptr<LinkPair> p;
  {
    const test::ShapedLinks shaped({.delay = std::chrono::milliseconds(100)});
    p = std::make_unique<LinkPair>();
  }
  CHECK_FALSE(net::link_shape().shaped());
  double seconds = 0;
  p->run([&]() -> asio::awaitable<void> {
    std::vector<std::uint8_t> in(8);
    const auto t0 = Clock::now();
    p->a->send_raw(std::vector<std::uint8_t>(8, 7));
    co_await asio::async_read(p->b->socket(), asio::buffer(in), asio::use_awaitable);
    seconds = since(t0);
  });
  CHECK(seconds >= 0.1);
}
