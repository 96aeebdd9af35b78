// The analyzer's state directory (`analyzer --state-dir`, docs/network.md, "Durable collection")
// with real processes: an analyzer killed with SIGKILL at each step of the delivery (the result read;
// kept and not confirmed; confirmed and analysed; the output kept and not printed) and started again
// on its directory prints one output, the same whatever start prints it, with every receipted record
// counted once. The protocol is central-laplace, whose analyzer draws its noise: an output computed
// again equals the first only if the key of that randomness was kept.
#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "net/harness.hpp"
#include "shufflempc/hex.hpp"
#include "shufflempc/json.hpp"
#include "shufflempc/net/keys.hpp"
#include "shufflempc/random.hpp"
#include "support/paths.hpp"
#include "support/small_disk.hpp"
#include "support/temp_dir.hpp"

using namespace shufflempc;
using namespace shufflempc::test;

namespace analyzer_state_test {

// A collection round as separate hosts make it: keys, a session of three parties that closes at
// three batches, the shuffler keeping its state, and one party process that leaves with its
// receipts. Returns the shuffler's address.
struct Collection {
  std::string dir;
  std::unique_ptr<Process> shuffler;
  std::string address;

  explicit Collection(const std::string& d) : dir(d) {
    const auto keygen = [&](const std::string& name) {
      Process p({SHUFFLEMPC_CLI, "keygen", "--out", dir + "/" + name}, dir + "/keygen.err");
      const std::string pub = p.read_line();
      REQUIRE(p.wait() == 0);
      return pub;
    };
    (void)keygen("shuffler.key");
    (void)keygen("analyzer.key");
    {
      std::ofstream keys(dir + "/party-keys.txt");
      for (int i = 0; i < 3; ++i) keys << keygen("party-" + std::to_string(i) + ".key") << '\n';
      std::ofstream in(dir + "/inputs.json");
      in << "[1, 1, 0]\n";
    }
    // A small epsilon: the analyzer's noise has a standard deviation of about 140, so two draws of it
    // agree by chance with probability below 0.3%.
    Process session({SHUFFLEMPC_CLI, "session", "--protocol", "central-laplace", "--param", "epsilon=0.01", "--shuffler-key",
                     dir + "/shuffler.key", "--analyzer-key", dir + "/analyzer.key", "--party-keys", dir + "/party-keys.txt",
                     "--close-count", "3", "--min-parties", "3", "--out", dir + "/session.json"},
                    dir + "/session.err");
    REQUIRE_MESSAGE(session.wait() == 0, slurp(dir + "/session.err"));
    shuffler = std::make_unique<Process>(std::vector<std::string>{SHUFFLEMPC_CLI, "shuffler", "--config", dir + "/session.json", "--key",
                                                                  dir + "/shuffler.key", "--listen", "127.0.0.1:0", "--state-dir",
                                                                  dir + "/shuffler-state", "--reconnect-grace-ms", "3000"},
                                         dir + "/shuffler.log");
    const std::string line = shuffler->read_line();
    REQUIRE_MESSAGE(line.rfind("listening on 127.0.0.1:", 0) == 0, line << slurp(dir + "/shuffler.log"));
    address = line.substr(std::string("listening on ").size());
    Process parties({SHUFFLEMPC_CLI, "party", "--config", dir + "/session.json", "--id", "0-2", "--key-dir", dir, "--inputs",
                     dir + "/inputs.json", "--connect", address, "--leave-after-receipt", "--receipt", dir + "/receipt.json"},
                    dir + "/parties.log");
    REQUIRE_MESSAGE(parties.wait() == 0, slurp(dir + "/parties.log"));
  }

