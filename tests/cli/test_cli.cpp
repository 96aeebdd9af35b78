// The shufflempc command as a user meets it: list, run, demo, and clear errors with exit code 2.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "shufflempc/registry.hpp"
#include "support/process.hpp"

using shufflempc::test::cli_binary;
using shufflempc::test::run_command;

TEST_CASE("list shows every registered protocol with parameters, defaults and ranges") {
  const auto r = run_command(cli_binary() + " list");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("counting\n") != std::string::npos);
  CHECK(r.out.find("--epsilon") != std::string::npos);
  CHECK(r.out.find("default 1e-6; a number in (0, 1)") != std::string::npos);
  const auto j = run_command(cli_binary() + " list --json");
  REQUIRE(j.exit_code == 0);
  CHECK(nlohmann::json::parse(j.out).is_array());
}

TEST_CASE("run --json prints the report fields") {
  const auto r = run_command(cli_binary() + " run counting --parties 5000 --seed 7 --json --random-inputs bernoulli:0.2");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"protocol", "parties", "rounds", "output", "truth", "error", "messages", "bytes", "seconds"})
    CHECK_MESSAGE(j.contains(key), key);
  CHECK(j["messages"] == 10000);
  CHECK(j["error"].get<double>() == doctest::Approx(j["output"].get<double>() - j["truth"].get<double>()));
  // Same seed, same run.
  const auto again = nlohmann::json::parse(run_command(cli_binary() + " run counting --parties 5000 --seed 7 --json --random-inputs bernoulli:0.2").out);
  CHECK(again["output"] == j["output"]);
  // The histogram's default inputs are uniform over the first half of the domain: the inverted
  // variant reports the other half exactly 0, and every held bin within its noise (Bernstein's
  // inequality for the binomial noise of the bin at 1e-11, so all six hold but with 1e-10).
  const auto h = nlohmann::json::parse(run_command(cli_binary() + " run histogram -n 3000 --domain 6 --seed 1 --json").out);
  REQUIRE(h["output"].size() == 6);
  REQUIRE(h["truth"].size() == 6);
  const double sd = h["details"]["noise_sd_per_bin"].get<double>();
  const double tail = std::log(2 / 1e-11);
  const double bound = sd * std::sqrt(2 * tail) + 2 * tail / 3;
  double worst = 0, squares = 0;
  for (int e = 0; e < 6; ++e) {
    const double diff = std::fabs(h["output"][e].get<double>() - h["truth"][e].get<double>());
    worst = std::max(worst, diff);
    squares += diff * diff;
    if (e >= 3) {
      CHECK(h["truth"][e] == 0);
      CHECK(h["output"][e].get<double>() == 0.0);
    } else {
      CHECK(h["truth"][e].get<double>() > 0);
      CHECK_MESSAGE(diff <= bound, "bin " << e << " off by " << diff << ", bound " << bound);
    }
  }
  // One meaning of "error" in run and in a study: the root mean square over the bins, and
  // max_error the largest.
  CHECK(h["error"].get<double>() == doctest::Approx(std::sqrt(squares / 6)));
  CHECK(h["max_error"].get<double>() == doctest::Approx(worst));
  const std::string text = run_command(cli_binary() + " run histogram -n 3000 --domain 6 --seed 1").out;
  CHECK(text.find(fmt::format("error     {:.6g} (root mean square over the 6 values; the largest {:.6g})", std::sqrt(squares / 6), worst)) !=
        std::string::npos);
}

