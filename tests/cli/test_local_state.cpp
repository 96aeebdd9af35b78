// `shufflempc local` with a state directory (docs/network.md, "Durable collection"): the
// shuffler keeps every party process's batch before its receipt, a collection window, party
// processes that leave once they hold their receipts, and a disk that fills up under the shuffler.
#include <doctest/doctest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "cli/run_json.hpp"
#include "net/harness.hpp"
#include "shufflempc/hex.hpp"
#include "shufflempc/net/store.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"
#include "support/small_disk.hpp"
#include "support/temp_dir.hpp"

using namespace shufflempc;
using namespace shufflempc::test;

TEST_CASE("shufflempc local --state-dir: the shuffler kept every party process's batch before its receipt, and the session's end") {
  const test::TempDir tmp("shufflempc-localstate");
  const std::string err = tmp / "err";
  const Value tcp = run_json({SHUFFLEMPC_CLI, "local", "counting", "--parties", "400", "--parties-per-process", "80", "--seed", "3", "--json",
                              "--state-dir", tmp / "state", "--keep-dir", tmp / "run"},
                             err);
  const Value mem = run_json({SHUFFLEMPC_CLI, "run", "counting", "--parties", "400", "--seed", "3", "--json"}, err);
  CHECK(tcp["output"] == mem["output"]);
  const auto config = net::SessionConfig::load(tmp / "run/session.json");
  auto store = net::open_state_directory(std::filesystem::path(tmp / "state") / to_hex(config.session), config.session, config.digest(), "test");
  const auto kept = store->admitted(0);
  std::size_t parties = 0, messages = 0;
  for (const auto& a : kept) {
    parties += a.counts.size();
    for (auto c : a.counts) messages += c;
  }
  CHECK(parties == 400);
  CHECK(messages == tcp["messages"].get<std::size_t>());
  CHECK(store->ended() == std::optional<std::string>("the analyzer confirmed the session's result"));
  // The analyzer kept the delivered round and the output it printed (analyzer --state-dir).
  store.reset();
  auto analyzer = net::open_state_directory(std::filesystem::path(tmp / "state/analyzer") / to_hex(config.session), config.session,
                                            config.digest(), "test");
  CHECK(analyzer->kept("round-0").has_value());
  const auto printed = analyzer->kept("output-json");
  REQUIRE(printed.has_value());
  CHECK(Value::parse(std::string(printed->begin(), printed->end()))["output"] == tcp["output"]);
}

TEST_CASE("shufflempc local --state-dir through a chain of 3, onion and verifiable: each further server kept its answer, a verifiable one its shares, and the session's end") {
  for (const std::string mix : {"decryption", "verifiable"}) {
    CAPTURE(mix);
    const test::TempDir tmp("shufflempc-localstate-chain");
    const Value tcp = run_json({SHUFFLEMPC_CLI, "local", "counting", "--parties", "200", "--parties-per-process", "100", "--seed", "4", "--json",
                                "--mix-servers", "3", "--mix", mix, "--state-dir", tmp / "state", "--keep-dir", tmp / "run"},
                               tmp / "err");
    const Value mem = run_json({SHUFFLEMPC_CLI, "run", "counting", "--parties", "200", "--seed", "4", "--json"}, tmp / "err");
    CHECK(tcp["output"] == mem["output"]);
    const auto config = net::SessionConfig::load(tmp / "run/session.json");
    for (int hop : {1, 2}) {
      CAPTURE(hop);
      auto server = net::open_state_directory(std::filesystem::path(tmp / "state") / ("mix-server-" + std::to_string(hop)) / to_hex(config.session),
                                              config.session, config.digest(), "test");
      CHECK(server->kept("last").has_value());
      CHECK(server->kept("decrypted").has_value() == (mix == "verifiable"));
      CHECK(server->ended() == std::optional<std::string>("the entry said goodbye after the session's last round"));
    }
    // Through a chain the analyzer keeps no state (the parties' verdicts are not kept).
    CHECK_FALSE(std::filesystem::exists(tmp / "state/analyzer"));
  }
}

