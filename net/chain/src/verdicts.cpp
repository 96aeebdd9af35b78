#include "shufflempc/net/detail/verdicts.hpp"

#include <algorithm>

#include "shufflempc/error.hpp"
#include "shufflempc/hex.hpp"
#include "shufflempc/net/detail/link.hpp"
#include "shufflempc/net/detail/rate_limited_log.hpp"
#include "shufflempc/trace.hpp"

namespace shufflempc::net::detail {

bool VerdictBook::record(PartyId first, std::uint32_t round, const VerdictPayload& v) {
  if (round > floor_ + 1) return false;  // beyond the next round: no honest party is there yet
  if (round < floor_) return true;       // a round decided already: nothing to keep
  auto& book = rounds_[round];
  for (std::size_t i = 0; i < v.parties.size(); ++i) {
    const PartyId p = first + static_cast<PartyId>(i);
    Entry e{v.parties[i], v.root, v.parties[i] == Verdict::complaint ? v.reason : std::string()};
    const auto [it, added] = book.emplace(p, e);
    if (!added && e.verdict == Verdict::complaint && it->second.verdict != Verdict::complaint) it->second = std::move(e);
  }
  return true;
}

VerdictBook::Decision VerdictBook::decide(std::uint32_t round, const Root& root, std::span<const PartyId> confirm,
                                          std::span<const PartyId> dropped, bool expired) const {
  trace::point("VerdictBook::decide");
  Decision d;
  const auto refuse = [&](std::string why) {
    d.kind = Decision::Kind::refuse;
    d.why = std::move(why);
    return d;
  };
  static const std::map<PartyId, Entry> none;
  const auto it = rounds_.find(round);
  const auto& book = it == rounds_.end() ? none : it->second;
  for (const auto& [p, e] : book)
    if (e.verdict == Verdict::complaint)
      return refuse("party " + std::to_string(p) + " complains that the chain's entry (the shuffler) " +
                    (e.reason.empty() ? std::string("mishandled its records") : e.reason));
  bool waiting = false;
  for (const PartyId p : confirm) {
    const auto e = book.find(p);
    if (e == book.end()) {
      if (expired)
        return refuse("party " + std::to_string(p) + ", counted as submitted by the chain's entry (the shuffler), did not confirm "
                      "that its records are in the batch the entry committed to");
      waiting = true;
      continue;
    }
    if (e->second.verdict == Verdict::absent)
      return refuse("party " + std::to_string(p) + " says it did not submit this round, but the chain's entry (the shuffler) counts it as submitted");
    if (e->second.root != root)
      return refuse("party " + std::to_string(p) + " was shown another batch than the one the chain's entry (the shuffler) proved to the "
                    "analyzer: the entry signed two commitments for this round");
    ++d.confirmed;
  }
  for (const PartyId p : dropped)
    if (!book.count(p)) {
      waiting = waiting || !expired;
      ++d.silent;
    }
  if (waiting) return d;
  d.kind = Decision::Kind::accept;
  return d;
}

void VerdictBook::forget_before(std::uint32_t round) {
  rounds_.erase(rounds_.begin(), rounds_.lower_bound(round));
  floor_ = std::max(floor_, round);
}

struct VerdictServer::Impl {
  // Connections not yet authenticated held at once (the shuffler's default cap, wire.hpp).
  const std::size_t max_unauthenticated = default_max_unauthenticated;
  asio::io_context io;
  tcp::acceptor acceptor{io};
  SessionId session{};
  ConfigDigest digest{};
  std::size_t parties = 0;
  KeyPair keys;
  IdentityTree tree;
  SystemRng rng;
  RateLimitedLog log;
  PendingLinks unauthenticated{max_unauthenticated};
  Limits limits;
  std::mutex mutex;
  std::condition_variable changed;
  VerdictBook book;
  std::thread thread;

