#include "shufflempc/net/detail/session_rounds.hpp"

#include <algorithm>
#include <stdexcept>

namespace shufflempc::net::detail {

namespace {
std::string who(PartyId id) { return id == analyzer_id ? std::string("the analyzer") : "party " + std::to_string(id); }
}  // namespace

SessionRounds::SessionRounds(const SessionConfig& config, std::vector<RoundShape> rounds)
    : config_(config), rounds_(std::move(rounds)), limits_(config.limits()), buffer_(1) {
  if (rounds_.empty()) throw std::invalid_argument("a session needs at least one round");
  const std::size_t n = config.parties;
  present_.assign(n, 0);
  expected_.assign(n, 1);
  submitted_.assign(n, 0);
  gone_.assign(n, 0);
  report_.session = config.session;
}

Limits SessionRounds::limits_for(PartyId id) const {
  Limits l = limits_;
  if (id == analyzer_id) {
    l.max_payload = 0;
    l.max_count = 0;
    return l;
  }
  std::uint64_t payload = 0, width = 0, count = 0;
  for (const auto& r : rounds_) {
    payload = std::max<std::uint64_t>(payload, std::uint64_t{r.width} * r.max_messages);
    width = std::max<std::uint64_t>(width, r.width);
    count = std::max<std::uint64_t>(count, r.max_messages);
  }
  l.max_payload = static_cast<std::uint32_t>(std::min<std::uint64_t>(l.max_payload, payload));
  l.max_width = static_cast<std::uint32_t>(std::min<std::uint64_t>(l.max_width, width));
  l.max_count = static_cast<std::uint32_t>(std::min<std::uint64_t>(l.max_count, count));
  return l;
}

std::optional<std::string> SessionRounds::admit(PartyId id) {
  if (finished_) return std::string("the session has already ended");
  if (id == analyzer_id) {
    if (analyzer_present_) return who(id) + " is already connected";
    analyzer_present_ = true;
  } else {
    if (id >= present_.size()) return "party id " + std::to_string(id) + " is not in the session";
    if (present_[id]) return who(id) + " is already connected";
    if (!expected_[id]) return who(id) + " is no longer in the session (round " + std::to_string(round_) + ")";
    present_[id] = 1;
    gone_[id] = 0;  // back within the round (a reconnect): the round waits for it again
  }
  if (!started_) {
    started_ = true;
    open_round();
  }
  return std::nullopt;
}

std::optional<std::string> SessionRounds::leave(PartyId id) {
  if (id == analyzer_id) {
    analyzer_present_ = false;
    if (!finished_) return std::string("the analyzer disconnected");
    return std::nullopt;
  }
  if (id >= present_.size()) return std::nullopt;
  present_[id] = 0;
  if (!finished_ && expected_[id] && !submitted_[id]) gone_[id] = 1;
  return std::nullopt;
}

std::optional<std::string> SessionRounds::submit(PartyId id, std::uint32_t round, std::size_t width, std::size_t count,
                                                 std::vector<std::uint8_t> payload) {
  if (finished_) return std::string("the session has ended");
  if (round != round_) return "submission for round " + std::to_string(round) + " rejected (wrong round)";
  if (!expected(id)) return std::string("submission rejected: the party is no longer in the session");
  if (submitted_[id]) return std::string("duplicate submission rejected (its first batch stands)");
  const std::size_t w = buffer_.width();
  if (width != w)
    return "submission of width " + std::to_string(width) + " rejected, the round's wire width is " + std::to_string(w);
  if (!rounds_[round_].accepts(count))
    return "submission of " + std::to_string(count) + " messages rejected, the round allows " +
           std::to_string(rounds_[round_].min_messages) + " to " + std::to_string(rounds_[round_].max_messages);
  if (payload.size() != width * count) return std::string("submission rejected: its payload does not hold its count of messages");
  if (buffer_.size_bytes() + payload.size() > std::size_t{limits_.max_payload})
    return std::string("submission rejected: the round's output would exceed max_frame_bytes");
  const std::size_t first = buffer_.count();
  buffer_.append(MessageBatch::from_bytes(w, std::move(payload)));
  slices_.push_back({id, first, count});
  submitted_[id] = 1;
  return std::nullopt;
}

bool SessionRounds::ready() const {
  if (finished_ || !started_ || !analyzer_present_) return false;
  for (std::size_t i = 0; i < expected_.size(); ++i)
    if (expected_[i] && !submitted_[i] && !gone_[i]) return false;
  return true;
}

void SessionRounds::open_round() {
  buffer_ = MessageBatch(rounds_[round_].width);
  slices_.clear();
  std::fill(submitted_.begin(), submitted_.end(), 0);
  // A party that left during an earlier round is not expected any more; one that never connected
  // is waited for until the deadline.
  std::fill(gone_.begin(), gone_.end(), 0);
}

SessionRounds::Closed SessionRounds::close(Rng& rng, Shuffler& shuffler) {
  if (finished_) throw std::logic_error("SessionRounds::close: the session has ended");
  const RoundShape& shape = rounds_[round_];
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
  closed.outcome = complete_round(rules, std::move(all), rng, shuffler);  // throws: the caller aborts
  const RoundOutcome& out = closed.outcome;
  report_.rounds.push_back({round_, out.messages, out.messages * shape.width, out.dropped});
  report_.dropped.insert(report_.dropped.end(), out.dropped.begin(), out.dropped.end());
  std::sort(report_.dropped.begin(), report_.dropped.end());
  std::fill(expected_.begin(), expected_.end(), 0);
  for (PartyId id : out.submitted) expected_[id] = 1;
  if (++round_ == rounds_.size()) {
    finished_ = true;
    closed.last = true;
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
