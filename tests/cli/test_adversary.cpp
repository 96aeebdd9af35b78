// The adversary harness: one process of a real session (separate processes over TCP, through each
// kind of chain, or with no chain and a shuffler keeping a state directory) plays its role
// dishonestly (net/adversary.hpp, `local --fault-adversary role=...`): the entry (the shuffler),
// its result and abort frames to the parties or the analyzer, alone or while it drops two parties'
// submissions (the n - 1 attack), and its admitted frames (receipts); a further mix server, every
// frame it sends the entry; a party, every frame it sends. Each mutation of the catalogue in turn.
// After every case the invariant the docs promise (docs/SECURITY.md, "Failing closed") must hold:
//   - every process ends within the run's limit, none by a signal or a sanitizer's report;
//   - either the run succeeds and its output is the exact sum of every submitter's input (every
//     honest submitter's records exactly once, no honest party dropped, so never while the entry
//     drops a party), or the analyzer outputs nothing, and a process names the culprit (the entry
//     that dropped parties, the mix server that misbehaved).
// The key generation's roles are swept in tests/net/test_dkg.cpp.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <optional>
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

Outcome run_case(const std::string& kind, const std::string& spec, bool min_three = false) {
  const test::TempDir tmp("shufflempc-adversary");
  const std::string keep = tmp / "run";
  // Three 8-byte shares a party: the output is the exact sum of the inputs, so a record lost or
  // counted twice shows.
  std::vector<std::string> args{SHUFFLEMPC_CLI, "local", "split-mix-sum", "--parties", "4", "--messages", "3", "--modulus-bits", "64",
                                "--accept-input-leakage", "true", "--parties-per-process", "1",
                                "--deadline-ms", "1000", "--seed", "1", "--json", "--keep-dir", keep, "--fault-adversary", spec};
  // Kind "none": no chain, a shuffler that keeps a state directory (its receipts, and its signed
  // commitment to the batch the analyzer checks).
  if (kind == "none") args.insert(args.end(), {"--state-dir", tmp / "state"});
  else args.insert(args.end(), {"--mix-servers", "3", "--mix", kind});
  // A dishonest party's round goes on without it (it counts as dropped).
  if (min_three) args.insert(args.end(), {"--min-parties", "3"});
  Process p(args, tmp / "err");
  Outcome o;
  o.out = p.read_line(std::chrono::seconds(120));
  o.status = p.wait(std::chrono::seconds(120));
  o.err = slurp(tmp / "err");
  o.analyzer_out = slurp(keep + "/analyzer.out");
  return o;
}

// Who plays the adversary in a sweep, and what the invariant asks of a run it made fail.
struct Role {
  std::string spec;                 // the role's part of the spec (empty: the entry)
  std::vector<std::string> culprit;  // a failed run names it in one of these words
  bool drops = false;               // the entry drops honest parties' records: the run must fail
  std::optional<PartyId> party;     // a dishonest party: it may count as dropped, no one else
};