  asio::awaitable<void> serve(std::shared_ptr<SecureLink> link) {
    asio::steady_timer guard(io, std::chrono::seconds(10));
    bool authenticated = false;
    guard.async_wait([&authenticated, link](std::error_code ec) {
      if (!ec && !authenticated) link->close();
    });
    std::string who = "a connection";
    const std::uint64_t pending = unauthenticated.add(link, log);
    try {
      const Hello hello = co_await link->read_hello();
      if (hello.session != session) throw_error(Errc::wrong_session, "hello for another session " + to_hex(hello.session));
      if (hello.config != digest) throw_error(Errc::wrong_session, "holds a session config that differs from the analyzer's");
      if (hello.first == analyzer_id || hello.count == 0 || hello.first >= parties || hello.count > parties - hello.first)
        throw_error(Errc::unknown_party, "claims parties outside the session");
      who = hello.count == 1 ? "party " + std::to_string(hello.first)
                             : "parties " + std::to_string(hello.first) + ".." + std::to_string(hello.first + hello.count - 1);
      link->set_limits(limits);
      co_await link->accept(hello, keys, tree.proof(hello.first, hello.count), rng);
      authenticated = true;
      unauthenticated.remove(pending);
      guard.cancel();
      for (;;) {
        const Frame f = co_await link->receive();
        if (f.header.type != FrameType::verdict || f.header.count != hello.count)
          throw_error(Errc::protocol_violation, "sent a frame that is not a verdict for its " + std::to_string(hello.count) + " parties");
        const VerdictPayload v = decode_verdict(f.header, f.payload);
        bool kept = false;
        {
          const std::lock_guard lock(mutex);
          kept = book.record(hello.first, f.header.round, v);
        }
        if (!kept) throw_error(Errc::protocol_violation, "sent a verdict for round " + std::to_string(f.header.round) + ", beyond the next round");
        changed.notify_all();
      }
    } catch (const std::system_error& e) {
      if (e.code() != Errc::peer_closed) log.limited("verdict link", "verdict link of " + who + ": " + e.what() + "; closed");
    } catch (const std::exception& e) {
      log.limited("verdict link", "verdict link of " + who + ": " + e.what() + "; closed");
    }
    guard.cancel();
    link->close();
    unauthenticated.remove(pending);
  }

  asio::awaitable<void> accept_loop() {
    co_await detail::accept_loop(
        acceptor, [this](std::shared_ptr<SecureLink> link) { return serve(std::move(link)); },
        [this](const std::string& kind, const std::string& line) { log.limited(kind, line); });
  }
};

VerdictServer::VerdictServer(const SessionConfig& config, const KeyPair& analyzer, int listen_fd, const std::string& host,
                             std::uint16_t port, Logger log)
    : impl_(std::make_unique<Impl>()) {
  auto& im = *impl_;
  im.session = config.session;
  im.digest = config.digest();
  im.parties = config.parties;
  im.keys = analyzer;
  im.log = RateLimitedLog(std::move(log), 10);
  im.tree = parties_tree(analyzer, config.party_keys);
  // A verdict frame: the root, a byte per party of the link, a line of complaint.
  im.limits = config.limits();
  im.limits.max_width = 0;
  im.limits.max_count = static_cast<std::uint32_t>(config.parties);
  im.limits.max_payload = static_cast<std::uint32_t>(verdict_root_bytes + config.parties + im.limits.max_abort_reason);
  if (listen_fd >= 0) im.acceptor.assign(tcp::v4(), listen_fd);
  else listen_on(im.acceptor, host, port);
  port_ = im.acceptor.local_endpoint().port();
  asio::co_spawn(im.io, im.accept_loop(), asio::detached);
  im.thread = std::thread([&im] { im.io.run(); });
}

VerdictServer::~VerdictServer() {
  asio::post(impl_->io, [im = impl_.get()] {
    std::error_code ignored;
    im->acceptor.close(ignored);
    im->io.stop();
  });
  impl_->thread.join();
}

VerdictBook::Decision VerdictServer::await(std::uint32_t round, const VerdictBook::Root& root, std::span<const PartyId> confirm,
                                           std::span<const PartyId> dropped, std::chrono::steady_clock::time_point until) {
  std::unique_lock lock(impl_->mutex);
  for (;;) {
    const bool expired = std::chrono::steady_clock::now() >= until;
    auto d = impl_->book.decide(round, root, confirm, dropped, expired);
    if (d.kind != VerdictBook::Decision::Kind::wait) {
      impl_->book.forget_before(round + 1);
      return d;
    }
    impl_->changed.wait_until(lock, until);
  }
}

}  // namespace shufflempc::net::detail
