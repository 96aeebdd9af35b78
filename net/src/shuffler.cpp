// The TCP shuffler: one io_context thread, one coroutine per connection, one state per session.
#include <sodium.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "shufflempc/error.hpp"
#include "shufflempc/net/detail/chain_entry.hpp"
#include "shufflempc/net/detail/hop_links.hpp"
#include "shufflempc/net/detail/link.hpp"
#include "shufflempc/net/detail/round_clock.hpp"
#include "shufflempc/net/detail/session_host.hpp"
#include "shufflempc/net/detail/session_rounds.hpp"
#include "shufflempc/net/onion.hpp"
#include "shufflempc/net/receipts.hpp"
#include "shufflempc/net/sealing.hpp"
#include "shufflempc/net/tcp.hpp"
#include "shufflempc/net/detail/rate_limited_log.hpp"
#include "shufflempc/net/verifiable.hpp"
#include "shufflempc/parallel.hpp"

namespace shufflempc::net {

using detail::SecureLink;
using detail::tcp;

RoundShape wire_shape(const RoundShape& shape, std::size_t hops, MixKind kind) {
  RoundShape wire = shape;
  if (hops == 0 || shape.width == 0) wire.width = wire_width(shape.width, shape.delivery);
  else if (kind == MixKind::verifiable) wire.width = verifiable_width(shape.width);
  else wire.width = onion::record_width(shape.width, shape.delivery, hops, 0);
  return wire;
}

std::vector<RoundShape> wire_rounds(const Protocol& protocol, std::size_t hops, MixKind kind) {
  std::vector<RoundShape> plan;
  for (std::uint32_t r = 0; r < protocol.rounds(); ++r) {
    if (kind == MixKind::verifiable && hops > 0)
      if (auto why = mixnet::record_fit(protocol.round(r).width); !why.empty())
        throw std::invalid_argument("round " + std::to_string(r) + ": " + why + "; use --mix decryption");
    plan.push_back(wire_shape(protocol.round(r), hops, kind));
  }
  return plan;
}

void check_rounds(const SessionConfig& config, const Protocol& protocol) {
  const auto describe = [](const RoundShape& r) {
    return "width " + std::to_string(r.width) + " " + to_string(r.delivery) + ", " + std::to_string(r.min_messages) + ".." +
           std::to_string(r.max_messages) + " messages per party";
  };
  const auto declared = wire_rounds(protocol, config.chain().hops(), config.mix);
  const auto mismatch = [&](const std::string& what) {
    throw std::invalid_argument("session config: " + what + " (the config was written for other parameters or by another version: "
                                "write it again with shufflempc session)");
  };
  if (config.rounds.size() != declared.size())
    mismatch("it declares " + std::to_string(config.rounds.size()) + " round(s), the protocol " + config.protocol + " here has " +
             std::to_string(declared.size()));
  for (std::size_t r = 0; r < declared.size(); ++r) {
    const RoundShape &a = config.rounds[r], &b = declared[r];
    if (a != b)
      mismatch("rounds[" + std::to_string(r) + "] is " + describe(a) + ", but the protocol " + config.protocol + " here declares " +
               describe(b));
  }
}

std::size_t wire_width(std::size_t width, Delivery delivery) {
  return delivery == Delivery::analyzer_only ? sealing::sealed_width(width) : width;
}

namespace {

// How long a connection may take to authenticate, and how long the shuffler lingers for clients
// to read their last frame once every session has ended.
constexpr auto linger_timeout = std::chrono::seconds(5);

std::string who(PartyId id) { return id == analyzer_id ? std::string("the analyzer") : "party " + std::to_string(id); }

}  // namespace

struct TcpShuffler::Impl : detail::SessionHost {
  // One session: its round logic (detail::SessionRounds, no sockets) and the I/O around it.
  using Commitment = detail::EntryCommitment;

