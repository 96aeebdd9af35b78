// The adversary harness: the shuffler plays a dishonest chain entry (net/adversary.hpp,
// `local --fault-adversary`) that applies each mutation of the catalogue to the frames it sends the
// parties or the analyzer, alone or while it drops two parties' submissions (the n - 1 attack), in
// a real session of separate processes over TCP through each kind of chain. After every case the
// invariant the docs promise (docs/SECURITY.md, "Failing closed") must hold:
//   - every process ends within the run's limit, none by a signal or a sanitizer's report;
//   - either the run succeeds and its output is the exact sum of every party's input (every honest
//     submitter's records exactly once, so never while the entry drops a party), or the analyzer
//     outputs nothing, and when the entry dropped parties a process names the entry.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

#include "net/harness.hpp"
#include "shufflempc/net/adversary.hpp"
#include "support/paths.hpp"
#include "support/temp_dir.hpp"

namespace {

using namespace shufflempc;
using namespace shufflempc::test;

struct Outcome {
  int status = -1;
  std::string out, err, analyzer_out;
};

Outcome run_case(const std::string& kind, const std::string& spec) {
  const test::TempDir tmp("shufflempc-adversary");
  const std::string keep = tmp / "run";
  // Three 8-byte shares a party: the output is the exact sum of the inputs, so a record lost or
  // counted twice shows.
  Process p({SHUFFLEMPC_CLI, "local", "split-mix-sum", "--parties", "4", "--messages", "3", "--modulus-bits", "64", "--accept-input-leakage",
             "true", "--mix-servers", "3", "--mix", kind, "--parties-per-process", "1", "--deadline-ms", "1000", "--seed", "1", "--json",
             "--keep-dir", keep, "--fault-adversary", spec},
            tmp / "err");
  Outcome o;
  o.out = p.read_line(std::chrono::seconds(120));
  o.status = p.wait(std::chrono::seconds(120));
  o.err = slurp(tmp / "err");
  o.analyzer_out = slurp(keep + "/analyzer.out");
  return o;
}

// One case of the sweep: the invariant, with what broke it named.
void check_case(const std::string& kind, const std::string& spec, bool drops, std::size_t& cases) {
  CAPTURE(kind);
  CAPTURE(spec);
  const Outcome o = run_case(kind, spec);
  ++cases;
  INFO("stderr: " << o.err);
  REQUIRE_MESSAGE(o.status != -1, "the run outlived its limit");
  for (const char* crash : {"AddressSanitizer", "runtime error:", "terminate called", "Segmentation", "Aborted"})
    CHECK_MESSAGE(o.err.find(crash) == std::string::npos, "a process crashed: " << crash);
  for (int signal : {134, 136, 139})
    CHECK_MESSAGE(o.err.find("exited with status " + std::to_string(signal)) == std::string::npos, "a process died by a signal");
  if (o.status == 0) {
    CHECK_MESSAGE(!drops, "the run succeeded while the entry dropped honest parties' records");
    const auto report = nlohmann::json::parse(o.out, nullptr, false);
    REQUIRE_FALSE(report.is_discarded());
    CHECK_MESSAGE(report["output"] == report["truth"], "an output that is not every party's records exactly once");
  } else {
    CHECK_MESSAGE(o.analyzer_out.empty(), "the analyzer output a round the run failed");
    // A dropped party's process names the entry; or the entry itself ended the session (too few
    // parties submitted, in its own words), which the analyzer reports.
    if (drops)
      CHECK_MESSAGE((o.err.find("the chain's entry (the shuffler)") != std::string::npos || o.err.find("shufflempc shuffler: session") != std::string::npos),
                    "the entry dropped parties and no process named it");
  }
}

// The mutations the sweep applies to each kind of frame the entry sends: every one to the result
// frames, those that apply to any frame to the aborts. `fields`: with the mutations of a result's
// count and length fields (decode_result's, the same code whatever the chain: the onion chain's
// sweep takes them, the verifiable chain's does not repeat them).
std::vector<std::string> sweep(const std::string& type, bool fields = true) {
  std::vector<std::string> out;
  for (const auto& m : net::adversary::mutations()) {
    const bool result_field = m.find("messages-") == 0 || m.find("submitted-") == 0 || m.find("dropped-") == 0 || m.find("reports-") == 0 ||
                              m.find("evidence-") == 0 || m == "ids-flip";
    if ((type == "abort" || !fields) && result_field) continue;
    out.push_back(m);
  }
  return out;
}

void sweep_cases(const std::string& kind, const std::string& type, const std::string& to, bool drops) {
  std::size_t cases = 0;
  const std::string dropping = drops ? "ignore=1-2," : "";
  // The entry that only drops (or, without drops, the honest entry): the baseline of the sweep.
  check_case(kind, dropping + "type=" + type + ",to=" + to, drops, cases);
  for (const auto& m : sweep(type, kind == "decryption")) check_case(kind, dropping + "type=" + type + ",to=" + to + ",mutation=" + m, drops, cases);
  MESSAGE(cases << " cases: " << kind << " chain, the entry's " << type << " frames to " << to << (drops ? ", dropping parties 1-2" : ""));
}

}  // namespace

