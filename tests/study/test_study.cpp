// Studies (study/): the grid, the trials, the summaries against the protocols' error formulas,
// infeasible cells, CSV and JSON, the figures, and the errors of a bad grid.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "shufflempc/study/study.hpp"
#include "support/process.hpp"
#include "support/stats.hpp"
#include "support/temp_dir.hpp"

using namespace shufflempc;
using shufflempc::test::cli_binary;
using shufflempc::test::run_command;

namespace {

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> row;
    std::string field;
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (c == '"' && quoted && i + 1 < line.size() && line[i + 1] == '"') field += line[++i];  // "" in a quoted field
      else if (c == '"') quoted = !quoted;
      else if (c == ',' && !quoted) row.push_back(std::exchange(field, {}));
      else field += c;
    }
    row.push_back(field);
    rows.push_back(row);
  }
  return rows;
}

std::size_t column(const std::vector<std::string>& header, const std::string& name) {
  const auto it = std::find(header.begin(), header.end(), name);
  REQUIRE_MESSAGE(it != header.end(), name);
  return static_cast<std::size_t>(it - header.begin());
}


}  // namespace

TEST_CASE("study: the CSV's RMSE and bias match each protocol's error formula on a small grid") {
  const Registry registry = builtin_registry();
  study::Spec spec;
  spec.series = {study::parse_series("counting:noise=calibrated"), study::parse_series("randomized-response"),
                 study::parse_series("counting-rr-amplified")};
  spec.axes = {study::parse_axis("epsilon=0.5,1")};
  spec.parties = 2000;
  spec.inputs = "bernoulli:0.3";
  spec.trials = 1000;
  study::validate(registry, spec);
  const auto cells = study::run(registry, spec);
  std::ostringstream csv;
  study::write_csv(csv, spec, cells, false);
  const auto rows = parse_csv(csv.str());
  REQUIRE(rows.size() == 1 + 6);
  const auto& h = rows[0];
  const std::vector<std::string> expected = {"series", "protocol", "epsilon", "parties", "min_parties", "submitters", "inputs", "feasible", "reason", "trials", "bias", "rmse",
                                             "rmse_low", "rmse_high", "predicted_sd", "predicted_rmse", "max_error", "seconds", "seconds_sd",
                                             "messages_per_user", "bytes_per_user", "path", "settings", "seed"};
  CHECK(h == expected);
  const auto [lo, hi] = test::rmse_ratio_bounds(1000);
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const auto& row = rows[r];
    INFO(row[0] << " at epsilon " << row[2]);
    CHECK(row[column(h, "feasible")] == "true");
    CHECK(row[column(h, "trials")] == "1000");
    CHECK(row[column(h, "path")] == "trial");
    CHECK(std::stod(row[column(h, "messages_per_user")]) == (row[1] == "counting" ? 2.0 : 1.0));
    CHECK(std::stod(row[column(h, "bytes_per_user")]) == (row[1] == "counting" ? 2.0 : 1.0));
    // Each error is a sum of 2000 independent bounded terms, so nearly normal: the chi-square
    // bounds of the RMSE around the predicted sd, and the bias within 6.1 sd / sqrt(T).
    const double sd = std::stod(row[column(h, "predicted_sd")]), rmse = std::stod(row[column(h, "rmse")]);
    CHECK(rmse >= lo * sd * 0.98);  // 2%: the randomized-response sds depend a little on the data
    CHECK(rmse <= hi * sd * 1.02);
    CHECK(std::fabs(std::stod(row[column(h, "bias")])) <= 6.1 * sd / std::sqrt(1000.0) * 1.02);
    CHECK(std::stod(row[column(h, "rmse_low")]) < rmse);
    CHECK(std::stod(row[column(h, "rmse_high")]) > rmse);
  }
}