  struct ServedSession {
    SessionConfig config;  // its rounds are the shapes enforced
    std::unique_ptr<detail::SessionRounds> rounds;
    ConfigDigest digest{};
    std::string tag;  // for log lines
    // The static secret K_p = DH(s_shuffler, S_p) of every party and of the analyzer, computed once
    // when the shuffler starts and folded into identity trees: a hello costs O(log n) hashes
    // whatever range it claims, never a scalar multiplication.
    detail::IdentityTree parties_tree, analyzer_tree;
    struct PartyLink {
      PartyId first = 0;
      std::uint32_t count = 0;
      std::shared_ptr<SecureLink> link;
    };
    std::map<PartyId, PartyLink> party_links;  // admitted links, by their first party
    std::shared_ptr<SecureLink> analyzer;
    // The round's deadlines (detail::RoundClock): the round ends config.deadline after it last
    // moved or config.round_limit() after it opened; a link that owes a batch and says nothing
    // for config.deadline is given up alone. One timer, armed at the clock's next().
    std::unique_ptr<asio::steady_timer> timer;
    detail::RoundClock clock;
    // After the last round: the analyzer's link stays until the analyzer says the result arrived (a
    // done frame). Until then a result lost with its connection can be fetched again after a
    // reconnection; `done_wait` gives up (the deadline from the result, the reconnect grace once the
    // link is lost) and lets the shuffler stop.
    bool awaiting_done = false;
    std::unique_ptr<asio::steady_timer> done_wait;
    // The same for the party links sent the last result (by their first party): each stays until it
    // says the result arrived; one whose connection is lost may come back for it within the
    // reconnect grace; all of them within the deadline from the result (parties_done_wait).
    std::set<PartyId> parties_owing_done;
    std::unique_ptr<asio::steady_timer> parties_done_wait;
    std::vector<std::unique_ptr<asio::steady_timer>> done_grace;
    // Party links lost this round after their batches were accepted (first party -> count), cleared
    // when a round closes. If the session's last round closes while one is away, its parties' batches
    // counted: it owes a done frame as if the result had been sent to it, and may come back for it.
    std::map<PartyId, std::uint32_t> away_after_submit;
    // One per party link lost this round before its parties submitted: when it fires, the round
    // stops waiting for those that have not reconnected. Cancelled when the round closes.
    std::vector<std::unique_ptr<asio::steady_timer>> grace;
    // The round that closed last, kept until the next one closes: a link that lost its connection
    // before that round's result reached it, and reconnects, is sent the result again.
    struct LastRound {
      bool valid = false;
      std::uint32_t round = 0;
      RoundShape shape;
      RoundOutcome outcome;
      std::vector<std::uint8_t> prefix;  // the full result prefix (encoded once for every receiver)
      Commitment commitment;             // with a chain: what the receipts are made from
      Submissions sources;               // with a chain: the round's records as each party submitted them
    } last;
    // With a mix chain: this server's hop (0), the links to the further servers (index = hop; 0
    // unused), whether a round's batch is crossing the chain, and every round's reports.
    std::unique_ptr<MixHop> hop0;
    std::optional<mixnet::ElGamalKey> share;  // a verifiable chain's: this server's share of the round key
    detail::HopLinks hops;
    bool relaying = false;
    std::string chain_error;
    std::vector<std::vector<HopReport>> hop_reports;
  };

  // The io thread, keys, log, CSPRNG and unauthenticated connections: detail::SessionHost.
  Shuffler shuffler;  // scratch reused across rounds and sessions
  std::vector<std::unique_ptr<ServedSession>> sessions;
  ShufflerOptions options;

  ServedSession* find(const SessionId& id) {
    for (auto& s : sessions)
      if (s->config.session == id) return s.get();
    return nullptr;
  }

  bool all_finished() const {
    return std::all_of(sessions.begin(), sessions.end(), [](const auto& s) { return s->rounds->finished(); });
  }

  void start_round_timer(ServedSession& s) {
    const auto now = std::chrono::steady_clock::now();
    s.clock.open(now);
    for (const auto& [first, pl] : s.party_links)
      if (s.rounds->owes_batch(first, pl.count)) s.clock.heard(first, now);
    arm_round_timer(s);
  }

  // Something happened in the round: a link admitted (`first`, or the analyzer's), a batch
  // accepted, or a link's word that its parties are preparing theirs. The round's deadline counts
  // again from now (never past its limit), and a link that still owes a batch is watched from now.
  // A loaded machine whose parties connect, prepare and submit slowly but steadily is not cut off;
  // a link that falls silent is given up on its own; no party holds a round past its limit, and a
  // client (which waits the limit after its own batch) always hears the round's end.
  void progress(ServedSession& s, std::optional<PartyId> link = std::nullopt) {
    if (s.rounds->finished() || s.relaying || !s.rounds->started()) return;
    const auto now = std::chrono::steady_clock::now();
    if (!link) return s.clock.moved(now);
    const auto it = s.party_links.find(*link);
    if (it == s.party_links.end()) return;  // a link given up already: what it says moves nothing
    if (s.rounds->owes_batch(it->first, it->second.count)) return s.clock.heard(it->first, now);
    s.clock.settled(it->first);
    s.clock.moved(now);
  }

  // The timer fires at the clock's next(), then again at the next one until the round closes:
  // events only ever move next() later, so it never needs re-arming before it fires.
  void arm_round_timer(ServedSession& s) {
    s.timer->expires_at(s.clock.next());  // cancels a wait already pending: its handler sees the error
    s.timer->async_wait([this, &s, round = s.rounds->round()](std::error_code ec) {
      if (ec || s.rounds->finished() || s.rounds->round() != round || s.relaying) return;
      const auto due = s.clock.due(std::chrono::steady_clock::now());
      const auto ms = [](auto d) { return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()); };
      using Kind = detail::RoundClock::Kind;
      if (due.kind == Kind::nothing) return arm_round_timer(s);
      if (due.kind == Kind::silent_links) {
        drop_silent(s, due.silent);
        if (!s.rounds->finished() && s.rounds->round() == round && !s.relaying) arm_round_timer(s);
        return;
      }
      const auto waiting = s.rounds->waiting_for();
      std::string missing = waiting.empty() ? std::string() : name_parties(waiting);
      if (!s.rounds->has_analyzer()) missing += (missing.empty() ? "" : " and ") + std::string("the analyzer");
      log(s.tag + "round " + std::to_string(round) + ": deadline expired (" +
          (due.kind == Kind::limit ? ms(s.clock.limit()) + " ms since the round opened, its limit"
                                   : ms(s.clock.deadline()) + " ms without a new link, batch or word of work") +
          ")" + (missing.empty() ? std::string() : ", still waiting for " + missing));
      close_round(s);
    });
  }

