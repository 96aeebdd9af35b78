// The key generation over TCP: the coordinator's steps (generate_key) and a further server's
// (TcpDkgServer), each one io thread with a coroutine per link.
#include "shufflempc/net/dkg.hpp"

#include <sodium.h>

#include <algorithm>
#include <stdexcept>

#include "shufflempc/error.hpp"
#include "shufflempc/little_endian.hpp"
#include "shufflempc/net/detail/link.hpp"
#include "shufflempc/net/detail/session_host.hpp"
#include "shufflempc/net/mix_hop.hpp"

namespace shufflempc::net {

using detail::SecureLink;
using detail::tcp;

namespace {

constexpr std::uint32_t final_step = 5;  // the transcript, checked and acknowledged

// Frames of a key generation: a few kilobytes a deal (k <= 64 servers, t <= k).
Limits dkg_limits() {
  Limits l;
  l.max_payload = 4u << 20;
  l.max_parties = 0;
  return l;
}

ConfigDigest digest_of(const mixnet::DkgSetup& setup) {
  const auto d = setup.digest();
  ConfigDigest c{};
  std::copy(d.begin(), d.end(), c.begin());
  return c;
}

std::string step_name(std::uint32_t step) {
  return step == final_step ? std::string("the transcript") : mixnet::to_string(static_cast<mixnet::DkgStep>(step));
}

std::span<const std::uint8_t> bytes_of(const std::string& s) { return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}; }

}  // namespace

mixnet::DkgSetup dkg_setup(const SessionConfig& config, std::size_t threshold) {
  mixnet::DkgSetup s;
  s.session = config.session;
  s.threshold = threshold;
  for (const auto& m : config.mix_chain) {
    s.box_keys.push_back(m.key);
    s.signers.push_back(m.signer);
  }
  return s;
}