TEST_CASE("study: honest and dropouts calibrate the protocols for min-parties and run the submitters") {
  // n = 4000; honest 0.5 (min-parties 2000) or 1 (all); dropouts 0 or 0.25 (3000 submit, and
  // without honest the protocol calibrates for them). Binomial noise of >= 3000 parties is nearly
  // normal: the RMSE lies within the chi-square bounds of the cell's prediction, as above.
  const Registry registry = builtin_registry();
  study::Spec spec;
  spec.series = {study::parse_series("counting:noise=calibrated")};
  spec.axes = {study::parse_axis("honest=0.5,1"), study::parse_axis("dropouts=0,0.25,0.6")};
  spec.parties = 4000;
  spec.inputs = "bernoulli:0.3";
  spec.trials = 1000;
  study::validate(registry, spec);
  const auto cells = study::run(registry, spec);
  REQUIRE(cells.size() == 6);
  const auto [lo, hi] = test::rmse_ratio_bounds(1000);
  for (const auto& c : cells) {
    const double honest = c.point.at("honest").number.value(), dropouts = c.point.at("dropouts").number.value();
    CAPTURE(honest);
    CAPTURE(dropouts);
    CHECK(c.submitters == static_cast<std::size_t>(4000 - std::floor(dropouts * 4000)));
    CHECK(c.min_parties == static_cast<std::size_t>(std::ceil(honest * 4000)));
    if (c.min_parties > c.submitters) {  // honest 0.5 with 1600 submitters, or honest 1 with any dropout
      CHECK_FALSE(c.feasible);
      CHECK(c.reason.find("submitters, and dropouts") != std::string::npos);
      continue;
    }
    REQUIRE(c.feasible);
    // The noise rate is the one calibrated for min-parties; the prediction is for the submitters.
    const auto calibrated = registry.create("counting", {{"noise", "calibrated"}}, c.min_parties);
    const double p = calibrated->describe()["p"].get<double>();
    CHECK(c.describe["p"].get<double>() == p);
    CHECK(*c.predicted_sd == doctest::Approx(std::sqrt(static_cast<double>(c.submitters) * p * (1 - p))));
    CHECK(c.summary.messages_per_user == 2.0);
    CHECK(*c.summary.rmse >= lo * *c.predicted_sd * 0.98);
    CHECK(*c.summary.rmse <= hi * *c.predicted_sd * 1.02);
  }
  // Dropouts alone: the protocols calibrate for whoever is left.
  spec.axes = {study::parse_axis("dropouts=0.25")};
  spec.x.clear();
  spec.trials = 2;
  study::validate(registry, spec);
  const auto alone = study::run(registry, spec);
  CHECK(alone[0].min_parties == 3000);
  CHECK(alone[0].submitters == 3000);
  std::ostringstream csv;
  study::write_csv(csv, spec, alone, false);
  CHECK(csv.str().find(",4000,3000,3000,bernoulli:0.3,true,") != std::string::npos);
}

TEST_CASE("study: infeasible cells are reported with the protocol's reason, the others run") {
  const Registry registry = builtin_registry();
  study::Spec spec;
  spec.series = {study::parse_series("counting:noise=lecture"), study::parse_series("central-laplace")};
  spec.axes = {study::parse_axis("parties=500,200000")};
  spec.trials = 3;
  study::validate(registry, spec);
  const auto cells = study::run(registry, spec);
  REQUIRE(cells.size() == 4);
  CHECK_FALSE(cells[0].feasible);  // the lectures' p needs n >= 96 ln(2/delta)/eps^2 = 1393
  CHECK(cells[0].reason.find("too few") != std::string::npos);
  CHECK(cells[0].trials.empty());
  CHECK(cells[1].feasible);
  CHECK(cells[2].feasible);
  CHECK(cells[3].summary.trials == 3);
  std::ostringstream csv;
  study::write_csv(csv, spec, cells, false);
  CHECK(csv.str().find("false,\"parties = 500 is too few") != std::string::npos);
}

TEST_CASE("study: the same seed gives the same trials whatever the number of jobs, per-trial CSV and JSON") {
  const Registry registry = builtin_registry();
  study::Spec spec;
  spec.series = {study::parse_series("counting-balcer-cheu"), study::parse_series("histogram-rr-amplified:domain=8")};
  spec.axes = {study::parse_axis("epsilon=lin:0.5:1:3")};
  spec.parties = 30000;
  spec.trials = 6;
  spec.seed = 9;
  study::validate(registry, spec);
  spec.jobs = 1;
  const auto one = study::run(registry, spec);
  spec.jobs = 2;
  const auto two = study::run(registry, spec);
  REQUIRE(one.size() == two.size());
  for (std::size_t c = 0; c < one.size(); ++c)
    for (std::size_t t = 0; t < spec.trials; ++t) CHECK(one[c].trials[t].output == two[c].trials[t].output);
  std::ostringstream per_trial;
  study::write_csv(per_trial, spec, one, true);
  const auto rows = parse_csv(per_trial.str());
  CHECK(rows.size() == 1 + 6 * 6);
  CHECK(rows[0][column(rows[0], "error")] == "error");
  const Value j = study::to_json(spec, one, true);
  CHECK(j["cells"].size() == 6);
  CHECK(j["cells"][0]["trials"].size() == 6);
  // The bound eps0 came from is in the JSON: the default takes the tightest valid one (for an
  // 8-bin histogram, the blanket's worst case over every randomizer beats the 8-ary blanket).
  CHECK(j["cells"][3]["describe"]["bound"] == "privacy blanket summed exactly, worst case over every eps0-LDP randomizer");
  CHECK(j["cells"][3]["describe"]["bound_choice"] == "tightest of fmt, blanket-exact, ldp-blanket and bennett");
}

