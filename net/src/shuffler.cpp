// The TCP shuffler: one io_context thread, one coroutine per connection, one state per session.
#include <sodium.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "shufflempc/error.hpp"
#include "shufflempc/net/detail/link.hpp"
#include "shufflempc/net/tcp.hpp"

namespace shufflempc::net {

using detail::SecureLink;
using detail::tcp;

std::vector<RoundShape> wire_rounds(const Protocol& protocol) {
  std::vector<RoundShape> plan;
  for (std::uint32_t r = 0; r < protocol.rounds(); ++r) {
    const RoundShape info = protocol.round(r);
    plan.push_back({wire_width(info.width, info.delivery), info.delivery});
  }
  return plan;
}

std::size_t wire_width(std::size_t width, Delivery delivery) {
  return delivery == Delivery::analyzer_only ? width + crypto_box_SEALBYTES : width;
}

namespace {

// How long a connection may take to authenticate, and how long the shuffler lingers for clients
// to read their last frame once every session has ended.
constexpr auto handshake_timeout = std::chrono::seconds(10);
constexpr auto linger_timeout = std::chrono::seconds(5);

std::string who(PartyId id) { return id == analyzer_id ? std::string("the analyzer") : "party " + std::to_string(id); }

}  // namespace

struct TcpShuffler::Impl {
  struct ServedSession {
    ShufflerSessionSpec spec;
    Limits limits;
    std::string tag;  // for log lines
    std::vector<std::shared_ptr<SecureLink>> party_links;
    std::shared_ptr<SecureLink> analyzer;
    std::vector<char> expected;   // expected to submit in the current round
    std::vector<char> submitted;  // submitted in the current round
    std::vector<char> gone;       // disconnected or rejected during the current round
    std::uint32_t round = 0;
    bool started = false;
    bool finished = false;
    MessageBatch buffer;
    std::vector<Submissions::Slice> slices;
    std::unique_ptr<asio::steady_timer> timer;
    ShufflerReport report;
  };

  asio::io_context io;
  tcp::acceptor acceptor{io};
  KeyPair keys;
  Logger log_fn;
  SystemRng rng;
  Shuffler shuffler;  // scratch reused across rounds and sessions
  std::vector<ServedSession> sessions;
  std::size_t open_connections = 0;
  std::unique_ptr<asio::steady_timer> linger;

  void log(const std::string& line) const {
    if (log_fn) log_fn(line);
  }

  ServedSession* find(const SessionId& id) {
    for (auto& s : sessions)
      if (s.spec.config.session == id) return &s;
    return nullptr;
  }

  bool all_finished() const {
    return std::all_of(sessions.begin(), sessions.end(), [](const ServedSession& s) { return s.finished; });
  }

  void start_round_timer(ServedSession& s) {
    s.timer->expires_after(s.spec.config.deadline);
    s.timer->async_wait([this, &s, round = s.round](std::error_code ec) {
      if (ec || s.finished || s.round != round) return;
      log(s.tag + "round " + std::to_string(round) + ": deadline of " + std::to_string(s.spec.config.deadline.count()) +
          " ms expired");
      close_round(s);
    });
  }

  void open_round(ServedSession& s) {
    const RoundShape& plan = s.spec.rounds[s.round];
    s.buffer = MessageBatch(plan.width);
    s.slices.clear();
    std::fill(s.submitted.begin(), s.submitted.end(), 0);
    // A party that left during an earlier round is not expected any more; one that never
    // connected is waited for until the deadline.
    std::fill(s.gone.begin(), s.gone.end(), 0);
    start_round_timer(s);
  }

  // The round closes early once the analyzer is here and every expected party has either
  // submitted or left.
  void maybe_close(ServedSession& s) {
    if (s.finished || !s.started || !s.analyzer) return;
    for (std::size_t i = 0; i < s.expected.size(); ++i)
      if (s.expected[i] && !s.submitted[i] && !s.gone[i]) return;
    close_round(s);
  }

