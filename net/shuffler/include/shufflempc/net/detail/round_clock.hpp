// The clock of one round served by the TCP shuffler, without timers or sockets: when the round
// opened, when it last moved, and when each link that owes a batch was last heard from; what is
// due at a given time. TcpShuffler arms one timer at next() and asks due() when it fires; the unit
// tests drive it with made-up times (tests/net/test_round_clock.cpp).
//
// The rules (docs/network.md, "Deadlines"): the round ends `deadline` after it last moved (a new
// link, a batch, a link's word that its parties are preparing theirs) or `limit` after it opened,
// whichever comes first; and a link that owes a batch and has said nothing for `deadline` is given
// up on its own, while the others keep the round open. A collection window replaces the first rule:
// the round ends at the window's end, however long it stays quiet.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "shufflempc/channel.hpp"

namespace shufflempc::net::detail {

class RoundClock {
 public:
  using Time = std::chrono::steady_clock::time_point;

  RoundClock() = default;
  // Throws std::invalid_argument unless 0 < deadline <= limit.
  RoundClock(std::chrono::milliseconds deadline, std::chrono::milliseconds limit);

  // The round opens at `now`: it has moved, and no link is watched yet (a window set before stays).
  void open(Time now);
  // A collection window (SessionConfig::close_at): the round ends at `end`, neither idle before
  // nor at its limit; silent links are still given up.
  void close_at(Time end);
  // The round moved at `now`.
  void moved(Time now);
  // Link `first` owes a batch and was heard from at `now` (admitted, said it is preparing its
  // batch, or the round opened with it connected): watched from now, and the round moved.
  void heard(PartyId first, Time now);
  // Link `first` owes nothing more this round (its batch came, it left, it was given up).
  void settled(PartyId first);

  enum class Kind { nothing, silent_links, idle, limit, window };
  struct Due {
    Kind kind = Kind::nothing;
    std::vector<PartyId> silent;  // with silent_links: the links silent for `deadline`, ascending
  };
  // What is due at `now`: the limit, else the round's idle deadline, else the silent links; in a
  // window, its end, else the silent links.
  [[nodiscard]] Due due(Time now) const;
  // When something may next be due (never later than the earliest of the three).
  [[nodiscard]] Time next() const;

  [[nodiscard]] std::chrono::milliseconds deadline() const { return deadline_; }
  [[nodiscard]] std::chrono::milliseconds limit() const { return limit_; }
  [[nodiscard]] std::size_t watched() const { return heard_.size(); }

 private:
  std::chrono::milliseconds deadline_{1}, limit_{1};
  Time opened_{}, moved_{};
  std::optional<Time> window_end_;
  std::map<PartyId, Time> heard_;          // watched links, by their first party
  std::set<std::pair<Time, PartyId>> by_time_;  // the same, oldest first
};

}  // namespace shufflempc::net::detail
