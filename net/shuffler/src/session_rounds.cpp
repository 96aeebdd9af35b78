#include "shufflempc/net/detail/session_rounds.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "shufflempc/trace.hpp"

namespace shufflempc::net::detail {

namespace {
std::string who(PartyId id) { return id == analyzer_id ? std::string("the analyzer") : "party " + std::to_string(id); }
}  // namespace

SessionRounds::SessionRounds(const SessionConfig& config)
    : config_(config), limits_(config.limits()), buffer_(1) {
  if (config_.rounds.empty()) throw std::invalid_argument("a session needs at least one round");
  const std::size_t n = config.parties;
  present_.assign(n, 0);
  expected_.assign(n, 1);
  submitted_.assign(n, 0);
  gone_.assign(n, 0);
  slice_of_.assign(n, 0);
  report_.session = config.session;
}

Limits SessionRounds::limits_for(PartyId first, std::uint32_t count) const {
  Limits l = limits_;
  if (first == analyzer_id) {
    l.max_payload = 4;  // one frame kind: an empty batch (its one count, 0) asking for a result again
    l.max_count = 0;
    return l;
  }
  std::uint64_t payload = 0, width = 0, messages = 0;
  for (const auto& r : config_.rounds) {
    payload = std::max<std::uint64_t>(payload, std::uint64_t{r.width} * r.max_messages);
    width = std::max<std::uint64_t>(width, r.width);
    messages = std::max<std::uint64_t>(messages, r.max_messages);
  }
  payload = count * (payload + 4);
  messages *= count;
  l.max_payload = static_cast<std::uint32_t>(std::min<std::uint64_t>(l.max_payload, payload));
  l.max_width = static_cast<std::uint32_t>(std::min<std::uint64_t>(l.max_width, width));
  l.max_count = static_cast<std::uint32_t>(std::min<std::uint64_t>(l.max_count, messages));
  return l;
}

std::optional<Fault> SessionRounds::admit(PartyId first, std::uint32_t count) {
  if (finished_) return Fault{.code = FaultCode::session_ended, .text = "the session has already ended"};
  if (first == analyzer_id) {
    if (count != 1) return Fault{.code = FaultCode::outside_session, .text = "the analyzer's link speaks for the analyzer alone", .party = first};
    if (analyzer_present_) return Fault{.code = FaultCode::already_connected, .text = who(first) + " is already connected", .party = first};
    analyzer_present_ = true;
  } else {
    const std::size_t n = present_.size();
    if (count == 0 || first >= n || count > n - first)
      return Fault{.code = FaultCode::outside_session,
                   .text = "parties " + std::to_string(first) + " .. " + std::to_string(std::uint64_t{first} + count - 1) +
                           " are not all in the session (it has " + std::to_string(n) + ")",
                   .party = first};
    bool any = false;
    for (std::size_t id = first; id < first + std::size_t{count}; ++id) {
      if (present_[id] && expected_[id])
        return Fault{.code = FaultCode::already_connected, .text = who(static_cast<PartyId>(id)) + " is already connected",
                     .party = static_cast<PartyId>(id)};
      any = any || expected_[id] != 0;
    }
    if (!any)
      return Fault{.code = FaultCode::not_in_session,
                   .text = (count == 1 ? who(first) + " is no longer" : std::string("none of these parties is still")) + " in the session (round " +
                           std::to_string(round_) + ")",
                   .round = round_,
                   .party = first};
    for (std::size_t id = first; id < first + std::size_t{count}; ++id) {
      if (!expected_[id]) continue;  // dropped earlier: stays out
      present_[id] = 1;
      gone_[id] = 0;  // back within the round (a reconnect): the round waits for it again
    }
  }
  if (!started_) {
    started_ = true;
    open_round();
  }
  return std::nullopt;
}

void SessionRounds::leave(PartyId first, std::uint32_t count) {
  if (first == analyzer_id) {
    analyzer_present_ = false;
    return;
  }
  for (std::size_t id = first; id < std::min(present_.size(), first + std::size_t{count}); ++id) present_[id] = 0;
}

bool SessionRounds::missing(PartyId first, std::uint32_t count) const {
  if (finished_ || first == analyzer_id) return false;
  for (std::size_t id = first; id < std::min(present_.size(), first + std::size_t{count}); ++id)
    if (!present_[id] && expected_[id] && !submitted_[id] && !gone_[id]) return true;
  return false;
}

bool SessionRounds::owes_batch(PartyId first, std::uint32_t count) const {
  if (finished_ || first == analyzer_id) return false;
  for (std::size_t id = first; id < std::min(present_.size(), first + std::size_t{count}); ++id)
    if (present_[id] && expected_[id] && !submitted_[id] && !gone_[id]) return true;
  return false;
}

bool SessionRounds::lapse(PartyId first, std::uint32_t count) {
  if (!missing(first, count)) return false;
  for (std::size_t id = first; id < std::min(present_.size(), first + std::size_t{count}); ++id)
    if (!present_[id] && expected_[id] && !submitted_[id]) gone_[id] = 1;
  return true;
}

std::optional<Fault> SessionRounds::submit(PartyId first, std::span<const std::uint32_t> counts, std::uint32_t round,
                                           std::size_t width, std::span<const std::uint8_t> messages) {
  trace::point("SessionRounds::submit");
  if (finished_) return Fault{.code = FaultCode::session_ended, .text = "the session has ended", .party = first};
  if (round != round_)
    return Fault{.code = FaultCode::wrong_round,
                 .text = "submission for round " + std::to_string(round) + " rejected (wrong round)",
                 .round = round,
                 .party = first};
  const auto fault = [&](FaultCode code, std::string text, PartyId party) {
    return Fault{.code = code, .text = std::move(text), .round = round_, .party = party};
  };
  const std::size_t w = buffer_.width();
  if (width != w)
    return fault(FaultCode::wrong_width, "submission of width " + std::to_string(width) + " rejected, the round's wire width is " + std::to_string(w),
                 first);
  const RoundShape& shape = config_.rounds[round_];
  const std::size_t n = expected_.size();
  if (counts.empty() || first >= n || counts.size() > n - first)
    return fault(FaultCode::outside_session, "submission rejected: it names parties outside the session", first);
  // Check everything before changing anything: a bad frame leaves no trace.
  std::size_t total = 0, repeated = 0, fresh = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const std::size_t id = first + i;
    const auto pid = static_cast<PartyId>(id);
    const std::string party = who(pid);
    if (counts[i] == submit_absent) {
      if (submitted_[id]) return fault(FaultCode::late_leave, "submission rejected: " + party + " leaves after its batch was accepted", pid);
      continue;
    }
    if (!expected(pid)) return fault(FaultCode::not_in_session, "submission rejected: " + party + " is no longer in the session", pid);
    if (!shape.accepts(counts[i]))
      return fault(FaultCode::wrong_count,
                   "submission of " + std::to_string(counts[i]) + " messages by " + party + " rejected, the round allows " +
                       std::to_string(shape.min_messages) + " to " + std::to_string(shape.max_messages),
                   pid);
    total += counts[i];
    (submitted_[id] ? repeated : fresh) += 1;
  }
  if (messages.size() != width * total)
    return fault(FaultCode::wrong_count, "submission rejected: its payload does not hold its count of messages", first);
  if (repeated > 0) {
    // A link that reconnected sends its frame again: the same batches are a no-op, anything else a duplicate.
    bool same = fresh == 0;
    std::size_t at = 0;
    for (std::size_t i = 0; same && i < counts.size(); ++i) {
      if (counts[i] == submit_absent) continue;
      const auto& slice = slices_[slice_of_[first + i]];
      const std::size_t bytes = std::size_t{counts[i]} * w;
      same = slice.count == counts[i] && std::equal(messages.begin() + static_cast<std::ptrdiff_t>(at),
                                                    messages.begin() + static_cast<std::ptrdiff_t>(at + bytes),
                                                    buffer_.data() + slice.first * w);
      at += bytes;
    }
    if (same) return std::nullopt;
    return fault(FaultCode::duplicate, "duplicate submission rejected (its first batch stands)", first);
  }
  // The analyzer's result frame carries the id lists (at most one id per party) and the output.
  if (result_prefix_bytes(n, 0) + buffer_.size_bytes() + messages.size() > std::size_t{limits_.max_payload})
    return fault(FaultCode::over_limit, "submission rejected: the round's result would exceed max_frame_bytes", first);
  std::size_t at_message = buffer_.count();
  buffer_.resize(at_message + total);
  if (!messages.empty()) std::memcpy(buffer_.data() + at_message * w, messages.data(), messages.size());
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const std::size_t id = first + i;
    if (counts[i] == submit_absent) {
      if (expected_[id]) gone_[id] = 1;  // leaves: the round does not wait for it
      continue;
    }
    slice_of_[id] = static_cast<std::uint32_t>(slices_.size());
    slices_.push_back({static_cast<PartyId>(id), at_message, counts[i]});
    at_message += counts[i];
    submitted_[id] = 1;
    gone_[id] = 0;
    ++submitted_count_;
  }
  return std::nullopt;
}