std::vector<std::uint8_t> encode_dkg_step(const std::vector<std::optional<mixnet::DkgMessage>>& messages) {
  std::vector<std::uint8_t> out;
  for (const auto& m : messages) {
    out.push_back(m ? 1 : 0);
    if (!m) continue;
    const auto b = m->to_bytes();
    std::uint8_t n[4];
    store_le<std::uint32_t>(n, static_cast<std::uint32_t>(b.size()));
    out.insert(out.end(), n, n + 4);
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

std::vector<std::optional<mixnet::DkgMessage>> decode_dkg_step(std::span<const std::uint8_t> bytes, std::size_t servers, const std::string& what) {
  std::vector<std::optional<mixnet::DkgMessage>> out(servers);
  std::size_t at = 0;
  for (std::size_t i = 0; i < servers; ++i) {
    if (at >= bytes.size()) throw std::invalid_argument(what + ": ends before server " + std::to_string(i) + "'s message");
    const std::uint8_t present = bytes[at++];
    if (present > 1) throw std::invalid_argument(what + ": server " + std::to_string(i) + "'s presence byte is " + std::to_string(present));
    if (present == 0) continue;
    if (bytes.size() - at < 4) throw std::invalid_argument(what + ": ends in server " + std::to_string(i) + "'s length");
    const std::uint32_t n = load_le<std::uint32_t>(bytes.data() + at);
    at += 4;
    if (bytes.size() - at < n) throw std::invalid_argument(what + ": server " + std::to_string(i) + "'s message ends early");
    out[i] = mixnet::DkgMessage::from_bytes(bytes.subspan(at, n), what + ": server " + std::to_string(i) + "'s message");
    at += n;
  }
  if (at != bytes.size()) throw std::invalid_argument(what + ": " + std::to_string(bytes.size() - at) + " bytes too many");
  return out;
}

// ---------------------------------------------------------------------------------------------
// The coordinator.

KeyGeneration generate_key(const mixnet::DkgSetup& setup, const KeyPair& keys, const std::vector<std::string>& addresses,
                           std::chrono::milliseconds deadline, Logger log, ServerFrameTap tap) {
  if (auto why = setup.check(); !why.empty()) throw std::invalid_argument("the key generation: " + why);
  const std::size_t k = setup.servers();
  if (addresses.size() + 1 != k)
    throw std::invalid_argument("the key generation of a chain of " + std::to_string(k) + " servers needs the addresses of the " +
                                std::to_string(k - 1) + " further ones, got " + std::to_string(addresses.size()));
  if (keys.public_key() != setup.box_keys[0])
    throw std::invalid_argument("the key generation is coordinated with the shuffler's key file (server 0 of the chain)");
  SystemRng rng;
  const mixnet::DkgParticipant self(setup, 0, keys.secret_key(), signing_key_of(keys), rng);
  KeyGeneration g;
  g.transcript.setup = setup;
  g.transcript.messages.resize(k);
  auto note = [&](const std::string& line) {
    g.notes.push_back(line);
    if (log) log(line);
  };
  const ConfigDigest digest = digest_of(setup);
  asio::io_context io;
  std::vector<std::shared_ptr<SecureLink>> links(k);
  std::vector<char> gone(k, 0);
  auto name = [&](std::size_t h) { return "mix server " + std::to_string(h) + " (" + addresses[h - 1] + ")"; };

  // One further server's answer to one step: its frame, or the line saying why not (the server is then gone).
  auto ask = [&](std::size_t h, std::uint32_t step, std::span<const std::uint8_t> payload) -> asio::awaitable<std::optional<detail::Frame>> {
    bool timed_out = false;
    asio::steady_timer timer(io, deadline);
    timer.async_wait([&](std::error_code ec) {
      if (ec) return;
      timed_out = true;
      if (links[h]) links[h]->close();
    });
    try {
      if (step == 1) {
        links[h] = std::make_shared<SecureLink>(tcp::socket(io), dkg_limits());
        links[h]->set_peer_name(name(h));
        const auto [host, port] = split_address(addresses[h - 1], "--dkg-addresses");
        tcp::resolver resolver(io);
        const auto endpoints = co_await resolver.async_resolve(host, std::to_string(port), asio::use_awaitable);
        if (timed_out) throw std::system_error(asio::error::timed_out);
        co_await asio::async_connect(links[h]->socket(), endpoints, asio::use_awaitable);
        co_await links[h]->connect_as(setup.session, digest, entry_id, keys, setup.box_keys[h], rng);
        if (tap) links[h]->set_tap([tap, h](OutgoingFrame& f) { return tap(h, f); });
      }
      links[h]->send(FrameType::dkg, step, payload);
      detail::Frame f = co_await links[h]->receive();
      timer.cancel();
      co_return f;
    } catch (const std::exception& e) {
      timer.cancel();
      note(name(h) + " is left out of the key generation at its " + step_name(step) + ": " +
           (timed_out ? "no answer within " + std::to_string(deadline.count()) + " ms" : std::string(e.what())));
    }
    if (links[h]) links[h]->close();
    gone[h] = 1;
    g.left_out.push_back(h);
    co_return std::nullopt;
  };

  std::exception_ptr failure;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        for (std::uint32_t step = 1; step <= final_step; ++step) {
          std::vector<std::uint8_t> payload;
          std::vector<std::optional<mixnet::DkgMessage>> previous(k);
          if (step == 3 || step == 4)
            for (std::size_t i = 0; i < k; ++i) previous[i] = g.transcript.messages[i][step - 2];
          switch (step) {
            case 1: payload = setup.to_bytes(); g.transcript.messages[0][0] = self.commit(); break;
            case 2: g.transcript.messages[0][1] = self.deal(); break;
            case 3: payload = encode_dkg_step(previous); g.transcript.messages[0][2] = self.complain(previous); break;
            case 4: payload = encode_dkg_step(previous); g.transcript.messages[0][3] = self.justify(previous); break;
            default: {
              g.outcome = mixnet::dkg_outcome(g.transcript, "the key generation");
              for (const auto& [who, why] : g.outcome.disqualified)
                note("server " + std::to_string(who) + (who == 0 ? "" : " (" + addresses[who - 1] + ")") + " is disqualified: " + why);
              (void)mixnet::dkg_share(g.transcript, g.outcome, 0, keys.secret_key());  // the coordinator's own share holds
              g.transcript.endorsements.assign(k, std::nullopt);
              g.transcript.endorsements[0] = self.endorse(g.transcript);
              payload = g.transcript.to_bytes();
            }
          }
          // Every server still taking part answers at once; this coroutine waits for the last.
          std::vector<std::optional<detail::Frame>> answers(k);
          std::size_t pending = 0;
          asio::steady_timer all_in(io, asio::steady_timer::time_point::max());
          for (std::size_t h = 1; h < k; ++h) {
            if (gone[h]) continue;
            ++pending;
            asio::co_spawn(
                io,
                [&, h, step]() -> asio::awaitable<void> {
                  answers[h] = co_await ask(h, step, payload);
                  if (--pending == 0) all_in.cancel();
                },
                asio::detached);
          }
          if (pending > 0) {
            std::error_code ignored;
            co_await all_in.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
          }
          for (std::size_t h = 1; h < k; ++h) {
            if (!answers[h]) continue;
            const detail::Frame& f = *answers[h];
            std::string fault;
            if (f.header.type == FrameType::abort)
              fault = "it refused: " + std::string(f.payload.begin(), f.payload.end());
            else if (f.header.type != FrameType::dkg_answer || f.header.round != step)
              fault = "it answered with a frame that is not its " + step_name(step);
            else if (step == final_step) {
              // Its consent: its signature of the outcome, which every process loading the config checks.
              Signature endorsement{};
              if (f.payload.size() != endorsement.size()) {
                fault = "its endorsement of the outcome is " + std::to_string(f.payload.size()) + " bytes, not " + std::to_string(endorsement.size());
              } else {
                std::copy(f.payload.begin(), f.payload.end(), endorsement.begin());
                if (!mixnet::signature_holds(endorsement, mixnet::dkg_outcome_statement(g.transcript, g.outcome), setup.signers[h]))
                  fault = "its endorsement of the outcome is not its signature of it";
                else
                  g.transcript.endorsements[h] = endorsement;
              }
            } else {
              try {
                auto m = mixnet::DkgMessage::from_bytes(f.payload, "its " + step_name(step));
                fault = mixnet::check_dkg_message(setup, static_cast<mixnet::DkgStep>(step), h, m);
                if (fault.empty()) g.transcript.messages[h][step - 1] = std::move(m);
              } catch (const std::invalid_argument& e) {
                fault = e.what();
              }
            }
            if (fault.empty()) continue;
            note(name(h) + " is left out of the key generation at its " + step_name(step) + ": " + fault);
            links[h]->close();
            gone[h] = 1;
            g.left_out.push_back(h);
          }
        }
        for (auto& l : links)
          if (l && l->is_open()) l->close_after_flush();
        std::sort(g.left_out.begin(), g.left_out.end());
      },
      [&](std::exception_ptr e) {
        failure = e;
        if (!e) return;
        // No key (fewer than t qualified, say): the further servers are told by their links closing,
        // not left to wait out their timeout.
        for (auto& l : links)
          if (l) l->close();
      });
  io.run();
  if (failure) std::rethrow_exception(failure);
  return g;
}