  // An analyzer on `state` (extra arguments after the common ones); its exit status, its stdout's
  // first line in `out`.
  int analyzer(const std::string& state, const std::vector<std::string>& extra, const std::string& log, std::string& out) const {
    std::vector<std::string> args = {SHUFFLEMPC_CLI, "analyzer", "--config", dir + "/session.json", "--key", dir + "/analyzer.key", "--connect",
                                     address, "--json", "--state-dir", state, "--commitment", dir + "/commitment.json"};
    args.insert(args.end(), extra.begin(), extra.end());
    Process p(args, dir + "/" + log);
    out = p.read_line(std::chrono::seconds(30));
    return p.wait();
  }
};

// What the sweep asserts of one printed report: three records, the central count's noisy output.
double output_of(const std::string& line) {
  const Value report = Value::parse(line, nullptr, false);
  REQUIRE_MESSAGE(!report.is_discarded(), line);
  CHECK(report["messages"] == 3);
  REQUIRE(report["output"].is_number());
  return report["output"].get<double>();
}

void kill_at(const std::string& step) {
  CAPTURE(step);
  const test::TempDir tmp("shufflempc-analyzer-state-" + step);
  const std::string& dir = tmp.path();
  Collection c(dir);
  const std::string state = dir + "/analyzer-state";
  std::string first;
  CHECK(c.analyzer(state, {"--fault-kill-at", step}, "killed.log", first) == 128 + 9);  // SIGKILL
  CHECK(first.empty());  // nothing printed
  // Before the result was kept, the restarted analyzer asks the shuffler again (it holds the result
  // for the reconnect grace); from then on, what is kept is opened: a copy of the directory, opened
  // by another start, must print the same.
  const bool offline = step != "received";
  if (offline) std::filesystem::copy(state, dir + "/analyzer-copy", std::filesystem::copy_options::recursive);
  std::string again;
  REQUIRE_MESSAGE(c.analyzer(state, {}, "again.log", again) == 0, slurp(dir + "/again.log"));
  const double output = output_of(again);
  const std::string again_log = slurp(dir + "/again.log");
  if (step == "kept" || step == "confirmed")
    CHECK_MESSAGE(again_log.find("is opened again; the shuffler is not asked for it") != std::string::npos, again_log);
  if (step == "output") CHECK_MESSAGE(again_log.find("printed as it was") != std::string::npos, again_log);
  if (offline) {
    std::string copy;
    REQUIRE_MESSAGE(c.analyzer(dir + "/analyzer-copy", {}, "copy.log", copy) == 0, slurp(dir + "/copy.log"));
    CHECK(output_of(copy) == output);
  }
  // A third start prints the output kept by the second, without the shuffler.
  std::string third;
  REQUIRE_MESSAGE(c.analyzer(state, {}, "third.log", third) == 0, slurp(dir + "/third.log"));
  CHECK(third == again);
  CHECK(slurp(dir + "/third.log").find("printed as it was") != std::string::npos);
  // The shuffler: its result confirmed, unless the analyzer was killed between keeping the result
  // and confirming it; then it gives up after its grace with every batch kept, and says so.
  const int shuffler_status = c.shuffler->wait(std::chrono::seconds(30));
  if (step == "kept") {
    CHECK(shuffler_status == 1);
    CHECK(slurp(dir + "/shuffler.log").find("the analyzer did not confirm the session's result") != std::string::npos);
  } else {
    CHECK_MESSAGE(shuffler_status == 0, slurp(dir + "/shuffler.log"));
  }
  // Every receipted batch is in the batch the analyzer published (the commitment it checked).
  const auto r = shufflempc::run_command({SHUFFLEMPC_CLI, "receipt", dir + "/receipt.json", "--commitment", dir + "/commitment.json",
                                          "--config", dir + "/session.json"});
  CHECK_MESSAGE(r.exit_code == 0, (r.out + r.err));
}

// One trial of the seeded sweep: the analyzer killed with SIGKILL `kill_after_us` microseconds after
// it starts, wherever that falls (starting, connecting, reading, keeping, confirming, analysing,
// printing: its whole run takes about 9 ms on the 2-core machine of docs/PERFORMANCE.md, so the
// sweeps draw the moment from the first 12 or 16 ms), then started again until one start prints: exactly one output is ever printed, a
// start after it prints the same, and every receipt is in the batch it published. The shuffler ends
// with the result confirmed, or (killed between keeping and confirming) gives up saying so.
void killed_at_random(std::uint64_t seed, long kill_after_us) {
  CAPTURE(seed);
  CAPTURE(kill_after_us);
  const test::TempDir tmp("shufflempc-analyzer-sweep");
  const std::string& dir = tmp.path();
  Collection c(dir);
  const std::string state = dir + "/analyzer-state";
  std::vector<std::string> args = {SHUFFLEMPC_CLI, "analyzer", "--config", dir + "/session.json", "--key", dir + "/analyzer.key", "--connect",
                                   c.address, "--json", "--state-dir", state, "--commitment", dir + "/commitment.json"};
  std::string printed;
  {
    Process first(args, dir + "/first.log");
    ::usleep(static_cast<useconds_t>(kill_after_us));
    ::kill(first.pid(), SIGKILL);
    printed = first.read_line(std::chrono::seconds(5));  // a line printed before the kill, if any
    (void)first.wait();
  }
  std::string again;
  REQUIRE_MESSAGE(c.analyzer(state, {}, "again.log", again) == 0, slurp(dir + "/again.log"));
  (void)output_of(again);
  if (!printed.empty()) CHECK(printed == again);  // printed before the kill: the kept output is that one
  std::string third;
  REQUIRE(c.analyzer(state, {}, "third.log", third) == 0);
  CHECK(third == again);
  const int shuffler_status = c.shuffler->wait(std::chrono::seconds(30));
  const std::string shuffler_log = slurp(dir + "/shuffler.log");
  if (shuffler_status != 0) CHECK_MESSAGE(shuffler_log.find("the analyzer did not confirm the session's result") != std::string::npos, shuffler_log);
  const auto r = shufflempc::run_command({SHUFFLEMPC_CLI, "receipt", dir + "/receipt.json", "--commitment", dir + "/commitment.json",
                                          "--config", dir + "/session.json"});
  CHECK_MESSAGE(r.exit_code == 0, (r.out + r.err));
}

}  // namespace analyzer_state_test

