// The round's clock without sockets: the limit, the idle deadline and each watched link's silence,
// at made-up times.
#include <doctest/doctest.h>

#include <initializer_list>
#include <stdexcept>
#include <utility>

#include "shufflempc/net/detail/round_clock.hpp"

namespace {

using shufflempc::net::detail::RoundClock;
using ClockKind = RoundClock::Kind;
using std::chrono::milliseconds;

const RoundClock::Time t0{std::chrono::seconds(1000)};
RoundClock::Time at(long ms) { return t0 + milliseconds(ms); }

// A round of deadline 100 ms and limit 10 s opened at 0, each link heard from at its time (in order).
RoundClock watching(std::initializer_list<std::pair<shufflempc::PartyId, long>> heard) {
  RoundClock c(milliseconds(100), milliseconds(10'000));
  c.open(at(0));
  for (const auto& [first, when] : heard) c.heard(first, at(when));
  return c;
}

}  // namespace

TEST_CASE("round clock: a round that never moves ends its deadline after it opened") {
  RoundClock c(milliseconds(100), milliseconds(1000));
  c.open(at(0));
  CHECK(c.next() == at(100));
  CHECK(c.due(at(99)).kind == ClockKind::nothing);
  CHECK(c.due(at(100)).kind == ClockKind::idle);
}

TEST_CASE("round clock: each move counts the deadline again, up to the limit") {
  RoundClock c(milliseconds(100), milliseconds(250));
  c.open(at(0));
  c.moved(at(80));
  CHECK(c.due(at(150)).kind == ClockKind::nothing);
  CHECK(c.next() == at(180));
  c.moved(at(170));
  CHECK(c.next() == at(250));
  CHECK(c.due(at(249)).kind == ClockKind::nothing);
  CHECK(c.due(at(250)).kind == ClockKind::limit);
  c.moved(at(260));
  CHECK(c.due(at(261)).kind == ClockKind::limit);  // the limit is the limit, whatever moves after it
}

TEST_CASE("round clock: a silent link is due on its own while the others keep the round open") {
  RoundClock c = watching({{3, 10}});
  c.heard(0, at(20));
  for (long t = 60; t <= 300; t += 60) c.heard(0, at(t));  // link 0 keeps saying it is preparing
  CHECK(c.next() == at(110));
  const auto d = c.due(at(110));
  CHECK(d.kind == ClockKind::silent_links);
  CHECK(d.silent == std::vector<shufflempc::PartyId>{3});
  c.settled(3);  // given up
  CHECK(c.due(at(350)).kind == ClockKind::nothing);
  CHECK(c.next() == at(400));
  CHECK(c.watched() == 1);
}

TEST_CASE("round clock: links heard from again, or settled, are not due") {
  RoundClock c = watching({{5, 0}, {9, 0}, {5, 90}});
  c.settled(9);  // its batch came
  c.moved(at(95));
  CHECK(c.due(at(150)).kind == ClockKind::nothing);
  CHECK(c.next() == at(190));
  CHECK(c.due(at(191)).silent == std::vector<shufflempc::PartyId>{5});
  CHECK(c.due(at(195)).kind == ClockKind::idle);  // nothing moved since 95: the whole round's deadline comes before the link's
  c.open(at(200));  // a new round forgets the old one's links
  CHECK(c.watched() == 0);
  CHECK(c.next() == at(300));
}

TEST_CASE("round clock: several silent links are named together, ascending") {
  RoundClock c = watching({{7, 5}, {2, 1}, {4, 50}});
  c.moved(at(100));
  const auto d = c.due(at(120));
  CHECK(d.kind == ClockKind::silent_links);
  CHECK(d.silent == std::vector<shufflempc::PartyId>{2, 7});
}

TEST_CASE("round clock: a deadline above the limit, or none, is refused") {
  CHECK_THROWS_AS(RoundClock(milliseconds(0), milliseconds(10)), std::invalid_argument);
  CHECK_THROWS_AS(RoundClock(milliseconds(20), milliseconds(10)), std::invalid_argument);
}

TEST_CASE("round clock: a collection window ends at its time, neither idle before nor at the limit, and still drops silent links") {
  RoundClock c(milliseconds(100), milliseconds(1000));
  c.open(at(0));
  c.close_at(at(5000));
  CHECK(c.next() == at(5000));
  CHECK(c.due(at(150)).kind == ClockKind::nothing);   // idle for longer than the deadline: still open
  CHECK(c.due(at(1500)).kind == ClockKind::nothing);  // past the round's limit: still open
  c.heard(7, at(2000));
  CHECK(c.next() == at(2100));
  const auto silent = c.due(at(2100));
  CHECK(silent.kind == ClockKind::silent_links);
  CHECK(silent.silent == std::vector<shufflempc::PartyId>{7});
  c.settled(7);
  CHECK(c.due(at(4999)).kind == ClockKind::nothing);
  CHECK(c.due(at(5000)).kind == ClockKind::window);
  // A window that ends before the round opened is due at once.
  RoundClock late(milliseconds(100), milliseconds(1000));
  late.close_at(at(-1));
  late.open(at(0));
  CHECK(late.due(at(0)).kind == ClockKind::window);
}
