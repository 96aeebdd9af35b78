// `shufflempc study xor-sum` as a user meets it: both tables, the CSV, and clear errors.
#include <doctest/doctest.h>

#include "support/process.hpp"

using shufflempc::test::cli_binary;
using shufflempc::test::run_command;

TEST_CASE("study xor-sum prints the one-round and two-round tables and writes the CSV") {
  const auto r = run_command(cli_binary() + " study xor-sum --parties 16,32 --runs 1 --alpha 0.5,2 --queries 1,4 --executions h,4n --quiet");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("One round: the pause-and-replay attack") != std::string::npos);
  CHECK(r.out.find("Two rounds: the escape by circuit MPC") != std::string::npos);
  CHECK(r.out.find("every one the same answer") != std::string::npos);
  const auto c = run_command(cli_binary() + " study xor-sum --parties 16 --runs 1 --protocols exact --epsilon 0 --csv - --quiet");
  REQUIRE(c.exit_code == 0);
  CHECK(c.out.starts_with("rounds,protocol,parties,alpha,alpha_measured,epsilon,ceiling,decoder,queries,"));
  // The exact endpoint: recovered 1 with no queries (the row with queries 0, G's output read
  // directly, not a replay); the rows with queries are replays.
  CHECK(c.out.find("1,exact,16,0,0,inf,1,least-squares,0,read directly,,,1,1,1,1,1") != std::string::npos);
  CHECK(c.out.find("1,exact,16,0,0,inf,1,least-squares,16,replay,,,1,1,1,1,1") != std::string::npos);
  CHECK(r.out.find("(read: G's output read directly") != std::string::npos);
}

TEST_CASE("study xor-sum: a bad option names itself and its range") {
  const auto odd = run_command(cli_binary() + " study xor-sum --parties 7 --quiet");
  CHECK(odd.exit_code != 0);
  CHECK(odd.err.find("--parties 7 is out of range: even n in [4, 4096]") != std::string::npos);
  const auto proto = run_command(cli_binary() + " study xor-sum --protocols laplace --quiet");
  CHECK(proto.exit_code != 0);
  CHECK(proto.err.find("--protocols laplace is unknown") != std::string::npos);
  const auto dec = run_command(cli_binary() + " study xor-sum --decoder simplex --quiet");
  CHECK(dec.exit_code != 0);
  CHECK(dec.err.find("decoder 'simplex' is unknown") != std::string::npos);
  const auto exe = run_command(cli_binary() + " study xor-sum --executions abc --quiet");
  CHECK(exe.exit_code != 0);
  CHECK(exe.err.find("--executions abc: use K, h/2, h or Kn") != std::string::npos);
}
