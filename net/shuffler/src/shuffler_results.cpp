// The TCP shuffler's result frames to the analyzer and the party links, and the wait for their
// confirmations after the last round (shuffler_impl.hpp).
#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "shuffler_impl.hpp"

namespace shufflempc::net {

void TcpShuffler::Impl::await_done(ServedSession& s, std::chrono::milliseconds within, std::string why) {
  s.result_waits.awaiting_done = true;
  if (!s.result_waits.done_wait) s.result_waits.done_wait = std::make_unique<asio::steady_timer>(io);
  s.result_waits.done_wait->expires_after(within);  // cancels a pending wait: its handler sees the error
  s.result_waits.done_wait->async_wait([this, &s, why = std::move(why)](std::error_code ec) {
    if (ec || !s.result_waits.awaiting_done) return;
    s.result_waits.awaiting_done = false;
    log(s.tag + why);
    if (s.analyzer) s.analyzer->close();
    stop_if_done();
  });
}

void TcpShuffler::Impl::await_parties_done(ServedSession& s, std::uint32_t round) {
  if (s.result_waits.parties_owing_done.empty()) return;
  s.result_waits.parties_done_wait = std::make_unique<asio::steady_timer>(io, s.config.deadline);
  s.result_waits.parties_done_wait->async_wait([this, &s, round](std::error_code ec) {
    if (ec || s.result_waits.parties_owing_done.empty()) return;
    const std::size_t left = s.result_waits.parties_owing_done.size();
    log(s.tag + "round " + std::to_string(round) + ": " + std::to_string(left) + " party link" + (left == 1 ? " (" : "s (first: ") +
        who(*s.result_waits.parties_owing_done.begin()) + ") did not confirm the session's last result within " +
        std::to_string(s.config.deadline.count()) + " ms");
    for (const PartyId first : s.result_waits.parties_owing_done)
      if (auto it = s.party_links.find(first); it != s.party_links.end()) it->second.link->close();
    s.result_waits.parties_owing_done.clear();
    stop_if_done();
  });
}

void TcpShuffler::Impl::await_party_return(ServedSession& s, PartyId first, const std::string& when) {
  auto& t = s.result_waits.done_grace.emplace_back(std::make_unique<asio::steady_timer>(io, std::max(options.reconnect_grace, std::chrono::milliseconds(0))));
  t->async_wait([this, &s, first, when](std::error_code ec) {
    if (ec || !owes_done(s, first) || s.party_links.count(first) != 0) return;
    log_limited("unconfirmed", s.tag + "round " + std::to_string(s.last.round) + ": " + who(first) + "'s link was lost " + when +
                                   ", and it did not reconnect within " + std::to_string(options.reconnect_grace.count()) + " ms");
    party_done(s, first);
  });
}

void TcpShuffler::Impl::party_done(ServedSession& s, PartyId first) {
  s.result_waits.parties_owing_done.erase(first);
  if (s.result_waits.parties_owing_done.empty() && s.result_waits.parties_done_wait) s.result_waits.parties_done_wait->cancel();
  stop_if_done();
}

void TcpShuffler::Impl::stop_if_done() {
  if (linger || !all_finished()) return;
  if (std::any_of(sessions.begin(), sessions.end(), [](const auto& s) { return s->result_waits.awaiting_done || !s->result_waits.parties_owing_done.empty(); })) return;
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

void TcpShuffler::Impl::send_analyzer_result(ServedSession& s) {
  if (!s.analyzer || !s.analyzer->is_open()) return;
  s.analyzer->send(FrameType::result, s.last.round, static_cast<std::uint32_t>(s.last.shape.width), carried(s.last.outcome), s.last.prefix,
                   output_bytes(s.last.outcome));
}

bool TcpShuffler::Impl::send_result(ServedSession& s, ServedSession::PartyLink& pl) {
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

std::vector<std::uint8_t> TcpShuffler::Impl::receipt_for(const ServedSession& s, const ServedSession::PartyLink& pl) {
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

}  // namespace shufflempc::net
