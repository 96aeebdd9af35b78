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

namespace {

// One key generation run by server 0: the four steps and the transcript, each sent to every further
// server still taking part, whose answers are checked as they come. A server that does not answer
// in time, answers with the wrong frame or a message that does not check is left out, with the line
// saying why; any other exception ends the key generation.
class Coordinator {
 public:
  Coordinator(const mixnet::DkgSetup& setup, const KeyPair& keys, const std::vector<std::string>& addresses,
              std::chrono::milliseconds deadline, Logger log, ServerFrameTap tap)
      : setup_(setup), keys_(keys), addresses_(addresses), deadline_(deadline), log_(std::move(log)), tap_(std::move(tap)),
        self_(setup, 0, keys.secret_key(), signing_key_of(keys), rng_), digest_(digest_of(setup)), k_(setup.servers()),
        links_(k_), gone_(k_, 0) {
    g_.transcript.setup = setup;
    g_.transcript.messages.resize(k_);
  }

  KeyGeneration run() {
    std::exception_ptr failure;
    asio::co_spawn(io_, steps(), [&](std::exception_ptr e) {
      failure = e;
      if (!e) return;
      // No key (fewer than t qualified, say): the further servers are told by their links closing,
      // not left to wait out their timeout.
      for (auto& l : links_)
        if (l) l->close();
    });
    io_.run();
    if (failure) std::rethrow_exception(failure);
    return std::move(g_);
  }

 private:
  void note(const std::string& line) {
    g_.notes.push_back(line);
    if (log_) log_(line);
  }

  std::string name(std::size_t h) const { return "mix server " + std::to_string(h) + " (" + addresses_[h - 1] + ")"; }

  void leave_out(std::size_t h, std::uint32_t step, const std::string& why) {
    note(name(h) + " is left out of the key generation at its " + step_name(step) + ": " + why);
    if (links_[h]) links_[h]->close();
    gone_[h] = 1;
    g_.left_out.push_back(h);
  }

  asio::awaitable<void> steps() {
    for (std::uint32_t step = 1; step <= final_step; ++step) {
      const auto payload = own_part(step);
      const auto answers = co_await ask_everyone(step, payload);
      for (std::size_t h = 1; h < k_; ++h) {
        if (!answers[h]) continue;
        if (auto fault = take_answer(h, step, *answers[h]); !fault.empty()) leave_out(h, step, fault);
      }
    }
    for (auto& l : links_)
      if (l && l->is_open()) l->close_after_flush();
    std::sort(g_.left_out.begin(), g_.left_out.end());
  }

  // The coordinator's own message of a step, into the transcript, and what the step sends the others.
  std::vector<std::uint8_t> own_part(std::uint32_t step) {
    auto& own = g_.transcript.messages[0];
    std::vector<std::optional<mixnet::DkgMessage>> previous(k_);
    if (step == 3 || step == 4)
      for (std::size_t i = 0; i < k_; ++i) previous[i] = g_.transcript.messages[i][step - 2];
    switch (step) {
      case 1: own[0] = self_.commit(); return setup_.to_bytes();
      case 2: own[1] = self_.deal(); return {};
      case 3: own[2] = self_.complain(previous); return encode_dkg_step(previous);
      case 4: own[3] = self_.justify(previous); return encode_dkg_step(previous);
      default: break;
    }
    g_.outcome = mixnet::dkg_outcome(g_.transcript, "the key generation");
    for (const auto& [who, why] : g_.outcome.disqualified)
      note("server " + std::to_string(who) + (who == 0 ? "" : " (" + addresses_[who - 1] + ")") + " is disqualified: " + why);
    (void)mixnet::dkg_share(g_.transcript, g_.outcome, 0, keys_.secret_key());  // the coordinator's own share holds
    g_.transcript.endorsements.assign(k_, std::nullopt);
    g_.transcript.endorsements[0] = self_.endorse(g_.transcript);
    return g_.transcript.to_bytes();
  }

  // Every server still taking part answers at once; this waits for the last.
  asio::awaitable<std::vector<std::optional<detail::Frame>>> ask_everyone(std::uint32_t step, const std::vector<std::uint8_t>& payload) {
    std::vector<std::optional<detail::Frame>> answers(k_);
    std::size_t pending = 0;
    asio::steady_timer all_in(io_, asio::steady_timer::time_point::max());
    for (std::size_t h = 1; h < k_; ++h) {
      if (gone_[h]) continue;
      ++pending;
      asio::co_spawn(
          io_,
          [&, h]() -> asio::awaitable<void> {
            answers[h] = co_await ask(h, step, payload);
            if (--pending == 0) all_in.cancel();
          },
          asio::detached);
    }
    if (pending > 0) {
      std::error_code ignored;
      co_await all_in.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
    }
    co_return answers;
  }