void SessionRounds::start() {
  if (started_ || finished_) return;
  started_ = true;
  open_round();
}

std::optional<Fault> SessionRounds::restore(const Admission& kept) {
  start();
  return submit(kept.first, kept.counts, kept.round, kept.width, kept.messages);
}

bool SessionRounds::accepted_in_previous_round(PartyId first, std::span<const std::uint32_t> counts, std::uint32_t round) const {
  if (round_ == 0 || round + 1 != round_ || counts.empty() || first >= expected_.size() || counts.size() > expected_.size() - first)
    return false;
  bool any = false;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == submit_absent) continue;
    if (!expected_[first + i]) return false;  // expected now = accepted in the round that closed
    any = true;
  }
  return any;
}

bool SessionRounds::ready() const {
  if (finished_ || !started_ || !analyzer_present_) return false;
  if (config_.close_count > 0 && submitted_count_ >= config_.close_count) return true;
  for (std::size_t i = 0; i < expected_.size(); ++i)
    if (expected_[i] && !submitted_[i] && !gone_[i]) return false;
  return true;
}

std::vector<PartyId> SessionRounds::waiting_for() const {
  std::vector<PartyId> ids;
  if (finished_) return ids;
  for (std::size_t i = 0; i < expected_.size(); ++i)
    if (expected_[i] && !submitted_[i] && !gone_[i]) ids.push_back(static_cast<PartyId>(i));
  return ids;
}

