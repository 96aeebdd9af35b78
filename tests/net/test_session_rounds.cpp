// The shuffler's round state machine (net/detail/session_rounds.hpp), driven directly: no
// sockets, no timers. Each event the TCP shuffler reacts to, and what it must answer.
#include <doctest/doctest.h>

#include <set>

#include "shufflempc/error.hpp"
#include "shufflempc/net/detail/session_rounds.hpp"

using namespace shufflempc;
using net::detail::SessionRounds;

namespace {

net::SessionConfig config_of(std::size_t n, std::vector<RoundShape> rounds, std::size_t min_parties = 0,
                             std::uint32_t max_frame = 1u << 20) {
  net::SessionConfig c;
  c.parties = n;
  c.rounds = std::move(rounds);
  c.min_parties = min_parties;
  c.max_frame_bytes = max_frame;
  return c;
}

std::vector<std::uint8_t> batch(std::size_t width, std::size_t count, std::uint8_t fill) {
  return std::vector<std::uint8_t>(width * count, fill);
}

// A core's answer: its fault's code, or none (taken).
std::optional<net::FaultCode> code(const std::optional<net::Fault>& f) { return f ? std::optional(f->code) : std::nullopt; }

// Admits the analyzer and parties 0..n-1.
void admit_all(SessionRounds& s, std::size_t n) {
  REQUIRE_FALSE(s.admit(net::analyzer_id));
  for (PartyId i = 0; i < n; ++i) REQUIRE_FALSE(s.admit(i));
}

}  // namespace

TEST_CASE("SessionRounds: two rounds, every party submits, the outputs hold every message") {
  const auto cfg = config_of(3, {{2, Delivery::all_parties, 1, 3}, RoundShape::exactly(1, Delivery::analyzer_only, 1)});
  SessionRounds s(cfg);
  CHECK_FALSE(s.started());
  admit_all(s, 3);
  CHECK(s.started());
  CHECK_FALSE(s.ready());
  for (PartyId i = 0; i < 3; ++i) CHECK_FALSE(s.submit(i, 0, 2, i + 1, batch(2, i + 1, static_cast<std::uint8_t>(i))));
  CHECK(s.ready());
  SeededRng rng(1);
  Shuffler shuffler;
  auto r0 = s.close(rng, shuffler);
  CHECK(r0.round == 0);
  CHECK_FALSE(r0.last);
  CHECK(r0.shape.delivery == Delivery::all_parties);
  CHECK(r0.outcome.submitted == std::vector<PartyId>{0, 1, 2});
  REQUIRE(r0.outcome.output);
  CHECK(r0.outcome.output->count() == 6);
  std::size_t twos = 0;
  for (std::size_t i = 0; i < 6; ++i) twos += (*r0.outcome.output)[i][0] == 2 ? 1 : 0;
  CHECK(twos == 3);
  CHECK(s.round() == 1);
  CHECK(s.shape().width == 1);
  for (PartyId i = 0; i < 3; ++i) CHECK_FALSE(s.submit(i, 1, 1, 1, batch(1, 1, 7)));
  auto r1 = s.close(rng, shuffler);
  CHECK(r1.last);
  CHECK(s.finished());
  CHECK(s.report().rounds.size() == 2);
  CHECK(s.report().error.empty());
  const auto late = s.admit(0);
  REQUIRE(late);
  CHECK(late->code == net::FaultCode::session_ended);
  CHECK(late->text == "the session has already ended");
  CHECK(code(s.submit(0, 2, 1, 1, batch(1, 1, 7))) == net::FaultCode::session_ended);
}

