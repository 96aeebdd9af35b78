#include "shufflempc/net/websocket.hpp"

#include <utility>  // before Boost 1.74's asio/awaitable.hpp, which uses std::exchange without it

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <system_error>
#include <thread>
#include <vector>

#include "shufflempc/error.hpp"
#include "shufflempc/net/detail/rate_limited_log.hpp"

namespace shufflempc::net {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using btcp = asio::ip::tcp;
using error_code = boost::system::error_code;

constexpr std::size_t request_limit = 8 * 1024;  // bytes of an upgrade request's header
constexpr std::size_t chunk_bytes = 64 * 1024;    // at most this much of the server's stream a message

std::string endpoint_name(const btcp::endpoint& e) { return e.address().to_string() + ":" + std::to_string(e.port()); }

// One carried connection: the client's WebSocket and the TCP connection to the server.
struct Carried {
  Carried(websocket::stream<beast::tcp_stream> w, btcp::socket u) : ws(std::move(w)), up(std::move(u)) {}
  websocket::stream<beast::tcp_stream> ws;
  btcp::socket up;
  bool closed = false;
  void close() {
    if (closed) return;
    closed = true;
    error_code ignored;
    up.close(ignored);
    beast::get_lowest_layer(ws).socket().close(ignored);
  }
};

}  // namespace

struct WebSocketGateway::Impl {
  // First, so that it is destroyed last: its destruction destroys the coroutines still suspended
  // in it, whose locals (sockets, buffers) belong to it.
  asio::io_context io{1};
  WebSocketOptions options;
  detail::RateLimitedLog log;
  btcp::acceptor acceptor{io};
  btcp::endpoint target;
  std::string host;
  std::uint16_t port = 0;
  // Connections waiting for their upgrade request, oldest first, and the carried ones: closed at stop.
  std::map<std::uint64_t, std::shared_ptr<beast::tcp_stream>> pending;
  std::map<std::uint64_t, std::shared_ptr<Carried>> carried;
  std::uint64_t next = 0;
  std::atomic<std::uint64_t> accepted{0}, upgraded{0}, refused{0}, bytes_in{0}, bytes_out{0};
  std::thread thread;
  std::atomic<bool> stopping{false};

  asio::awaitable<void> accept_loop();
  asio::awaitable<void> serve(btcp::socket socket);
  asio::awaitable<void> answer_site(beast::tcp_stream& stream, const http::request<http::string_body>& request, const std::string& peer);
  asio::awaitable<void> client_to_server(std::shared_ptr<Carried> c, std::string peer);
  asio::awaitable<void> server_to_client(std::shared_ptr<Carried> c);
  void close_all();
  // The completion of a coroutine spawned on the door's thread: an exception that ends it (none is
  // expected: every operation's error is handled) is a line, not silence; only that connection ends.
  auto logged(std::string what) {
    return [this, what = std::move(what)](std::exception_ptr e) {
      if (!e) return;
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& x) {
        log.limited("failed", "websocket: " + what + " ended on an error (" + x.what() + ")");
      } catch (...) {
        log.limited("failed", "websocket: " + what + " ended on an error of unknown type");
      }
    };
  }
};