TEST_CASE("shufflempc local --leave-after-receipt and a collection window: the party processes go once kept, the same estimate") {
  const test::TempDir tmp("shufflempc-localwindow");
  const std::string err = tmp / "err";
  const std::vector<std::string> common = {"counting", "--parties", "300", "--noise", "calibrated", "--seed", "4", "--json", "--dropouts", "30"};
  std::vector<std::string> local = {SHUFFLEMPC_CLI, "local"}, run = {SHUFFLEMPC_CLI, "run"};
  local.insert(local.end(), common.begin(), common.end());
  local.insert(local.end(), {"--parties-per-process", "60", "--state-dir", tmp / "state", "--leave-after-receipt", "--close-after-ms", "60000"});
  run.insert(run.end(), common.begin(), common.end());
  const Value tcp = run_json(local, err);
  // Parties that left with their receipts owe the shuffler nothing: it waits for none of them.
  CHECK_MESSAGE(slurp(err).find("did not reconnect within") == std::string::npos, slurp(err));
  const Value mem = run_json(run, err);
  CHECK(tcp["output"] == mem["output"]);
  CHECK(tcp["messages"] == mem["messages"]);
  // A window needs a protocol of one round, and a count the noise allows.
  const auto refused = run_command(SHUFFLEMPC_CLI + std::string(" local mpc2 --parties 3 --function inner-product --length 10 --random-inputs -100..100 --close-count 3"));
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("--close-after-ms and --close-count make a collection window, for a protocol of one round; mpc2 has 2") !=
        std::string::npos);
}

TEST_CASE("shufflempc local --state-dir on a full disk (a 1 MB tmpfs): one line, the run fails, and every receipt sent names a kept batch") {
  const test::TempDir tmp("shufflempc-localfull");
  const test::SmallDisk small(tmp / "disk");
  if (!small.mounted()) return;
  const std::string& disk = small.path();
  // 20,000 parties' sealed records (4 MB with SQLite's pages) into 1 MB: the disk fills partway.
  const auto run = shufflempc::run_command({SHUFFLEMPC_CLI, "local", "counting", "--parties", "20000", "--parties-per-process", "2000",
                                            "--seed", "1", "--json", "--state-dir", disk + "/state", "--receipts", tmp / "receipts"});
  CHECK(run.exit_code != 0);
  CHECK(run.err.find("shufflempc shuffler: session ") != std::string::npos);
  CHECK(run.err.find("(shuffler): database or disk is full: nothing of this commit was kept") != std::string::npos);
  CHECK(run.out.empty());  // no output
  // The receipts that came name batches the state directory holds, each once; not every process got one.
  const auto config = net::SessionConfig::load(tmp / "receipts/session.json");
  auto store = net::open_state_directory(std::filesystem::path(disk) / "state" / to_hex(config.session), config.session, config.digest(), "test");
  std::set<net::RecordDigest> kept;
  for (const auto& a : store->admitted(0)) CHECK(kept.insert(a.digest()).second);
  std::size_t receipted = 0;
  for (const auto& entry : std::filesystem::directory_iterator(tmp / "receipts")) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("party-", 0) != 0) continue;
    const Value file = Value::parse(slurp(entry.path().string()));
    for (const auto& r : file["receipts"]) {
      net::RecordDigest d{};
      from_hex(r["digest"].get<std::string>(), d, "digest");
      CHECK_MESSAGE(kept.count(d) == 1, name << ": a receipt for a batch the state directory does not hold");
      ++receipted;
    }
  }
  CHECK(receipted >= 1);
  CHECK(receipted < 10);
  // A batch committed just before the disk filled may never have been told (as after a crash
  // between its commit and its receipt): kept and not receipted is allowed, receipted and not kept never.
  CHECK(receipted <= kept.size());
}