  // One further server's answer to one step: its frame, or nothing when it is gone (and the line
  // says why). Step 1 connects first.
  asio::awaitable<std::optional<detail::Frame>> ask(std::size_t h, std::uint32_t step, std::span<const std::uint8_t> payload) {
    bool timed_out = false;
    asio::steady_timer timer(io_, deadline_);
    timer.async_wait([&](std::error_code ec) {
      if (ec) return;
      timed_out = true;
      if (links_[h]) links_[h]->close();
    });
    std::string why;
    try {
      if (step == 1) co_await connect(h, timed_out);
      links_[h]->send(FrameType::dkg, step, payload);
      detail::Frame f = co_await links_[h]->receive();
      timer.cancel();
      co_return f;
    } catch (const std::exception& e) {
      why = timed_out ? "no answer within " + std::to_string(deadline_.count()) + " ms" : std::string(e.what());
    }
    timer.cancel();
    leave_out(h, step, why);
    co_return std::nullopt;
  }

  asio::awaitable<void> connect(std::size_t h, const bool& timed_out) {
    links_[h] = std::make_shared<SecureLink>(tcp::socket(io_), dkg_limits());
    links_[h]->set_peer_name(name(h));
    const auto [host, port] = split_address(addresses_[h - 1], "--dkg-addresses");
    tcp::resolver resolver(io_);
    const auto endpoints = co_await resolver.async_resolve(host, std::to_string(port), asio::use_awaitable);
    if (timed_out) throw std::system_error(asio::error::timed_out);
    co_await asio::async_connect(links_[h]->socket(), endpoints, asio::use_awaitable);
    co_await links_[h]->connect_as(setup_.session, digest_, entry_id, keys_, setup_.box_keys[h], rng_);
    if (tap_) links_[h]->set_tap([tap = tap_, h](OutgoingFrame& f) { return tap(h, f); });
  }

  // A further server's answer taken into the transcript, or the fault that leaves it out.
  std::string take_answer(std::size_t h, std::uint32_t step, const detail::Frame& f) {
    if (f.header.type == FrameType::abort) return "it refused: " + std::string(f.payload.begin(), f.payload.end());
    if (f.header.type != FrameType::dkg_answer || f.header.round != step) return "it answered with a frame that is not its " + step_name(step);
    if (step == final_step) {
      // Its consent: its signature of the outcome, which every process loading the config checks.
      Signature endorsement{};
      if (f.payload.size() != endorsement.size())
        return "its endorsement of the outcome is " + std::to_string(f.payload.size()) + " bytes, not " + std::to_string(endorsement.size());
      std::copy(f.payload.begin(), f.payload.end(), endorsement.begin());
      if (!mixnet::signature_holds(endorsement, mixnet::dkg_outcome_statement(g_.transcript, g_.outcome), setup_.signers[h]))
        return "its endorsement of the outcome is not its signature of it";
      g_.transcript.endorsements[h] = endorsement;
      return {};
    }
    try {
      auto m = mixnet::DkgMessage::from_bytes(f.payload, "its " + step_name(step));
      auto fault = mixnet::check_dkg_message(setup_, static_cast<mixnet::DkgStep>(step), h, m);
      if (fault.empty()) g_.transcript.messages[h][step - 1] = std::move(m);
      return fault;
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
  }

  const mixnet::DkgSetup& setup_;
  const KeyPair& keys_;
  const std::vector<std::string>& addresses_;
  std::chrono::milliseconds deadline_;
  Logger log_;
  ServerFrameTap tap_;
  SystemRng rng_;
  const mixnet::DkgParticipant self_;
  const ConfigDigest digest_;
  const std::size_t k_;
  KeyGeneration g_;
  asio::io_context io_;
  std::vector<std::shared_ptr<SecureLink>> links_;
  std::vector<char> gone_;
};

}  // namespace

KeyGeneration generate_key(const mixnet::DkgSetup& setup, const KeyPair& keys, const std::vector<std::string>& addresses,
                           std::chrono::milliseconds deadline, Logger log, ServerFrameTap tap) {
  if (auto why = setup.check(); !why.empty()) throw std::invalid_argument("the key generation: " + why);
  const std::size_t k = setup.servers();
  if (addresses.size() + 1 != k)
    throw std::invalid_argument("the key generation of a chain of " + std::to_string(k) + " servers needs the addresses of the " +
                                std::to_string(k - 1) + " further ones, got " + std::to_string(addresses.size()));
  if (keys.public_key() != setup.box_keys[0])
    throw std::invalid_argument("the key generation is coordinated with the shuffler's key file (server 0 of the chain)");
  return Coordinator(setup, keys, addresses, deadline, std::move(log), std::move(tap)).run();
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
