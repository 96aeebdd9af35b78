// The TCP shuffler, a round's life: its deadlines, closing it, delivering its outcome, the links
// that leave it (shuffler_impl.hpp).
#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "shuffler_impl.hpp"
#include "shufflempc/net/batch_commitment.hpp"
#include "shufflempc/parallel.hpp"

namespace shufflempc::net {

void TcpShuffler::Impl::start_round_timer(ServedSession& s) {
  const auto now = std::chrono::steady_clock::now();
  s.round_timers.clock.open(now);
  if (s.config.close_at && s.rounds->round() == 0) s.round_timers.clock.close_at(now + s.config.window_left());
  for (const auto& [first, pl] : s.party_links)
    if (s.rounds->owes_batch(first, pl.count)) s.round_timers.clock.heard(first, now);
  arm_round_timer(s);
}

void TcpShuffler::Impl::progress(ServedSession& s, std::optional<PartyId> link) {
  if (s.rounds->finished() || s.chain.relaying || !s.rounds->started()) return;
  const auto now = std::chrono::steady_clock::now();
  if (!link) return s.round_timers.clock.moved(now);
  const auto it = s.party_links.find(*link);
  if (it == s.party_links.end()) return;  // a link given up already: what it says moves nothing
  if (s.rounds->owes_batch(it->first, it->second.count)) return s.round_timers.clock.heard(it->first, now);
  s.round_timers.clock.settled(it->first);
  s.round_timers.clock.moved(now);
}

void TcpShuffler::Impl::arm_round_timer(ServedSession& s) {
  s.round_timers.timer->expires_at(s.round_timers.clock.next());  // cancels a wait already pending: its handler sees the error
  s.round_timers.timer->async_wait([this, &s, round = s.rounds->round()](std::error_code ec) {
    if (ec || s.rounds->finished() || s.rounds->round() != round || s.chain.relaying) return;
    const auto due = s.round_timers.clock.due(std::chrono::steady_clock::now());
    const auto ms = [](auto d) { return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()); };
    using Kind = detail::RoundClock::Kind;
    if (due.kind == Kind::nothing) return arm_round_timer(s);
    if (due.kind == Kind::window) {
      if (!s.rounds->has_analyzer() && !s.round_timers.window_passed) {
        // After a restart, say, the analyzer may still be reconnecting: a deadline more for it.
        s.round_timers.window_passed = true;
        s.round_timers.clock.close_at(std::chrono::steady_clock::now() + s.config.deadline);
        log(s.tag + "round " + std::to_string(round) + ": the collection window closed while the analyzer is away; waiting " +
            std::to_string(s.config.deadline.count()) + " ms for it");
        return arm_round_timer(s);
      }
      const auto waiting = s.rounds->waiting_for();
      log(s.tag + "round " + std::to_string(round) + ": the collection window closed" +
          (waiting.empty() ? std::string() : " (" + std::to_string(waiting.size()) + " of the parties never submitted)"));
      return close_round(s);
    }
    if (due.kind == Kind::silent_links) {
      drop_silent(s, due.silent);
      if (!s.rounds->finished() && s.rounds->round() == round && !s.chain.relaying) arm_round_timer(s);
      return;
    }
    const auto waiting = s.rounds->waiting_for();
    std::string missing = waiting.empty() ? std::string() : name_parties(waiting);
    if (!s.rounds->has_analyzer()) missing += (missing.empty() ? "" : " and ") + std::string("the analyzer");
    log(s.tag + "round " + std::to_string(round) + ": deadline expired (" +
        (due.kind == Kind::limit ? ms(s.round_timers.clock.limit()) + " ms since the round opened, its limit"
                                 : ms(s.round_timers.clock.deadline()) + " ms without a new link, batch or word of work") +
        ")" + (missing.empty() ? std::string() : ", still waiting for " + missing));
    close_round(s);
  });
}

