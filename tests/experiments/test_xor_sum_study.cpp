// The XOR-sum experiment (experiments/xor_sum): the escape's study, the whole experiment's
// determinism across jobs, its CSV and figure, and the registry that makes it `study xor-sum`.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "shufflempc/attacks/labels.hpp"
#include "shufflempc/study/csv.hpp"
#include "shufflempc/experiments/experiment.hpp"
#include "shufflempc/experiments/xor_sum.hpp"

using namespace shufflempc;

TEST_CASE("escape study: replay yields one answer (recovery near a coin flip), 4n honest re-executions recover x at 4n epsilon") {
  experiments::EscapeStudyOptions o{.parties = 32, .epsilon = 1, .executions = {8, 128}, .mpc = true};
  const auto rows = experiments::escape_study(o, SeededRng(8));
  REQUIRE(rows.size() == 4);
  CHECK(rows[0].strategy == "replay");
  CHECK(rows[0].answers == 1);
  CHECK(rows[0].note.find("every one the same answer") != std::string::npos);
  CHECK(rows[0].recovered <= 0.85);
  CHECK(rows[1].strategy == "forge");
  CHECK(rows[1].note.find("invalid keys in 16,") != std::string::npos);
  CHECK(rows[3].strategy == "re-run");
  CHECK(rows[3].executions == 128);
  CHECK(rows[3].epsilon_total == 128);
  CHECK(rows[3].recovered == 1.0);
}

TEST_CASE("xor-sum study: the same seed gives the same tables, CSV and figure whatever the number of jobs") {
  experiments::XorSumStudyOptions o;
  o.parties = {8, 12};
  o.alphas = {0.5};
  o.queries = {1, 2};
  o.runs = 2;
  o.executions = {"h", "2n"};
  o.jobs = 1;
  const auto one = experiments::run_xor_sum_study(o);
  o.jobs = 2;
  const auto two = experiments::run_xor_sum_study(o);
  std::ostringstream t1, t2, c1, c2;
  experiments::print_tables(t1, one);
  experiments::print_tables(t2, two);
  experiments::write_csv(c1, one);
  experiments::write_csv(c2, two);
  CHECK(t1.str() == t2.str());
  CHECK(c1.str() == c2.str());
  // rr and noise-ids at one alpha and the exact endpoint, at two n: 6 rows of table 1; three strategies
  // with two re-run rows at two n: 8 rows of table 2.
  CHECK(one.one_round.size() == 6);
  CHECK(one.two_rounds.size() == 8);
  std::istringstream lines(c1.str());
  std::size_t rows = 0;
  for (std::string line; std::getline(lines, line); ++rows) CHECK(std::count(line.begin(), line.end(), ',') == 16);
  CHECK(rows == 1 + 6 * 3 + 8);
  const auto figure = experiments::figure_lines(one);
  REQUIRE(figure.size() == 7);  // 3 protocols x 2 n, and the replay line
  CHECK(figure.back().title == "two rounds, one execution replayed, eps = 1");
  CHECK(figure.back().points.size() == 2);
  // The exact protocol's lines coincide at (0, 1): drawn after the others, as markers of growing size.
  CHECK(figure[4].title.find(", exact,") != std::string::npos);
  CHECK(figure[5].title.find(", exact,") != std::string::npos);
  CHECK(figure[4].points_only);
  CHECK(figure[5].point_size > figure[4].point_size);
  for (std::size_t i = 0; i < 4; ++i) CHECK(figure[i].title.find(", exact,") == std::string::npos);
  CHECK(one.one_round.front().at.size() == 3);  // m = 0, n, 2n
}

TEST_CASE("xor-sum study: every bad option is refused with its name and range before any run") {
  experiments::XorSumStudyOptions o;
  o.parties = {7};
  CHECK_THROWS_WITH_AS(experiments::validate(o), "--parties 7 is out of range: even n in [4, 4096]", std::invalid_argument);
  o = {};
  o.runs = 0;
  CHECK_THROWS_WITH_AS(experiments::validate(o), "--runs is out of range: [1, 1000]", std::invalid_argument);
  o = {};
  o.executions = {"0n"};
  CHECK_THROWS_WITH_AS(experiments::validate(o), "--executions 0n: use K, h/2, h or Kn (K in [1, 1000000])", std::invalid_argument);
  o.epsilon = 0;  // no two-round table: the executions are not used
  CHECK_NOTHROW(experiments::validate(o));
  CHECK(experiments::executions_of("h/2", 64) == 16);
  CHECK(experiments::executions_of("3n", 64) == 192);
  CHECK(experiments::executions_of("5", 64) == 5);
}

TEST_CASE("experiments: xor-sum is registered, names are unique, and a registration needs a name and a function") {
  const auto registry = experiments::builtin_experiments();
  REQUIRE(registry.find("xor-sum") != nullptr);
  CHECK(registry.find("nothing") == nullptr);
  experiments::ExperimentRegistry r;
  r.add({.name = "a", .summary = "", .configure = [](CLI::App&, std::ostream&) { return std::function<int()>([] { return 0; }); }});
  CHECK_THROWS_AS(r.add({.name = "a", .summary = "", .configure = r.all().front().configure}), std::invalid_argument);
  CHECK_THROWS_AS(r.add({.name = "", .summary = "", .configure = r.all().front().configure}), std::invalid_argument);
  CHECK_THROWS_AS(r.add({.name = "b", .summary = "", .configure = {}}), std::invalid_argument);
}

TEST_CASE("experiments: an experiment writes its results to the stream the command line gives it") {
  const auto registry = experiments::builtin_experiments();
  const auto* rounds = registry.find("rounds");
  REQUIRE(rounds != nullptr);
  CLI::App app;
  auto* sub = app.add_subcommand("rounds");
  std::ostringstream out;
  const auto run = rounds->configure(*sub, out);
  app.parse("rounds --functions sum --parties 3 --trials 1 --quiet", false);
  CHECK(run() == 0);
  CHECK(out.str().find("split-mix-sum") != std::string::npos);
  CHECK(out.str().find("What each round buys") != std::string::npos);
}

TEST_CASE("attack labels: the names are the bytes they always were (seeded studies stay reproducible)") {
  using namespace attacks::labels;
  CHECK(secret == 0x5345435245540000ULL);
  CHECK(frozen == 0x46524f5a454e0000ULL);
  CHECK(query(5) == 0x5155455259000005ULL);
  CHECK(execution == 0x4558454300000000ULL);
  CHECK(forgery == 0x464f524745000000ULL);
  CHECK(rerun_input(2) == 0x524552554e000002ULL);
  CHECK(rerun(3) == 0x52554e0000000003ULL);
  CHECK(tag("TWO") == 0x54574f0000000000ULL);
}
