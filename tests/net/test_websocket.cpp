// The WebSocket door (net/websocket.hpp): a client's messages reach the TCP server behind it as
// one byte stream and the server's bytes come back, the server's close becomes a normal WebSocket
// close, and every way a client can misuse the door (a plain HTTP request, no request at all, more
// waiting connections than allowed, a message over the limit) costs that client its connection,
// with a line, and nobody else theirs. Clients here are Boost.Beast's; a browser's page is the
// client of tests/web/.
#include <doctest/doctest.h>

#include <utility>  // before Boost 1.74's asio/awaitable.hpp, which uses std::exchange without it

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "shufflempc/net/websocket.hpp"

using namespace shufflempc;

namespace websocket_test {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace ws = beast::websocket;
using btcp = asio::ip::tcp;

// The gateway's log. A refusal's line is written on the gateway's thread, after the connection it
// closes may have ended at the client: has() waits for it (10 s at most, then false).
struct Lines {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::string> lines;
  net::Logger logger() {
    return [this](const std::string& line) {
      std::lock_guard lock(mutex);
      lines.push_back(line);
      changed.notify_all();
    };
  }
  bool has(const std::string& part) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, std::chrono::seconds(10), [&] {
      for (const auto& l : lines)
        if (l.find(part) != std::string::npos) return true;
      return false;
    });
  }
};

// A TCP server on 127.0.0.1 (port 0) that serves `connections` connections one after another with `serve`.
class Target {
 public:
  explicit Target(std::function<void(btcp::socket&)> serve, int connections = 1) : acceptor_(io_, {asio::ip::make_address("127.0.0.1"), 0}) {
    thread_ = std::thread([this, serve, connections] {
      for (int i = 0; i < connections; ++i) {
        btcp::socket s(io_);
        boost::system::error_code ec;
        acceptor_.accept(s, ec);
        if (ec || stopping_) return;
        serve(s);
      }
    });
  }
  ~Target() {
    // A blocking accept is not woken by closing the acceptor: one connection of our own wakes it.
    stopping_ = true;
    asio::io_context io;
    btcp::socket wake(io);
    boost::system::error_code ignored;
    wake.connect({asio::ip::make_address("127.0.0.1"), port()}, ignored);
    thread_.join();
  }
  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }

 private:
  asio::io_context io_;
  btcp::acceptor acceptor_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

// Echoes every byte until the client's end.
void echo(btcp::socket& s) {
  std::vector<char> buf(4096);
  boost::system::error_code ec;
  for (;;) {
    const std::size_t n = s.read_some(asio::buffer(buf), ec);
    if (ec) return;
    asio::write(s, asio::buffer(buf.data(), n), ec);
    if (ec) return;
  }
}

struct Client {
  asio::io_context io;
  ws::stream<btcp::socket> stream{io};
  explicit Client(std::uint16_t port) {
    stream.next_layer().connect({asio::ip::make_address("127.0.0.1"), port});
    stream.handshake("127.0.0.1", "/");
    stream.binary(true);
  }
};

// A raw TCP connection to `port`; returns what the peer sends until it closes (or `limit` bytes).
std::string read_all(btcp::socket& s) {
  std::string out;
  std::vector<char> buf(4096);
  boost::system::error_code ec;
  for (;;) {
    const std::size_t n = s.read_some(asio::buffer(buf), ec);
    if (ec) return out;
    out.append(buf.data(), n);
  }
}

net::WebSocketOptions options_for(std::uint16_t target) {
  net::WebSocketOptions o;
  o.target_port = target;
  return o;
}

}  // namespace websocket_test

using namespace websocket_test;