void TcpShuffler::Impl::drop_silent(ServedSession& s, const std::vector<PartyId>& firsts) {
  const std::uint32_t r = s.rounds->round();
  const std::string round = "round " + std::to_string(r);
  std::vector<PartyId> parties;
  std::vector<ServedSession::PartyLink> cut;
  for (const PartyId first : firsts) {
    s.round_timers.clock.settled(first);
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
    if (s.rounds->finished() || s.rounds->round() != r || s.chain.relaying) return;  // the round closed without them
  }
}

void TcpShuffler::Impl::abort_session(ServedSession& s, const std::string& reason) {
  if (s.rounds->finished() && !s.chain.relaying) return;
  log(s.tag + "session aborted: " + reason);
  s.rounds->abort(reason);
  if (s.chain.relaying) s.chain.chain_error = reason;  // the last round's chain failed: SessionRounds has already ended
  s.chain.relaying = false;
  const std::span<const std::uint8_t> text(reinterpret_cast<const std::uint8_t*>(reason.data()),
                                           std::min<std::size_t>(reason.size(), s.config.limits().max_abort_reason));
  s.chain.hops.tell(s.rounds->round(), text, true);
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

void TcpShuffler::Impl::finish(ServedSession& s) {
  s.round_timers.timer->cancel();
  cancel_grace(s);
  s.chain.hops.close_after_flush();
  stop_if_done();
}

void TcpShuffler::Impl::close_round(ServedSession& s) {
  if (s.rounds->finished()) return;
  if (s.store && s.untold > 0) {
    // Every batch of the round on disk, and its link told, before the round closes (a link that
    // leaves with its receipt must have it before the result): the admitted frames are posted as
    // the store reports, so once the store has reported every batch the close is posted after them.
    // Counting the untold batches, not the store's queue: a batch the store has reported may still
    // have its frame waiting in the io thread's queue (a party process once got the round's result
    // before its receipt and left without one).
    s.store->flush();
    asio::post(io, [this, &s] { close_round(s); });
    return;
  }
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
  if (s.chain.hop0 && closed.shape.width > wire_width(0, closed.shape.delivery)) {
    // The batch crosses the chain before anyone sees an output.
    s.chain.relaying = true;
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
  // To the analyzer alone, with no chain: the shuffler's signed commitment to the batch goes with
  // it, in the result's reports (net/batch_commitment.hpp).
  std::vector<std::uint8_t> commitment;
  if (commits_batch(s.config, closed.shape.delivery)) {
    const auto& batch = closed.outcome.output;
    const std::size_t ww = batch ? batch->width() : wire_width(closed.shape.width, closed.shape.delivery);
    try {
      commitment = encode_batch_commitment(commit_batch(s.config.session, closed.round, ww,
                                                        batch ? batch->bytes() : std::span<const std::uint8_t>{}, signing, hardware_threads())
                                               .commitment);
    } catch (const std::exception& e) {  // no result goes without the commitment the analyzer requires
      return abort_session(s, "round " + std::to_string(closed.round) + ": committing to the batch failed: " + e.what());
    }
  }
  deliver(s, std::move(closed), commitment);
}

void TcpShuffler::Impl::deliver(ServedSession& s, detail::SessionRounds::Closed closed, std::span<const std::uint8_t> reports,
                                std::span<const std::uint8_t> evidence, Commitment commitment) {
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
    if (send_result(s, pl) && closed.last) s.result_waits.parties_owing_done.insert(first);
  if (closed.last) {
    // A link lost after its parties submitted, and not back: they counted, so it is waited for as
    // one that lost the result on the way, unless its receipt settles it (receipt_settles).
    for (const auto& [first, count] : s.round_timers.away_after_submit) {
      if (receipt_settles(s, closed.shape)) break;
      const auto it = std::lower_bound(out.submitted.begin(), out.submitted.end(), first);
      if (s.party_links.count(first) != 0 || it == out.submitted.end() || *it >= first + count) continue;
      s.result_waits.parties_owing_done.insert(first);
      await_party_return(s, first, "before the session's last result was sent to it");
    }
  }
  s.round_timers.away_after_submit.clear();
  if (closed.last) {
    // Goodbye to the chain's further servers (an abort frame without a reason): they end at once.
    s.chain.hops.tell(closed.round, {}, false);
    // A party link sent the result stays until it confirms it (a done frame), as the analyzer's;
    // the others (told they were dropped, or with no party left) close.
    for (auto& [first, pl] : s.party_links)
      if (!s.result_waits.parties_owing_done.count(first)) pl.link->close_after_flush();
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

void TcpShuffler::Impl::on_leave(ServedSession& s, PartyId first, std::uint32_t count, const std::shared_ptr<SecureLink>& link,
                                 bool refused) {
  if (first == analyzer_id) {
    if (s.analyzer != link) return;  // a refused second link, or one a reconnection replaced
    s.analyzer = nullptr;
    s.rounds->leave(analyzer_id);
    if (s.rounds->finished()) {
      // Lost before it confirmed the last result: it may come back for it within the grace.
      if (s.result_waits.awaiting_done)
        await_done(s, std::max(options.reconnect_grace, std::chrono::milliseconds(0)),
                   "round " + std::to_string(s.last.round) + ": the analyzer's link was lost before it confirmed the session's last result, "
                   "and it did not reconnect within " + std::to_string(options.reconnect_grace.count()) + " ms");
      return;
    }
    // No round closes without the analyzer: it is waited for as a lost party link is, then the
    // session ends naming it.
    const std::string reason = "round " + std::to_string(s.rounds->round()) + ": the analyzer's link was lost";
    if (options.reconnect_grace.count() <= 0) return abort_session(s, reason);
    auto& t = s.round_timers.grace.emplace_back(std::make_unique<asio::steady_timer>(io, options.reconnect_grace));
    t->async_wait([this, &s, reason, round = s.rounds->round()](std::error_code ec) {
      if (ec || s.rounds->finished() || s.rounds->round() != round || s.rounds->has_analyzer()) return;
      abort_session(s, reason + " and it did not reconnect within " + std::to_string(options.reconnect_grace.count()) + " ms");
    });
    return;
  } else {
    const auto it = s.party_links.find(first);
    if (it == s.party_links.end() || it->second.link != link) return;  // refused, or replaced by a reconnection
    s.party_links.erase(it);
    s.round_timers.clock.settled(first);
    if (s.rounds->finished()) {
      // Lost before it confirmed the last result: it may come back for it within the grace, unless
      // its receipt settles it (receipt_settles: it may leave with its receipt).
      if (owes_done(s, first)) {
        if (receipt_settles(s, s.last.shape)) party_done(s, first);
        else await_party_return(s, first, "before it confirmed the session's last result");
      }
      // Lost while the round crosses the chain: owed the result when it comes (deliver), and let
      // back in before that (awaits_relay).
      if (s.chain.relaying && !refused) s.round_timers.away_after_submit[first] = count;
      return;
    }
    if (!refused) s.round_timers.away_after_submit[first] = count;  // whether its parties submitted is read when the round closes
  }
  s.rounds->leave(first, count);
  if (s.rounds->missing(first, count)) {
    // Its parties that had not submitted may be reconnecting: the round waits for them a while.
    if (refused || options.reconnect_grace.count() <= 0) {
      (void)s.rounds->lapse(first, count);
    } else {
      auto& t = s.round_timers.grace.emplace_back(std::make_unique<asio::steady_timer>(io, options.reconnect_grace));
      t->async_wait([this, &s, first, count, round = s.rounds->round()](std::error_code ec) {
        if (ec || s.rounds->finished() || s.rounds->round() != round) return;
        if (s.rounds->lapse(first, count)) maybe_close(s);
      });
    }
  }
  maybe_close(s);
}

}  // namespace shufflempc::net
