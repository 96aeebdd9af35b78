// The TCP shuffler: one io_context thread, one coroutine per connection, one state per session.
#include <sodium.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <stdexcept>

#include "shufflempc/error.hpp"
#include "shufflempc/net/detail/link.hpp"
#include "shufflempc/net/detail/session_rounds.hpp"
#include "shufflempc/net/tcp.hpp"

namespace shufflempc::net {

using detail::SecureLink;
using detail::tcp;

std::vector<RoundShape> wire_rounds(const Protocol& protocol) {
  std::vector<RoundShape> plan;
  for (std::uint32_t r = 0; r < protocol.rounds(); ++r) {
    const RoundShape info = protocol.round(r);
    plan.push_back({wire_width(info.width, info.delivery), info.delivery, info.min_messages, info.max_messages});
  }
  return plan;
}

std::size_t wire_width(std::size_t width, Delivery delivery) {
  return delivery == Delivery::analyzer_only ? width + crypto_box_SEALBYTES : width;
}

namespace {

// How long a connection may take to authenticate, and how long the shuffler lingers for clients
// to read their last frame once every session has ended.
constexpr auto linger_timeout = std::chrono::seconds(5);

std::string who(PartyId id) { return id == analyzer_id ? std::string("the analyzer") : "party " + std::to_string(id); }

}  // namespace

struct TcpShuffler::Impl {
  // One session: its round logic (detail::SessionRounds, no sockets) and the I/O around it.
  struct ServedSession {
    ShufflerSessionSpec spec;
    std::unique_ptr<detail::SessionRounds> rounds;
    ConfigDigest digest{};
    std::string tag;  // for log lines
    std::vector<std::shared_ptr<SecureLink>> party_links;
    std::shared_ptr<SecureLink> analyzer;
    std::unique_ptr<asio::steady_timer> timer;
  };

  asio::io_context io;
  tcp::acceptor acceptor{io};
  KeyPair keys;
  Logger log_fn;
  SystemRng rng;
  Shuffler shuffler;  // scratch reused across rounds and sessions
  std::vector<std::unique_ptr<ServedSession>> sessions;
  std::size_t open_connections = 0;
  std::unique_ptr<asio::steady_timer> linger;
  ShufflerOptions options;
  // Connections that have not authenticated yet, oldest first (the key orders them).
  std::map<std::uint64_t, std::shared_ptr<SecureLink>> unauthenticated;
  std::uint64_t next_connection = 0;
  // Rate limit of the log: lines of one kind in the current second, and those suppressed.
  struct LogWindow {
    std::chrono::steady_clock::time_point start{};
    std::size_t lines = 0;
    std::size_t suppressed = 0;
  };
  std::map<std::string, LogWindow> log_windows;

  void log(const std::string& line) const {
    if (log_fn) log_fn(line);
  }
  // At most options.log_lines_per_second lines of kind `kind` per second; the others are counted
  // and announced once the next second begins.
  void log_limited(const std::string& kind, const std::string& line) {
    LogWindow& w = log_windows[kind];
    const auto now = std::chrono::steady_clock::now();
    if (now - w.start >= std::chrono::seconds(1)) {
      if (w.suppressed > 0) log(std::to_string(w.suppressed) + " more lines like '" + kind + "' suppressed in the last second");
      w = {now, 0, 0};
    }
    if (w.lines++ < options.log_lines_per_second) log(line);
    else ++w.suppressed;
  }

  ServedSession* find(const SessionId& id) {
    for (auto& s : sessions)
      if (s->spec.config.session == id) return s.get();
    return nullptr;
  }

  bool all_finished() const {
    return std::all_of(sessions.begin(), sessions.end(), [](const auto& s) { return s->rounds->finished(); });
  }

  void start_round_timer(ServedSession& s) {
    s.timer->expires_after(s.spec.config.deadline);
    s.timer->async_wait([this, &s, round = s.rounds->round()](std::error_code ec) {
      if (ec || s.rounds->finished() || s.rounds->round() != round) return;
      log(s.tag + "round " + std::to_string(round) + ": deadline of " + std::to_string(s.spec.config.deadline.count()) +
          " ms expired");
      close_round(s);
    });
  }

  // The round closes early once the analyzer is here and every expected party has either
  // submitted or left.
  void maybe_close(ServedSession& s) {
    if (s.rounds->ready()) close_round(s);
  }