// One case of the sweep: the invariant, with what broke it named. Returns the run's exit status.
int check_case(const std::string& kind, const Role& role, const std::string& spec, std::size_t& cases) {
  CAPTURE(kind);
  CAPTURE(spec);
  const Outcome o = run_case(kind, role.spec + spec, role.party.has_value());
  ++cases;
  INFO("stderr: " << o.err);
  REQUIRE_MESSAGE(o.status != -1, "the run outlived its limit");
  for (const char* crash : {"AddressSanitizer", "runtime error:", "terminate called", "Segmentation", "Aborted"})
    CHECK_MESSAGE(o.err.find(crash) == std::string::npos, "a process crashed: " << crash);
  for (int signal : {134, 136, 139})
    CHECK_MESSAGE(o.err.find("exited with status " + std::to_string(signal)) == std::string::npos, "a process died by a signal");
  if (o.status == 0) {
    CHECK_MESSAGE(!role.drops, "the run succeeded while the entry dropped honest parties' records");
    const auto report = nlohmann::json::parse(o.out, nullptr, false);
    REQUIRE_FALSE(report.is_discarded());
    // The truth is over the parties that submitted: only a dishonest party may be missing.
    const auto allowed = role.party ? nlohmann::json::array({*role.party}) : nlohmann::json::array();
    CHECK_MESSAGE((report["dropped"].empty() || report["dropped"] == allowed), "honest parties were dropped: " << report["dropped"].dump());
    CHECK_MESSAGE(report["output"] == report["truth"], "an output that is not every party's records exactly once");
  } else {
    CHECK_MESSAGE(o.analyzer_out.empty(), "the analyzer output a round the run failed");
    if (!role.culprit.empty()) {
      bool named = false;
      for (const auto& word : role.culprit) named = named || o.err.find(word) != std::string::npos;
      CHECK_MESSAGE(named, "the run failed and no process named the culprit");
    }
  }
  return o.status;
}

// The mutations a sweep applies: every one of the catalogue, but the result's count and length
// fields (decode_result's: the same code whatever the chain) only where `fields`, and the frame
// types a frame is turned into only the first nine where `few_types` (the entry's sweeps, whose
// receivers refuse every type but two the same way).
std::vector<std::string> sweep(bool fields, bool few_types = false) {
  static const std::set<std::string> first_types = {"type-confirm", "type-submit", "type-result", "type-abort", "type-mix",
                                                    "type-done",    "type-verdict", "type-alive",  "type-dkg"};
  std::vector<std::string> out;
  for (const auto& m : net::adversary::mutations()) {
    const bool result_field = m.find("messages-") == 0 || m.find("submitted-") == 0 || m.find("dropped-") == 0 || m.find("reports-") == 0 ||
                              m.find("evidence-") == 0 || m == "ids-flip";
    if (!fields && result_field) continue;
    if (few_types && m.find("type-") == 0 && !first_types.count(m)) continue;
    out.push_back(m);
  }
  return out;
}

// The entry (the shuffler): its frames of `type` to `to`, while it drops parties 1-2 or not.
void sweep_cases(const std::string& kind, const std::string& type, const std::string& to, bool drops) {
  std::size_t cases = 0;
  const Role entry{"", {"the chain's entry (the shuffler)", "shufflempc shuffler: session"}, drops, std::nullopt};
  // The entry names itself when it ends the session (too few parties submitted, in its own words).
  const Role role = drops ? entry : Role{};
  const std::string dropping = drops ? "ignore=1-2," : "";
  // The entry that only drops (it is caught) or, without drops, the honest entry (the run succeeds):
  // the baseline of the sweep.
  CHECK((check_case(kind, role, dropping + "type=" + type + ",to=" + to, cases) == 0) == !drops);
  for (const auto& m : sweep(type != "abort" && kind != "verifiable", true))
    check_case(kind, role, dropping + "type=" + type + ",to=" + to + ",mutation=" + m, cases);
  MESSAGE(cases << " cases: " << kind << " chain, the entry's " << type << " frames to " << to << (drops ? ", dropping parties 1-2" : ""));
}