TEST_CASE("adversary harness: the catalogue names every mutation once, each applies, and a bad spec is refused naming its key") {
  const auto& all = net::adversary::mutations();
  CHECK(std::set<std::string>(all.begin(), all.end()).size() == all.size());
  for (const auto& m : all) {
    CAPTURE(m);
    std::vector<std::uint8_t> payload(40);
    for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<std::uint8_t>(i + 2);
    // A result frame (an abort for the mutation that makes a frame a result).
    const auto type = m == "type-result" ? net::FrameType::abort : net::FrameType::result;
    net::OutgoingFrame f{type, {}, 3, 5, 2, payload};
    const auto action = net::adversary::mutate(m, f);
    // Every mutation changes the frame or what becomes of it.
    const bool changed = action != net::TapAction::send || f.payload != payload || f.round != 3 || f.width != 5 || f.count != 2 ||
                         f.type != type || f.session != SessionId{};
    CHECK(changed);
  }
  CHECK_THROWS_WITH_AS((void)net::adversary::parse_entry("mutation=nothing"), doctest::Contains("unknown mutation nothing"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)net::adversary::parse_entry("ignore=3-1"), doctest::Contains("ignore=3-1 is not a party id or a range"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)net::adversary::parse_entry("color=red"), doctest::Contains("unknown key color"), std::invalid_argument);
  CHECK_FALSE(net::adversary::parse_entry("type=result,to=analyzer").tap);  // no mutation: the frames go as they are
  CHECK(net::adversary::parse_entry("ignore=2-4,mutation=close").ignore == std::set<PartyId>{2, 3, 4});
}

// The sweep, (chain × frame × mutation), each case a real session of 8 processes: 245 cases (167
// through the onion chain, 78 through the verifiable one), in test cases of similar length so that
// ctest's two jobs share them (the cases that withhold or close wait out the round's limit). The
// verifiable chain's checks of a party's result are the onion chain's (TcpChannel's), so it sweeps
// the cases where the entry drops parties and its frames to the analyzer, without the result's
// count fields (decode_result's), not the honest entry's mutated results a second time.
TEST_CASE("adversary harness: the entry's result frames to the parties, each mutation, through the onion chain" * doctest::test_suite("slow")) {
  sweep_cases("decryption", "result", "parties", false);
  sweep_cases("decryption", "abort", "parties", true);
}

TEST_CASE("adversary harness: the entry's result frames while it drops two parties, and to the analyzer, through the onion chain" * doctest::test_suite("slow")) {
  sweep_cases("decryption", "result", "parties", true);
  sweep_cases("decryption", "result", "analyzer", false);
}

TEST_CASE("adversary harness: the entry's result and abort frames while it drops two parties, through the verifiable chain" * doctest::test_suite("slow")) {
  sweep_cases("verifiable", "result", "parties", true);
  sweep_cases("verifiable", "abort", "parties", true);
}

TEST_CASE("adversary harness: the entry's result frame to the analyzer, each mutation, through the verifiable chain" * doctest::test_suite("slow")) {
  sweep_cases("verifiable", "result", "analyzer", false);
}
