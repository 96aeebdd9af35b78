// What the shuffler and the mix server share as hosts of sessions: one io thread and its acceptor,
// the server's keys (its X25519 key and the Ed25519 key derived from it, which signs its hops), its
// rate-limited log, its CSPRNG, the connections that have not authenticated yet, and the way it
// runs (its accept loop until the io stops) and stops (every session ended on the io thread, then
// the io stopped). Each server's Impl derives from it and keeps its own sessions.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "shufflempc/mixnet/signing.hpp"
#include "shufflempc/net/detail/link.hpp"
#include "shufflempc/net/detail/rate_limited_log.hpp"
#include "shufflempc/net/keys.hpp"

namespace shufflempc::net::detail {

struct SessionHost {
  asio::io_context io;
  tcp::acceptor acceptor{io};
  KeyPair keys;
  mixnet::SigningKeyPair signing;  // signing_key_of(keys): what this server signs its hops with, in every session
  RateLimitedLog log_lines;
  SystemRng rng;
  std::size_t open_connections = 0;
  std::unique_ptr<asio::steady_timer> linger;
  PendingLinks unauthenticated{0};  // sized by set_up

  // The server's keys, its log (at most `lines_per_second` lines of a kind) and the limit of
  // connections not yet authenticated.
  void set_up(KeyPair server_keys, std::function<void(const std::string&)> log, std::size_t lines_per_second,
              std::size_t max_unauthenticated) {
    keys = std::move(server_keys);
    signing = signing_key_of(keys);
    log_lines = RateLimitedLog(std::move(log), lines_per_second);
    unauthenticated = PendingLinks(max_unauthenticated);
  }
  void log(const std::string& line) const { log_lines(line); }
  // At most lines_per_second lines of kind `kind` per second (detail::RateLimitedLog).
  void log_limited(const std::string& kind, const std::string& line) { log_lines.limited(kind, line); }
  // Runs `accept` (the server's accept loop) and everything it starts until the io stops.
  void run_until_stopped(asio::awaitable<void> accept) {
    asio::co_spawn(io, std::move(accept), asio::detached);
    io.run();
  }
  // From any thread: `end_all` on the io thread (it ends every session, saying why), then the io stops.
  void stop(std::function<void()> end_all) {
    asio::post(io, [this, end_all = std::move(end_all)] {
      end_all();
      io.stop();
    });
  }
};

// A connection from its accept until it authenticates: held among the host's unauthenticated
// connections (the oldest closed past their limit), and closed if it has not authenticated within
// `limit` (`on_timeout` says so first, if given). authenticated() ends both; release() drops the
// connection from the pending ones, whatever happened, once its coroutine is done with it (not the
// destructor: a coroutine still suspended when the host's io_context is destroyed is destroyed with
// it, after the host's other members). Every server of the transport holds one per connection.
class PendingHandshake {
 public:
  PendingHandshake(SessionHost& host, std::shared_ptr<SecureLink> link, std::chrono::milliseconds limit,
                   std::function<void()> on_timeout = {})
      : host_(host), key_(host.unauthenticated.add(link, host.log_lines)), timer_(host.io, limit) {
    // The handler shares `done_` rather than reading this object: an expiry already queued when the
    // connection ends runs after this object is gone.
    timer_.async_wait([done = done_, link, on_timeout = std::move(on_timeout)](std::error_code ec) {
      if (ec || *done) return;
      if (on_timeout) on_timeout();
      link->close();
    });
  }
  ~PendingHandshake() { *done_ = true; }
  void release() { host_.unauthenticated.remove(key_); }
  PendingHandshake(const PendingHandshake&) = delete;
  PendingHandshake& operator=(const PendingHandshake&) = delete;
  void authenticated() {
    *done_ = true;
    host_.unauthenticated.remove(key_);
    timer_.cancel();
  }
  [[nodiscard]] bool is_authenticated() const { return *done_; }

 private:
  SessionHost& host_;
  std::uint64_t key_;
  asio::steady_timer timer_;
  std::shared_ptr<bool> done_ = std::make_shared<bool>(false);
};

}  // namespace shufflempc::net::detail