  void abort_session(ServedSession& s, const std::string& reason) {
    if (s.rounds->finished()) return;
    log(s.tag + "session aborted: " + reason);
    s.rounds->abort(reason);
    const std::span<const std::uint8_t> text(reinterpret_cast<const std::uint8_t*>(reason.data()),
                                             std::min<std::size_t>(reason.size(), s.spec.config.limits().max_abort_reason));
    auto tell = [&](const std::shared_ptr<SecureLink>& l) {
      if (l && l->is_open()) {
        l->send(FrameType::abort, s.rounds->round(), text);
        l->close_after_flush();
      }
    };
    for (auto& l : s.party_links) tell(l);
    tell(s.analyzer);
    finish(s);
  }

  void finish(ServedSession& s) {
    s.timer->cancel();
    if (all_finished()) {
      std::error_code ignored;
      acceptor.close(ignored);
      linger = std::make_unique<asio::steady_timer>(io, linger_timeout);
      linger->async_wait([this](std::error_code ec) {
        if (ec) return;
        for (auto& ss : sessions) {
          for (auto& l : ss->party_links)
            if (l) l->close();
          if (ss->analyzer) ss->analyzer->close();
        }
      });
      if (open_connections == 0) linger->cancel();
    }
  }

  void close_round(ServedSession& s) {
    if (s.rounds->finished()) return;
    if (!s.rounds->has_analyzer())
      return abort_session(s, "round " + std::to_string(s.rounds->round()) + ": the analyzer did not connect before the deadline");
    detail::SessionRounds::Closed closed;
    try {
      closed = s.rounds->close(rng, shuffler);
    } catch (const std::system_error& e) {
      return abort_session(s, e.what());
    }
    const RoundOutcome& out = closed.outcome;
    const std::string round = "round " + std::to_string(closed.round);
    if (!out.dropped.empty())
      log(s.tag + round + ": " + std::to_string(out.dropped.size()) + " part" + (out.dropped.size() == 1 ? "y" : "ies") +
          " dropped (first: party " + std::to_string(out.dropped.front()) + ")");

    const std::span<const std::uint8_t> messages = out.output ? out.output->bytes() : std::span<const std::uint8_t>{};
    // One prefix (counts and id lists); the messages follow it in the frames that carry them.
    const auto prefix = encode_result(out.messages, out.submitted, out.dropped, {});
    const auto w = static_cast<std::uint32_t>(closed.shape.width);
    const auto n = static_cast<std::uint32_t>(out.messages);
    s.analyzer->send(FrameType::result, closed.round, w, n, prefix, messages);
    for (PartyId id : out.submitted) {
      auto& l = s.party_links[id];
      if (!l || !l->is_open()) continue;
      if (closed.shape.delivery == Delivery::all_parties) {
        l->send(FrameType::result, closed.round, w, n, prefix, messages);
      } else {
        // ESA mode: the party learns that its batch was accepted, not who else took part, so its
        // traffic does not grow with the number of parties.
        const PartyId self[] = {id};
        l->send(FrameType::result, closed.round, 0, 0, encode_result(out.messages, self, {}, {}));
      }
    }
    for (PartyId id : out.dropped) {
      auto& l = s.party_links[id];
      if (!l || !l->is_open()) continue;
      const std::string reason = round + ": this party missed the deadline and was dropped";
      l->send(FrameType::abort, closed.round, std::span(reinterpret_cast<const std::uint8_t*>(reason.data()), reason.size()));
      l->close_after_flush();
    }
    if (closed.last) {
      for (auto& l : s.party_links)
        if (l) l->close_after_flush();
      s.analyzer->close_after_flush();
      finish(s);
      return;
    }
    start_round_timer(s);
  }

  // Called when an admitted identity's link ends (error, close, rejection).
  void on_leave(ServedSession& s, PartyId id, const std::shared_ptr<SecureLink>& link) {
    if (id == analyzer_id ? s.analyzer != link : s.party_links[id] != link) return;  // a refused second link
    if (auto reason = s.rounds->leave(id)) return abort_session(s, *reason);
    maybe_close(s);
  }

