// The shuffler's round state machine (net/detail/session_rounds.hpp), driven directly: no
// sockets, no timers. Each event the TCP shuffler reacts to, and what it must answer.
#include <doctest/doctest.h>

#include "shufflempc/error.hpp"
#include "shufflempc/net/detail/session_rounds.hpp"

using namespace shufflempc;
using net::detail::SessionRounds;

namespace {

net::SessionConfig config_of(std::size_t n, std::size_t min_parties = 0, std::uint32_t max_frame = 1u << 20) {
  net::SessionConfig c;
  c.parties = n;
  c.min_parties = min_parties;
  c.max_frame_bytes = max_frame;
  return c;
}

std::vector<std::uint8_t> batch(std::size_t width, std::size_t count, std::uint8_t fill) {
  return std::vector<std::uint8_t>(width * count, fill);
}

// Admits the analyzer and parties 0..n-1.
void admit_all(SessionRounds& s, std::size_t n) {
  REQUIRE_FALSE(s.admit(net::analyzer_id));
  for (PartyId i = 0; i < n; ++i) REQUIRE_FALSE(s.admit(i));
}

}  // namespace

TEST_CASE("SessionRounds: two rounds, every party submits, the outputs hold every message") {
  const auto cfg = config_of(3);
  SessionRounds s(cfg, {{2, Delivery::all_parties, 1, 3}, RoundShape::exactly(1, Delivery::analyzer_only, 1)});
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
  CHECK(s.admit(0).value() == "the session has already ended");
}

TEST_CASE("SessionRounds: bad submissions are refused one by one and the accepted batches stand") {
  const auto cfg = config_of(3, 0, 64);
  SessionRounds s(cfg, {{4, Delivery::analyzer_only, 1, 16}});
  admit_all(s, 3);
  CHECK(s.submit(0, 0, 4, 1, batch(4, 1, 1)) == std::nullopt);
  CHECK(s.submit(0, 0, 4, 1, batch(4, 1, 9)).value().find("duplicate submission") != std::string::npos);
  CHECK(s.submit(1, 1, 4, 1, batch(4, 1, 9)).value().find("wrong round") != std::string::npos);
  CHECK(s.submit(1, 0, 5, 1, batch(5, 1, 9)).value().find("wire width is 4") != std::string::npos);
  CHECK(s.submit(1, 0, 4, 2, batch(4, 1, 9)).value().find("does not hold its count") != std::string::npos);
  CHECK(s.submit(1, 0, 4, 16, batch(4, 16, 9)).value().find("max_frame_bytes") != std::string::npos);
  CHECK(s.submit(7, 0, 4, 1, batch(4, 1, 9)).value().find("no longer in the session") != std::string::npos);
  CHECK(s.submit(1, 0, 4, 17, batch(4, 17, 9)).value().find("submission of 17 messages rejected, the round allows 1 to 16") != std::string::npos);
  CHECK(s.submit(1, 0, 4, 0, {}).value().find("submission of 0 messages rejected") != std::string::npos);
  CHECK(s.admit(1).value().find("already connected") != std::string::npos);
  CHECK(s.admit(net::analyzer_id).value().find("already connected") != std::string::npos);
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

TEST_CASE("SessionRounds: a party that leaves is dropped at the close and refused afterwards; one that comes back is waited for") {
  const auto cfg = config_of(3, 2);
  SessionRounds s(cfg, {RoundShape::exactly(1, Delivery::analyzer_only, 1), RoundShape::exactly(1, Delivery::analyzer_only, 1)});
  admit_all(s, 3);
  CHECK_FALSE(s.submit(0, 0, 1, 1, batch(1, 1, 0)));
  CHECK_FALSE(s.submit(1, 0, 1, 1, batch(1, 1, 0)));
  CHECK_FALSE(s.ready());
  CHECK_FALSE(s.leave(2));
  CHECK(s.ready());
  // It reconnects within the round: the round waits for it again.
  CHECK_FALSE(s.admit(2));
  CHECK_FALSE(s.ready());
  CHECK_FALSE(s.leave(2));
  SeededRng rng(3);
  Shuffler shuffler;
  const auto r = s.close(rng, shuffler);
  CHECK(r.outcome.dropped == std::vector<PartyId>{2});
  CHECK_FALSE(s.expected(2));
  CHECK(s.admit(2).value().find("no longer in the session") != std::string::npos);
  CHECK(s.report().dropped == std::vector<PartyId>{2});
}

TEST_CASE("SessionRounds: too few parties fail the round; the analyzer leaving aborts the session") {
  {
    const auto cfg = config_of(4, 3);
    SessionRounds s(cfg, {RoundShape::exactly(1, Delivery::analyzer_only, 1)});
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
    const auto cfg = config_of(2);
    SessionRounds s(cfg, {RoundShape::exactly(1, Delivery::analyzer_only, 1)});
    admit_all(s, 2);
    CHECK(s.leave(net::analyzer_id).value() == "the analyzer disconnected");
    CHECK_FALSE(s.has_analyzer());
    CHECK_FALSE(s.ready());
  }
  CHECK_THROWS_AS(SessionRounds(config_of(2), {}), std::invalid_argument);
}
