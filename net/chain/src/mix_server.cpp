// TcpMixServer: one io_context thread, one coroutine per connection (only the entry's are admitted),
// one state per session.
#include "shufflempc/net/mix_server.hpp"

#include <sodium.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <stdexcept>
#include <thread>

#include "shufflempc/error.hpp"
#include "shufflempc/merkle.hpp"
#include "shufflempc/mixnet/decryption.hpp"
#include "shufflempc/mixnet/shuffle_proof.hpp"
#include "shufflempc/mixnet/transcript.hpp"
#include "shufflempc/net/detail/link.hpp"
#include "shufflempc/net/detail/rate_limited_log.hpp"
#include "shufflempc/net/detail/session_host.hpp"
#include "shufflempc/net/fault.hpp"
#include "shufflempc/net/verifiable.hpp"
#include "shufflempc/parallel.hpp"

namespace shufflempc::net {

using detail::SecureLink;
using detail::tcp;

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

struct TcpMixServer::Impl : detail::SessionHost {
  struct Served {
    SessionConfig config;
    ConfigDigest digest{};
    std::string tag;
    std::uint32_t hop = 0;
    std::unique_ptr<MixHop> mixer;
    std::optional<mixnet::ElGamalKey> share;  // a verifiable chain's: this server's share of the round key
    detail::IdentityProof entry_proof{};
    Limits limits;
    std::uint32_t next_round = 0;
    bool ended = false;
    bool goodbye = false;  // the entry said the session is over (an abort frame with no reason)
    MixServerReport report;
    // The last round mixed: the batch it took (its digest) and the answer, sent again to an entry
    // that lost its link before it arrived.
    struct Last {
      bool valid = false;
      std::uint32_t round = 0;
      BatchDigest received{};
      FrameType type = FrameType::mixed;
      std::uint32_t width = 0, count = 0;
      std::vector<std::uint8_t> payload;
    } last;
    // A verifiable chain: the last round's output as this server made it, and the last round it
    // decrypted (the evidence it took and its answer).
    std::vector<std::uint8_t> shuffled_output;
    Last decrypted;
    BatchDigest decrypted_evidence{};
    std::shared_ptr<SecureLink> link;  // the entry's current link
    std::unique_ptr<asio::steady_timer> idle;
    bool computing = false;  // a verifiable round's hop or decryption is being computed (on a worker thread)
  };

  // The io thread, keys, log, CSPRNG and unauthenticated connections: detail::SessionHost.
  MixServerOptions options;
  std::vector<std::unique_ptr<Served>> sessions;

  Served* find(const SessionId& id) {
    for (auto& s : sessions)
      if (s->config.session == id) return s.get();
    return nullptr;
  }

  std::chrono::milliseconds idle_limit(const Served& s) const {
    return options.idle_timeout.count() > 0 ? options.idle_timeout : s.config.round_limit() + std::chrono::seconds(5);
  }

  // A session ends when its last round is mixed (error empty) or when it fails.
  void end(Served& s, const std::string& error) {
    if (s.ended) return;
    s.ended = true;
    s.report.error = error;
    if (!error.empty()) log(s.tag + "session failed: " + error);
    s.idle->cancel();
    maybe_stop();
  }

  // Whether nothing more can come for `s`: it failed, or its entry said goodbye after the last round.
  static bool closed(const Served& s) { return s.ended && (s.goodbye || !s.report.error.empty()); }