  asio::awaitable<void> serve(std::shared_ptr<SecureLink> link) {
    ++open_connections;
    std::string peer = "unknown peer";
    {
      std::error_code ec;
      const auto ep = link->socket().remote_endpoint(ec);
      if (!ec) peer = ep.address().to_string() + ":" + std::to_string(ep.port());
    }
    // Room for this connection among the unauthenticated ones: the oldest gives way.
    const std::uint64_t key = next_connection++;
    if (unauthenticated.size() >= options.max_unauthenticated && !unauthenticated.empty()) {
      auto oldest = unauthenticated.begin();
      log_limited("evicted", "too many unauthenticated connections (" + std::to_string(unauthenticated.size()) +
                                 "): the oldest is closed");
      oldest->second->close();
      unauthenticated.erase(oldest);
    }
    unauthenticated.emplace(key, link);
    bool authenticated = false;
    asio::steady_timer guard(io, options.handshake_timeout);
    guard.async_wait([&authenticated, link, this, peer](std::error_code ec) {
      if (ec || authenticated) return;
      log_limited("handshake timeout", "connection from " + peer + ": no authenticated hello within the handshake timeout; closed");
      link->close();
    });
    ServedSession* s = nullptr;
    PartyId id = 0;
    bool admitted = false;
    try {
      const Hello hello = co_await link->read_hello();
      s = find(hello.session);
      if (!s) throw_error(Errc::wrong_session, "hello for unknown session " + to_hex(hello.session));
      id = hello.id;
      link->set_limits(s->rounds->limits_for(hello.id));
      const auto& cfg = s->spec.config;
      if (id != analyzer_id && id >= cfg.parties)
        throw_error(Errc::unknown_party, "claims party id " + std::to_string(id) + ", the session has " +
                                             std::to_string(cfg.parties) + " parties");
      if (hello.config != s->digest)
        throw_error(Errc::wrong_session, "holds a session config that differs from the shuffler's (protocol, parameters, parties, "
                                         "keys or limits): every process of a session must read the same config");
      const PublicKey& expected_key = id == analyzer_id ? cfg.analyzer_key : cfg.party_keys[id];
      if (hello.static_key != expected_key)
        throw_error(Errc::unauthenticated, "claims to be " + who(id) + " with a key that is not its key in the session config");
      if (s->rounds->finished()) throw_error(Errc::session_aborted, "session " + to_hex(hello.session) + " has already ended");
      co_await link->accept(hello, keys, rng);
      authenticated = true;
      unauthenticated.erase(key);
      guard.cancel();
      // Authenticated: from here a refusal is told to the peer in an abort frame.
      auto refuse = [&](const std::string& reason) {
        log(s->tag + who(id) + " (" + peer + "): refused: " + reason);
        link->send(FrameType::abort, s->rounds->round(), std::span(reinterpret_cast<const std::uint8_t*>(reason.data()), reason.size()));
        link->close_after_flush();
      };
      const bool was_started = s->rounds->started();
      if (auto refusal = s->rounds->admit(id)) {
        refuse(*refusal);
        s = nullptr;
      } else {
        admitted = true;
        (id == analyzer_id ? s->analyzer : s->party_links[id]) = link;
        if (!was_started) start_round_timer(*s);
        maybe_close(*s);
      }
      while (s && link->is_open()) {
        detail::Frame f = co_await link->receive();
        if (s->rounds->finished()) continue;  // late frames after the end: read and ignore until the peer closes
        if (f.header.type != FrameType::submit || id == analyzer_id) {
          log(s->tag + who(id) + ": unexpected frame type " + std::to_string(static_cast<int>(f.header.type)) + "; connection closed");
          break;
        }
        const std::string where = s->tag + "round " + std::to_string(s->rounds->round()) + ": party " + std::to_string(id) + ": ";
        if (auto reason = s->rounds->submit(id, f.header.round, f.header.width, f.header.count, std::move(f.payload))) {
          log(where + *reason + "; connection closed");
          break;
        }
        maybe_close(*s);
      }
    } catch (const std::system_error& e) {
      // A party that hangs up is a dropout: the round's one summary line reports it ("N parties dropped").
      const bool quiet = e.code() == Errc::peer_closed && (s == nullptr || s->rounds->finished() || admitted);
      if (!quiet) {
        const std::string tag = s ? s->tag : std::string();
        log_limited(authenticated ? "rejected" : "rejected before authentication", tag + "connection from " + peer + (authenticated || s ? " (" + who(id) + ")" : std::string()) +
            ": rejected: " + e.what());
      }
    } catch (const std::exception& e) {
      log("connection from " + peer + ": internal error: " + e.what());
    }
    link->close();
    unauthenticated.erase(key);
    if (s && admitted) on_leave(*s, id, link);
    if (--open_connections == 0 && linger) linger->cancel();
  }

