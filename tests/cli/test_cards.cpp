// The cards through the shufflempc binary: `run card-and` with --alice/--bob as the inputs, and
// `wedding` drawing the table.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/process.hpp"
#include "support/paths.hpp"

using shufflempc::test::cli_binary;
using shufflempc::test::run_command;

TEST_CASE("cards cli: run card-and takes --alice and --bob as the parties' inputs") {
  for (const char* a : {"yes", "no"}) {
    for (const char* b : {"1", "0"}) {
      const auto r = run_command(cli_binary() + " run card-and --parties 2 --json --alice " + a + " --bob " + b);
      REQUIRE(r.exit_code == 0);
      const auto report = nlohmann::json::parse(r.out);
      const int want = std::string(a) == "yes" && std::string(b) == "1" ? 1 : 0;
      CHECK(report["output"] == want);
      CHECK(report["truth"] == want);
      CHECK(report["party_outputs"]["0"]["and"] == want);
      CHECK(report["party_outputs"]["1"]["and"] == want);
      CHECK(report["messages"] == 28);
    }
  }
  const auto bad = run_command(cli_binary() + " run card-and --parties 2 --alice maybe");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("parameter 'alice' = maybe is not accepted") != std::string::npos);
  CHECK(run_command(cli_binary() + " run card-and --parties 3").exit_code == 2);
}

TEST_CASE("cards cli: wedding draws the table and gives the answer, never the coin") {
  const auto yes = run_command(cli_binary() + " wedding --alice yes --bob yes --seed 1 --ascii");
  REQUIRE(yes.exit_code == 0);
  CHECK(yes.out.find("Both said yes.") != std::string::npos);
  CHECK(yes.out.find("|###|") != std::string::npos);  // face-down cards
  CHECK(yes.out.find("nobody sees which") != std::string::npos);
  const auto no = run_command(cli_binary() + " wedding --alice no --bob yes --seed 1");
  REQUIRE(no.exit_code == 0);
  CHECK(no.out.find("Not both said yes") != std::string::npos);
  CHECK(no.out.find("\u2663") != std::string::npos);  // a card turned over, drawn with its suit
  const auto bad = run_command(cli_binary() + " wedding --alice perhaps --bob yes");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--alice must answer yes or no") != std::string::npos);
}

TEST_CASE("cards cli: local card-and runs Alice and Bob in separate processes over loopback") {
  // The `local` command comes with the TCP transport (cli/local.cpp); card-and needs no code of its own there.
  if (!std::ifstream(std::string(SHUFFLEMPC_SOURCE_DIR) + "/cli/local.cpp")) {
    MESSAGE("cli/local.cpp is not in this tree: shufflempc local is not built, nothing to run");
    return;
  }
  for (const char* a : {"yes", "no"}) {
    const auto r = run_command(cli_binary() + " local card-and --parties 2 --json --alice " + a + " --bob yes");
    REQUIRE(r.exit_code == 0);
    const auto report = nlohmann::json::parse(r.out);
    const int want = std::string(a) == "yes" ? 1 : 0;
    CHECK(report["output"] == want);
    CHECK(report["party_outputs"]["0"]["and"] == want);
    CHECK(report["party_outputs"]["1"]["and"] == want);
    CHECK(report["messages"] == 28);
  }
}
