#include "shufflempc/net/detail/round_clock.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace shufflempc::net::detail {

RoundClock::RoundClock(std::chrono::milliseconds deadline, std::chrono::milliseconds limit) : deadline_(deadline), limit_(limit) {
  if (deadline.count() <= 0 || limit < deadline)
    throw std::invalid_argument("round clock: the deadline (" + std::to_string(deadline.count()) + " ms) must be positive and at most the " +
                                "round's limit (" + std::to_string(limit.count()) + " ms)");
}

void RoundClock::open(Time now) {
  opened_ = moved_ = now;
  heard_.clear();
  by_time_.clear();
}

void RoundClock::close_at(Time end) { window_end_ = end; }

void RoundClock::moved(Time now) { moved_ = std::max(moved_, now); }

void RoundClock::heard(PartyId first, Time now) {
  moved(now);
  const auto [it, fresh] = heard_.try_emplace(first, now);
  if (!fresh) {
    by_time_.erase({it->second, first});
    it->second = now;
  }
  by_time_.emplace(now, first);
}

void RoundClock::settled(PartyId first) {
  const auto it = heard_.find(first);
  if (it == heard_.end()) return;
  by_time_.erase({it->second, first});
  heard_.erase(it);
}

RoundClock::Due RoundClock::due(Time now) const {
  Due d;
  if (window_end_) {
    if (now >= *window_end_) d.kind = Kind::window;
  } else if (now >= opened_ + limit_) {
    d.kind = Kind::limit;
  } else if (now >= moved_ + deadline_) {
    d.kind = Kind::idle;
  }
  if (d.kind != Kind::nothing) return d;
  for (const auto& [when, first] : by_time_) {
    if (now < when + deadline_) break;
    d.silent.push_back(first);
  }
  std::sort(d.silent.begin(), d.silent.end());
  if (!d.silent.empty()) d.kind = Kind::silent_links;
  return d;
}

RoundClock::Time RoundClock::next() const {
  Time t = window_end_ ? *window_end_ : std::min(opened_ + limit_, moved_ + deadline_);
  if (!by_time_.empty()) t = std::min(t, by_time_.begin()->first + deadline_);
  return t;
}

}  // namespace shufflempc::net::detail