  void abort_session(ServedSession& s, const std::string& reason) {
    if (s.finished) return;
    log(s.tag + "session aborted: " + reason);
    s.report.error = reason;
    const std::span<const std::uint8_t> text(reinterpret_cast<const std::uint8_t*>(reason.data()),
                                             std::min<std::size_t>(reason.size(), s.limits.max_abort_reason));
    auto tell = [&](const std::shared_ptr<SecureLink>& l) {
      if (l && l->is_open()) {
        l->send(FrameType::abort, s.round, text);
        l->close_after_flush();
      }
    };
    for (auto& l : s.party_links) tell(l);
    tell(s.analyzer);
    finish(s);
  }

  void finish(ServedSession& s) {
    s.finished = true;
    s.timer->cancel();
    if (all_finished()) {
      std::error_code ignored;
      acceptor.close(ignored);
      linger = std::make_unique<asio::steady_timer>(io, linger_timeout);
      linger->async_wait([this](std::error_code ec) {
        if (ec) return;
        for (auto& ss : sessions) {
          for (auto& l : ss.party_links)
            if (l) l->close();
          if (ss.analyzer) ss.analyzer->close();
        }
      });
      if (open_connections == 0) linger->cancel();
    }
  }

  void close_round(ServedSession& s) {
    if (s.finished) return;
    const RoundShape& plan = s.spec.rounds[s.round];
    if (!s.analyzer) return abort_session(s, "round " + std::to_string(s.round) + ": the analyzer did not connect before the deadline");
    RoundRules spec;
    spec.round = s.round;
    spec.width = plan.width;
    spec.delivery = plan.delivery;
    for (std::size_t i = 0; i < s.expected.size(); ++i)
      if (s.expected[i]) spec.expected.push_back(static_cast<PartyId>(i));
    spec.min_parties = s.spec.config.min_parties == 0 ? spec.expected.size() : s.spec.config.min_parties;
    Submissions all;
    all.messages = std::move(s.buffer);
    all.parties = std::move(s.slices);
    RoundOutcome out;
    try {
      out = complete_round(spec, std::move(all), rng, shuffler);
    } catch (const std::system_error& e) {
      return abort_session(s, e.what());
    }
    RoundTraffic stats;
    stats.round = s.round;
    stats.messages = out.messages;
    stats.bytes = out.messages * spec.width;
    stats.dropped = out.dropped;
    s.report.rounds.push_back(stats);
    s.report.dropped.insert(s.report.dropped.end(), out.dropped.begin(), out.dropped.end());
    std::sort(s.report.dropped.begin(), s.report.dropped.end());
    if (!out.dropped.empty())
      log(s.tag + "round " + std::to_string(s.round) + ": " + std::to_string(out.dropped.size()) +
          " part" + (out.dropped.size() == 1 ? "y" : "ies") + " dropped (first: party " + std::to_string(out.dropped.front()) + ")");

    const std::span<const std::uint8_t> messages = out.output ? out.output->bytes() : std::span<const std::uint8_t>{};
    // One prefix (counts and id lists); the messages follow it in the frames that carry them.
    const auto prefix = encode_result(out.messages, out.submitted, out.dropped, {});
    const auto w = static_cast<std::uint32_t>(spec.width);
    const auto n = static_cast<std::uint32_t>(out.messages);
    s.analyzer->send(FrameType::result, s.round, w, n, prefix, messages);
    for (PartyId id : out.submitted) {
      auto& l = s.party_links[id];
      if (!l || !l->is_open()) continue;
      if (plan.delivery == Delivery::all_parties) l->send(FrameType::result, s.round, w, n, prefix, messages);
      else l->send(FrameType::result, s.round, 0, 0, prefix);
    }
    for (PartyId id : out.dropped) {
      auto& l = s.party_links[id];
      if (!l || !l->is_open()) continue;
      const std::string reason = "round " + std::to_string(s.round) + ": this party missed the deadline and was dropped";
      l->send(FrameType::abort, s.round, std::span(reinterpret_cast<const std::uint8_t*>(reason.data()), reason.size()));
      l->close_after_flush();
    }
    std::fill(s.expected.begin(), s.expected.end(), 0);
    for (PartyId id : out.submitted) s.expected[id] = 1;
    if (++s.round == s.spec.rounds.size()) {
      for (auto& l : s.party_links)
        if (l) l->close_after_flush();
      s.analyzer->close_after_flush();
      finish(s);
      return;
    }
    open_round(s);
  }