void KeyGeneration::require_everyone() const {
  if (left_out.empty()) return;
  std::string all;
  for (const auto& n : notes) all += (all.empty() ? "" : "; ") + n;
  throw std::runtime_error("the key generation left out " + std::to_string(left_out.size()) + " of the chain's servers (" + all +
                           "): start each further server with mix-server --dkg and try again");
}

// ---------------------------------------------------------------------------------------------
// A further server.

struct TcpDkgServer::Impl : detail::SessionHost {
  PublicKey shuffler{};
  DkgServerOptions options;
  DkgServed served;
  detail::IdentityProof entry_proof{};
  std::unique_ptr<mixnet::DkgParticipant> part;
  std::array<std::optional<mixnet::DkgMessage>, mixnet::dkg_steps> sent;
  std::uint32_t next_step = 1;
  bool taken = false;  // a coordinator authenticated: one key generation per run
  std::unique_ptr<asio::steady_timer> idle;

  void finish(const std::string& error) {
    if (!error.empty() && served.error.empty()) served.error = error;
    idle->cancel();
    io.stop();
  }

  void arm() {
    idle->expires_after(options.timeout);
    idle->async_wait([this](std::error_code ec) {
      if (ec) return;
      if (served.outcome) return finish("");
      finish(next_step == 1 && !taken ? "no coordinator within " + std::to_string(options.timeout.count()) + " ms"
                                      : "no " + step_name(next_step) + " step from the coordinator within " +
                                            std::to_string(options.timeout.count()) + " ms");
    });
  }