bool SessionRounds::take_resend(PartyId first) { return ++resends_[first] <= max_resends; }

void SessionRounds::open_round() {
  resends_.clear();
  buffer_ = MessageBatch(config_.rounds[round_].width);
  slices_.clear();
  std::fill(submitted_.begin(), submitted_.end(), 0);
  submitted_count_ = 0;
  // A party that left during an earlier round is not expected any more; one that never connected
  // is waited for until the deadline.
  std::fill(gone_.begin(), gone_.end(), 0);
}

SessionRounds::Closed SessionRounds::close(Rng& rng, Shuffler& shuffler) {
  trace::point("SessionRounds::close");
  if (finished_) throw std::logic_error("SessionRounds::close: the session has ended");
  const RoundShape& shape = config_.rounds[round_];
  RoundRules rules;
  rules.round = round_;
  rules.shape = shape;
  for (std::size_t i = 0; i < expected_.size(); ++i)
    if (expected_[i]) rules.expected.push_back(static_cast<PartyId>(i));
  rules.min_parties = config_.min_parties == 0 ? rules.expected.size() : config_.min_parties;
  Submissions all;
  all.messages = std::move(buffer_);
  all.parties = std::move(slices_);
  buffer_ = MessageBatch(shape.width);
  slices_.clear();
  Closed closed;
  closed.round = round_;
  closed.shape = shape;
  // Through a chain, the entry gives each link a receipt for the records it submitted.
  if (!config_.mix_chain.empty()) closed.sources = all;
  closed.outcome = complete_round(rules, std::move(all), rng, shuffler);  // throws: the caller aborts
  const RoundOutcome& out = closed.outcome;
  report_.rounds.push_back({round_, out.messages, out.messages * shape.width, out.dropped});
  report_.dropped.insert(report_.dropped.end(), out.dropped.begin(), out.dropped.end());
  std::sort(report_.dropped.begin(), report_.dropped.end());
  std::fill(expected_.begin(), expected_.end(), 0);
  for (PartyId id : out.submitted) expected_[id] = 1;
  if (++round_ == config_.rounds.size()) {
    finished_ = true;
    closed.last = true;
    resends_.clear();  // the analyzer may ask for this last result again (TcpShuffler, until its done frame)
  } else {
    open_round();
  }
  return closed;
}

void SessionRounds::abort(const std::string& reason) {
  if (finished_) return;
  finished_ = true;
  report_.error = reason;
}

}  // namespace shufflempc::net::detail