TEST_CASE("run --mix-servers: the rounds go through an in-process chain, the seeded result is the plain run's, each hop is reported") {
  const auto plain = run_command(cli_binary() + " run split-mix-sum --parties 50 --seed 9 --json");
  const auto chained = run_command(cli_binary() + " run split-mix-sum --parties 50 --seed 9 --mix-servers 3 --json");
  REQUIRE(plain.exit_code == 0);
  REQUIRE(chained.exit_code == 0);
  const auto a = nlohmann::json::parse(plain.out), b = nlohmann::json::parse(chained.out);
  CHECK(b["output"] == a["output"]);
  CHECK(b["messages"] == a["messages"]);
  REQUIRE(b["mix_chain"]["hops"] == 3);
  const auto& hops = b["mix_chain"]["rounds"][0]["hops"];
  REQUIRE(hops.size() == 3);
  for (const auto& h : hops) {
    CHECK(h["records_in"] == a["messages"]);
    CHECK(h["records_out"] == a["messages"]);
    CHECK(h["not_opened"] == 0);
  }
  CHECK_FALSE(a.contains("mix_chain"));
  const auto bad = run_command(cli_binary() + " run split-mix-sum --parties 50 --mix-servers 17");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--mix-servers must be in [1, 16] (the servers the records cross, the shuffler first; 1: the one shuffler), got 17") !=
        std::string::npos);
}

TEST_CASE("--mix-servers means the same in run and local: 1 is the one shuffler, and run's spelling before 0.2 (0) still runs and says so") {
  const auto plain = run_command(cli_binary() + " run split-mix-sum --parties 50 --seed 9 --json");
  const auto one = run_command(cli_binary() + " run split-mix-sum --parties 50 --seed 9 --mix-servers 1 --json");
  const auto zero = run_command(cli_binary() + " run split-mix-sum --parties 50 --seed 9 --mix-servers 0 --json");
  REQUIRE(plain.exit_code == 0);
  REQUIRE(one.exit_code == 0);
  REQUIRE(zero.exit_code == 0);
  const auto a = nlohmann::json::parse(plain.out), b = nlohmann::json::parse(one.out), c = nlohmann::json::parse(zero.out);
  CHECK(b["output"] == a["output"]);
  CHECK(c["output"] == a["output"]);
  CHECK_FALSE(b.contains("mix_chain"));
  CHECK_FALSE(c.contains("mix_chain"));
  CHECK(one.err.empty());
  CHECK(zero.err.find("--mix-servers 0 is spelled --mix-servers 1 now") != std::string::npos);
  // The same range, from the same check, in both commands.
  for (const char* command : {" run", " local"}) {
    const auto over = run_command(cli_binary() + command + " split-mix-sum --parties 50 --mix-servers 17");
    CHECK(over.exit_code == 2);
    CHECK(over.err.find("--mix-servers must be in [1, 16]") != std::string::npos);
    const auto lone = run_command(cli_binary() + command + " split-mix-sum --parties 50 --mix-servers 1 --mix verifiable");
    CHECK(lone.exit_code == 2);
    CHECK(lone.err.find("--mix verifiable needs --mix-servers in [2, 16] (a chain)") != std::string::npos);
  }
  const auto local_zero = run_command(cli_binary() + " local split-mix-sum --parties 50 --mix-servers 0");
  CHECK(local_zero.exit_code == 2);
  CHECK(local_zero.err.find("--mix-servers must be in [1, 16]") != std::string::npos);
}

TEST_CASE("run reads inputs from a file and checks their count") {
  const std::string path = "/tmp/shufflempc-test-inputs.json";
  {
    std::ofstream f(path);
    f << "[1, 0, 1, 1]";
  }
  const auto r = run_command(cli_binary() + " run central-laplace --parties 4 --epsilon 5 --seed 3 --json --inputs " + path);
  REQUIRE(r.exit_code == 0);
  CHECK(nlohmann::json::parse(r.out)["truth"] == 3);
  const auto bad = run_command(cli_binary() + " run central-laplace --parties 5 --inputs " + path);
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("holds 4 inputs for --parties 5") != std::string::npos);
  std::remove(path.c_str());
}

namespace {

// Each command line is a usage error: exit code 2, its line says `says`, a usage line follows, nothing on stdout.
struct UsageCase {
  const char* args;
  const char* says;
};
void refused_as_usage(std::initializer_list<UsageCase> cases) {
  for (const UsageCase& c : cases) {
    const auto r = run_command(cli_binary() + " " + c.args);
    CHECK_MESSAGE(r.exit_code == 2, std::string(c.args));
    CHECK_MESSAGE(r.err.find(c.says) != std::string::npos, std::string(c.args) << " said: " << r.err);
    CHECK_MESSAGE(r.err.find("usage: ") != std::string::npos, std::string(c.args));
    CHECK(r.out.empty());
  }
}

}  // namespace