  // This server's answer to step `step` of the coordinator's, or throws std::invalid_argument with the refusal.
  std::vector<std::uint8_t> take(std::uint32_t step, std::span<const std::uint8_t> payload, const ConfigDigest& hello_digest) {
    if (step != next_step) throw std::invalid_argument("step " + std::to_string(step) + " out of order (expected " + std::to_string(next_step) + ")");
    std::optional<mixnet::DkgMessage> m;
    switch (step) {
      case 1: {
        served.setup = mixnet::DkgSetup::from_bytes(payload, "the setup");
        if (digest_of(served.setup) != hello_digest) throw std::invalid_argument("the setup is not the one the hello named");
        if (served.setup.box_keys[0] != shuffler) throw std::invalid_argument("server 0 of the setup is not the shuffler this server serves");
        const auto it = std::find(served.setup.box_keys.begin(), served.setup.box_keys.end(), keys.public_key());
        if (it == served.setup.box_keys.end()) throw std::invalid_argument("this server's key is not one of the setup's");
        served.index = static_cast<std::size_t>(it - served.setup.box_keys.begin());
        part = std::make_unique<mixnet::DkgParticipant>(served.setup, served.index, keys.secret_key(), signing, rng);
        if (options.bad_share_to) part->deal_bad_share_to(*options.bad_share_to);
        m = part->commit();
        break;
      }
      case 2: m = part->deal(); break;
      case 3: m = part->complain(decode_dkg_step(payload, served.setup.servers(), "the deals")); break;
      case 4: m = part->justify(decode_dkg_step(payload, served.setup.servers(), "the complaints")); break;
      default: {
        const auto t = mixnet::DkgTranscript::from_bytes(payload, "the transcript");
        if (!(t.setup == served.setup)) throw std::invalid_argument("the transcript is of another setup");
        for (std::size_t s = 0; s < mixnet::dkg_steps; ++s)
          if (t.messages.at(served.index)[s] != sent[s])
            throw std::invalid_argument("the transcript does not hold this server's " + mixnet::to_string(static_cast<mixnet::DkgStep>(s + 1)) +
                                        " as it sent it");
        auto outcome = mixnet::dkg_outcome(t, "the transcript");
        const Signature endorsement = part->endorse(t);  // its share holds: it consents to the outcome
        served.outcome = std::move(outcome);
        ++next_step;
        return std::vector<std::uint8_t>(endorsement.begin(), endorsement.end());
      }
    }
    sent[step - 1] = m;
    ++next_step;
    return m->to_bytes();
  }