  // Links that owe the round a batch and said nothing for the deadline (no batch, no word that
  // their parties are preparing one: a process that hangs, or a machine that stopped): each is told
  // its parties missed the deadline, closed and given up at once, in one line for all of them,
  // while the round goes on waiting for the others.
  void drop_silent(ServedSession& s, const std::vector<PartyId>& firsts) {
    const std::uint32_t r = s.rounds->round();
    const std::string round = "round " + std::to_string(r);
    std::vector<PartyId> parties;
    std::vector<ServedSession::PartyLink> cut;
    for (const PartyId first : firsts) {
      s.clock.settled(first);
      const auto it = s.party_links.find(first);
      if (it == s.party_links.end()) continue;
      cut.push_back(it->second);
      for (std::uint32_t k = 0; k < it->second.count; ++k) parties.push_back(first + k);
    }
    if (cut.empty()) return;
    const std::string silence = std::to_string(s.config.deadline.count()) + " ms";
    log(s.tag + round + ": " + name_parties(parties) + (cut.size() == 1 ? "" : " (" + std::to_string(cut.size()) + " links)") +
        " sent nothing for " + silence + " (no batch, no word that a batch was being prepared): missed the deadline, dropped");
    for (const auto& pl : cut) {
      const std::string reason = round + ": " + (pl.count == 1 ? "this party" : "these parties") + " sent nothing for " + silence +
                                 ", missed the deadline and " + (pl.count == 1 ? "was" : "were") + " dropped";
      pl.link->send(FrameType::abort, s.rounds->round(), std::span(reinterpret_cast<const std::uint8_t*>(reason.data()), reason.size()));
      pl.link->close_after_flush();
      // A peer that hangs never closes its side: the link is closed a second after the abort left.
      auto t = std::make_shared<asio::steady_timer>(io, std::chrono::seconds(1));
      t->async_wait([t, link = pl.link](std::error_code) { link->close(); });
      on_leave(s, pl.first, pl.count, pl.link, true);
      if (s.rounds->finished() || s.rounds->round() != r || s.relaying) return;  // the round closed without them
    }
  }

  // The round closes early once the analyzer is here and every expected party has either
  // submitted or left.
  void maybe_close(ServedSession& s) {
    if (!s.relaying && s.rounds->ready()) close_round(s);
  }

  void abort_session(ServedSession& s, const std::string& reason) {
    if (s.rounds->finished() && !s.relaying) return;
    log(s.tag + "session aborted: " + reason);
    s.rounds->abort(reason);
    if (s.relaying) s.chain_error = reason;  // the last round's chain failed: SessionRounds has already ended
    s.relaying = false;
    const std::span<const std::uint8_t> text(reinterpret_cast<const std::uint8_t*>(reason.data()),
                                             std::min<std::size_t>(reason.size(), s.config.limits().max_abort_reason));
    s.hops.tell(s.rounds->round(), text, true);
    auto tell = [&](const std::shared_ptr<SecureLink>& l) {
      if (l && l->is_open()) {
        l->send(FrameType::abort, s.rounds->round(), text);
        l->close_after_flush();
      }
    };
    for (auto& [first, pl] : s.party_links) tell(pl.link);
    tell(s.analyzer);
    finish(s);
  }

  void cancel_grace(ServedSession& s) {
    for (auto& t : s.grace) t->cancel();
    s.grace.clear();
  }

  void finish(ServedSession& s) {
    s.timer->cancel();
    cancel_grace(s);
    s.hops.close_after_flush();
    stop_if_done();
  }

  // The analyzer owes its done frame for the session's last result: wait `within` for it (again
  // from now, if already waiting), then stop waiting with `why`.
  void await_done(ServedSession& s, std::chrono::milliseconds within, std::string why) {
    s.awaiting_done = true;
    if (!s.done_wait) s.done_wait = std::make_unique<asio::steady_timer>(io);
    s.done_wait->expires_after(within);  // cancels a pending wait: its handler sees the error
    s.done_wait->async_wait([this, &s, why = std::move(why)](std::error_code ec) {
      if (ec || !s.awaiting_done) return;
      s.awaiting_done = false;
      log(s.tag + why);
      if (s.analyzer) s.analyzer->close();
      stop_if_done();
    });
  }

  // Whether the link of `first` (the analyzer's, or a party link's) belongs to a session that ended
  // but still holds the last result for it (it has not sent its done frame): it may connect and ask
  // again.
  static bool owes_done(const ServedSession& s, PartyId first) {
    if (!s.rounds->finished()) return false;
    return first == analyzer_id ? s.awaiting_done : s.parties_owing_done.count(first) != 0;
  }

