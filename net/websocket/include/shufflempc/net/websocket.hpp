// WebSocket parties: a door in front of a server's TCP port for clients that can only speak
// WebSocket (a party's page in a browser). Each WebSocket connection is carried byte for byte to a
// new TCP connection to the server on this host, and back: the bytes are the same authenticated
// link as over TCP (handshake, frames, deadlines, caps, receipts, complaints: net/detail/link.hpp),
// so the gateway holds no key and can read, forge or replay nothing; it only carries ciphertext.
// Its own work is the HTTP upgrade, under its own caps: a request must come within a deadline and
// within 8 KiB, at most `max_pending` connections wait to upgrade at once (a new one past that
// closes the oldest), and a client's message is at most `max_message` bytes.
//
// TLS is not here: in front of a gateway on a public address a deployment puts a TLS-terminating
// proxy (docs/websocket.md). Boost.Beast on its own thread and io_context (Boost.Asio), apart from
// the server's standalone Asio: the two meet only through the TCP connection on loopback.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "shufflempc/net/log.hpp"
#include "shufflempc/net/wire.hpp"

namespace shufflempc::net {

// A plain HTTP request to the door (not a WebSocket upgrade), and a site's answer to it.
struct HttpRequest {
  std::string method;  // GET, POST, ...
  std::string target;  // the path and query as sent
  std::string body;    // at most WebSocketOptions::max_body bytes
  bool accepts_gzip = false;  // the client's Accept-Encoding names gzip
};
struct HttpAnswer {
  unsigned status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  bool gzipped = false;  // the body is gzip-encoded: sent with Content-Encoding: gzip
  std::vector<std::pair<std::string, std::string>> headers;  // more header fields
};

struct WebSocketOptions {
  std::string host = "127.0.0.1";  // where clients connect
  std::uint16_t port = 0;          // 0: the system chooses (port() says which)
  std::string target_host = "127.0.0.1";  // the TCP server the connections are carried to
  std::uint16_t target_port = 0;
  std::size_t max_pending = default_max_unauthenticated;  // connections that have not upgraded yet
  std::chrono::milliseconds upgrade_deadline{10'000};     // from accept to a complete upgrade request
  std::size_t max_message = 1u << 20;                     // bytes of one message from a client
  // Plain HTTP requests, one a connection: answered by `site` where it is set (a page served by the
  // door itself, so that its script's WebSocket is same-origin), else 426. It runs on the door's
  // thread and must not block; an exception it throws is answered 500 and logged. A request whose
  // body is over max_body bytes is answered 413 without calling it.
  std::function<HttpAnswer(const HttpRequest&)> site;
  std::size_t max_body = 16 * 1024;
};

struct WebSocketStats {
  std::uint64_t accepted = 0;   // TCP connections accepted
  std::uint64_t upgraded = 0;   // of them, WebSocket sessions carried to the target
  std::uint64_t refused = 0;    // not an upgrade, too slow, too many waiting, or the target unreachable
  std::uint64_t bytes_in = 0;   // client -> target
  std::uint64_t bytes_out = 0;  // target -> client
};

class WebSocketGateway {
 public:
  // Binds and listens at once (throws std::system_error naming the address if it cannot), then
  // serves on a thread of its own until destroyed. `log`: one line per refusal, rate-limited.
  WebSocketGateway(const WebSocketOptions& options, Logger log);
  ~WebSocketGateway();
  WebSocketGateway(const WebSocketGateway&) = delete;
  WebSocketGateway& operator=(const WebSocketGateway&) = delete;

  [[nodiscard]] std::uint16_t port() const;
  [[nodiscard]] const std::string& host() const;
  [[nodiscard]] WebSocketStats stats() const;
  // Stops accepting and closes every connection it carries (also done by the destructor).
  void stop();

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace shufflempc::net