  asio::awaitable<void> serve(std::shared_ptr<SecureLink> link) {
    const std::string peer = detail::remote_name(*link);
    detail::PendingHandshake pending(*this, link, options.handshake_timeout);
    try {
      const Hello hello = co_await link->read_hello();
      if (hello.first != entry_id || hello.count != 1)
        throw_error(Errc::unknown_party, "a key generation admits only its coordinator (the shuffler's key)");
      if (taken) throw_error(Errc::session_aborted, "a key generation is already under way here");
      link->set_limits(dkg_limits());
      co_await link->accept(hello, keys, entry_proof, rng);
      pending.authenticated();
      if (options.frame_tap) link->set_tap(options.frame_tap);
      taken = true;
      arm();
      // Until the coordinator closes the link (after the transcript, or after a refusal), or ends it.
      while (link->is_open()) {
        detail::Frame f = co_await link->receive();
        if (f.header.type == FrameType::abort) {
          finish("the coordinator ended the key generation: " + std::string(f.payload.begin(), f.payload.end()));
          co_return;
        }
        if (!served.error.empty()) continue;  // refused: nothing more is taken
        std::vector<std::uint8_t> answer;
        try {
          if (f.header.type != FrameType::dkg) throw std::invalid_argument("a frame that is no step of a key generation");
          answer = take(f.header.round, f.payload, hello.config);
        } catch (const std::exception& e) {
          // Any failure to take a step is a refusal the coordinator hears, never silence.
          const bool expected = dynamic_cast<const std::invalid_argument*>(&e) != nullptr;
          served.error = std::string("refused the ") + step_name(f.header.round) + ": " + (expected ? "" : "internal error: ") + e.what();
          log(served.error);
          link->send(FrameType::abort, f.header.round, bytes_of(served.error));
          link->close_after_flush();
          continue;
        }
        link->send(FrameType::dkg_answer, f.header.round, answer);
        arm();
      }
    } catch (const std::system_error& e) {
      if (pending.is_authenticated()) finish(served.outcome || !served.error.empty() ? std::string() : "the coordinator's link failed: " + std::string(e.what()));
      else if (e.code() != Errc::peer_closed) log_lines.limited("rejected", "connection from " + peer + ": rejected: " + e.what());
    } catch (const std::exception& e) {
      // Anything else (a bug's exception): the key generation fails here, saying so.
      link->close();
      if (pending.is_authenticated()) finish("internal error: " + std::string(e.what()));
      else log_lines.limited("rejected", "connection from " + peer + ": internal error: " + e.what());
    }
    pending.release();
    if (pending.is_authenticated()) finish("");
  }
};

TcpDkgServer::TcpDkgServer(KeyPair keys, PublicKey shuffler, const std::string& host, std::uint16_t port, Logger log, DkgServerOptions options)
    : impl_(std::make_unique<Impl>()) {
  auto& im = *impl_;
  im.set_up(std::move(keys), std::move(log), 20, 64);
  im.shuffler = shuffler;
  im.options = options;
  detail::StaticSecret k = detail::static_secret(im.keys.secret_key(), shuffler);
  im.entry_proof = detail::identity_proof(std::span(&k, 1), entry_id);
  sodium_memzero(k.data(), k.size());
  im.idle = std::make_unique<asio::steady_timer>(im.io);
  detail::listen_on(im.acceptor, host, port);
}

TcpDkgServer::~TcpDkgServer() = default;

std::uint16_t TcpDkgServer::port() const { return impl_->acceptor.local_endpoint().port(); }

DkgServed TcpDkgServer::run() {
  impl_->arm();
  impl_->run_until_stopped(detail::accept_loop(
      impl_->acceptor, [this](std::shared_ptr<SecureLink> link) { return impl_->serve(std::move(link)); },
      [this](const std::string& kind, const std::string& line) { impl_->log_lines.limited(kind, line); }));
  // Whatever was queued (the last answer) is written before the links close with the io.
  return impl_->served;
}

void TcpDkgServer::stop() {
  impl_->stop([this] { impl_->finish("the server was stopped"); });
}

}  // namespace shufflempc::net