  // The party links sent the last result have the deadline to confirm it; those that have not by
  // then are named in one line and closed.
  void await_parties_done(ServedSession& s, std::uint32_t round) {
    if (s.parties_owing_done.empty()) return;
    s.parties_done_wait = std::make_unique<asio::steady_timer>(io, s.config.deadline);
    s.parties_done_wait->async_wait([this, &s, round](std::error_code ec) {
      if (ec || s.parties_owing_done.empty()) return;
      const std::size_t left = s.parties_owing_done.size();
      log(s.tag + "round " + std::to_string(round) + ": " + std::to_string(left) + " party link" + (left == 1 ? " (" : "s (first: ") +
          who(*s.parties_owing_done.begin()) + ") did not confirm the session's last result within " +
          std::to_string(s.config.deadline.count()) + " ms");
      for (const PartyId first : s.parties_owing_done)
        if (auto it = s.party_links.find(first); it != s.party_links.end()) it->second.link->close();
      s.parties_owing_done.clear();
      stop_if_done();
    });
  }

  // A party link that owes its done frame and has no connection: it may reconnect for the last
  // result within the reconnect grace, else it is named in one line and given up.
  void await_party_return(ServedSession& s, PartyId first, const std::string& when) {
    auto& t = s.done_grace.emplace_back(std::make_unique<asio::steady_timer>(io, std::max(options.reconnect_grace, std::chrono::milliseconds(0))));
    t->async_wait([this, &s, first, when](std::error_code ec) {
      if (ec || !owes_done(s, first) || s.party_links.count(first) != 0) return;
      log_limited("unconfirmed", s.tag + "round " + std::to_string(s.last.round) + ": " + who(first) + "'s link was lost " + when +
                                     ", and it did not reconnect within " + std::to_string(options.reconnect_grace.count()) + " ms");
      party_done(s, first);
    });
  }

  // A party link's done frame (or giving up on it): it owes nothing more.
  void party_done(ServedSession& s, PartyId first) {
    s.parties_owing_done.erase(first);
    if (s.parties_owing_done.empty() && s.parties_done_wait) s.parties_done_wait->cancel();
    stop_if_done();
  }