TEST_CASE("SessionRounds: bad submissions are refused one by one and the accepted batches stand") {
  const auto cfg = config_of(3, {{4, Delivery::analyzer_only, 1, 16}}, 0, 64);
  SessionRounds s(cfg);
  admit_all(s, 3);
  CHECK(s.submit(0, 0, 4, 1, batch(4, 1, 1)) == std::nullopt);
  const auto duplicate = s.submit(0, 0, 4, 1, batch(4, 1, 9));
  REQUIRE(duplicate);
  CHECK(duplicate->code == net::FaultCode::duplicate);
  CHECK(duplicate->party == PartyId{0});
  CHECK(duplicate->round == 0u);
  const auto wrong_round = s.submit(1, 1, 4, 1, batch(4, 1, 9));
  REQUIRE(wrong_round);
  CHECK(wrong_round->code == net::FaultCode::wrong_round);
  CHECK(wrong_round->round == 1u);  // the round the frame named
  CHECK(code(s.submit(1, 0, 5, 1, batch(5, 1, 9))) == net::FaultCode::wrong_width);
  CHECK(code(s.submit(1, 0, 4, 2, batch(4, 1, 9))) == net::FaultCode::wrong_count);  // the payload holds one
  CHECK(code(s.submit(1, 0, 4, 16, batch(4, 16, 9))) == net::FaultCode::over_limit);
  CHECK(code(s.submit(7, 0, 4, 1, batch(4, 1, 9))) == net::FaultCode::outside_session);
  const auto too_many = s.submit(1, 0, 4, 17, batch(4, 17, 9));
  REQUIRE(too_many);
  CHECK(too_many->code == net::FaultCode::wrong_count);
  CHECK(too_many->party == PartyId{1});
  CHECK(too_many->text == "submission of 17 messages by party 1 rejected, the round allows 1 to 16");
  CHECK(code(s.submit(1, 0, 4, 0, {})) == net::FaultCode::wrong_count);
  CHECK(code(s.admit(1)) == net::FaultCode::already_connected);
  const auto analyzer_again = s.admit(net::analyzer_id);
  REQUIRE(analyzer_again);
  CHECK(analyzer_again->code == net::FaultCode::already_connected);
  CHECK(analyzer_again->party == net::analyzer_id);
  CHECK_FALSE(s.submit(1, 0, 4, 1, batch(4, 1, 2)));
  CHECK_FALSE(s.submit(2, 0, 4, 1, batch(4, 1, 3)));
  SeededRng rng(2);
  Shuffler shuffler;
  const auto r = s.close(rng, shuffler);
  REQUIRE(r.outcome.output);
  std::vector<int> firsts;
  for (std::size_t i = 0; i < r.outcome.output->count(); ++i) firsts.push_back((*r.outcome.output)[i][0]);
  std::sort(firsts.begin(), firsts.end());
  CHECK(firsts == std::vector<int>{1, 2, 3});  // party 0's first batch, never the duplicate
}

TEST_CASE("SessionRounds: a lost link is waited for until it lapses, a party that leaves is dropped at the close and refused afterwards") {
  const auto cfg = config_of(3, {RoundShape::exactly(1, Delivery::analyzer_only, 1), RoundShape::exactly(1, Delivery::analyzer_only, 1)}, 2);
  SessionRounds s(cfg);
  admit_all(s, 3);
  CHECK_FALSE(s.submit(0, 0, 1, 1, batch(1, 1, 0)));
  CHECK_FALSE(s.submit(1, 0, 1, 1, batch(1, 1, 0)));
  CHECK_FALSE(s.ready());
  // Its link is lost before it submitted: the round still waits for it (it may reconnect).
  s.leave(2);
  CHECK(s.missing(2));
  CHECK_FALSE(s.ready());
  CHECK_FALSE(s.lapse(0, 2));  // parties 0 and 1 submitted: nothing to give up
  // It reconnects within the round and is lost again: lapse() no longer waits for it.
  CHECK_FALSE(s.admit(2));
  CHECK_FALSE(s.lapse(2));  // connected: not given up
  CHECK_FALSE(s.ready());
  s.leave(2);
  CHECK(s.missing(2));
  CHECK_FALSE(s.missing(0, 2));
  CHECK(s.lapse(2));
  CHECK_FALSE(s.missing(2));
  CHECK(s.ready());
  CHECK_FALSE(s.lapse(2));  // once
  SeededRng rng(3);
  Shuffler shuffler;
  const auto r = s.close(rng, shuffler);
  CHECK(r.outcome.dropped == std::vector<PartyId>{2});
  CHECK_FALSE(s.expected(2));
  const auto dropped = s.admit(2);
  REQUIRE(dropped);
  CHECK(dropped->code == net::FaultCode::not_in_session);
  CHECK(dropped->party == PartyId{2});
  CHECK(dropped->round == 1u);
  CHECK(s.report().dropped == std::vector<PartyId>{2});
}