TEST_CASE("study: spread over three ranks, rank 0 gathers the trials of a single run bit for bit") {
  const Registry registry = builtin_registry();
  study::Spec spec;
  // A one-round series, a multi-round one (driver path), an infeasible cell, 7 trials over 3 ranks
  // (so the ranks' shares differ in size and a cell's trials are split between ranks).
  spec.series = {study::parse_series("counting:noise=lecture"), study::parse_series("split-mix-dp-sum")};
  spec.axes = {study::parse_axis("parties=500,4000")};
  spec.trials = 7;
  spec.seed = 5;
  study::validate(registry, spec);
  const auto single = study::run(registry, spec);

  std::vector<std::string> sent(3);
  std::vector<std::vector<study::Cell>> results(3);
  for (int r : {2, 1, 0}) {  // ranks 1 and 2 finish first; rank 0 receives everyone's bytes
    study::Ranks ranks{.rank = r, .size = 3};
    ranks.gather = [&, r](const std::string& mine) {
      sent[static_cast<std::size_t>(r)] = mine;
      return r == 0 ? sent : std::vector<std::string>{};
    };
    results[static_cast<std::size_t>(r)] = study::run(registry, spec, {}, ranks);
  }
  const auto& gathered = results[0];
  REQUIRE(gathered.size() == single.size());
  std::size_t compared = 0;
  for (std::size_t c = 0; c < single.size(); ++c) {
    CHECK(gathered[c].feasible == single[c].feasible);
    CHECK(gathered[c].path == single[c].path);
    REQUIRE(gathered[c].trials.size() == single[c].trials.size());
    for (std::size_t t = 0; t < single[c].trials.size(); ++t, ++compared) {
      CHECK(gathered[c].trials[t].output == single[c].trials[t].output);
      CHECK(gathered[c].trials[t].error == single[c].trials[t].error);  // the same double, not a near one
      CHECK(gathered[c].trials[t].messages == single[c].trials[t].messages);
    }
    CHECK(gathered[c].summary.rmse == single[c].summary.rmse);
  }
  CHECK(compared == 3 * 7);  // counting at n = 500 is infeasible
  // The other ranks hold no trials (they write nothing), and every rank sent a share.
  for (int r : {1, 2})
    for (const auto& cell : results[static_cast<std::size_t>(r)]) CHECK(cell.trials.empty());
  for (const auto& bytes : sent) CHECK(Value::parse(bytes).size() >= 7);

  // A gather that loses a rank, a record of a cell the study does not have, a bad rank: errors.
  study::Ranks lossy{.rank = 0, .size = 3, .gather = [](const std::string& mine) { return std::vector<std::string>{mine}; }};
  CHECK_THROWS_WITH_AS((void)study::run(registry, spec, {}, lossy), doctest::Contains("gathered 1 ranks' records, expected 3"),
                       std::runtime_error);
  study::Ranks forged{.rank = 0, .size = 2, .gather = [](const std::string& mine) {
                        return std::vector<std::string>{mine, R"([[99,0,"",{"error":null,"max_error":null,"output":0,"seconds":0,"messages":0,"bytes":0}]])"};
                      }};
  CHECK_THROWS_WITH_AS((void)study::run(registry, spec, {}, forged), doctest::Contains("cell 99"), std::runtime_error);
  CHECK_THROWS_AS((void)study::run(registry, spec, {}, study::Ranks{.rank = 3, .size = 3}), std::invalid_argument);
  CHECK_THROWS_AS((void)study::run(registry, spec, {}, study::Ranks{.rank = 0, .size = 2}), std::invalid_argument);  // no gather
}