  asio::awaitable<void> accept_loop() {
    // After a failed accept (out of descriptors, say) wait before the next one, longer each time
    // up to a second, instead of spinning; one success resets the wait.
    auto backoff = std::chrono::milliseconds(0);
    asio::steady_timer pause(io);
    for (;;) {
      tcp::socket socket(io);
      std::error_code ec;
      co_await acceptor.async_accept(socket, asio::redirect_error(asio::use_awaitable, ec));
      if (ec) {
        if (!acceptor.is_open()) co_return;
        backoff = std::min<std::chrono::milliseconds>(std::chrono::milliseconds(1000),
                                                      std::max<std::chrono::milliseconds>(std::chrono::milliseconds(10), backoff * 2));
        log_limited("accept failed", "accept failed: " + ec.message() + "; next attempt in " + std::to_string(backoff.count()) + " ms");
        pause.expires_after(backoff);
        co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        continue;
      }
      backoff = std::chrono::milliseconds(0);
      auto link = std::make_shared<SecureLink>(std::move(socket), Limits{});
      // Each connection gets the limits of the session it names; until then the defaults apply
      // only to the fixed-size hello.
      asio::co_spawn(io, serve(std::move(link)), asio::detached);
    }
  }
};

TcpShuffler::TcpShuffler(KeyPair keys, std::vector<ShufflerSessionSpec> sessions, const std::string& host,
                         std::uint16_t port, Logger log, ShufflerOptions options)
    : impl_(std::make_unique<Impl>()) {
  if (options.max_unauthenticated < 1) throw std::invalid_argument("max_unauthenticated must be at least 1");
  impl_->options = options;
  if (sessions.empty()) throw std::invalid_argument("TcpShuffler: at least one session is needed");
  impl_->keys = std::move(keys);
  impl_->log_fn = std::move(log);
  for (auto& spec : sessions) {
    if (spec.rounds.empty()) throw std::invalid_argument("TcpShuffler: a session has no rounds");
    if (spec.config.shuffler_key != impl_->keys.public_key())
      throw std::invalid_argument("TcpShuffler: the shuffler key does not match session " + to_hex(spec.config.session) +
                                  "'s shuffler_key");
    if (impl_->find(spec.config.session)) throw std::invalid_argument("TcpShuffler: session " + to_hex(spec.config.session) + " given twice");
    auto s = std::make_unique<Impl::ServedSession>();
    s->tag = "session " + to_hex(spec.config.session).substr(0, 8) + ": ";
    s->party_links.resize(spec.config.parties);
    s->spec = std::move(spec);
    s->rounds = std::make_unique<detail::SessionRounds>(s->spec.config, s->spec.rounds);
    s->digest = s->spec.config.digest();
    s->timer = std::make_unique<asio::steady_timer>(impl_->io);
    impl_->sessions.push_back(std::move(s));
  }
  const auto address = asio::ip::make_address(host);
  const tcp::endpoint ep(address, port);
  impl_->acceptor.open(ep.protocol());
  impl_->acceptor.set_option(tcp::acceptor::reuse_address(true));
  impl_->acceptor.bind(ep);
  impl_->acceptor.listen(asio::socket_base::max_listen_connections);
}

TcpShuffler::~TcpShuffler() = default;

std::uint16_t TcpShuffler::port() const { return impl_->acceptor.local_endpoint().port(); }

std::vector<ShufflerReport> TcpShuffler::run() {
  asio::co_spawn(impl_->io, impl_->accept_loop(), asio::detached);
  impl_->io.run();
  std::vector<ShufflerReport> out;
  for (auto& s : impl_->sessions) {
    s->rounds->abort("the shuffler was stopped");  // no effect on a session that has ended
    out.push_back(s->rounds->report());
  }
  return out;
}

void TcpShuffler::stop() {
  asio::post(impl_->io, [this] {
    for (auto& s : impl_->sessions) impl_->abort_session(*s, "the shuffler was stopped");
    impl_->io.stop();
  });
}

}  // namespace shufflempc::net
