// The TCP shuffler: one io_context thread, one coroutine per connection, one state per session.
// This file: the sessions it serves, its connections (handshake, admission) and the frames of the
// analyzer's and the parties' links; shuffler_impl.hpp says where the rest lives.
#include <sodium.h>
#include <sys/socket.h>

#include <algorithm>
#include <filesystem>
#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "shuffler_impl.hpp"
#include "shufflempc/error.hpp"

namespace shufflempc::net {

asio::awaitable<void> TcpShuffler::Impl::drain(std::shared_ptr<SecureLink> link) {
  asio::steady_timer t(io, std::chrono::seconds(1));
  t.async_wait([link](std::error_code ec) {
    if (!ec) link->close();
  });
  try {
    for (;;) (void)co_await link->receive();
  } catch (const std::exception&) {
  }
  t.cancel();
}

bool TcpShuffler::Impl::admit(ServedSession& s, PartyId first, std::uint32_t count, const std::shared_ptr<SecureLink>& link,
                              const Refuse& refuse) {
  // The process reconnected before the old connection was seen to end (it proved the same keys).
  if (first != analyzer_id) {
    const auto it = s.party_links.find(first);
    if (it != s.party_links.end() && it->second.count == count) {
      auto old = it->second.link;
      s.party_links.erase(it);
      s.rounds->leave(first, count);
      old->close();
    }
  } else if (s.analyzer) {
    auto old = std::move(s.analyzer);  // the analyzer's key again: the same replacement
    s.rounds->leave(analyzer_id);
    old->close();
  }
  const bool was_started = s.rounds->started();
  if (awaits_relay(s, first)) {
    // Back while the round crosses the chain: it is sent the result with the links still there.
    s.round_timers.away_after_submit.erase(first);
    s.party_links[first] = {first, count, link};
    return true;
  }
  if (owes_done(s, first) && first != analyzer_id) {
    // A party link back for the last round's result: it sends its batch again, which is answered
    // with the result, then confirms it (within the parties' deadline, already running).
    s.party_links[first] = {first, count, link};
    return true;
  }
  if (owes_done(s, first)) {
    // Back for the last round's result (serve() sends it), with the deadline again to confirm it.
    s.analyzer = link;
    await_done(s, s.config.deadline,
               "round " + std::to_string(s.last.round) + ": the analyzer reconnected but did not confirm the session's last result "
               "within " + std::to_string(s.config.deadline.count()) + " ms");
    return true;
  }
  if (auto refusal = s.rounds->admit(first, count)) {
    refuse(refusal->text);
    return false;
  }
  if (first == analyzer_id) s.analyzer = link;
  else s.party_links[first] = {first, count, link};
  if (!was_started) start_round_timer(s);
  else progress(s, first == analyzer_id ? std::nullopt : std::optional<PartyId>(first));
  maybe_close(s);
  return true;
}

TcpShuffler::Impl::Next TcpShuffler::Impl::analyzer_frame(ServedSession& s, const detail::Frame& f, bool& resent, const Refuse& refuse) {
  if (f.header.type == FrameType::done) {
    if (!s.rounds->finished()) {
      refuse("a done frame from the analyzer in round " + std::to_string(s.rounds->round()) + ", before the session's last result");
      return Next::stop;
    }
    s.result_waits.awaiting_done = false;
    s.result_waits.done_wait->cancel();
    // The result reached the analyzer: a shuffler started again on this state serves it no more.
    if (s.store) s.store->end("the analyzer confirmed the session's result");
    stop_if_done();
    return Next::stop;  // the analyzer has the result: its link closes
  }
  const bool empty_batch = f.header.count == 0 && f.payload.size() == 4 &&
                           std::all_of(f.payload.begin(), f.payload.end(), [](std::uint8_t b) { return b == 0; });
  if (f.header.type != FrameType::submit || !empty_batch) {
    refuse("unexpected frame type " + std::to_string(static_cast<int>(f.header.type)) + " from the analyzer");
    return Next::stop;
  }
  const bool previous = s.last.valid && f.header.round == s.last.round && s.rounds->round() == s.last.round + 1;
  if (!previous && f.header.round != s.rounds->round()) {
    refuse("the analyzer asked for round " + std::to_string(f.header.round) + ", the session is in round " +
           std::to_string(s.rounds->round()));
    return Next::stop;
  }
  if (previous && !resent) {
    resent = true;
    if (!s.rounds->take_resend(analyzer_id)) {
      refuse("round " + std::to_string(f.header.round) + "'s result was sent to the analyzer " +
             std::to_string(detail::SessionRounds::max_resends) + " times already");
      return Next::stop;
    }
    send_analyzer_result(s);
  }
  return Next::read;
}

TcpShuffler::Impl::Next TcpShuffler::Impl::party_frame(ServedSession& s, PartyId first, std::uint32_t count,
                                                       const std::shared_ptr<SecureLink>& link, const detail::Frame& f, bool& resent,
                                                       const Refuse& refuse) {
  if (f.header.type == FrameType::done) {
    if (!owes_done(s, first)) {
      refuse("a done frame from " + who_range(first, count) + " in round " + std::to_string(s.rounds->round()) +
             ", before the session's last result");
      return Next::stop;
    }
    party_done(s, first);
    return Next::stop;  // the link's parties have the result: it closes
  }
  if (f.header.type == FrameType::alive) {
    // Its parties are preparing their batch: the link is alive. A word for a round that closed
    // meanwhile (it crossed the result) is dropped; one for a round to come is refused.
    if (!s.rounds->finished() && f.header.round > s.rounds->round()) {
      refuse("an alive frame for round " + std::to_string(f.header.round) + " in round " + std::to_string(s.rounds->round()));
      return Next::stop;
    }
    if (!s.rounds->finished() && f.header.round == s.rounds->round()) progress(s, first);
    return Next::read;
  }
  if (f.header.type != FrameType::submit) {
    refuse("unexpected frame type " + std::to_string(static_cast<int>(f.header.type)));
    return Next::stop;
  }
  SubmitPayload batch;
  try {
    batch = decode_submit(f.header, f.payload, count);
  } catch (const std::system_error& e) {
    refuse(e.what());
    return Next::stop;
  }
  std::vector<std::uint8_t> kept;  // the adversary harness's entry: the batch without the parties it ignores
  if (!options.ignore_submissions.empty()) {
    const std::size_t w = f.header.width;
    std::size_t at = 0;
    for (std::size_t k = 0; k < batch.counts.size(); ++k) {
      if (batch.counts[k] == submit_absent) continue;
      const std::size_t bytes = std::size_t{batch.counts[k]} * w;
      if (options.ignore_submissions.count(first + static_cast<PartyId>(k))) batch.counts[k] = submit_absent;
      else kept.insert(kept.end(), batch.messages.begin() + static_cast<std::ptrdiff_t>(at), batch.messages.begin() + static_cast<std::ptrdiff_t>(at + bytes));
      at += bytes;
    }
    batch.messages = kept;
  }
  // A link that reconnected for a round that closed meanwhile gets its result again, once per
  // connection: repeating the frame cannot make the shuffler queue copies of the output.
  if (!resent && s.rounds->accepted_in_previous_round(first, batch.counts, f.header.round)) {
    resent = true;
    if (!s.rounds->take_resend(first)) {
      refuse("round " + std::to_string(f.header.round) + "'s result was sent to this link's parties " +
             std::to_string(detail::SessionRounds::max_resends) + " times already");
      return Next::stop;
    }
    if (auto it = s.party_links.find(first); it != s.party_links.end() && s.last.valid) send_result(s, it->second);
    return Next::read;
  }
  if (auto reason = s.rounds->submit(first, batch.counts, f.header.round, f.header.width, batch.messages)) {
    refuse("round " + std::to_string(s.rounds->round()) + ": " + reason->text);
    return Next::stop;
  }
  if (s.store)
    keep(s, link, {.round = f.header.round, .first = first, .counts = batch.counts, .width = f.header.width,
                   .messages = std::vector<std::uint8_t>(batch.messages.begin(), batch.messages.end())});
  progress(s, first);
  maybe_close(s);
  return Next::read;
}

asio::awaitable<void> TcpShuffler::Impl::serve(std::shared_ptr<SecureLink> link) {
  ++open_connections;
  const std::string peer = detail::remote_name(*link);
  detail::PendingHandshake pending(*this, link, options.handshake_timeout, [this, peer] {
    log_limited("handshake timeout", "connection from " + peer + ": no authenticated hello within the handshake timeout; closed");
  });
  ServedSession* s = nullptr;
  PartyId first = 0;
  std::uint32_t count = 0;
  bool admitted = false, refused = false, resent = false;
  try {
    const Hello hello = co_await link->read_hello();
    s = find(hello.session);
    if (!s) throw_error(Errc::wrong_session, "hello for unknown session " + to_hex(hello.session));
    first = hello.first;
    count = hello.count;
    link->set_limits(s->rounds->limits_for(first, count));
    const auto& cfg = s->config;
    if (first != analyzer_id && (first >= cfg.parties || count > cfg.parties - first))
      throw_error(Errc::unknown_party, "claims " + who_range(first, count) + ", the session has " + std::to_string(cfg.parties) +
                                           " parties");
    if (hello.config != s->digest)
      throw_error(Errc::wrong_session, "holds a session config that differs from the shuffler's (protocol, parameters, parties, "
                                       "keys or limits): every process of a session must read the same config");
    // An analyzer that has not confirmed the last result may still come back for it.
    if (s->rounds->finished() && !owes_done(*s, first) && !awaits_relay(*s, first))
      throw_error(Errc::session_aborted, "session " + to_hex(hello.session) + " has already ended");
    const detail::IdentityProof proof =
        first == analyzer_id ? s->analyzer_tree.proof(0, 1) : s->parties_tree.proof(first, count);
    co_await link->accept(hello, keys, proof, rng);
    pending.authenticated();
    if (options.frame_tap)
      link->set_tap([this, first, count](OutgoingFrame& frame) { return options.frame_tap(first, count, frame); });
    // Authenticated: from here a refusal is told to the peer in an abort frame.
    auto refuse = [&](const std::string& reason) {
      log_limited("refused", s->tag + who_range(first, count) + " (" + peer + "): refused: " + reason);
      link->send(FrameType::abort, s->rounds->round(), std::span(reinterpret_cast<const std::uint8_t*>(reason.data()), reason.size()));
      link->close_after_flush();
      refused = true;
    };
    // The analyzer back for the session's last result (owed before this link came: an analyzer
    // whose arrival closes the round is sent the result by the close, once): it is sent at once,
    // for an analyzer started again on its state directory is a new process that does not know to
    // ask; the ask of a channel that reconnected (its empty batch) is then read and not answered twice.
    const bool back_for_result = first == analyzer_id && owes_done(*s, first);
    admitted = admit(*s, first, count, link, refuse);
    if (!admitted && refused) s = nullptr;
    if (s && admitted && back_for_result) {
      resent = true;
      if (s->rounds->take_resend(analyzer_id)) send_analyzer_result(*s);
      else refuse("round " + std::to_string(s->last.round) + "'s result was sent to the analyzer " +
                  std::to_string(detail::SessionRounds::max_resends) + " times already");
    }
    while (s && !refused && link->is_open()) {
      detail::Frame f = co_await link->receive();
      // Late frames after the end are read and ignored until the peer closes, except the analyzer's
      // while it owes its done frame.
      if (s->rounds->finished() && !owes_done(*s, first)) continue;
      const Next next =
          first == analyzer_id ? analyzer_frame(*s, f, resent, refuse) : party_frame(*s, first, count, link, f, resent, refuse);
      if (next == Next::stop) break;
    }
  } catch (const std::system_error& e) {
    // A party that hangs up is a dropout: the round's one summary line reports it ("N parties dropped").
    const bool quiet = e.code() == Errc::peer_closed && (s == nullptr || s->rounds->finished() || admitted);
    if (!quiet) {
      const std::string tag = s ? s->tag : std::string();
      const bool authenticated = pending.is_authenticated();
      log_limited(authenticated ? "rejected" : "rejected before authentication",
                  tag + "connection from " + peer + (authenticated || s ? " (" + who_range(first, count) + ")" : std::string()) +
                      ": rejected: " + e.what());
    }
  } catch (const std::exception& e) {
    log("connection from " + peer + ": internal error: " + e.what());
  }
  if (s && admitted) on_leave(*s, first, count, link, refused);
  if (refused) co_await drain(link);
  link->close();
  pending.release();
  if (--open_connections == 0 && linger) linger->cancel();
}

void TcpShuffler::Impl::compute_statics(ServedSession& s, const KeyPair& keys) {
  const auto& cfg = s.config;
  detail::StaticSecret analyzer_static = detail::static_secret(keys.secret_key(), cfg.analyzer_key);
  s.analyzer_tree = detail::IdentityTree(std::span(&analyzer_static, 1));
  sodium_memzero(analyzer_static.data(), analyzer_static.size());
  s.parties_tree = detail::parties_tree(keys, cfg.party_keys);
}

void TcpShuffler::Impl::keep(ServedSession& s, const std::shared_ptr<SecureLink>& link, Admission batch) {
  const std::uint32_t round = batch.round;
  const PartyId first = batch.first;
  std::weak_ptr<SecureLink> weak = link;
  // The store hashes the batch on its own thread, once, and hands the digest back.
  ++s.untold;
  s.store->admit(std::move(batch), [this, &s, weak, round, first](const AdmitResult& r) {
    asio::post(io, [this, &s, weak, round, first, r] {
      --s.untold;
      const RecordDigest& digest = r.digest;
      if (!r.durable) return abort_session(s, "round " + std::to_string(round) + ": " + r.error);
      const auto l = weak.lock();
      if (!l || !l->is_open()) return;  // it asks again when it reconnects: the same batch is told again
      const auto signature = signing.sign(admission_statement(s.config.session, round, first, digest));
      std::vector<std::uint8_t> payload(digest.begin(), digest.end());
      payload.insert(payload.end(), signature.begin(), signature.end());
      l->send(FrameType::admitted, round, payload);
    });
  });
}

void TcpShuffler::Impl::open_state(ServedSession& s) {
  const std::string session = to_hex(s.config.session);
  if (s.config.rounds.size() != 1)
    throw std::invalid_argument("--state-dir keeps sessions of one round (a collection round); session " + session.substr(0, 8) +
                                " has " + std::to_string(s.config.rounds.size()));
  if (!s.config.shuffler_signer || *s.config.shuffler_signer != signing.public_key())
    throw std::invalid_argument("--state-dir: session " + session.substr(0, 8) + "'s config does not name this shuffler's signing key "
                                "(shuffler_signing_key), which its admission receipts are checked against: write it with `session --shuffler-key` "
                                "given the shuffler's key file or its KEY:SIGNING_KEY token");
  s.store = open_state_directory(std::filesystem::path(options.state_dir) / session, s.config.session, s.digest, "shuffler",
                                 {.durability = options.durability, .group_commit = true, .max_bytes = 0});
  if (const auto how = s.store->ended())
    throw std::runtime_error("session " + session.substr(0, 8) + " has ended already (" + *how + "; its state directory says so)");
  std::size_t batches = 0;
  for (const Admission& kept : s.store->admitted(0)) {
    if (auto fault = s.rounds->restore(kept))
      throw std::runtime_error("session " + session.substr(0, 8) + ": its state directory keeps a batch the round refuses: " + fault->text);
    // Its link is away, as one lost after it submitted: if the round closes before it is back, it
    // is owed the result (through a chain, a party needs it for its verdict).
    s.round_timers.away_after_submit[kept.first] = static_cast<std::uint32_t>(kept.counts.size());
    ++batches;
  }
  if (batches == 0) return;
  log(s.tag + "round 0: " + std::to_string(batches) + " batch" + (batches == 1 ? "" : "es") +
      " taken back from the state directory");
}

asio::awaitable<void> TcpShuffler::Impl::accept_loop() {
  co_await detail::accept_loop(
      acceptor, [this](std::shared_ptr<SecureLink> link) { return serve(std::move(link)); },
      [this](const std::string& kind, const std::string& line) { log_limited(kind, line); });
}

TcpShuffler::TcpShuffler(KeyPair keys, std::vector<SessionConfig> sessions, const std::string& host, std::uint16_t port,
                         Logger log, ShufflerOptions options)
    : impl_(std::make_unique<Impl>()) {
  if (options.max_unauthenticated < 1) throw std::invalid_argument("max_unauthenticated must be at least 1");
  impl_->options = options;
  if (sessions.empty()) throw std::invalid_argument("TcpShuffler: at least one session is needed");
  impl_->set_up(std::move(keys), std::move(log), options.log_lines_per_second, options.max_unauthenticated);
  for (auto& config : sessions) {
    if (config.rounds.empty()) throw std::invalid_argument("TcpShuffler: session " + to_hex(config.session) + " declares no rounds");
    if (config.shuffler_key != impl_->keys.public_key())
      throw std::invalid_argument("TcpShuffler: the shuffler key does not match session " + to_hex(config.session) +
                                  "'s shuffler_key");
    if (impl_->find(config.session)) throw std::invalid_argument("TcpShuffler: session " + to_hex(config.session) + " given twice");
    auto s = std::make_unique<Impl::ServedSession>();
    s->tag = "session " + to_hex(config.session).substr(0, 8) + ": ";
    s->config = std::move(config);
    Impl::compute_statics(*s, impl_->keys);
    s->rounds = std::make_unique<detail::SessionRounds>(s->config);
    s->digest = s->config.digest();
    s->round_timers.timer = std::make_unique<asio::steady_timer>(impl_->io);
    s->round_timers.clock = detail::RoundClock(s->config.deadline, s->config.round_limit());
    if (s->config.mix_chain.empty() && s->config.shuffler_signer && *s->config.shuffler_signer != impl_->signing.public_key())
      // The analyzer checks every commitment to a batch against that key (net/batch_commitment.hpp).
      throw std::invalid_argument("session " + to_hex(s->config.session).substr(0, 8) +
                                  ": its config's shuffler_signing_key is not the one this shuffler's key file derives");
    if (!s->config.mix_chain.empty()) {
      const std::size_t further = s->config.mix_chain.size() - 1;
      if (options.hop_addresses.size() != further)
        throw std::invalid_argument("session " + to_hex(s->config.session).substr(0, 8) + " has a chain of " +
                                    std::to_string(further + 1) + " mix servers: the shuffler (its entry) needs the addresses of the " +
                                    std::to_string(further) + " further ones (--hop-addresses), got " +
                                    std::to_string(options.hop_addresses.size()));
      for (const auto& a : options.hop_addresses) (void)split_address(a, "mix server address");
      if (impl_->signing.public_key() != s->config.mix_chain[0].signer)
        throw std::invalid_argument("session " + to_hex(s->config.session).substr(0, 8) +
                                    ": mix_chain[0]'s signing key is not the one the shuffler's key file derives");
      if (s->config.mix == MixKind::verifiable && elgamal_key_of(impl_->keys).public_key.bytes != s->config.mix_chain[0].elgamal->key)
        throw std::invalid_argument("session " + to_hex(s->config.session).substr(0, 8) +
                                    ": mix_chain[0]'s ElGamal key is not the one the shuffler's key file derives");
      s->chain.hop0 = std::make_unique<MixHop>(0, impl_->keys, impl_->signing);
      // Made once for the session; a key the servers made must open now, not when a round needs it.
      if (s->config.mix == MixKind::verifiable) s->chain.share = server_share(s->config, impl_->keys, 0);
      s->chain.hops = detail::HopLinks(impl_->io, s->config, s->digest, impl_->keys, impl_->rng, options.hop_addresses,
                                 [impl = impl_.get(), tag = s->tag](const std::string& line) { impl->log(tag + line); },
                                 std::max(options.reconnect_grace, std::chrono::milliseconds(0)));
    }
    if (!options.state_dir.empty()) impl_->open_state(*s);
    // A collection window opens now, so that it closes on time even if nobody comes; a round that
    // took batches back from the state directory has opened too. Its clock starts with the io thread.
    if (s->config.close_at) s->rounds->start();
    if (s->rounds->started())
      asio::post(impl_->io, [impl = impl_.get(), &served = *s] {
        if (!served.rounds->finished()) impl->start_round_timer(served);
      });
    impl_->sessions.push_back(std::move(s));
  }
  if (options.listening_socket < 0) {
    detail::listen_on(impl_->acceptor, host, port);
    return;
  }
  int listening = 0, type = 0;
  socklen_t len = sizeof listening;
  const bool accepts = ::getsockopt(options.listening_socket, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) == 0 && listening != 0;
  len = sizeof type;
  if (!accepts || ::getsockopt(options.listening_socket, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_STREAM)
    throw std::invalid_argument("descriptor " + std::to_string(options.listening_socket) + " is not a listening TCP socket");
  sockaddr_storage addr{};
  len = sizeof addr;
  if (::getsockname(options.listening_socket, reinterpret_cast<sockaddr*>(&addr), &len) != 0 ||
      (addr.ss_family != AF_INET && addr.ss_family != AF_INET6))
    throw std::invalid_argument("descriptor " + std::to_string(options.listening_socket) + " is not a listening TCP socket");
  impl_->acceptor.assign(addr.ss_family == AF_INET ? tcp::v4() : tcp::v6(), options.listening_socket);
}

TcpShuffler::~TcpShuffler() = default;

std::uint16_t TcpShuffler::port() const { return impl_->acceptor.local_endpoint().port(); }

std::string TcpShuffler::host() const { return impl_->acceptor.local_endpoint().address().to_string(); }

std::vector<ShufflerReport> TcpShuffler::run() {
  impl_->run_until_stopped(impl_->accept_loop());
  std::vector<ShufflerReport> out;
  for (auto& s : impl_->sessions) {
    s->rounds->abort("the shuffler was stopped");  // no effect on a session that has ended
    out.push_back(s->rounds->report());
    if (out.back().error.empty()) out.back().error = s->chain.chain_error;
    // The last result sent and never confirmed: with a state directory the session is not over,
    // and a shuffler started again on it delivers the same batch again.
    if (out.back().error.empty() && s->store && !s->store->ended()) {
      out.back().error = "the analyzer did not confirm the session's result; the state directory keeps every batch: start the shuffler "
                         "again on it to deliver the round again";
      impl_->log(s->tag + out.back().error);
    }
    out.back().hops = std::move(s->chain.hop_reports);
  }
  return out;
}

void TcpShuffler::stop() {
  impl_->stop([this] {
    for (auto& s : impl_->sessions) impl_->abort_session(*s, "the shuffler was stopped");
  });
}

void TcpShuffler::close_windows() {
  asio::post(impl_->io, [impl = impl_.get()] {
    for (auto& s : impl->sessions) {
      if (!s->config.close_at || !s->rounds->started() || s->rounds->finished() || s->rounds->round() != 0 || s->chain.relaying) continue;
      s->round_timers.clock.close_at(std::chrono::steady_clock::now());
      impl->log(s->tag + "round 0: the collection window is closed now, before its time");
      impl->arm_round_timer(*s);
    }
  });
}

}  // namespace shufflempc::net