asio::awaitable<void> WebSocketGateway::Impl::accept_loop() {
  auto backoff = std::chrono::milliseconds(0);
  asio::steady_timer pause(io);
  for (;;) {
    btcp::socket socket(io);
    error_code ec;
    co_await acceptor.async_accept(socket, asio::redirect_error(asio::use_awaitable, ec));
    if (!acceptor.is_open() || ec == asio::error::operation_aborted) co_return;
    if (ec) {
      // Out of descriptors, say: wait instead of spinning, 10 ms doubling to 1 s.
      backoff = std::clamp(backoff * 2, std::chrono::milliseconds(10), std::chrono::milliseconds(1000));
      log.limited("accept", "websocket: accept failed (" + ec.message() + "); trying again in " + std::to_string(backoff.count()) + " ms");
      pause.expires_after(backoff);
      co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    backoff = std::chrono::milliseconds(0);
    ++accepted;
    asio::co_spawn(io, serve(std::move(socket)), logged("a connection"));
  }
}

asio::awaitable<void> WebSocketGateway::Impl::serve(btcp::socket socket) {
  error_code ec;
  const auto remote = socket.remote_endpoint(ec);
  const std::string peer = ec ? std::string("unknown peer") : endpoint_name(remote);
  // Small frames both ways (a handshake's, a receipt's): sent at once, not held for the peer's
  // delayed acknowledgement (Nagle's algorithm cost a page 40 ms a round trip).
  socket.set_option(btcp::no_delay(true), ec);
  auto stream = std::make_shared<beast::tcp_stream>(std::move(socket));
  // Past max_pending waiting connections the oldest is closed: whoever reaches the port cannot hold
  // every descriptor with connections that never send a request.
  const std::uint64_t key = next++;
  pending.emplace(key, stream);
  if (pending.size() > options.max_pending) {
    auto oldest = pending.begin();
    oldest->second->close();
    pending.erase(oldest);
    ++refused;
    log.limited("pending", "websocket: more than " + std::to_string(options.max_pending) +
                               " connections waiting to upgrade: closed the oldest");
  }

  beast::flat_buffer buffer;
  http::request_parser<http::string_body> parser;
  parser.header_limit(request_limit);
  parser.body_limit(options.max_body);
  stream->expires_after(options.upgrade_deadline);
  co_await http::async_read(*stream, buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
  const bool was_pending = pending.erase(key) > 0;
  if (ec == http::error::body_limit && was_pending) {
    ++refused;
    http::response<http::string_body> response{http::status::payload_too_large, parser.get().version()};
    response.set(http::field::content_type, "text/plain; charset=utf-8");
    response.body() = "a request's body is at most " + std::to_string(options.max_body) + " bytes here\n";
    response.keep_alive(false);
    response.prepare_payload();
    co_await http::async_write(*stream, response, asio::redirect_error(asio::use_awaitable, ec));
    stream->close();
    log.limited("too-big", "websocket: " + peer + " sent a request body over " + std::to_string(options.max_body) + " bytes: answered 413");
    co_return;
  }
  if (ec) {
    if (was_pending) {  // a connection closed as the oldest was counted then
      ++refused;
      const std::string why = ec == beast::error::timeout ? "sent no complete upgrade request within " +
                                                                std::to_string(options.upgrade_deadline.count()) + " ms"
                                                          : "sent no upgrade request we could read (" + ec.message() + ")";
      log.limited("request", "websocket: " + peer + " " + why + ": closed");
    }
    stream->close();
    co_return;
  }
  auto request = parser.release();
  if (!websocket::is_upgrade(request) && options.site) {
    co_await answer_site(*stream, request, peer);
    co_return;
  }
  if (!websocket::is_upgrade(request)) {
    ++refused;
    http::response<http::string_body> response{http::status::upgrade_required, request.version()};
    response.set(http::field::upgrade, "websocket");
    response.set(http::field::content_type, "text/plain");
    response.body() = "this port takes the WebSocket connections of shufflempc parties\n";
    response.keep_alive(false);
    response.prepare_payload();
    co_await http::async_write(*stream, response, asio::redirect_error(asio::use_awaitable, ec));
    stream->close();
    log.limited("not-websocket", "websocket: " + peer + " sent an HTTP request that is not a WebSocket upgrade: answered 426");
    co_return;
  }

  websocket::stream<beast::tcp_stream> ws(std::move(*stream));
  beast::get_lowest_layer(ws).expires_never();
  websocket::stream_base::timeout timeouts{};
  timeouts.handshake_timeout = options.upgrade_deadline;  // the answer to the upgrade, and a close
  timeouts.idle_timeout = websocket::stream_base::none();  // the server behind keeps its own deadlines
  timeouts.keep_alive_pings = false;
  ws.set_option(timeouts);
  ws.read_message_max(options.max_message);
  ws.binary(true);
  co_await ws.async_accept(request, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) {
    ++refused;
    log.limited("upgrade", "websocket: " + peer + ": the upgrade failed (" + ec.message() + ")");
    co_return;
  }
  btcp::socket up(io);
  co_await up.async_connect(target, asio::redirect_error(asio::use_awaitable, ec));
  if (ec || stopping) {
    ++refused;
    if (ec) log.limited("target", "websocket: the server at " + endpoint_name(target) + " cannot be reached (" + ec.message() + ")");
    co_await ws.async_close(websocket::close_reason(websocket::close_code::try_again_later), asio::redirect_error(asio::use_awaitable, ec));
    co_return;
  }
  up.set_option(btcp::no_delay(true), ec);
  ++upgraded;
  auto c = std::make_shared<Carried>(std::move(ws), std::move(up));
  const std::uint64_t live = next++;
  carried.emplace(live, c);
  asio::co_spawn(io, client_to_server(c, peer), logged("the connection from " + peer));
  co_await server_to_client(c);
  carried.erase(live);
}

asio::awaitable<void> WebSocketGateway::Impl::answer_site(beast::tcp_stream& stream, const http::request<http::string_body>& request,
                                                          const std::string& peer) {
  HttpRequest in{.method = std::string(request.method_string()), .target = std::string(request.target()), .body = request.body(),
                 .accepts_gzip = false};
  if (const auto it = request.find(http::field::accept_encoding); it != request.end())
    in.accepts_gzip = it->value().find("gzip") != beast::string_view::npos;
  HttpAnswer a;
  try {
    a = options.site(in);
  } catch (const std::exception& e) {
    a = HttpAnswer{.status = 500, .body = "the site failed to answer this request\n"};
    log.limited("site", "websocket: the site failed on " + in.method + " " + in.target + " from " + peer + ": " + e.what());
  }
  http::response<http::string_body> response{static_cast<http::status>(a.status), request.version()};
  response.set(http::field::content_type, a.content_type);
  if (a.gzipped) response.set(http::field::content_encoding, "gzip");
  response.set("X-Content-Type-Options", "nosniff");
  for (const auto& [field, value] : a.headers) response.set(field, value);
  response.body() = std::move(a.body);
  response.keep_alive(false);
  response.prepare_payload();
  error_code ec;
  co_await http::async_write(stream, response, asio::redirect_error(asio::use_awaitable, ec));
  stream.socket().shutdown(btcp::socket::shutdown_send, ec);
  stream.close();
}

asio::awaitable<void> WebSocketGateway::Impl::client_to_server(std::shared_ptr<Carried> c, std::string peer) {
  error_code ec;
  beast::flat_buffer message;
  for (;;) {
    message.clear();
    co_await c->ws.async_read(message, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) break;
    bytes_in += message.size();
    co_await asio::async_write(c->up, message.data(), asio::redirect_error(asio::use_awaitable, ec));
    if (ec) break;
  }
  if (ec == websocket::error::message_too_big) {
    ++refused;
    log.limited("too-big", "websocket: " + peer + " sent a message over " + std::to_string(options.max_message) + " bytes: closed");
  }
  // The client has gone (or broke the rules): the server sees its connection end.
  c->close();
}

asio::awaitable<void> WebSocketGateway::Impl::server_to_client(std::shared_ptr<Carried> c) {
  error_code ec;
  std::vector<std::uint8_t> buffer(chunk_bytes);
  for (;;) {
    const std::size_t n = co_await c->up.async_read_some(asio::buffer(buffer), asio::redirect_error(asio::use_awaitable, ec));
    if (ec) break;
    bytes_out += n;
    co_await c->ws.async_write(asio::buffer(buffer.data(), n), asio::redirect_error(asio::use_awaitable, ec));
    if (ec) break;
  }
  // The server ended the connection: the client is told with a normal close, after every byte.
  if (ec == asio::error::eof && !c->closed)
    co_await c->ws.async_close(websocket::close_reason(websocket::close_code::normal), asio::redirect_error(asio::use_awaitable, ec));
  c->close();
}

void WebSocketGateway::Impl::close_all() {
  error_code ignored;
  acceptor.close(ignored);
  for (auto& [key, stream] : pending) stream->close();
  pending.clear();
  for (auto& [key, c] : carried) c->close();
}

WebSocketGateway::WebSocketGateway(const WebSocketOptions& options, Logger log) : impl_(std::make_shared<Impl>()) {
  Impl& g = *impl_;
  g.options = options;
  g.log = detail::RateLimitedLog(std::move(log), 20);
  if (options.max_pending == 0) throw std::invalid_argument("websocket: max_pending must be at least 1");
  error_code ec;
  const auto address = asio::ip::make_address(options.host, ec);
  if (ec) throw std::invalid_argument("websocket: '" + options.host + "' is not an IP address to listen on");
  const auto target = asio::ip::make_address(options.target_host, ec);
  if (ec) throw std::invalid_argument("websocket: '" + options.target_host + "' is not the IP address of the server to carry to");
  g.target = btcp::endpoint(target, options.target_port);
  const btcp::endpoint at(address, options.port);
  g.acceptor.open(at.protocol(), ec);
  if (!ec) g.acceptor.set_option(btcp::acceptor::reuse_address(true), ec);
  if (!ec) g.acceptor.bind(at, ec);
  if (!ec) g.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    throw std::system_error(std::error_code(ec.value(), std::system_category()),
                            "websocket: cannot listen on " + options.host + ":" + std::to_string(options.port));
  g.host = options.host;
  g.port = g.acceptor.local_endpoint().port();
  asio::co_spawn(g.io, g.accept_loop(), g.logged("accepting connections"));
  g.thread = std::thread([&g] { g.io.run(); });
}

WebSocketGateway::~WebSocketGateway() { stop(); }

void WebSocketGateway::stop() {
  if (!impl_ || !impl_->thread.joinable()) return;
  Impl& g = *impl_;
  g.stopping = true;
  asio::post(g.io, [&g] {
    g.close_all();
    g.io.stop();
  });
  g.thread.join();
}

std::uint16_t WebSocketGateway::port() const { return impl_->port; }
const std::string& WebSocketGateway::host() const { return impl_->host; }

WebSocketStats WebSocketGateway::stats() const {
  return {impl_->accepted.load(), impl_->upgraded.load(), impl_->refused.load(), impl_->bytes_in.load(), impl_->bytes_out.load()};
}

}  // namespace shufflempc::net
