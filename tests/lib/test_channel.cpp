// The channel's round completion (lib/include/shufflempc/channel.hpp).
#include <doctest/doctest.h>

#include <functional>
#include <stdexcept>

#include "shufflempc/channel.hpp"
#include "shufflempc/error.hpp"
#include "support/errors.hpp"

using namespace shufflempc;

namespace {
Submissions subs(std::size_t width, std::vector<std::pair<PartyId, std::size_t>> parties) {
  Submissions s;
  s.messages = MessageBatch(width);
  for (auto [id, n] : parties) {
    const std::size_t first = s.messages.count();
    for (std::size_t i = 0; i < n; ++i) s.messages.append()[0] = static_cast<std::uint8_t>(id);
    s.parties.push_back({id, first, n});
  }
  return s;
}
RoundRules spec(std::size_t parties, std::size_t min) {
  RoundRules r;
  r.shape = {1, Delivery::analyzer_only, 0, 4};
  for (PartyId i = 0; i < parties; ++i) r.expected.push_back(i);
  r.min_parties = min;
  return r;
}
using test::code_of;
}  // namespace

TEST_CASE("name_parties: one party, runs of consecutive ids, and a cut after max_runs runs") {
  using V = std::vector<PartyId>;
  CHECK(name_parties(V{}) == "no party");
  CHECK(name_parties(V{3}) == "party 3");
  CHECK(name_parties(V{3, 4}) == "parties 3-4");
  CHECK(name_parties(V{0, 1, 2, 7, 50, 51, 52}) == "parties 0-2, 7, 50-52");
  CHECK(name_parties(V{1, 3, 5, 7, 9}, 2) == "parties 1, 3 and 3 more");
  CHECK(name_parties(V{1, 3, 4, 5, 9}, 2) == "parties 1, 3-5 and 1 more");
  V many(100000);
  for (std::size_t i = 0; i < many.size(); ++i) many[i] = static_cast<PartyId>(2 * i);  // no two consecutive
  const std::string line = name_parties(many);
  CHECK(line == "parties 0, 2, 4, 6, 8, 10 and 99994 more");
}

TEST_CASE("complete_round: shuffles everything, reports dropouts, refuses bad rounds with clear codes") {
  SeededRng rng(51);
  auto out = complete_round(spec(4, 3), subs(1, {{0, 2}, {1, 1}, {3, 3}}), rng);
  CHECK(out.messages == 6);
  CHECK(out.submitted == std::vector<PartyId>{0, 1, 3});
  CHECK(out.dropped == std::vector<PartyId>{2});
  std::vector<int> per(4, 0);
  for (std::size_t i = 0; i < out.output->count(); ++i) per[(*out.output)[i][0]]++;
  CHECK(per == std::vector<int>{2, 1, 0, 3});

  CHECK(code_of([&] { (void)complete_round(spec(4, 4), subs(1, {{0, 1}, {1, 1}, {3, 1}}), rng); }) == Errc::too_few_parties);
  CHECK(code_of([&] { (void)complete_round(spec(4, 1), subs(1, {{0, 1}, {0, 1}}), rng); }) == Errc::duplicate_submission);
  CHECK(code_of([&] { (void)complete_round(spec(4, 1), subs(1, {{9, 1}}), rng); }) == Errc::unknown_party);
  CHECK(code_of([&] { (void)complete_round(spec(4, 1), subs(2, {{0, 1}}), rng); }) == Errc::protocol_violation);
  try {
    (void)complete_round(spec(4, 4), subs(1, {{0, 1}}), rng);
  } catch (const std::system_error& e) {
    CHECK(std::string(e.what()).find("1 of 4 parties submitted, at least 4 needed; missing: parties 1-3") != std::string::npos);
  }
  // Silent parties (empty batches) are not dropouts.
  auto quiet = complete_round(spec(2, 2), subs(1, {{0, 0}, {1, 2}}), rng);
  CHECK(quiet.dropped.empty());
  CHECK(quiet.messages == 2);
}