TEST_CASE("study: an experiment refuses to run on several MPI ranks") {
  // OMPI_COMM_WORLD_SIZE is what mpirun announces to each rank.
  const auto r = run_command("/usr/bin/env OMPI_COMM_WORLD_SIZE=3 " + cli_binary() + " study xor-sum");
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.err.find("study xor-sum runs in one process, not over 3 MPI ranks") != std::string::npos, r.err);
}

TEST_CASE("study: every CSV row records every parameter, defaults included, and the seed") {
  const Registry registry = builtin_registry();
  study::Spec spec;
  spec.series = {study::parse_series("counting:noise=calibrated"), study::parse_series("randomized-response")};
  spec.axes = {study::parse_axis("epsilon=0.5,1")};
  spec.fixed = {{"delta", "1e-7"}};
  spec.parties = 3000;
  spec.trials = 2;
  spec.seed = 77;
  study::validate(registry, spec);
  const auto cells = study::run(registry, spec);
  for (const bool per_trial : {false, true}) {
    std::ostringstream out;
    study::write_csv(out, spec, cells, per_trial);
    const auto rows = parse_csv(out.str());
    REQUIRE(rows.size() == 1 + (per_trial ? 8 : 4));
    const auto settings = column(rows[0], "settings"), seed = column(rows[0], "seed");
    // counting at epsilon 0.5: the series' noise, the axis' epsilon, the fixed delta; no default left out.
    const Value counting = Value::parse(rows[1][settings]);
    CHECK(counting == Value{{"noise", "calibrated"}, {"epsilon", "0.5"}, {"delta", "1e-7"}});
    CHECK(rows[1][seed] == "77");
    // randomized-response declares only epsilon (no delta): its row says so, from its own declaration.
    const Value rr = Value::parse(rows.back()[settings]);
    const auto& info = registry.get("randomized-response");
    CHECK(rr.size() == info.params.size());
    CHECK(rr["epsilon"] == "1");
    CHECK(!rr.contains("delta"));
  }
  CHECK(study::to_json(spec, cells, false)["cells"][0]["settings"]["noise"] == "calibrated");
}

TEST_CASE("study: a multi-round protocol runs through the in-process driver") {
  const Registry registry = builtin_registry();
  study::Spec spec;
  spec.series = {study::parse_series("split-mix-sum"), study::parse_series("ikos-key-exchange")};
  spec.parties = 5;
  spec.trials = 2;
  study::validate(registry, spec);
  const auto cells = study::run(registry, spec);
  REQUIRE(cells.size() == 2);
  CHECK(cells[0].path == "trial");
  CHECK(cells[0].summary.rmse.value() == 0);  // secure summation is exact
  CHECK(cells[1].feasible);
  CHECK(cells[1].path == "driver");
  CHECK(cells[1].summary.trials == 2);
}

TEST_CASE("study: figures in PNG and SVG through gnuplot") {
  REQUIRE_MESSAGE(study::gnuplot_available(), "gnuplot is missing: scripts/setup.sh installs gnuplot-nox");
  shufflempc::test::TempDir dir;
  const std::string png = dir.path() + "/f.png", svg = dir.path() + "/f.svg";
  const auto r = run_command(cli_binary() + " study --protocol counting --protocol central-laplace --vary epsilon=0.5,1 -n 5000 --trials 3 --quiet --plot " +
                             png + " --plot " + svg + " --y seconds");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  REQUIRE(std::filesystem::exists(png));
  CHECK(std::filesystem::file_size(png) > 1000);
  std::ifstream in(png, std::ios::binary);
  char magic[8] = {};
  in.read(magic, 8);
  CHECK(std::string(magic + 1, 3) == "PNG");
  std::ifstream s(svg);
  const std::string text((std::istreambuf_iterator<char>(s)), std::istreambuf_iterator<char>());
  CHECK(text.find("<svg") != std::string::npos);
  CHECK(text.find("central-laplace") != std::string::npos);  // the legend names each series
}