TEST_CASE("SessionRounds: too few parties fail the round, the analyzer leaving aborts the session") {
  {
    const auto cfg = config_of(4, {RoundShape::exactly(1, Delivery::analyzer_only, 1)}, 3);
    SessionRounds s(cfg);
    admit_all(s, 4);
    CHECK_FALSE(s.submit(0, 0, 1, 1, batch(1, 1, 0)));
    CHECK_FALSE(s.submit(1, 0, 1, 1, batch(1, 1, 0)));
    SeededRng rng(4);
    Shuffler shuffler;
    try {
      (void)s.close(rng, shuffler);
      FAIL("the round closed with 2 of the 3 parties needed");
    } catch (const std::system_error& e) {
      CHECK(e.code() == Errc::too_few_parties);
    }
    s.abort("too few");
    CHECK(s.finished());
    CHECK(s.report().error == "too few");
  }
  {
    const auto cfg = config_of(2, {RoundShape::exactly(1, Delivery::analyzer_only, 1)});
    SessionRounds s(cfg);
    admit_all(s, 2);
    s.leave(net::analyzer_id);  // it may reconnect: the shuffler waits a grace
    CHECK_FALSE(s.finished());
    CHECK_FALSE(s.has_analyzer());
    CHECK_FALSE(s.ready());
  }
  CHECK_THROWS_AS(SessionRounds(config_of(2, {})), std::invalid_argument);
}

TEST_CASE("SessionRounds: a link for a range of parties is admitted, submits and leaves all or nothing") {
  const auto cfg = config_of(6, {RoundShape{1, Delivery::analyzer_only, 1, 2}, RoundShape::exactly(1, Delivery::analyzer_only, 1)}, 3);
  SessionRounds s(cfg);
  REQUIRE_FALSE(s.admit(net::analyzer_id));
  REQUIRE_FALSE(s.admit(0, 4));  // parties 0..3 on one link
  const auto overlap = s.admit(3, 2);  // overlaps: refused, party 4 not admitted
  REQUIRE(overlap);
  CHECK(overlap->code == net::FaultCode::already_connected);
  CHECK(overlap->party == PartyId{3});
  CHECK(overlap->text == "party 3 is already connected");
  const auto outside = s.admit(4, 3);
  REQUIRE(outside);
  CHECK(outside->code == net::FaultCode::outside_session);
  CHECK(outside->text.find("are not all in the session (it has 6)") != std::string::npos);
  CHECK(code(s.admit(net::analyzer_id, 2)) == net::FaultCode::outside_session);
  REQUIRE_FALSE(s.admit(4, 2));
  // Limits: four parties' largest batch (2 messages of 1 byte) and a count each.
  CHECK(s.limits_for(0, 4).max_payload == 4 * (2 + 4));
  CHECK(s.limits_for(0, 4).max_count == 8);
  CHECK(s.limits_for(net::analyzer_id, 1).max_payload == 4);  // an empty batch: "that round again"
  // A frame with one bad count is refused whole: nothing of it stands.
  const std::vector<std::uint32_t> bad = {1, 1, 3, 1};
  const auto bad_count = s.submit(0, bad, 0, 1, batch(1, 6, 1));
  REQUIRE(bad_count);
  CHECK(bad_count->code == net::FaultCode::wrong_count);
  CHECK(bad_count->party == PartyId{2});  // the party whose count is wrong, not the link's first
  CHECK_FALSE(s.ready());
  // Party 1 leaves (absent), the others submit.
  const std::vector<std::uint32_t> counts = {1, net::submit_absent, 2, 1};
  const std::vector<std::uint8_t> msgs = {10, 20, 21, 30};
  CHECK_FALSE(s.submit(0, counts, 0, 1, msgs));
  // The same frame again (a link that reconnected) changes nothing; another one is a duplicate.
  CHECK_FALSE(s.submit(0, counts, 0, 1, msgs));
  const std::vector<std::uint8_t> other = {10, 20, 22, 30};
  CHECK(code(s.submit(0, counts, 0, 1, other)) == net::FaultCode::duplicate);
  const std::vector<std::uint32_t> late_leave = {net::submit_absent, net::submit_absent, 2, 1};
  const auto leaves_late = s.submit(0, late_leave, 0, 1, batch(1, 3, 0));
  REQUIRE(leaves_late);
  CHECK(leaves_late->code == net::FaultCode::late_leave);
  CHECK(leaves_late->party == PartyId{0});
  CHECK_FALSE(s.ready());  // parties 4 and 5 have not submitted
  CHECK_FALSE(s.submit(4, std::vector<std::uint32_t>{1, net::submit_absent}, 0, 1, std::vector<std::uint8_t>{40}));
  CHECK(s.ready());
  SeededRng rng(5);
  Shuffler shuffler;
  const auto r = s.close(rng, shuffler);
  CHECK(r.outcome.submitted == std::vector<PartyId>{0, 2, 3, 4});
  CHECK(r.outcome.dropped == std::vector<PartyId>{1, 5});
  REQUIRE(r.outcome.output);
  std::multiset<int> got;
  for (std::size_t i = 0; i < r.outcome.output->count(); ++i) got.insert((*r.outcome.output)[i][0]);
  CHECK(got == std::multiset<int>{10, 20, 21, 30, 40});
  // A link none of whose parties is still in the session is refused.
  const auto gone = s.admit(5);
  REQUIRE(gone);
  CHECK(gone->code == net::FaultCode::not_in_session);
  CHECK(gone->text == "party 5 is no longer in the session (round 1)");
  // Round 1: the link's round-0 frame again is recognised (its result is sent again), a frame
  // naming the dropped party 1 is not.
  CHECK(s.accepted_in_previous_round(0, counts, 0));
  CHECK_FALSE(s.accepted_in_previous_round(0, std::vector<std::uint32_t>{1, 1, 2, 1}, 0));
  // The result goes to a link at most max_resends times per round, however often it reconnects and
  // repeats its small frame (it costs the shuffler the whole output each time); another link is
  // counted apart.
  for (unsigned i = 0; i < net::detail::SessionRounds::max_resends; ++i) CHECK(s.take_resend(0));
  CHECK_FALSE(s.take_resend(0));
  CHECK_FALSE(s.take_resend(0));
  CHECK(s.take_resend(4));
  CHECK_FALSE(s.accepted_in_previous_round(0, counts, 1));
  const auto names_dropped = s.submit(0, std::vector<std::uint32_t>{1, 1, 1, 1}, 1, 1, batch(1, 4, 0));
  REQUIRE(names_dropped);
  CHECK(names_dropped->code == net::FaultCode::not_in_session);
  CHECK(names_dropped->party == PartyId{1});
  CHECK(names_dropped->round == 1u);
  // The link reconnects in round 1: admitted (party 1 stays out), and its parties are waited for.
  s.leave(0, 4);
  CHECK(s.missing(0, 4));
  CHECK_FALSE(s.ready());
  CHECK_FALSE(s.admit(0, 4));
  CHECK_FALSE(s.submit(0, std::vector<std::uint32_t>{1, net::submit_absent, 1, 1}, 1, 1, batch(1, 3, 0)));
  CHECK_FALSE(s.ready());
  CHECK_FALSE(s.submit(4, std::vector<std::uint32_t>{1, net::submit_absent}, 1, 1, std::vector<std::uint8_t>{0}));
  CHECK(s.ready());
  (void)s.close(rng, shuffler);
  CHECK(s.finished());
}

