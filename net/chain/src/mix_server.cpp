// TcpMixServer: one io_context thread, one coroutine per connection (only the entry's are admitted),
// one state per session. This file: the sessions, the entry's connections and frames, ending and
// stopping; mix_server_impl.hpp says where the rest lives.
#include "shufflempc/net/mix_server.hpp"

#include <sodium.h>

#include <algorithm>
#include <stdexcept>

#include "mix_server_impl.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/net/verifiable.hpp"

namespace shufflempc::net {

std::uint32_t mix_server_position(const SessionConfig& config, const KeyPair& keys) {
  const std::string session = "session " + to_hex(config.session).substr(0, 8);
  if (config.mix_chain.empty())
    throw std::invalid_argument(session + " has no mix chain (its config lists no mix_chain): it needs no mix server");
  const auto it = std::find_if(config.mix_chain.begin(), config.mix_chain.end(),
                               [&](const MixServerKeys& m) { return m.key == keys.public_key(); });
  if (it == config.mix_chain.end())
    throw std::invalid_argument("this key is not one of the " + std::to_string(config.mix_chain.size()) + " servers of " + session +
                                "'s mix chain");
  const auto hop = static_cast<std::uint32_t>(it - config.mix_chain.begin());
  if (hop == 0) throw std::invalid_argument("this key is " + session + "'s entry (hop 0): run it as the shuffler, without --hop");
  if (signing_key_of(keys).public_key() != it->signer)
    throw std::invalid_argument(session + ": mix_chain[" + std::to_string(hop) +
                                "]'s signing key is not the one this key file derives (write it with keygen --mix-server)");
  if (config.mix == MixKind::verifiable && elgamal_key_of(keys).public_key.bytes != it->elgamal->key)
    throw std::invalid_argument(session + ": mix_chain[" + std::to_string(hop) +
                                "]'s ElGamal key is not the one this key file derives (write it with keygen --mix-server --verifiable)");
  return hop;
}

// A session ends when its last round is mixed (error empty) or when it fails.
void TcpMixServer::Impl::end(Served& s, const std::string& error) {
  if (s.ended) return;
  s.ended = true;
  s.report.error = error;
  if (!error.empty()) log(s.tag + "session failed: " + error);
  s.idle->cancel();
  maybe_stop();
}

// Stops once every session has ended and no link is open. A session whose last answer went out
// but whose entry has not said goodbye is given a while for the entry to dial again and fetch
// that answer (its link may have been cut before it arrived).
void TcpMixServer::Impl::maybe_stop() {
  if (open_connections > 0 || !std::all_of(sessions.begin(), sessions.end(), [](const auto& x) { return x->ended; })) return;
  if (std::all_of(sessions.begin(), sessions.end(), [](const auto& x) { return closed(*x); })) {
    io.stop();
    return;
  }
  if (linger) return;
  linger = std::make_unique<asio::steady_timer>(io, options.linger);
  linger->async_wait([this](std::error_code ec) {
    if (!ec && open_connections == 0) io.stop();
  });
}

void TcpMixServer::Impl::arm_idle(Served& s) {
  s.idle->expires_after(idle_limit(s));
  s.idle->async_wait([this, &s, round = s.next_round](std::error_code ec) {
    if (ec || s.ended || s.next_round != round) return;
    end(s, "round " + std::to_string(round) + ": no batch from the entry within " + std::to_string(idle_limit(s).count()) + " ms");
    if (s.link) s.link->close();
  });
}

// After round r: the session ends with its last round, unless that round still has to be decrypted.
void TcpMixServer::Impl::after_round(Served& s, std::uint32_t r, bool decrypt_next) {
  s.next_round = r + 1;
  if (s.next_round == s.config.rounds.size() && !decrypt_next) end(s, "");
  else arm_idle(s);
}

// One frame from the entry: false when the link is done with (a goodbye, an abort, a refusal).
asio::awaitable<bool> TcpMixServer::Impl::entry_frame(Served& s, SecureLink& link, detail::Frame& f, const std::string& peer) {
  if (f.header.type == FrameType::abort) {
    s.goodbye = true;
    if (f.payload.empty()) {  // goodbye
      const bool complete = s.ended && s.report.error.empty();
      end(s, s.ended ? "" : "the entry ended the session before round " + std::to_string(s.next_round));
      // Every round answered and the entry done: a server started again on the state serves it no more.
      if (complete && s.store) {
        try {
          s.store->end("the entry said goodbye after the session's last round");
        } catch (const std::exception& e) {
          log(s.tag + e.what());
        }
      }
      co_return false;
    }
    // Nothing more will come either way; a session this server finished failed elsewhere.
    const std::string reason = "the entry aborted the session: " + std::string(f.payload.begin(), f.payload.end());
    if (s.ended && s.report.error.empty()) {
      s.report.error = reason;
      log(s.tag + "session failed: " + reason);
    }
    end(s, reason);
    co_return false;
  }
  // A frame on a new link while the old one's round is still being computed (the entry dialled
  // again): it waits for that computation, then is answered as a repeat.
  while (s.computing) {
    asio::steady_timer wait(io, std::chrono::milliseconds(2));
    std::error_code ignored;
    co_await wait.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }
  std::optional<Fault> refused;
  const std::uint32_t r = f.header.round;
  const bool repeat = (s.last.valid && r == s.last.round) || (s.decrypted.valid && r == s.decrypted.round);
  if (verifiable(s) ? f.header.type != FrameType::shuffle && f.header.type != FrameType::decrypt : f.header.type != FrameType::mix)
    refused = refusal(FaultCode::wrong_frame, r, "unexpected frame type " + std::to_string(static_cast<int>(f.header.type)));
  else if (s.ended && !repeat) refused = refusal(FaultCode::session_ended, r, "the session has ended");
  else if (f.header.type == FrameType::shuffle) refused = co_await take_shuffle(s, link, f);
  else if (f.header.type == FrameType::decrypt) refused = co_await take_decrypt(s, link, f);
  else refused = take_mix(s, link, f);
  if (!refused) co_return true;
  const std::string& why = refused->text;
  log(s.tag + "the entry (" + peer + "): refused: " + why);
  link.send(FrameType::abort, r, std::span(reinterpret_cast<const std::uint8_t*>(why.data()), why.size()));
  link.close_after_flush();
  co_return false;
}

asio::awaitable<void> TcpMixServer::Impl::serve(std::shared_ptr<SecureLink> link) {
  ++open_connections;
  const std::string peer = detail::remote_name(*link);
  detail::PendingHandshake pending(*this, link, options.handshake_timeout);
  Served* s = nullptr;
  try {
    const Hello hello = co_await link->read_hello();
    s = find(hello.session);
    if (!s) throw_error(Errc::wrong_session, "hello for unknown session " + to_hex(hello.session));
    if (hello.first != entry_id || hello.count != 1)
      throw_error(Errc::unknown_party, "a mix server admits only the entry of its chain (the shuffler)");
    if (hello.config != s->digest)
      throw_error(Errc::wrong_session, "holds a session config that differs from this server's: every server of a chain must read the same config");
    if (closed(*s)) throw_error(Errc::session_aborted, "session " + to_hex(hello.session) + " has already ended");
    link->set_limits(s->limits);
    co_await link->accept(hello, keys, s->entry_proof, rng);
    pending.authenticated();
    if (options.frame_tap) link->set_tap(options.frame_tap);
    if (s->link && s->link != link) s->link->close();  // the entry reconnected: the new link replaces the old
    s->link = link;
    while (link->is_open()) {
      detail::Frame f = co_await link->receive();
      if (!co_await entry_frame(*s, *link, f, peer)) break;
    }
  } catch (const std::system_error& e) {
    // Silent: a peer that hangs up, and a connection closed here (evicted or out of time) before it
    // said anything; a refused hello or a failed handshake is one line.
    const bool ours = e.code().category() == error_category();
    // Rate-limited: whoever reaches the port can send hellos, and each refused one earns a line.
    const bool authenticated = pending.is_authenticated();
    if (e.code() != Errc::peer_closed && (authenticated || ours))
      log_lines.limited(authenticated ? "connection failed" : "rejected",
                        (s ? s->tag : std::string()) + "connection from " + peer + ": " + (authenticated ? "" : "rejected: ") + e.what());
  } catch (const std::exception& e) {
    log("connection from " + peer + ": internal error: " + e.what());
  }
  link->close();
  pending.release();
  --open_connections;
  maybe_stop();
}

asio::awaitable<void> TcpMixServer::Impl::accept_loop() {
  co_await detail::accept_loop(
      acceptor, [this](std::shared_ptr<SecureLink> link) { return serve(std::move(link)); },
      [this](const std::string& kind, const std::string& line) { log_lines.limited(kind, line); });
}

TcpMixServer::TcpMixServer(KeyPair keys, std::vector<SessionConfig> sessions, const std::string& host, std::uint16_t port, Logger log,
                           MixServerOptions options)
    : impl_(std::make_unique<Impl>()) {
  auto& im = *impl_;
  if (sessions.empty()) throw std::invalid_argument("TcpMixServer: at least one session is needed");
  if (options.max_unauthenticated < 1) throw std::invalid_argument("TcpMixServer: max_unauthenticated must be at least 1");
  im.set_up(std::move(keys), std::move(log), options.log_lines_per_second, options.max_unauthenticated);
  im.options = options;
  for (auto& config : sessions) {
    if (im.find(config.session)) throw std::invalid_argument("TcpMixServer: session " + to_hex(config.session) + " given twice");
    auto s = std::make_unique<Impl::Served>();
    s->hop = mix_server_position(config, im.keys);
    // Made once for the session; a key the servers made must open now, not when a round needs it.
    if (config.mix == MixKind::verifiable) s->share = server_share(config, im.keys, s->hop);
    s->tag = "session " + to_hex(config.session).substr(0, 8) + " hop " + std::to_string(s->hop) + ": ";
    s->config = std::move(config);
    s->digest = s->config.digest();
    s->mixer = std::make_unique<MixHop>(s->hop, im.keys, im.signing);
    detail::StaticSecret k = detail::static_secret(im.keys.secret_key(), s->config.shuffler_key);
    s->entry_proof = detail::identity_proof(std::span(&k, 1), entry_id);
    sodium_memzero(k.data(), k.size());
    s->limits = s->config.limits();
    s->limits.max_parties = 0;
    s->report.session = s->config.session;
    s->report.hop = s->hop;
    s->idle = std::make_unique<asio::steady_timer>(im.io);
    if (!options.state_dir.empty()) im.open_state(*s);
    im.sessions.push_back(std::move(s));
  }
  detail::listen_on(im.acceptor, host, port);
}

TcpMixServer::~TcpMixServer() = default;

std::uint16_t TcpMixServer::port() const { return impl_->acceptor.local_endpoint().port(); }

std::vector<MixServerReport> TcpMixServer::run() {
  for (auto& s : impl_->sessions) impl_->arm_idle(*s);
  // Sessions taken back from a state directory with their last round answered: the linger starts now.
  asio::post(impl_->io, [impl = impl_.get()] { impl->maybe_stop(); });
  impl_->run_until_stopped(impl_->accept_loop());
  std::vector<MixServerReport> out;
  for (auto& s : impl_->sessions) {
    if (!s->ended) s->report.error = "the mix server was stopped";
    out.push_back(s->report);
  }
  return out;
}

void TcpMixServer::stop() {
  impl_->stop([this] {
    for (auto& s : impl_->sessions) impl_->end(*s, "the mix server was stopped");
  });
}

}  // namespace shufflempc::net