  // A submit frame from an authenticated party. Returns false if the link must be closed.
  bool on_submit(ServedSession& s, PartyId id, detail::Frame& f) {
    const std::string where = s.tag + "round " + std::to_string(s.round) + ": party " + std::to_string(id) + ": ";
    if (f.header.round != s.round) {
      log(where + "submission for round " + std::to_string(f.header.round) + " rejected (wrong round); connection closed");
      return false;
    }
    if (!s.expected[id]) {
      log(where + "submission rejected: the party is no longer in the session; connection closed");
      return false;
    }
    if (s.submitted[id]) {
      log(where + "duplicate submission rejected (its first batch stands); connection closed");
      return false;
    }
    const std::size_t w = s.buffer.width();
    if (f.header.width != w) {
      log(where + "submission of width " + std::to_string(f.header.width) + " rejected, the round's wire width is " +
          std::to_string(w) + "; connection closed");
      return false;
    }
    if (s.buffer.size_bytes() + f.payload.size() > std::size_t{s.limits.max_payload}) {
      log(where + "submission rejected: the round's output would exceed max_frame_bytes; connection closed");
      return false;
    }
    const std::size_t first = s.buffer.count();
    s.buffer.append(MessageBatch::from_bytes(w, std::move(f.payload)));
    s.slices.push_back({id, first, f.header.count});
    s.submitted[id] = 1;
    maybe_close(s);
    return true;
  }

  // Called when a party's link ends (error, close, rejection) during the session.
  void on_leave(ServedSession& s, PartyId id, const std::shared_ptr<SecureLink>& link) {
    if (id == analyzer_id) {
      if (s.analyzer == link && !s.finished) abort_session(s, "the analyzer disconnected");
      return;
    }
    if (s.party_links[id] != link) return;
    if (!s.finished && s.expected[id] && !s.submitted[id]) s.gone[id] = 1;
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
    bool authenticated = false;
    asio::steady_timer guard(io, handshake_timeout);
    guard.async_wait([&authenticated, link, this, peer](std::error_code ec) {
      if (ec || authenticated) return;
      log("connection from " + peer + ": no authenticated hello within the handshake timeout; closed");
      link->close();
    });
    ServedSession* s = nullptr;
    PartyId id = 0;
    try {
      const Hello hello = co_await link->read_hello();
      s = find(hello.session);
      if (!s) throw_error(Errc::wrong_session, "hello for unknown session " + to_hex(hello.session));
      id = hello.id;
      link->set_limits(s->limits);
      const auto& cfg = s->spec.config;
      if (id != analyzer_id && id >= cfg.parties)
        throw_error(Errc::unknown_party, "claims party id " + std::to_string(id) + ", the session has " +
                                             std::to_string(cfg.parties) + " parties");
      const PublicKey& expected_key = id == analyzer_id ? cfg.analyzer_key : cfg.party_keys[id];
      if (hello.static_key != expected_key)
        throw_error(Errc::unauthenticated, "claims to be " + who(id) + " with a key that is not its key in the session config");
      if (s->finished) throw_error(Errc::session_aborted, "session " + to_hex(hello.session) + " has already ended");
      co_await link->accept(hello, keys, rng);
      authenticated = true;
      guard.cancel();
      // Authenticated: from here a refusal is told to the peer in an abort frame.
      auto refuse = [&](const std::string& reason) {
        log(s->tag + who(id) + " (" + peer + "): refused: " + reason);
        link->send(FrameType::abort, s->round, std::span(reinterpret_cast<const std::uint8_t*>(reason.data()), reason.size()));
        link->close_after_flush();
      };
      if (s->finished) {
        refuse("the session has already ended");
        s = nullptr;
      } else if (id == analyzer_id ? s->analyzer != nullptr : s->party_links[id] != nullptr) {
        refuse(who(id) + " is already connected");
        s = nullptr;
      } else if (id != analyzer_id && !s->expected[id]) {
        refuse("party " + std::to_string(id) + " is no longer in the session (round " + std::to_string(s->round) + ")");
        s = nullptr;
      } else {
        (id == analyzer_id ? s->analyzer : s->party_links[id]) = link;
        if (!s->started) {
          s->started = true;
          open_round(*s);
        }
        maybe_close(*s);
      }
      while (s && link->is_open()) {
        detail::Frame f = co_await link->receive();
        if (s->finished) continue;  // late frames after the end: read and ignore until the peer closes
        if (f.header.type != FrameType::submit || id == analyzer_id) {
          log(s->tag + who(id) + ": unexpected frame type " + std::to_string(static_cast<int>(f.header.type)) + "; connection closed");
          break;
        }
        if (!on_submit(*s, id, f)) break;
      }
    } catch (const std::system_error& e) {
      const bool quiet = e.code() == Errc::peer_closed && (s == nullptr || s->finished);
      if (!quiet) {
        const std::string tag = s ? s->tag : std::string();
        log(tag + "connection from " + peer + (authenticated || s ? " (" + who(id) + ")" : std::string()) +
            ": rejected: " + e.what());
      }
    } catch (const std::exception& e) {
      log("connection from " + peer + ": internal error: " + e.what());
    }
    link->close();
    if (s && authenticated) on_leave(*s, id, link);
    if (--open_connections == 0 && linger) linger->cancel();
  }

