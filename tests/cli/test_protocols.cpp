// Protocols through the shufflempc binary: the reports a user reads and the refusals (exit 2, one line).
#include <doctest/doctest.h>

#include <cmath>

#include "shufflempc/protocols/ikos_key_exchange/ikos.hpp"
#include "shufflempc/runtime.hpp"
#include "support/process.hpp"

using namespace shufflempc;
using shufflempc::test::cli_binary;
using shufflempc::test::run_command;

TEST_CASE("ikos: the CLI runs the protocol and reports success, its probability and the key length") {
  const auto run = [](const std::string& args, int& status) {
    const auto r = run_command(cli_binary() + " run ikos-key-exchange " + args);
    status = r.exit_code;
    return r.out + r.err;
  };
  int status = -1;
  const auto j = Value::parse(run("--parties 4 --k 8 --seed 3 --json", status));
  REQUIRE(status == 0);
  CHECK(j["output"]["success"].is_boolean());
  CHECK(j["output"]["key_bits"] == 8);
  CHECK(j["details"]["success_probability"].get<double>() == ikos::success_probability(8, 24).success);
  CHECK(j["messages"] == 4 * 3 * 24);
  CHECK_FALSE(j["party_outputs"]["0"].contains("keys"));
  const auto shown = Value::parse(run("--parties 3 --k 8 --seed 3 --json --show-keys true", status));
  REQUIRE(status == 0);
  CHECK(shown["party_outputs"]["0"].contains("keys"));
  const auto err = run("--parties 3 --k 0", status);
  CHECK(status == 2);
  CHECK(err.find("k") != std::string::npos);
}

TEST_CASE("split-mix: through the shufflempc binary, exact sums and the refusal exits 2 with one line") {
  const auto ok = run_command(cli_binary() + " run split-mix-sum --parties 50 --seed 7 --json");
  REQUIRE(ok.exit_code == 0);
  const Value report = Value::parse(ok.out);
  CHECK(report["output"] == report["truth"]);
  CHECK(report["details"]["messages_per_party"] == report["details"]["messages_bbgn"]);
  const auto refused = run_command(cli_binary() + " run split-mix-sum --parties 50 --messages 3");
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("messages: 3 is below the BBGN count") != std::string::npos);
  CHECK(refused.err.find("--accept-input-leakage") != std::string::npos);
  const auto dp = run_command(cli_binary() + " run split-mix-dp-sum --parties 100 --seed 7 --json");
  REQUIRE(dp.exit_code == 0);
  CHECK(Value::parse(dp.out)["details"]["delta"].get<double>() <= (1 + std::exp(1.0)) * std::exp2(-40));
}