TEST_CASE("analyzer state: SIGKILL once the result is read, restarted: the shuffler delivers it again and one output is printed") {
  analyzer_state_test::kill_at("received");
}

TEST_CASE("analyzer state: SIGKILL once the result is kept, before it is confirmed, restarted: the kept result gives the one output") {
  analyzer_state_test::kill_at("kept");
}

TEST_CASE("analyzer state: SIGKILL after the confirmation, before the output is kept, restarted: the same output, its noise drawn again alike") {
  analyzer_state_test::kill_at("confirmed");
}

TEST_CASE("analyzer state: SIGKILL once the output is kept, before it is printed, restarted: the kept output is printed") {
  analyzer_state_test::kill_at("output");
}

TEST_CASE("analyzer state: a state directory whose database is torn, and the fault flag without a directory, are refused with one line") {
  const test::TempDir tmp("shufflempc-analyzer-state-refused");
  const std::string& dir = tmp.path();
  analyzer_state_test::Collection c(dir);
  std::string out;
  // A file that is not a database where this session's state would be.
  const auto config = net::SessionConfig::load(dir + "/session.json");
  std::filesystem::create_directories(dir + "/foreign/" + to_hex(config.session));
  {
    std::ofstream torn(dir + "/foreign/" + to_hex(config.session) + "/state.sqlite");
    torn << "not a database, not even its header";
  }
  CHECK(c.analyzer(dir + "/foreign", {}, "foreign.log", out) != 0);
  const std::string foreign = slurp(dir + "/foreign.log");
  CHECK_MESSAGE(foreign.find("(analyzer)") != std::string::npos, foreign);
  CHECK_MESSAGE(foreign.find("refused") != std::string::npos, foreign);
  // The fault flag needs the directory.
  const auto r = shufflempc::run_command({SHUFFLEMPC_CLI, "analyzer", "--config", dir + "/session.json", "--key", dir + "/analyzer.key",
                                          "--fault-kill-at", "kept"});
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("--state-dir") != std::string::npos);
  // The run goes on: the analyzer on a good directory prints the output, and the shuffler ends.
  CHECK_MESSAGE(c.analyzer(dir + "/good", {}, "good.log", out) == 0, slurp(dir + "/good.log"));
  (void)analyzer_state_test::output_of(out);
  CHECK(c.shuffler->wait(std::chrono::seconds(30)) == 0);
}

TEST_CASE("analyzer state: SIGKILL at a seeded moment of the analyzer's run, 6 seeds: started again, one output and every receipt in its batch") {
  SeededRng rng(73);
  for (std::uint64_t seed = 0; seed < 6; ++seed) analyzer_state_test::killed_at_random(seed, static_cast<long>(rng.uniform(12'000)));
}

TEST_CASE("analyzer state: SIGKILL at a seeded moment of the analyzer's run, 40 seeds" * doctest::test_suite("slow")) {
  SeededRng rng(74);
  for (std::uint64_t seed = 0; seed < 40; ++seed) analyzer_state_test::killed_at_random(100 + seed, static_cast<long>(rng.uniform(16'000)));
}

TEST_CASE("analyzer state: a full disk (a 1 MB tmpfs) when the result comes: one line, nothing confirmed or printed, and started again with room, the one output") {
  const test::TempDir tmp("shufflempc-analyzer-state-full");
  const std::string& dir = tmp.path();
  const test::SmallDisk disk(dir + "/disk");
  if (!disk.mounted()) return;
  analyzer_state_test::Collection c(dir);
  const std::string state = disk.path() + "/state";
  // A first start keeps the key of its randomness and is killed once the result is read.
  std::string out;
  CHECK(c.analyzer(state, {"--fault-kill-at", "received"}, "killed.log", out) == 128 + 9);
  // The disk is full when the result comes again: it cannot be kept, so it is neither confirmed
  // (the shuffler holds it) nor analysed, and the analyzer says why in one line.
  const std::string filler = disk.fill();
  CHECK(c.analyzer(state, {}, "full.log", out) != 0);
  CHECK(out.empty());
  const std::string full = slurp(dir + "/full.log");
  CHECK_MESSAGE(full.find("cannot keep its round-0") != std::string::npos, full);
  CHECK_MESSAGE(full.find("full") != std::string::npos, full);
  CHECK_MESSAGE(full.find("the shuffler") == std::string::npos, full);  // no complaint of the entry for a local disk
  // With room again: the result delivered once more, kept, one output, and the shuffler ends.
  std::filesystem::remove(filler);
  REQUIRE_MESSAGE(c.analyzer(state, {}, "again.log", out) == 0, slurp(dir + "/again.log") << slurp(dir + "/shuffler.log"));
  (void)analyzer_state_test::output_of(out);
  CHECK_MESSAGE(c.shuffler->wait(std::chrono::seconds(30)) == 0, slurp(dir + "/shuffler.log"));
}