TEST_CASE("SessionRounds: a collection window of close_count parties may close once that many submitted, not before") {
  auto cfg = config_of(5, {RoundShape::exactly(1, Delivery::analyzer_only, 1)}, 2);
  cfg.close_count = 3;
  SessionRounds s(cfg);
  s.start();  // a window opens with the shuffler, before anyone connects
  CHECK(s.started());
  CHECK_FALSE(s.admit(net::analyzer_id));
  for (PartyId i = 0; i < 2; ++i) {
    REQUIRE_FALSE(s.admit(i));
    CHECK_FALSE(s.submit(i, 0, 1, 1, batch(1, 1, static_cast<std::uint8_t>(i))));
    CHECK_FALSE(s.ready());
  }
  // The same batch again (a resend) does not count twice.
  CHECK_FALSE(s.submit(1, 0, 1, 1, batch(1, 1, 1)));
  CHECK_FALSE(s.ready());
  REQUIRE_FALSE(s.admit(4));
  CHECK_FALSE(s.submit(4, 0, 1, 1, batch(1, 1, 4)));
  CHECK(s.ready());
  SeededRng rng(5);
  Shuffler shuffler;
  const auto closed = s.close(rng, shuffler);
  CHECK(closed.outcome.submitted == std::vector<PartyId>{0, 1, 4});
  CHECK(closed.last);
}