TEST_CASE("websocket: a client's messages reach the server as one byte stream and its bytes come back") {
  Target target(echo);
  Lines lines;
  net::WebSocketGateway gateway(options_for(target.port()), lines.logger());
  Client c(gateway.port());
  std::string sent;
  for (const std::size_t size : {1u, 1000u, 200'000u}) {
    std::string m(size, '\0');
    for (std::size_t i = 0; i < size; ++i) m[i] = static_cast<char>((i * 31 + size) % 251);
    c.stream.write(asio::buffer(m));
    sent += m;
  }
  std::string got;
  while (got.size() < sent.size()) {
    beast::flat_buffer b;
    c.stream.read(b);
    got += beast::buffers_to_string(b.data());
  }
  CHECK(got == sent);
  c.stream.close(ws::close_code::normal);
  const auto s = gateway.stats();
  CHECK(s.upgraded == 1);
  CHECK(s.refused == 0);
  CHECK(s.bytes_in == sent.size());
}

TEST_CASE("websocket: the server's close reaches the client as a normal close, after its last bytes") {
  Target target([](btcp::socket& s) {
    asio::write(s, asio::buffer(std::string("last words")));
    s.close();
  });
  Lines lines;
  net::WebSocketGateway gateway(options_for(target.port()), lines.logger());
  Client c(gateway.port());
  std::string got;
  boost::system::error_code ec;
  for (;;) {
    beast::flat_buffer b;
    c.stream.read(b, ec);
    if (ec) break;
    got += beast::buffers_to_string(b.data());
  }
  CHECK(got == "last words");
  CHECK(ec == ws::error::closed);
  CHECK(c.stream.reason().code == ws::close_code::normal);
}

TEST_CASE("websocket: a plain HTTP request is answered 426 with a line, and the next client is carried") {
  Target target(echo);
  Lines lines;
  net::WebSocketGateway gateway(options_for(target.port()), lines.logger());
  asio::io_context io;
  btcp::socket raw(io);
  raw.connect({asio::ip::make_address("127.0.0.1"), gateway.port()});
  asio::write(raw, asio::buffer(std::string("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")));
  const std::string answer = read_all(raw);
  CHECK(answer.starts_with("HTTP/1.1 426"));
  CHECK(answer.find("WebSocket connections of shufflempc parties") != std::string::npos);
  CHECK(lines.has("not a WebSocket upgrade: answered 426"));
  Client c(gateway.port());
  c.stream.write(asio::buffer(std::string("after")));
  beast::flat_buffer b;
  c.stream.read(b);
  CHECK(beast::buffers_to_string(b.data()) == "after");
  CHECK(gateway.stats().refused == 1);
}

TEST_CASE("websocket: with a site, a plain request is the site's to answer, an oversized body is 413, a failing site 500, and clients are still carried") {
  Target target(echo);
  Lines lines;
  net::WebSocketOptions o = options_for(target.port());
  o.max_body = 64;
  std::atomic<int> calls{0};
  o.site = [&calls](const net::HttpRequest& r) {
    ++calls;
    if (r.target == "/fail") throw std::runtime_error("no such thing");
    return net::HttpAnswer{.status = 200, .content_type = "text/plain", .body = r.method + " " + r.target + " [" + r.body + "] gzip=" +
                                                                                 (r.accepts_gzip ? "yes" : "no"),
                           .gzipped = r.accepts_gzip, .headers = {{"Cache-Control", "no-store"}}};
  };
  net::WebSocketGateway gateway(o, lines.logger());
  const auto ask = [&](const std::string& request) {
    asio::io_context io;
    btcp::socket raw(io);
    raw.connect({asio::ip::make_address("127.0.0.1"), gateway.port()});
    asio::write(raw, asio::buffer(request));
    return read_all(raw);
  };
  const std::string got = ask("GET /page?x=1 HTTP/1.1\r\nHost: h\r\nAccept-Encoding: gzip, br\r\n\r\n");
  CHECK(got.starts_with("HTTP/1.1 200"));
  CHECK(got.find("Content-Encoding: gzip") != std::string::npos);
  CHECK(got.find("Cache-Control: no-store") != std::string::npos);
  CHECK(got.find("X-Content-Type-Options: nosniff") != std::string::npos);
  CHECK(got.ends_with("GET /page?x=1 [] gzip=yes"));
  const std::string posted = ask("POST /close HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello");
  CHECK(posted.ends_with("POST /close [hello] gzip=no"));
  CHECK(posted.find("Content-Encoding") == std::string::npos);
  // A body over max_body: 413, and the site never sees it.
  const int before = calls;
  const std::string big = ask("POST /close HTTP/1.1\r\nHost: h\r\nContent-Length: 65\r\n\r\n" + std::string(65, 'x'));
  CHECK(big.starts_with("HTTP/1.1 413"));
  CHECK(big.find("at most 64 bytes") != std::string::npos);
  CHECK(calls == before);
  CHECK(lines.has("sent a request body over 64 bytes: answered 413"));
  // The site throws: 500, and a line naming the request.
  CHECK(ask("GET /fail HTTP/1.1\r\nHost: h\r\n\r\n").starts_with("HTTP/1.1 500"));
  CHECK(lines.has("the site failed on GET /fail from 127.0.0.1:"));
  // Upgrades still go to the server behind.
  Client c(gateway.port());
  c.stream.write(asio::buffer(std::string("still carried")));
  beast::flat_buffer b;
  c.stream.read(b);
  CHECK(beast::buffers_to_string(b.data()) == "still carried");
}

TEST_CASE("websocket: a connection that sends no request is closed at the deadline, with a line") {
  Target target(echo);
  Lines lines;
  auto o = options_for(target.port());
  o.upgrade_deadline = std::chrono::milliseconds(200);
  net::WebSocketGateway gateway(o, lines.logger());
  asio::io_context io;
  btcp::socket raw(io);
  raw.connect({asio::ip::make_address("127.0.0.1"), gateway.port()});
  const auto start = std::chrono::steady_clock::now();
  CHECK(read_all(raw).empty());  // returns when the gateway closes it
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(150));
  CHECK(lines.has("sent no complete upgrade request within 200 ms: closed"));
  CHECK(gateway.stats().refused == 1);
}