  asio::awaitable<void> accept_loop() {
    for (;;) {
      tcp::socket socket(io);
      std::error_code ec;
      co_await acceptor.async_accept(socket, asio::redirect_error(asio::use_awaitable, ec));
      if (ec) {
        if (!acceptor.is_open()) co_return;
        log(std::string("accept failed: ") + ec.message());
        continue;
      }
      auto link = std::make_shared<SecureLink>(std::move(socket), Limits{});
      // Each connection gets the limits of the session it names; until then the defaults apply
      // only to the fixed-size hello.
      asio::co_spawn(io, serve(std::move(link)), asio::detached);
    }
  }
};

TcpShuffler::TcpShuffler(KeyPair keys, std::vector<ShufflerSessionSpec> sessions, const std::string& host,
                         std::uint16_t port, Logger log)
    : impl_(std::make_unique<Impl>()) {
  if (sessions.empty()) throw std::invalid_argument("TcpShuffler: at least one session is needed");
  impl_->keys = std::move(keys);
  impl_->log_fn = std::move(log);
  for (auto& spec : sessions) {
    if (spec.rounds.empty()) throw std::invalid_argument("TcpShuffler: a session has no rounds");
    if (spec.config.shuffler_key != impl_->keys.public_key())
      throw std::invalid_argument("TcpShuffler: the shuffler key does not match session " + to_hex(spec.config.session) +
                                  "'s shuffler_key");
    if (impl_->find(spec.config.session)) throw std::invalid_argument("TcpShuffler: session " + to_hex(spec.config.session) + " given twice");
    Impl::ServedSession s;
    s.limits = spec.config.limits();
    s.tag = "session " + to_hex(spec.config.session).substr(0, 8) + ": ";
    const std::size_t n = spec.config.parties;
    s.party_links.resize(n);
    s.expected.assign(n, 1);
    s.submitted.assign(n, 0);
    s.gone.assign(n, 0);
    s.report.session = spec.config.session;
    s.spec = std::move(spec);
    s.timer = std::make_unique<asio::steady_timer>(impl_->io);
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
    if (!s.finished) s.report.error = "the shuffler was stopped";
    out.push_back(s.report);
  }
  return out;
}

void TcpShuffler::stop() {
  asio::post(impl_->io, [this] {
    for (auto& s : impl_->sessions) impl_->abort_session(s, "the shuffler was stopped");
    impl_->io.stop();
  });
}

}  // namespace shufflempc::net