TEST_CASE("study: with two varied axes, one line per value of the second, and the subtitle prints only what no axis varies") {
  REQUIRE_MESSAGE(study::gnuplot_available(), "gnuplot is missing: scripts/setup.sh installs gnuplot-nox");
  shufflempc::test::TempDir dir;
  const std::string svg = dir.path() + "/f.svg";
  const auto r = run_command(cli_binary() + " study --protocol counting:noise=calibrated --protocol central-laplace --vary epsilon=0.5,1 --vary parties=3000,6000 "
                                     "--trials 3 --quiet --plot " + svg);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::ifstream s(svg);
  const std::string text((std::istreambuf_iterator<char>(s)), std::istreambuf_iterator<char>());
  for (const char* title : {"counting noise=calibrated parties=3000", "counting noise=calibrated parties=6000", "central-laplace parties=3000",
                            "central-laplace parties=6000"})
    CHECK_MESSAGE(text.find(title) != std::string::npos, title);
  CHECK(text.find("n = 10000") == std::string::npos);  // the default party count is not a setting of this grid
  CHECK(text.find("3 trials per point") != std::string::npos);
  CHECK(text.find("dashed: the predicted RMSE") != std::string::npos);  // the predicted sd is drawn for RMSE
}

TEST_CASE("study command: presets, CSV on standard output, progress on stderr") {
  const auto list = run_command(cli_binary() + " study --list-presets");
  REQUIRE(list.exit_code == 0);
  for (const char* name : {"demo", "counting-epsilon", "counting-parties", "counting-ones", "counting-honest", "counting-dropouts", "histogram-epsilon",
                           "histogram-domain", "sum-epsilon", "sum-parties"})
    CHECK_MESSAGE(list.out.find(name) != std::string::npos, name);
  const auto r = run_command(cli_binary() + " study --preset sum-epsilon --vary epsilon=1 -n 3000 --trials 4 --csv -");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto rows = parse_csv(r.out);
  REQUIRE(rows.size() == 8);  // the header and the survey's seven sums
  CHECK(rows[1][0] == "sum-harmony");
  CHECK(rows[4][0] == "sum-recursive messages=2");
  CHECK(r.err.find("100%") != std::string::npos);
  CHECK(r.err.find("4/28 trials") != std::string::npos);
}

TEST_CASE("study command: a bad grid gets one line naming the option, exit code 2") {
  for (const auto& [args, expect] : std::vector<std::pair<std::string, std::string>>{
           {"study --protocol counting --vary epsilon", "--vary epsilon: expected KEY=V1,V2"},
           {"study --protocol counting --vary epsilon=a,b", "--vary epsilon: 'a' is not a number"},
           {"study --protocol counting --vary colour=1,2", "no chosen protocol has a parameter 'colour'"},
           {"study --protocol counting --vary epsilon=geom:0:1:3", "geometric range needs A > 0"},
           {"study --protocol counting --vary epsilon=lin:0.1:1:1", "K in [2, 1000]"},
           {"study --protocol nosuch", "unknown protocol 'nosuch'"},
           {"study --protocol counting:noise=loud", "'loud' is not one of: lecture, calibrated"},
           {"study --protocol counting --vary parties=0,10", "parties must be a number in [1, 1e9]"},
           {"study --protocol counting --vary epsilon=1 --y cost", "--y cost"},
           {"study --protocol counting --vary epsilon=1 --x delta", "--x delta: not a varied key"},
           {"study --protocol counting --vary epsilon=1 --inputs gaussian", "--inputs 'gaussian' for counting"},
           {"study --protocol counting --vary epsilon=1 --plot out.eps", "must end in .png, .svg or .pdf"},
           {"study --preset nosuch", "unknown preset 'nosuch'"},
           {"study --protocol counting --vary honest=0,1", "--vary honest: must be a fraction in (0, 1], got '0'"},
           {"study --protocol counting --vary dropouts=0.5,1", "--vary dropouts: must be a fraction in [0, 1), got '1'"},
           {"study --protocol counting --dropouts 1.5", "--dropouts: must be a fraction in [0, 1)"},
           {"study --protocol counting --set honest=0.5", "--set honest: use --honest"},
           {"study", "a study needs at least one protocol"}}) {
    const auto r = run_command(cli_binary() + " " + args);
    CHECK_MESSAGE(r.exit_code == 2, args);
    CHECK_MESSAGE(r.err.find(expect) != std::string::npos, args << ": " << r.err);
    CHECK_MESSAGE(std::count(r.err.begin(), r.err.end(), '\n') <= 2, args << ": " << r.err);  // the line and the usage
  }
}