TEST_CASE("wrong or missing arguments: one clear line naming the problem, usage, exit code 2") {
  refused_as_usage({UsageCase{"run counting --parties 1000 --noise lecture", "parties must be at least 1393"},
                    UsageCase{"run counting --parties 10", "no noise rate p <= 1/2 makes 10 parties (epsilon, delta)-DP"},
                    UsageCase{"run counting --parties 5000 --epsilon 2", "parameter 'epsilon' = 2 is out of range: must be a number in (0, 1]"},
                    UsageCase{"run counting --parties 5000 --noise loud", "one of: lecture, calibrated"},
                    UsageCase{"run counting", "--parties is required"},
                    UsageCase{"run counting --parties 5000 --bogus 1", "--bogus"},
                    UsageCase{"run nope", "unknown protocol 'nope'"},
                    UsageCase{"run counting --parties 10 --inputs /nonexistent", "/nonexistent"},
                    UsageCase{"run counting --parties 5000 --random-inputs weird", "--random-inputs 'weird'"},
                    UsageCase{"frobnicate", "unknown command 'frobnicate'"},
                    UsageCase{"run counting --parties 5000 --min-parties -1", "--min-parties: must be a whole number in [0, 100000000], got '-1'"},
                    UsageCase{"run counting --parties 5000 --min-parties 6000", "min-parties = 6000 is out of range: must be in [0, parties = 5000]"},
                    UsageCase{"run counting --parties 5000 --seed 1e23", "--seed: must be a whole number in [0, 2^64 - 1], got '1e23'"},
                    UsageCase{"run counting --parties 5000 --inputs /dev/zero", "--inputs /dev/zero is not a regular file"}});
}

TEST_CASE("a typo is named first with the nearest name: flags, commands, subcommands, protocols, presets and choices") {
  refused_as_usage({UsageCase{"run counting --partys 100", "error: unknown option '--partys': did you mean '--parties'?"},
                    UsageCase{"run counting --parties 100 --epsilom 1", "error: unknown option '--epsilom': did you mean '--epsilon'?"},
                    UsageCase{"run counting --parties 5000 --epsilom=1", "error: unknown option '--epsilom': did you mean '--epsilon'?"},
                    UsageCase{"account amplify --parties 1000 --epsilon 4", "error: unknown option '--epsilon': did you mean '--epsilon0'?"},
                    UsageCase{"run counting --parties 5000 -x", "error: unknown option '-x'\n"},
                    UsageCase{"rnu counting", "error: unknown command 'rnu': did you mean 'run'? (commands: list, run,"},
                    UsageCase{"account amplfy --epsilon0 1", "error: unknown subcommand 'amplfy' of account: did you mean 'amplify'? (subcommands: amplify, local, noise)"},
                    UsageCase{"study roudns", "error: unknown subcommand 'roudns' of study: did you mean 'rounds'?"},
                    UsageCase{"run countng --parties 10", "error: unknown protocol 'countng': did you mean 'counting'? (known: card-and,"},
                    UsageCase{"local histgram --parties 10", "error: unknown protocol 'histgram': did you mean 'histogram'?"},
                    UsageCase{"run --partys 10", "error: name the protocol first: shufflempc run PROTOCOL [OPTIONS] (protocols: card-and,"},
                    UsageCase{"run", "error: name the protocol first: shufflempc run PROTOCOL [OPTIONS]"},
                    UsageCase{"study --preset counting-epsilom", "error: --preset: unknown preset 'counting-epsilom': did you mean 'counting-epsilon'?"},
                    UsageCase{"study --protocol countng --vary epsilon=0.5", "unknown protocol 'countng': did you mean 'counting'?"},
                    UsageCase{"run counting --parties 5000 --noise calibratd",
                         "parameter 'noise' = calibratd is not accepted: must be one of: lecture, calibrated; did you mean 'calibrated'?"},
                    UsageCase{"run counting --parties 1.5", "error: --parties: must be a whole number, got '1.5'"},
                    UsageCase{"run counting --parties 2e8", "--parties: Value 200000000 not in range 1 to 100000000"}});
}