// Another role: every frame it sends (type any), each mutation in turn (or those of `only`), and
// the baseline.
void sweep_role(const std::string& kind, const Role& role, const std::string& label, const std::set<std::string>& only = {}) {
  std::size_t cases = 0;
  CHECK(check_case(kind, role, "type=any", cases) == 0);  // the baseline: the role played honestly, the run succeeds
  for (const auto& m : sweep(false))
    if (only.empty() || only.count(m)) check_case(kind, role, "type=any,mutation=" + m, cases);
  MESSAGE(cases << " cases: " << kind << " chain, " << label);
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
    if (m == "throw") {  // the honest side's code gets an exception that is not a std::system_error
      CHECK_THROWS_AS((void)net::adversary::mutate(m, f), std::logic_error);
      continue;
    }
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
  CHECK_THROWS_WITH_AS((void)net::adversary::parse_entry("ignore=0-4000000"), doctest::Contains("spans more than 2^20 parties"), std::invalid_argument);
  // Another role's spec: type and mutation only; the role picked from the whole spec.
  CHECK_FALSE(net::adversary::parse_tap("type=mixed"));
  CHECK(net::adversary::parse_tap("type=shuffled,mutation=truncate"));
  CHECK_THROWS_WITH_AS((void)net::adversary::parse_tap("ignore=1-2,mutation=close"), doctest::Contains("unknown key ignore (type, mutation)"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)net::adversary::parse_tap("type=nothing"), doctest::Contains("type=nothing is not a frame type"), std::invalid_argument);
  const auto mix = net::adversary::split_role("type=any,role=mix-server-2,mutation=close");
  CHECK(mix.role == net::adversary::RoleSpec::Role::mix_server);
  CHECK(mix.index == 2);
  CHECK(mix.spec == "type=any,mutation=close");
  CHECK(net::adversary::split_role("role=party-7").role == net::adversary::RoleSpec::Role::party);
  CHECK(net::adversary::split_role("ignore=1-2").role == net::adversary::RoleSpec::Role::entry);
  for (const char* bad : {"role=server-1", "role=party-", "role=mix-server-x", "role=party-99999999999"})
    CHECK_THROWS_WITH_AS((void)net::adversary::split_role(bad), doctest::Contains("is not entry, mix-server-I or party-P"), std::invalid_argument);
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

// A further mix server plays the adversary: every frame it sends the entry (its answers, its
// refusals), each mutation. The entry checks each answer against what the server signed and what
// the next one did: a run it fails names the server (or its hop).
TEST_CASE("adversary harness: the entry's result frame to the analyzer, each mutation, with no chain: its signed commitment to the batch" *
          doctest::test_suite("slow")) {
  sweep_cases("none", "result", "analyzer", false);
}

TEST_CASE("adversary harness: the entry's admitted frames to the parties, each mutation, with no chain and a state directory" *
          doctest::test_suite("slow")) {
  sweep_cases("none", "admitted", "parties", false);
}

TEST_CASE("adversary harness: further mix server 1's frames, each mutation, through the onion chain" * doctest::test_suite("slow")) {
  sweep_role("decryption", {"role=mix-server-1,", {"mix server 1", "hop 1"}, false, std::nullopt}, "further mix server 1's frames");
}

TEST_CASE("adversary harness: further mix server 2's frames, each mutation, through the verifiable chain" * doctest::test_suite("slow")) {
  sweep_role("verifiable", {"role=mix-server-2,", {"mix server 2", "hop 2"}, false, std::nullopt}, "further mix server 2's frames");
}

// A party plays the adversary (its submissions, its signs of life, its verdict to the analyzer),
// in a session whose rounds go on with three of the four parties: it may make the round fail (a
// complaint is its right) or count itself out, never cost an honest party its records. A case
// whose party is cut off lasts the analyzer's wait for that party's verdict (several seconds), so
// the verifiable chain, whose links and verdicts are the onion chain's, sweeps only what its entry
// checks otherwise: the records' bytes (each a ciphertext with its sender's proof).
TEST_CASE("adversary harness: a party's frames, each mutation, through the onion chain" * doctest::test_suite("slow")) {
  sweep_role("decryption", {"role=party-1,", {}, false, PartyId{1}}, "party 1's frames");
}

TEST_CASE("adversary harness: a party's records altered, through the verifiable chain" * doctest::test_suite("slow")) {
  sweep_role("verifiable", {"role=party-1,", {}, false, PartyId{1}}, "party 1's records altered",
             {"truncate", "extend", "empty", "width-0", "width-max", "count-0", "count-max", "count-beyond", "tail-flip", "tail-cut", "duplicate"});
}
