// The typed reports (api/reports.hpp): what a process prints reads back to the same report (the
// analyzer's and a party's, with and without a chain), a report missing a field or holding one of
// the wrong kind is refused naming the process and the field, a run's report carries the truth and
// the error over the parties who submitted, and its JSON has the keys the command line prints.
#include <doctest/doctest.h>

#include "shufflempc/api/reports.hpp"
#include "shufflempc/registry.hpp"

using namespace shufflempc;

TEST_CASE("api reports: an analyzer's and a party's report read back from their JSON, with a chain or without") {
  api::AnalyzerReport a;
  a.output = Value({{"count", 12}});
  a.messages = 40;
  a.bytes = 1234;
  a.seconds = 0.5;
  a.dropped = {3, 7};
  a.round_stats = {{0, 40, 1234, {3, 7}}};
  a.details = Value({{"noise", "calibrated"}});
  a.bytes_received = 99;
  const auto plain = api::analyzer_report_from_json(api::to_json(a), "the analyzer");
  CHECK(api::to_json(plain) == api::to_json(a));
  CHECK_FALSE(api::to_json(a).contains("mix_chain"));
  a.mix_chain = api::MixChainReport{3, {{0, {{0, 40, 40, 0, 0}, {1, 40, 39, 1, 0}, {2, 39, 39, 0, 0}}}}};
  a.verifiable_mix = api::VerifiableMixReport{3, {{0, 40, 1, 3, 3, {0, 1, 2}, "all_parties"}}, "t.json", std::string("run/session.json")};
  const auto chained = api::analyzer_report_from_json(api::to_json(a), "the analyzer");
  CHECK(api::to_json(chained) == api::to_json(a));
  REQUIRE(chained.mix_chain);
  CHECK(chained.mix_chain->rounds.at(0).second.at(1).not_opened == 1);
  api::PartyReport p{.party = 5, .output = Value(1), .dropped = false, .messages_sent = 2, .bytes_sent = 100,
                     .messages_received = 40, .bytes_received = 900, .rounds = 1, .seconds = 0.25};
  CHECK(api::to_json(api::party_report_from_json(api::to_json(p), "parties 0-9")) == api::to_json(p));
}

TEST_CASE("api reports: a process's report without a field, or with one of the wrong kind, is refused naming both") {
  api::PartyReport p{.party = 5};
  Value v = api::to_json(p);
  v.erase("bytes_sent");
  CHECK_THROWS_WITH_AS((void)api::party_report_from_json(v, "parties 0-9"), "parties 0-9's report has no 'bytes_sent'", std::runtime_error);
  v = api::to_json(p);
  v["rounds"] = "two";
  CHECK_THROWS_WITH_AS((void)api::party_report_from_json(v, "parties 0-9"), "parties 0-9's report: 'rounds' is not what it should be",
                       std::runtime_error);
  CHECK_THROWS_WITH_AS((void)api::analyzer_report_from_json(Value::array(), "the analyzer"), "the analyzer's report has no 'output'",
                       std::runtime_error);
}

TEST_CASE("api reports: a run's report has the truth and error over the parties who submitted, and the keys the command line prints") {
  const Registry registry = builtin_registry();
  const auto protocol = registry.create("central-laplace", {}, 4);
  const std::vector<Value> inputs = {Value(1), Value(0), Value(1), Value(1)};
  RunResult result;
  result.output = Value(2.5);
  result.messages = 3;
  result.bytes = 24;
  result.dropped = {2};  // party 2 (input 1) did not submit: the truth is 2, not 3
  const auto r = api::run_report_of("central-laplace", *protocol, 4, result, inputs);
  REQUIRE(r.truth);
  const std::vector<Value> submitted = {Value(1), Value(0), Value(1)};
  CHECK(*r.truth == protocol->truth(submitted).value());
  REQUIRE(r.error);
  const Value j = api::to_json(r);
  for (const char* key : {"protocol", "parties", "rounds", "output", "truth", "error", "messages", "bytes", "seconds", "dropped", "details"})
    CHECK_MESSAGE(j.contains(key), key);
  CHECK_FALSE(j.contains("run"));  // nothing measured beside
  CHECK_FALSE(j.contains("mix_chain"));
}