TEST_CASE("run prints a histogram's every bin, output and truth, and past 1024 values says how many there are") {
  const auto bins = [](const std::string& out, const std::string& label) {
    const auto at = out.find("\n" + label);
    REQUIRE(at != std::string::npos);
    const std::string line = out.substr(at + 1, out.find('\n', at + 1) - at - 1);
    return std::pair{static_cast<std::size_t>(std::count(line.begin(), line.end(), ',')) + 1, line};
  };
  const auto r = run_command(cli_binary() + " run histogram --parties 5000 --domain 64 --seed 1");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  for (const char* label : {"output    [", "truth     ["}) {
    const auto [count, line] = bins(r.out, label);
    CHECK_MESSAGE(count == 64, line);
    CHECK(line.find("...") == std::string::npos);
  }
  const auto wide = run_command(cli_binary() + " run histogram-central-laplace --parties 100 --domain 1500 --seed 1");
  REQUIRE_MESSAGE(wide.exit_code == 0, wide.err);
  const auto [count, line] = bins(wide.out, "output    [");
  CHECK(count == 1024 + 1);  // the 1024 values and the "..." after them
  CHECK(line.find(", ...] (the first 1024 of 1500 values; --json prints all)") != std::string::npos);
}

TEST_CASE("whole-number options take an exact integer in scientific notation, as the protocols' integer parameters do") {
  const auto r = run_command(cli_binary() + " run counting --parties 1e4 --seed 1e3 --min-parties 5e3 --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto report = nlohmann::json::parse(r.out);
  CHECK(report["parties"] == 10000);
  CHECK(report["details"]["min_parties"] == 5000);
  const auto digits = run_command(cli_binary() + " run counting --parties 10000 --seed 1000 --min-parties 5000 --json");
  REQUIRE(digits.exit_code == 0);
  CHECK(nlohmann::json::parse(digits.out)["output"] == report["output"]);  // the same run, seed 1e3 is seed 1000
  const auto study = run_command(cli_binary() + " study --protocol counting --parties 2e4 --trials 1e1 --vary epsilon=1 --seed 1 --csv /dev/stdout --jobs 1");
  REQUIRE_MESSAGE(study.exit_code == 0, study.err);
  CHECK(study.out.find(",20000,") != std::string::npos);
}

TEST_CASE("the version: shufflempc --version prints it, and with no argument it is printed with every command, exit 0") {
  const auto version = run_command(cli_binary() + " --version");
  CHECK(version.exit_code == 0);
  CHECK(version.out.find("shufflempc 0.") == 0);
  const auto bare = run_command(cli_binary());
  CHECK(bare.exit_code == 0);
  CHECK(bare.out.find(version.out.substr(0, version.out.find('\n'))) == 0);
  for (const char* command : {"list", "run", "local", "study", "account", "verify", "shuffler", "party", "analyzer"})
    CHECK_MESSAGE(bare.out.find("\n  " + std::string(command) + " ") != std::string::npos, "no argument: the list lacks " << command);
  CHECK(bare.err.empty());
}

TEST_CASE("run and local list every protocol, and a named protocol's help lists its own options") {
  // A line naming a protocol builds that protocol's subcommand alone; the lists must stay whole.
  const shufflempc::Registry registry = shufflempc::builtin_registry();
  for (const char* command : {"run", "local"}) {
    const auto list = run_command(cli_binary() + " " + command + " --help");
    CHECK(list.exit_code == 0);
    for (const auto& info : registry.all()) CHECK_MESSAGE(list.out.find(info.name) != std::string::npos, command << " --help lacks " << info.name);
    const auto one = run_command(cli_binary() + " " + command + " counting --help");
    CHECK(one.exit_code == 0);
    CHECK(one.out.find("--noise") != std::string::npos);
    CHECK(one.out.find("--epsilon") != std::string::npos);
  }
  const auto unknown = run_command(cli_binary() + " local nope --parties 3");
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("nope") != std::string::npos);
}