TEST_CASE("websocket: past max_pending waiting connections the oldest is closed, and a later client is carried") {
  Target target(echo);
  Lines lines;
  auto o = options_for(target.port());
  o.max_pending = 2;
  net::WebSocketGateway gateway(o, lines.logger());
  asio::io_context io;
  std::vector<btcp::socket> idle;
  for (int i = 0; i < 3; ++i) {
    idle.emplace_back(io);
    idle.back().connect({asio::ip::make_address("127.0.0.1"), gateway.port()});
  }
  CHECK(read_all(idle.front()).empty());  // the oldest, closed when the third arrived
  CHECK(lines.has("more than 2 connections waiting to upgrade: closed the oldest"));
  idle.clear();  // the other two leave; a real client comes
  Client c(gateway.port());
  c.stream.write(asio::buffer(std::string("still here")));
  beast::flat_buffer b;
  c.stream.read(b);
  CHECK(beast::buffers_to_string(b.data()) == "still here");
}

TEST_CASE("websocket: a message over max_message closes that client only") {
  Target target(echo, 2);
  Lines lines;
  auto o = options_for(target.port());
  o.max_message = 1024;
  net::WebSocketGateway gateway(o, lines.logger());
  Client big(gateway.port());
  big.stream.write(asio::buffer(std::string(2000, 'x')));
  beast::flat_buffer b;
  boost::system::error_code ec;
  big.stream.read(b, ec);
  CHECK(ec);  // closed by the gateway
  CHECK(lines.has("sent a message over 1024 bytes: closed"));
  Client small(gateway.port());
  small.stream.write(asio::buffer(std::string(1000, 'y')));
  std::string got;
  while (got.size() < 1000) {
    beast::flat_buffer m;
    small.stream.read(m);
    got += beast::buffers_to_string(m.data());
  }
  CHECK(got == std::string(1000, 'y'));
}

TEST_CASE("websocket: a server that cannot be reached closes the client with try-again-later and a line") {
  std::uint16_t closed_port = 0;
  {
    asio::io_context io;
    btcp::acceptor a(io, {asio::ip::make_address("127.0.0.1"), 0});
    closed_port = a.local_endpoint().port();
  }
  Lines lines;
  net::WebSocketGateway gateway(options_for(closed_port), lines.logger());
  Client c(gateway.port());
  beast::flat_buffer b;
  boost::system::error_code ec;
  c.stream.read(b, ec);
  CHECK(ec == ws::error::closed);
  CHECK(c.stream.reason().code == ws::close_code::try_again_later);
  CHECK(lines.has("cannot be reached"));
}

TEST_CASE("websocket: an address that is not an IP address, or max_pending 0, is refused naming it") {
  Lines lines;
  net::WebSocketOptions o;
  o.host = "not-an-address";
  CHECK_THROWS_WITH_AS(net::WebSocketGateway(o, lines.logger()), doctest::Contains("'not-an-address' is not an IP address"), std::invalid_argument);
  o = {};
  o.max_pending = 0;
  CHECK_THROWS_WITH_AS(net::WebSocketGateway(o, lines.logger()), doctest::Contains("max_pending must be at least 1"), std::invalid_argument);
}
