// The mix server's state, private to net/chain/src. TcpMixServer::Impl holds the sessions it
// serves (each a Served: its hop, its last answer, its entry's link); its member functions live by
// role:
//   mix_server.cpp             the sessions, the entry's connections and frames, ending and stopping
//   mix_server_onion.cpp       an onion chain's mix frame: peel, shuffle, the signed report
//   mix_server_verifiable.cpp  a verifiable chain's shuffle and decrypt frames: the proved hop, the
//                              evidence checked and the proved decryption shares
//   mix_server_state.cpp       the state directory: the answers kept before they are sent, and a
//                              session taken back from it
// The io thread, keys, log, CSPRNG, the unauthenticated connections and running and stopping are
// detail::SessionHost's, shared with the shuffler.
#pragma once

#include <algorithm>
#include <atomic>
#include <mutex>
#include <condition_variable>
#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "shufflempc/mixnet/decryption.hpp"
#include "shufflempc/net/detail/link.hpp"
#include "shufflempc/net/detail/session_host.hpp"
#include "shufflempc/net/fault.hpp"
#include "shufflempc/net/mix_server.hpp"
#include "shufflempc/net/store.hpp"
#include "shufflempc/parallel.hpp"

namespace shufflempc::net {

using detail::SecureLink;
using detail::tcp;

struct TcpMixServer::Impl : detail::SessionHost {
  // A round's worker thread (compute) reads its session, and a server stopped while one computes
  // (the entry gone, a test's server "gone after the mix") leaves that coroutine suspended: its
  // frame goes with the io_context, after the sessions. So the sessions go only once every worker
  // has ended (ASan saw a worker read a session freed under it).
  ~Impl() {
    std::unique_lock lock(workers_mutex);
    workers_done.wait(lock, [this] { return workers == 0; });
  }
  std::mutex workers_mutex;
  std::condition_variable workers_done;
  std::size_t workers = 0;

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
    std::unique_ptr<AdmissionStore> store;  // MixServerOptions::state_dir's, or none
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
  void end(Served& s, const std::string& error);

  // Whether nothing more can come for `s`: it failed, or its entry said goodbye after the last round.
  static bool closed(const Served& s) { return s.ended && (s.goodbye || !s.report.error.empty()); }

  // Stops once every session has ended and no link is open. A session whose last answer went out
  // but whose entry has not said goodbye is given a while for the entry to dial again and fetch
  // that answer (its link may have been cut before it arrived).
  void maybe_stop();

  void arm_idle(Served& s);

  void send_last(Served& s, SecureLink& link) { link.send(s.last.type, s.last.round, s.last.width, s.last.count, s.last.payload); }

  unsigned threads() const { return options.threads == 0 ? hardware_threads() : options.threads; }

  static bool verifiable(const Served& s) { return s.config.mix == MixKind::verifiable; }

  // After round r: the session ends with its last round, unless that round still has to be decrypted.
  void after_round(Served& s, std::uint32_t r, bool decrypt_next);

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
      const auto worker_ended = [this] {
        std::lock_guard lock(workers_mutex);
        if (--workers == 0) workers_done.notify_all();
      };
      {
        std::lock_guard lock(workers_mutex);
        ++workers;
      }
      std::jthread worker;
      try {
        worker = std::jthread([&] {
          try {
            if (options.computing) options.computing(round);
            work();
          } catch (...) {
            error = std::current_exception();
          }
          finished = true;
          worker_ended();
        });
      } catch (...) {
        worker_ended();  // no thread: nothing to wait for
        throw;
      }
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
  asio::awaitable<std::optional<Fault>> take_shuffle(Served& s, SecureLink& link, detail::Frame& f);

  // A verifiable chain's decrypt frame: this server's proved shares of the chain's output, once the
  // evidence shows its own hop as it made it and every other hop's proof holds.
  asio::awaitable<std::optional<Fault>> take_decrypt(Served& s, SecureLink& link, detail::Frame& f);

  // A decrypt frame's evidence checked (its own hop as this server made it, every sender's proof,
  // every other hop) and this server's proved shares of the last hop's output: the refusal, or
  // none with `shares` made. Reads the session's state only (it runs off the io thread).
  std::optional<Fault> decrypt_evidence(const Served& s, std::uint32_t r, const RoundShape& shape, std::size_t cw, const detail::Frame& f,
                                        mixnet::DecryptionShares& shares);

  // With a state directory (mix_server_state.cpp): the session's state opened, and the last
  // round's answer (a verifiable chain's: and its last decryption shares) taken back.
  void open_state(Served& s);
  // The last answer and every round's report, kept (one value, one commit) before the answer is sent.
  void keep_last(Served& s);
  // A verifiable chain's last decryption shares and the evidence's digest, kept before they are sent.
  void keep_decrypted(Served& s);
  // With a state directory, `keep` run before round r's answer goes out: none when it is kept (or
  // there is no state directory); when it cannot be (a full disk), `undo` takes the answer back,
  // the session ends saying why and the refusal is returned: nothing is sent that was not kept.
  std::optional<Fault> kept_or_refused(Served& s, std::uint32_t r, void (Impl::*keep)(Served&), const std::function<void()>& undo);

  // One mix frame: the answer, or the reason the link ends.
  std::optional<Fault> take_mix(Served& s, SecureLink& link, detail::Frame& f);

  // One frame from the entry: false when the link is done with (a goodbye, an abort, a refusal).
  asio::awaitable<bool> entry_frame(Served& s, SecureLink& link, detail::Frame& f, const std::string& peer);

  asio::awaitable<void> serve(std::shared_ptr<SecureLink> link);

  asio::awaitable<void> accept_loop();
};

}  // namespace shufflempc::net