  // Stops once every session has ended and no link is open. A session whose last answer went out
  // but whose entry has not said goodbye is given a while for the entry to dial again and fetch
  // that answer (its link may have been cut before it arrived).
  void maybe_stop() {
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

  void arm_idle(Served& s) {
    s.idle->expires_after(idle_limit(s));
    s.idle->async_wait([this, &s, round = s.next_round](std::error_code ec) {
      if (ec || s.ended || s.next_round != round) return;
      end(s, "round " + std::to_string(round) + ": no batch from the entry within " + std::to_string(idle_limit(s).count()) + " ms");
      if (s.link) s.link->close();
    });
  }

  void send_last(Served& s, SecureLink& link) { link.send(s.last.type, s.last.round, s.last.width, s.last.count, s.last.payload); }

  unsigned threads() const { return options.threads == 0 ? hardware_threads() : options.threads; }

  static bool verifiable(const Served& s) { return s.config.mix == MixKind::verifiable; }

  // After round r: the session ends with its last round, unless that round still has to be decrypted.
  void after_round(Served& s, std::uint32_t r, bool decrypt_next) {
    s.next_round = r + 1;
    if (s.next_round == s.config.rounds.size() && !decrypt_next) end(s, "");
    else arm_idle(s);
  }

  // Runs `work` on a thread of its own while this coroutine says on `link`, every quarter of the
  // session's deadline, that this server is alive and computing round `round`: a server that
  // proves a large batch on a slow or loaded machine is not taken by the entry for a dead one,
  // while one that stops (SIGSTOP) says nothing and is named at the deadline. The entry waits for
  // such words up to the round's limit (docs/network.md, "Deadlines"). The session's state is
  // touched only here, on the io thread, before and after.
  template <class Work>
  asio::awaitable<void> compute(Served& s, SecureLink& link, std::uint32_t round, Work work) {
    s.computing = true;
    std::atomic<bool> finished{false};
    std::exception_ptr error;
    {
      std::jthread worker([&] {
        try {
          if (options.computing) options.computing(round);
          work();
        } catch (...) {
          error = std::current_exception();
        }
        finished = true;
      });
      const auto every = std::max(std::chrono::milliseconds(1), s.config.deadline / 4);
      auto next_word = std::chrono::steady_clock::now() + every;
      asio::steady_timer tick(io);
      while (!finished) {  // polled: the worker never touches the io_context
        tick.expires_after(std::chrono::milliseconds(2));
        std::error_code ignored;
        co_await tick.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
        if (!finished && std::chrono::steady_clock::now() >= next_word) {
          if (link.is_open()) link.send(FrameType::alive, round, {});
          next_word += every;
        }
      }
    }
    s.computing = false;
    if (error) std::rethrow_exception(error);
  }

  // A refusal of the entry's frame for round `r` (naming the hop at fault, where one is).
  static Fault refusal(FaultCode code, std::uint32_t r, std::string text, std::optional<std::size_t> hop = std::nullopt) {
    return Fault{.code = code, .text = std::move(text), .round = r, .hop = hop};
  }

  // A verifiable chain's shuffle frame: re-encrypt, permute, prove (and send it all back).
  asio::awaitable<std::optional<Fault>> take_shuffle(Served& s, SecureLink& link, detail::Frame& f) {
    const std::uint32_t r = f.header.round;
    const std::string round = "round " + std::to_string(r);
    const MessageBatch batch = MessageBatch::from_bytes(f.header.width, std::move(f.payload));
    if (s.last.valid && r == s.last.round && s.last.type == FrameType::shuffled) {
      if (batch_digest(batch) != s.last.received)
        co_return refusal(FaultCode::duplicate, r, round + " was shuffled already, with another batch: a server shuffles each round once");
      send_last(s, link);
      co_return std::nullopt;
    }
    if (r != s.next_round) co_return refusal(FaultCode::wrong_round, r, round + " is out of order: the next round to shuffle is " + std::to_string(s.next_round));
    if (r >= s.config.rounds.size())
      co_return refusal(FaultCode::wrong_round, r, round + ": the session has " + std::to_string(s.config.rounds.size()) + " rounds");
    const RoundShape& shape = s.config.rounds[r];
    // The chain carries the records' ciphertexts; their senders' proofs stay with the entry's evidence.
    const std::size_t limbs = chain_limbs(shape.width), cw = limbs * mixnet::ciphertext_bytes;
    if (limbs == 0 || f.header.width != cw)
      co_return refusal(FaultCode::wrong_width, r, round + ": records of " + std::to_string(f.header.width) + " bytes, this chain takes " + std::to_string(cw));
    mixnet::CiphertextBatch in;
    try {
      in = mixnet::CiphertextBatch::from_bytes(limbs, batch.bytes(), round + "'s batch");
    } catch (const std::invalid_argument& e) {
      co_return refusal(FaultCode::malformed, r, e.what());
    }
    const mixnet::Point key = round_key(s.config, shape.delivery).key();
    const mixnet::ProofContext ctx{s.config.session, r, s.hop, static_cast<std::uint32_t>(shape.record_width)};
    // Signed: the hop is this server's (its Ed25519 key in the session config), and nobody else's.
    mixnet::HopTranscript hop;
    co_await compute(s, link, r, [&] {
      hop = mixnet::make_hop(ctx, key, in, signing, rng, rng, threads(), [&](mixnet::CiphertextBatch& out) {
        if (options.tamper) options.tamper(r, out);
      });
    });
    s.shuffled_output = hop.output.to_bytes();
    s.last.valid = true;
    s.last.type = FrameType::shuffled;
    s.last.round = r;
    s.last.received = batch_digest(batch);
    s.last.width = static_cast<std::uint32_t>(cw);
    s.last.count = static_cast<std::uint32_t>(hop.output.size());
    s.last.payload.clear();
    mixnet::append_hop(s.last.payload, hop);
    HopReport rep;
    rep.place = {s.config.session, r, s.hop};
    rep.records_in = in.size();
    rep.records_out = hop.output.size();
    rep.received = s.last.received;
    rep.sent = batch_digest(cw, s.shuffled_output);
    s.report.rounds.push_back(rep);
    send_last(s, link);
    after_round(s, r, in.size() > 0);
    if (options.gone_after_mix) {
      std::error_code ignored;
      acceptor.close(ignored);
      link.close_after_flush();
      end(s, "went away after the mix (fault injection)");
    }
    co_return std::nullopt;
  }

  // A verifiable chain's decrypt frame: this server's proved shares of the chain's output, once the
  // evidence shows its own hop as it made it and every other hop's proof holds.
  asio::awaitable<std::optional<Fault>> take_decrypt(Served& s, SecureLink& link, detail::Frame& f) {
    const std::uint32_t r = f.header.round;
    const std::string round = "round " + std::to_string(r);
    const BatchDigest digest = merkle::leaf(f.payload);  // the evidence as one record: its hash
    if (s.decrypted.valid && s.decrypted.round == r) {
      if (digest != s.decrypted_evidence)
        co_return refusal(FaultCode::duplicate, r, round + " was decrypted already, with other evidence: a server decrypts each round once");
      link.send(FrameType::decrypted, r, s.decrypted.width, s.decrypted.count, s.decrypted.payload);
      co_return std::nullopt;
    }
    if (!(s.last.valid && s.last.round == r && s.last.type == FrameType::shuffled))
      co_return refusal(FaultCode::wrong_round, r, round + ": nothing to decrypt here (this server decrypts only the output of the round it shuffled last)");
    const RoundShape& shape = s.config.rounds[r];
    const std::size_t limbs = chain_limbs(shape.width), cw = limbs * mixnet::ciphertext_bytes;
    // The evidence's checks and the shares, computed off the io thread: the answer or the refusal.
    std::optional<Fault> refused;
    mixnet::DecryptionShares shares;
    co_await compute(s, link, r, [&] { refused = decrypt_evidence(s, r, shape, cw, f, shares); });
    if (refused) co_return refused;
    s.decrypted.valid = true;
    s.decrypted.round = r;
    // Items of 32 bytes: the shares, then the proof's A, B and s.
    s.decrypted.width = static_cast<std::uint32_t>(mixnet::point_bytes);
    s.decrypted.count = static_cast<std::uint32_t>(shares.shares.size() + mixnet::DecryptionShares::proof_bytes / mixnet::point_bytes);
    s.decrypted.payload = shares.to_bytes();
    s.decrypted_evidence = digest;
    link.send(FrameType::decrypted, r, s.decrypted.width, s.decrypted.count, s.decrypted.payload);
    if (r + 1 == s.config.rounds.size()) end(s, "");
    co_return std::nullopt;
  }

  // A decrypt frame's evidence checked (its own hop as this server made it, every sender's proof,
  // every other hop) and this server's proved shares of the last hop's output: the refusal, or
  // none with `shares` made. Reads the session's state only (it runs off the io thread).
  std::optional<Fault> decrypt_evidence(const Served& s, std::uint32_t r, const RoundShape& shape, std::size_t cw, const detail::Frame& f,
                                        mixnet::DecryptionShares& shares) {
    const std::string round = "round " + std::to_string(r);
    mixnet::RoundTranscript rt;
    try {
      rt = mixnet::decode_evidence(f.payload, r, shape.delivery, shape.record_width, round_key(s.config, shape.delivery), s.config.mix_chain.size(),
                                   f.header.count);
    } catch (const std::invalid_argument& e) {
      return refusal(FaultCode::malformed, r, e.what());
    }
    if (!rt.decryption.empty()) return refusal(FaultCode::malformed, r, round + ": the evidence to decrypt already carries decryption shares");
    if (rt.hops[s.hop].output.to_bytes() != s.shuffled_output)
      return refusal(FaultCode::output_mismatch, r, round + ": the evidence's hop " + std::to_string(s.hop) + " is not the batch this server sent",
                     s.hop);
    if (batch_digest(cw, rt.hops[s.hop - 1].output.to_bytes()) != s.last.received)
      return refusal(FaultCode::input_mismatch, r,
                     round + ": the evidence's hop " + std::to_string(s.hop - 1) + " is not the batch this server received", s.hop - 1);
    // Nothing is decrypted from a batch with a record its sender did not prove (a re-randomized copy
    // of another's record would have its plaintext shown twice).
    if (auto fault = mixnet::check_knowledge(knowledge_context(s.config, r, shape.delivery), rt.input, rt.input_proofs, threads()); !fault.empty())
      return refusal(FaultCode::proof_fails, r, round + ": the evidence's input is not the senders': " + fault);
    if (auto faults = mixnet::hop_faults(s.config.session, rt, signers_of(s.config.mix_chain), threads(), s.hop); !faults.empty())
      return refusal(FaultCode::proof_fails, r, round + ": " + faults.front());
    const mixnet::ProofContext dctx{s.config.session, r, static_cast<std::uint32_t>(rt.hops.size()), static_cast<std::uint32_t>(shape.record_width)};
    shares = mixnet::decryption_shares(dctx, s.hop, *s.share, rt.hops.back().output, rng, threads());
    return std::nullopt;
  }

  // One mix frame: the answer, or the reason the link ends.
  std::optional<Fault> take(Served& s, SecureLink& link, detail::Frame& f) {
    const std::uint32_t r = f.header.round;
    const std::string round = "round " + std::to_string(r);
    MessageBatch batch = MessageBatch::from_bytes(f.header.width, std::move(f.payload));
    if (s.last.valid && r == s.last.round) {
      if (batch_digest(batch) != s.last.received)
        return refusal(FaultCode::duplicate, r, round + " was mixed already, with another batch: a server mixes each round once");
      send_last(s, link);  // the entry lost its link before the answer: the same answer again
      return std::nullopt;
    }
    if (r != s.next_round) return refusal(FaultCode::wrong_round, r, round + " is out of order: the next round to mix is " + std::to_string(s.next_round));
    if (r >= s.config.rounds.size()) return refusal(FaultCode::wrong_round, r, round + ": the session has " + std::to_string(s.config.rounds.size()) + " rounds");
    const std::size_t width = s.config.rounds[r].width - onion::layer_overhead * s.hop;
    if (f.header.width != width)
      return refusal(FaultCode::wrong_width, r, round + ": records of " + std::to_string(f.header.width) + " bytes, this hop takes " + std::to_string(width));
    auto mixed = s.mixer->mix(batch, s.config.session, r, rng);
    const auto& rep = mixed.report;
    if (rep.not_opened + rep.duplicates > 0)
      log(s.tag + round + ": hop " + std::to_string(s.hop) + " dropped " + std::to_string(rep.not_opened) + " record(s) that did not open and " +
          std::to_string(rep.duplicates) + " copies");
    s.last.valid = true;
    s.last.round = r;
    s.last.received = rep.received;
    s.last.width = static_cast<std::uint32_t>(mixed.records.width());
    s.last.count = static_cast<std::uint32_t>(mixed.records.count());
    s.last.payload = encode_reports(std::span(&rep, 1));
    s.last.payload.insert(s.last.payload.end(), mixed.records.bytes().begin(), mixed.records.bytes().end());
    s.report.rounds.push_back(rep);
    send_last(s, link);
    s.next_round = r + 1;
    if (s.next_round == s.config.rounds.size()) end(s, "");
    else arm_idle(s);
    return std::nullopt;
  }

  // One frame from the entry: false when the link is done with (a goodbye, an abort, a refusal).
  asio::awaitable<bool> entry_frame(Served& s, SecureLink& link, detail::Frame& f, const std::string& peer) {
    if (f.header.type == FrameType::abort) {
      s.goodbye = true;
      if (f.payload.empty()) {  // goodbye
        end(s, s.ended ? "" : "the entry ended the session before round " + std::to_string(s.next_round));
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
    else refused = take(s, link, f);
    if (!refused) co_return true;
    const std::string& why = refused->text;
    log(s.tag + "the entry (" + peer + "): refused: " + why);
    link.send(FrameType::abort, r, std::span(reinterpret_cast<const std::uint8_t*>(why.data()), why.size()));
    link.close_after_flush();
    co_return false;
  }

  asio::awaitable<void> serve(std::shared_ptr<SecureLink> link) {
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

  asio::awaitable<void> accept_loop() {
    co_await detail::accept_loop(
        acceptor, [this](std::shared_ptr<SecureLink> link) { return serve(std::move(link)); },
        [this](const std::string& kind, const std::string& line) { log_lines.limited(kind, line); });
  }
};

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
    im.sessions.push_back(std::move(s));
  }
  detail::listen_on(im.acceptor, host, port);
}

TcpMixServer::~TcpMixServer() = default;

std::uint16_t TcpMixServer::port() const { return impl_->acceptor.local_endpoint().port(); }

std::vector<MixServerReport> TcpMixServer::run() {
  for (auto& s : impl_->sessions) impl_->arm_idle(*s);
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