  // Once every session has ended and no analyzer still owes its done frame: no new connections,
  // and the open links get linger_timeout to read their last frame.
  void stop_if_done() {
    if (linger || !all_finished()) return;
    if (std::any_of(sessions.begin(), sessions.end(), [](const auto& s) { return s->awaiting_done || !s->parties_owing_done.empty(); })) return;
    {
      std::error_code ignored;
      acceptor.close(ignored);
      linger = std::make_unique<asio::steady_timer>(io, linger_timeout);
      linger->async_wait([this](std::error_code ec) {
        if (ec) return;
        for (auto& ss : sessions) {
          for (auto& [first, pl] : ss->party_links) pl.link->close();
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
    cancel_grace(s);
    // A round of empty messages (width 0 before sealing) has nothing to carry: it skips the chain.
    if (s.hop0 && closed.shape.width > wire_width(0, closed.shape.delivery)) {
      // The batch crosses the chain before anyone sees an output.
      s.relaying = true;
      asio::co_spawn(io, relay(s, std::move(closed)), [this, &s](std::exception_ptr e) {
        if (!e) return;
        try {
          std::rethrow_exception(e);
        } catch (const std::exception& x) {
          abort_session(s, std::string("mix chain: internal error: ") + x.what());
        }
      });
      return;
    }
    deliver(s, std::move(closed), {});
  }

  // Further server `hop`'s answer to a frame of the chain, or nothing when the session ended: the
  // link failed or timed out, the session was aborted meanwhile, or the server refused (`refusing`
  // names what it refused, e.g. "the batch"); each of those aborts the session with one line,
  // unless `spare` (a server the round can do without: a decryption beyond the threshold's), when
  // the line is logged and the session goes on.
  asio::awaitable<std::optional<detail::Frame>> answer_of(ServedSession& s, std::size_t hop, std::uint32_t round, FrameType type,
                                                          std::uint32_t width, std::uint32_t count, std::span<const std::uint8_t> payload,
                                                          const std::string& refusing, bool spare = false) {
    const std::string where = "round " + std::to_string(round) + ": ";
    auto fail = [&](const std::string& line) {
      if (spare) log(s.tag + line + " (going on without it)");
      else abort_session(s, line);
    };
    detail::Frame f;
    try {
      f = co_await s.hops.ask(hop, round, type, width, count, payload, s.relaying);
    } catch (const std::exception& e) {
      if (s.relaying) fail(where + e.what());
      co_return std::nullopt;
    }
    if (!s.relaying) co_return std::nullopt;  // the session was aborted meanwhile
    if (f.header.type == FrameType::abort) {
      fail(where + s.hops.name(hop) + " refused " + refusing + ": " + std::string(f.payload.begin(), f.payload.end()));
      co_return std::nullopt;
    }
    co_return f;
  }

  // Takes a closed round's batch through the chain (detail::ChainEntry does the entry's part without
  // sockets): hop 0 here, then each further server in order, each answer checked as it arrives; with
  // a verifiable chain's round for every party, every further server's proved decryption shares,
  // asked of all at once. The output is delivered once the whole chain holds.
  asio::awaitable<void> relay(ServedSession& s, detail::SessionRounds::Closed closed) {
    const std::uint32_t round = closed.round;
    detail::ChainEntry entry(s.config, s.share ? &*s.share : nullptr, signing, s.hop0.get(), std::move(closed), rng, options.tamper_admitted,
                             [&s](std::size_t hop) { return s.hops.name(hop); }, [&s](PartyId p) { return s.parties_tree.leaf(p); });
    for (const auto& line : entry.take_notes()) log(s.tag + line);
    for (std::size_t hop = 1; hop < s.config.mix_chain.size(); ++hop) {
      const detail::HopAsk ask = entry.shuffle_ask();
      auto answer = co_await answer_of(s, hop, round, ask.type, ask.width, ask.count, ask.payload, ask.refusing);
      if (!answer) co_return;
      if (auto fault = entry.take_shuffle(hop, answer->header, answer->payload)) co_return abort_session(s, *fault);
    }
    if (entry.needs_decryption()) {
      const detail::HopAsk ask = entry.decrypt_ask();
      // With a threshold t < k (a distributed key), up to k - t further servers may be gone.
      const bool spare = entry.trustees_needed() < s.config.mix_chain.size();
      auto answers = co_await ask_every_hop(s, round, ask, spare);
      if (!s.relaying) co_return;  // the session was aborted, naming why
      std::string missing;
      for (std::size_t hop = 1; hop < answers.size(); ++hop) {
        if (!answers[hop]) {
          missing += (missing.empty() ? "" : ", ") + s.hops.name(hop);
          continue;
        }
        if (auto fault = entry.take_decryption(hop, answers[hop]->header, answers[hop]->payload)) co_return abort_session(s, *fault);
      }
      if (entry.trustees_decrypted() < entry.trustees_needed())
        co_return abort_session(s, "round " + std::to_string(round) + ": " + std::to_string(entry.trustees_decrypted()) + " of " +
                                       std::to_string(s.config.mix_chain.size()) + " mix servers decrypted, " +
                                       std::to_string(entry.trustees_needed()) + " needed (gone: " + missing + ")");
    }
    detail::ChainEntry::Result out;
    if (auto fault = entry.finish(out)) co_return abort_session(s, *fault);
    for (const auto& line : entry.take_notes()) log(s.tag + line);
    s.relaying = false;
    if (!out.hop_reports.empty()) s.hop_reports.push_back(std::move(out.hop_reports));
    deliver(s, std::move(out.closed), out.reports, out.evidence, std::move(out.commitment));
    maybe_close(s);  // parties that left while the batch crossed the chain
  }

  // Every further server's answer to `ask`, asked of all at once (each checks the evidence's proofs
  // before it answers, and across hosts those checks run side by side); index = hop, 0 unused.
  asio::awaitable<std::vector<std::optional<detail::Frame>>> ask_every_hop(ServedSession& s, std::uint32_t round, const detail::HopAsk& ask,
                                                                            bool spare = false) {
    const std::size_t k = s.config.mix_chain.size();
    std::vector<std::optional<detail::Frame>> answers(k);
    std::size_t pending = k - 1;
    asio::steady_timer all_in(io, asio::steady_timer::time_point::max());
    for (std::size_t hop = 1; hop < k; ++hop)
      asio::co_spawn(
          io,
          [&, hop]() -> asio::awaitable<void> {
            answers[hop] = co_await answer_of(s, hop, round, ask.type, ask.width, ask.count, ask.payload, ask.refusing, spare);
            if (--pending == 0) all_in.cancel();
          },
          asio::detached);
    if (pending > 0) {  // the asks run once this coroutine waits; the last one wakes it
      std::error_code ignored;
      co_await all_in.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
    }
    co_return answers;
  }

  // Sends a closed round's outcome (with the chain's reports, if any) to every endpoint.
  void deliver(ServedSession& s, detail::SessionRounds::Closed closed, std::span<const std::uint8_t> reports,
               std::span<const std::uint8_t> evidence = {}, Commitment commitment = {}) {
    s.last.valid = true;
    s.last.round = closed.round;
    s.last.shape = closed.shape;
    s.last.outcome = std::move(closed.outcome);
    s.last.commitment = std::move(commitment);
    s.last.sources = s.last.commitment.maker ? std::move(closed.sources) : Submissions{};
    const RoundOutcome& out = s.last.outcome;
    if (!out.dropped.empty())
      log(s.tag + "round " + std::to_string(closed.round) + ": " + std::to_string(out.dropped.size()) + " part" +
          (out.dropped.size() == 1 ? "y" : "ies") + " dropped (first: party " + std::to_string(out.dropped.front()) + ")");
    // One prefix (counts, id lists, hop reports), encoded once; the messages follow it in the frames that carry them.
    s.last.prefix = encode_result(out.messages, out.submitted, out.dropped, reports, {}, evidence);
    if (!s.analyzer && closed.last) {
      // Lost while the last batch crossed the chain: nobody would ever read the output.
      return abort_session(s, "round " + std::to_string(closed.round) + ": the analyzer's link was lost before the result reached it");
    }
    send_analyzer_result(s);  // if it is away, it asks again when it reconnects
    for (auto& [first, pl] : s.party_links)
      if (send_result(s, pl) && closed.last) s.parties_owing_done.insert(first);
    if (closed.last) {
      // A link lost after its parties submitted, and not back: they counted, so it is waited for as
      // one that lost the result on the way.
      for (const auto& [first, count] : s.away_after_submit) {
        const auto it = std::lower_bound(out.submitted.begin(), out.submitted.end(), first);
        if (s.party_links.count(first) != 0 || it == out.submitted.end() || *it >= first + count) continue;
        s.parties_owing_done.insert(first);
        await_party_return(s, first, "before the session's last result was sent to it");
      }
    }
    s.away_after_submit.clear();
    if (closed.last) {
      // Goodbye to the chain's further servers (an abort frame without a reason): they end at once.
      s.hops.tell(closed.round, {}, false);
      // A party link sent the result stays until it confirms it (a done frame), as the analyzer's;
      // the others (told they were dropped, or with no party left) close.
      for (auto& [first, pl] : s.party_links)
        if (!s.parties_owing_done.count(first)) pl.link->close_after_flush();
      await_parties_done(s, closed.round);
      // The analyzer's link stays until it confirms the result: one lost on the way is asked for
      // again after a reconnection, as in the rounds before.
      await_done(s, s.config.deadline,
                 "round " + std::to_string(closed.round) + ": the analyzer did not confirm the session's last result within " +
                     std::to_string(s.config.deadline.count()) + " ms");
      finish(s);
      return;
    }
    start_round_timer(s);
  }

  // The last closed round's result, with every message, to the analyzer (if it is connected).
  void send_analyzer_result(ServedSession& s) {
    if (!s.analyzer || !s.analyzer->is_open()) return;
    s.analyzer->send(FrameType::result, s.last.round, static_cast<std::uint32_t>(s.last.shape.width), carried(s.last.outcome), s.last.prefix,
                     output_bytes(s.last.outcome));
  }

  // Messages a result frame carries: none when the round's output travels as a verifiable chain's evidence.
  static std::uint32_t carried(const RoundOutcome& out) { return out.output ? static_cast<std::uint32_t>(out.messages) : 0; }

  static std::span<const std::uint8_t> output_bytes(const RoundOutcome& out) {
    return out.output ? out.output->bytes() : std::span<const std::uint8_t>{};
  }

  // The last round's result for one link: with the messages in MPC mode; in ESA mode only its own
  // parties' fate (its traffic does not grow with the number of parties). A link none of whose
  // parties submitted is told they missed the deadline. Returns whether a result frame went out.
  bool send_result(ServedSession& s, ServedSession::PartyLink& pl) {
    if (!pl.link->is_open()) return false;
    const auto& out = s.last.outcome;
    const PartyId end = pl.first + pl.count;
    const auto sub_begin = std::lower_bound(out.submitted.begin(), out.submitted.end(), pl.first);
    const auto sub_end = std::lower_bound(sub_begin, out.submitted.end(), end);
    const auto drop_begin = std::lower_bound(out.dropped.begin(), out.dropped.end(), pl.first);
    const auto drop_end = std::lower_bound(drop_begin, out.dropped.end(), end);
    const std::string round = "round " + std::to_string(s.last.round);
    if (sub_begin == sub_end) {
      if (drop_begin == drop_end) return false;  // every party of the link left earlier
      const std::string reason = round + ": " + (pl.count == 1 ? "this party" : "these parties") + " missed the deadline and " +
                                 (pl.count == 1 ? "was" : "were") + " dropped";
      pl.link->send(FrameType::abort, s.last.round, std::span(reinterpret_cast<const std::uint8_t*>(reason.data()), reason.size()));
      pl.link->close_after_flush();
      return false;
    }
    const auto receipt = receipt_for(s, pl);
    if (s.last.shape.delivery == Delivery::all_parties) {
      pl.link->send(FrameType::result, s.last.round, static_cast<std::uint32_t>(s.last.shape.width), carried(out), s.last.prefix,
                    output_bytes(out), receipt);
    } else {
      pl.link->send(FrameType::result, s.last.round, 0, 0,
                    encode_result(out.messages, std::span(&*sub_begin, static_cast<std::size_t>(sub_end - sub_begin)),
                                  std::span(out.dropped.data() + (drop_begin - out.dropped.begin()),
                                            static_cast<std::size_t>(drop_end - drop_begin)),
                                  {}, {}),
                    receipt);
    }
    return true;
  }

  // The receipt of a link for the records its parties submitted in the last round (in party order),
  // when that round's records crossed the chain; empty otherwise.
  static std::vector<std::uint8_t> receipt_for(const ServedSession& s, const ServedSession::PartyLink& pl) {
    if (!s.last.commitment.maker) return {};
    const auto& src = s.last.sources;
    std::vector<const Submissions::Slice*> mine;
    for (const auto& slice : src.parties)
      if (slice.party >= pl.first && slice.party - pl.first < pl.count) mine.push_back(&slice);
    std::sort(mine.begin(), mine.end(), [](const auto* a, const auto* b) { return a->party < b->party; });
    std::vector<std::uint8_t> records;
    const std::size_t w = src.messages.width();
    const std::size_t cw = s.last.commitment.maker->width();  // a verifiable chain's: the ciphertexts, without their proofs
    for (const auto* slice : mine)
      for (std::size_t m = 0; m < slice->count; ++m) {
        const auto bytes = src.messages.bytes().subspan((slice->first + m) * w, std::min(w, cw));
        records.insert(records.end(), bytes.begin(), bytes.end());
      }
    return encode_receipt(s.last.commitment.maker->receipt(records, s.last.commitment.signed_bytes));
  }

  // Called when an admitted identity's link ends (error, close, rejection). The parties of a link
  // lost before they submitted are waited for a while (ShufflerOptions::reconnect_grace); those of
  // a link the shuffler refused are not.
  void on_leave(ServedSession& s, PartyId first, std::uint32_t count, const std::shared_ptr<SecureLink>& link, bool refused) {
    if (first == analyzer_id) {
      if (s.analyzer != link) return;  // a refused second link, or one a reconnection replaced
      s.analyzer = nullptr;
      (void)s.rounds->leave(analyzer_id);
      if (s.rounds->finished()) {
        // Lost before it confirmed the last result: it may come back for it within the grace.
        if (s.awaiting_done)
          await_done(s, std::max(options.reconnect_grace, std::chrono::milliseconds(0)),
                     "round " + std::to_string(s.last.round) + ": the analyzer's link was lost before it confirmed the session's last result, "
                     "and it did not reconnect within " + std::to_string(options.reconnect_grace.count()) + " ms");
        return;
      }
      // No round closes without the analyzer: it is waited for as a lost party link is, then the
      // session ends naming it.
      const std::string reason = "round " + std::to_string(s.rounds->round()) + ": the analyzer's link was lost";
      if (options.reconnect_grace.count() <= 0) return abort_session(s, reason);
      auto& t = s.grace.emplace_back(std::make_unique<asio::steady_timer>(io, options.reconnect_grace));
      t->async_wait([this, &s, reason, round = s.rounds->round()](std::error_code ec) {
        if (ec || s.rounds->finished() || s.rounds->round() != round || s.rounds->has_analyzer()) return;
        abort_session(s, reason + " and it did not reconnect within " + std::to_string(options.reconnect_grace.count()) + " ms");
      });
      return;
    } else {
      const auto it = s.party_links.find(first);
      if (it == s.party_links.end() || it->second.link != link) return;  // refused, or replaced by a reconnection
      s.party_links.erase(it);
      s.clock.settled(first);
      if (s.rounds->finished()) {
        // Lost before it confirmed the last result: it may come back for it within the grace.
        if (owes_done(s, first)) await_party_return(s, first, "before it confirmed the session's last result");
        return;
      }
      if (!refused) s.away_after_submit[first] = count;  // whether its parties submitted is read when the round closes
    }
    if (auto reason = s.rounds->leave(first, count)) return abort_session(s, *reason);
    if (s.rounds->missing(first, count)) {
      // Its parties that had not submitted may be reconnecting: the round waits for them a while.
      if (refused || options.reconnect_grace.count() <= 0) {
        (void)s.rounds->lapse(first, count);
      } else {
        auto& t = s.grace.emplace_back(std::make_unique<asio::steady_timer>(io, options.reconnect_grace));
        t->async_wait([this, &s, first, count, round = s.rounds->round()](std::error_code ec) {
          if (ec || s.rounds->finished() || s.rounds->round() != round) return;
          if (s.rounds->lapse(first, count)) maybe_close(s);
        });
      }
    }
    maybe_close(s);
  }

  static std::string who_range(PartyId first, std::uint32_t count) {
    if (first == analyzer_id || count == 1) return who(first);
    return "parties " + std::to_string(first) + ".." + std::to_string(first + count - 1);
  }

  // After a refusal told in an abort frame: reads and discards what the peer still sends until it
  // closes (so the abort is not lost to a reset), for at most a second.
  asio::awaitable<void> drain(std::shared_ptr<SecureLink> link) {
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

  // What a frame leaves its link to do: read the next one, or stop (the link closes; a refusal has
  // been told to the peer already).
  enum class Next { read, stop };
  using Refuse = std::function<void(const std::string&)>;

  // An authenticated link joins session `s`: a link for exactly the parties of an admitted one (or
  // the analyzer's) replaces it, one owed the last result comes back for it, any other is admitted
  // by the round logic or refused. Returns whether it was admitted.
  bool admit(ServedSession& s, PartyId first, std::uint32_t count, const std::shared_ptr<SecureLink>& link, const Refuse& refuse) {
    // The process reconnected before the old connection was seen to end (it proved the same keys).
    if (first != analyzer_id) {
      const auto it = s.party_links.find(first);
      if (it != s.party_links.end() && it->second.count == count) {
        auto old = it->second.link;
        s.party_links.erase(it);
        (void)s.rounds->leave(first, count);
        old->close();
      }
    } else if (s.analyzer) {
      auto old = std::move(s.analyzer);  // the analyzer's key again: the same replacement
      (void)s.rounds->leave(analyzer_id);
      old->close();
    }
    const bool was_started = s.rounds->started();
    if (owes_done(s, first) && first != analyzer_id) {
      // A party link back for the last round's result: it sends its batch again, which is answered
      // with the result, then confirms it (within the parties' deadline, already running).
      s.party_links[first] = {first, count, link};
      return true;
    }
    if (owes_done(s, first)) {
      // Back for the last round's result (it asks with its empty batch), with the deadline again to confirm it.
      s.analyzer = link;
      await_done(s, s.config.deadline,
                 "round " + std::to_string(s.last.round) + ": the analyzer reconnected but did not confirm the session's last result "
                 "within " + std::to_string(s.config.deadline.count()) + " ms");
      return true;
    }
    if (auto refusal = s.rounds->admit(first, count)) {
      refuse(*refusal);
      return false;
    }
    if (first == analyzer_id) s.analyzer = link;
    else s.party_links[first] = {first, count, link};
    if (!was_started) start_round_timer(s);
    else progress(s, first == analyzer_id ? std::nullopt : std::optional<PartyId>(first));
    maybe_close(s);
    return true;
  }

  // A frame on the analyzer's link: its done frame after the last result, or, after it reconnects,
  // an empty batch (a submit frame with its one count, 0) naming the round whose result it awaits.
  // The round before the open one is sent again (once per connection, max_resends per round); the
  // open one it gets when that round closes.
  Next analyzer_frame(ServedSession& s, const detail::Frame& f, bool& resent, const Refuse& refuse) {
    if (f.header.type == FrameType::done) {
      if (!s.rounds->finished()) {
        refuse("a done frame from the analyzer in round " + std::to_string(s.rounds->round()) + ", before the session's last result");
        return Next::stop;
      }
      s.awaiting_done = false;
      s.done_wait->cancel();
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

  // A frame on the link of parties first .. first + count - 1: their done frame after the last
  // result, or their batches for the round (all or nothing; the result again for a link that
  // reconnected after its round closed).
  Next party_frame(ServedSession& s, PartyId first, std::uint32_t count, const detail::Frame& f, bool& resent, const Refuse& refuse) {
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
      refuse("round " + std::to_string(s.rounds->round()) + ": " + *reason);
      return Next::stop;
    }
    progress(s, first);
    maybe_close(s);
    return Next::read;
  }

  asio::awaitable<void> serve(std::shared_ptr<SecureLink> link) {
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
      if (s->rounds->finished() && !owes_done(*s, first))
        throw_error(Errc::session_aborted, "session " + to_hex(hello.session) + " has already ended");
      const detail::IdentityProof proof =
          first == analyzer_id ? s->analyzer_tree.proof(0, 1) : s->parties_tree.proof(first, count);
      co_await link->accept(hello, keys, proof, rng);
      pending.authenticated();
      // Authenticated: from here a refusal is told to the peer in an abort frame.
      auto refuse = [&](const std::string& reason) {
        log_limited("refused", s->tag + who_range(first, count) + " (" + peer + "): refused: " + reason);
        link->send(FrameType::abort, s->rounds->round(), std::span(reinterpret_cast<const std::uint8_t*>(reason.data()), reason.size()));
        link->close_after_flush();
        refused = true;
      };
      admitted = admit(*s, first, count, link, refuse);
      if (!admitted && refused) s = nullptr;
      while (s && !refused && link->is_open()) {
        detail::Frame f = co_await link->receive();
        // Late frames after the end are read and ignored until the peer closes, except the analyzer's
        // while it owes its done frame.
        if (s->rounds->finished() && !owes_done(*s, first)) continue;
        const Next next = first == analyzer_id ? analyzer_frame(*s, f, resent, refuse) : party_frame(*s, first, count, f, resent, refuse);
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

  // K_p for every party of a session (detail::parties_tree), and the analyzer's.
  static void compute_statics(ServedSession& s, const KeyPair& keys) {
    const auto& cfg = s.config;
    detail::StaticSecret analyzer_static = detail::static_secret(keys.secret_key(), cfg.analyzer_key);
    s.analyzer_tree = detail::IdentityTree(std::span(&analyzer_static, 1));
    sodium_memzero(analyzer_static.data(), analyzer_static.size());
    s.parties_tree = detail::parties_tree(keys, cfg.party_keys);
  }

  asio::awaitable<void> accept_loop() {
    co_await detail::accept_loop(
        acceptor, [this](std::shared_ptr<SecureLink> link) { return serve(std::move(link)); },
        [this](const std::string& kind, const std::string& line) { log_limited(kind, line); });
  }
};

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
    s->timer = std::make_unique<asio::steady_timer>(impl_->io);
    s->clock = detail::RoundClock(s->config.deadline, s->config.round_limit());
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
      s->hop0 = std::make_unique<MixHop>(0, impl_->keys, impl_->signing);
      // Made once for the session; a key the servers made must open now, not when a round needs it.
      if (s->config.mix == MixKind::verifiable) s->share = server_share(s->config, impl_->keys, 0);
      s->hops = detail::HopLinks(impl_->io, s->config, s->digest, impl_->keys, impl_->rng, options.hop_addresses,
                                 [impl = impl_.get(), tag = s->tag](const std::string& line) { impl->log(tag + line); });
    }
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
    if (out.back().error.empty()) out.back().error = s->chain_error;
    out.back().hops = std::move(s->hop_reports);
  }
  return out;
}

void TcpShuffler::stop() {
  impl_->stop([this] {
    for (auto& s : impl_->sessions) impl_->abort_session(*s, "the shuffler was stopped");
  });
}

}  // namespace shufflempc::net