TEST_CASE("demo compares local, shuffle and central errors on the same data") {
  const auto r = run_command(cli_binary() + " demo --parties 20000 --trials 2 --seed 5 --json");
  REQUIRE(r.exit_code == 0);
  const auto rows = nlohmann::json::parse(r.out);
  REQUIRE(rows.size() == 7);
  const std::vector<std::string> models = {"local", "shuffle", "shuffle", "shuffle", "shuffle", "shuffle", "central"};
  for (std::size_t i = 0; i < rows.size(); ++i) CHECK(rows[i]["model"] == models[i]);
  // Same data for every row: 30% (the default --ones) of 20000 parties hold 1 (Hoeffding, 1e-10).
  const double truth = rows[0]["truth"].get<double>();
  CHECK(std::fabs(truth - 6000) <= std::sqrt(20000 * std::log(2 / 1e-10) / 2));
  for (const auto& row : rows) CHECK(row["truth"] == truth);
  // Every estimate within its model's noise at 1e-11 per trial: Bernstein for the sums of bounded
  // terms (randomized response debiases by 1/(1 - 2q) < 3/2 terms at epsilon = 1), the exact
  // discrete Laplace tail P(|X| >= t) <= 2 e^(-epsilon t) for the central model.
  const double tail = std::log(2 / 1e-11);
  for (const auto& row : rows) {
    const double sd = row["predicted_sd"].get<double>();
    const double bound = row["model"] == "central" ? tail / 1.0 : sd * std::sqrt(2 * tail) + 1.5 * 2 * tail / 3;
    CHECK_MESSAGE(std::fabs(row["estimate"].get<double>() - truth) <= bound, row["protocol"]);
    CHECK_MESSAGE(row["rmse"].get<double>() <= bound, row["protocol"]);
  }
  // What the table is for: local noise is far above shuffle noise, which is far above central noise.
  CHECK(rows[0]["predicted_sd"].get<double>() > 4 * rows[1]["predicted_sd"].get<double>());
  CHECK(rows[1]["predicted_sd"].get<double>() > 4 * rows[6]["predicted_sd"].get<double>());
  CHECK(rows[0]["messages_per_user"] == 1.0);
  CHECK(rows[1]["messages_per_user"] == 2.0);
  // counting-correlated: within 5% of central noise in 1 + (2 F + A + B)/n messages a party, where
  // the flooding F ~ NB(30.9, 0.97) has mean 1000 and exceeds 3000 with probability below 1.5e-12
  // (Chernoff: min over t of e^(-3000 t) E[e^(t F)]), and A + B exceeds 100 with far less.
  CHECK(rows[5]["protocol"] == "counting-correlated");
  CHECK(rows[5]["predicted_sd"].get<double>() <= 1.05 * rows[6]["predicted_sd"].get<double>());
  CHECK(rows[5]["messages_per_user"].get<double>() >= 1.0);
  CHECK(rows[5]["messages_per_user"].get<double>() <= 1.0 + 6100.0 / 20000);
}

TEST_CASE("a boolean protocol parameter works as a bare flag or with a value") {
  const auto bare = run_command(cli_binary() + " run ikos-key-exchange --parties 3 --k 4 --seed 1 --show-keys --json");
  REQUIRE(bare.exit_code == 0);
  CHECK(nlohmann::json::parse(bare.out)["details"]["show_keys"] == true);
  const auto off = run_command(cli_binary() + " run ikos-key-exchange --parties 3 --k 4 --seed 1 --show-keys false --json");
  REQUIRE(off.exit_code == 0);
  CHECK(nlohmann::json::parse(off.out)["details"]["show_keys"] == false);
  const auto bad = run_command(cli_binary() + " run ikos-key-exchange --parties 3 --k 4 --show-keys maybe");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("parameter 'show-keys' = maybe is not a boolean: must be true or false") != std::string::npos);
}
