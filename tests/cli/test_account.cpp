// `shufflempc account`: the library's accountant as a command (JSON checked against the golden
// values of the spec, and against the library functions themselves).
#include <doctest/doctest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "shufflempc/accounting/amplification.hpp"
#include "shufflempc/accounting/pld.hpp"
#include "shufflempc/accounting/privacy.hpp"
#include "support/process.hpp"

using shufflempc::test::cli_binary;
using shufflempc::test::run_command;

TEST_CASE("account amplify: every bound, the golden FMT21 values, null where a bound does not apply") {
  const auto r = run_command(cli_binary() + " account amplify --parties 100000 --epsilon0 4 --delta 1e-6 --json");
  REQUIRE(r.exit_code == 0);
  // stderr may hold a progress bar (drawn once the searches have run a second, which a loaded
  // machine can take), never an error
  CHECK(r.err.find("error") == std::string::npos);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["bounds"].size() == 7);
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& b : j["bounds"]) by_name[b["name"].get<std::string>()] = b;
  CHECK(by_name.at("fmt-closed")["epsilon"].get<double>() == doctest::Approx(0.5378040242374512).epsilon(1e-14));
  const double numeric = by_name.at("fmt-numeric")["epsilon"].get<double>();
  CHECK(numeric >= 0.16754);
  CHECK(numeric <= 0.17279);
  CHECK(by_name.at("blanket")["epsilon"].get<double>() == doctest::Approx(0.336).epsilon(2e-3));
  CHECK(by_name.at("erlingsson")["epsilon"].is_null());
  const double blanket_exact = by_name.at("blanket-exact")["epsilon"].get<double>();
  CHECK(blanket_exact == doctest::Approx(shufflempc::blanket_exact_epsilon(100000, 4, 1e-6)).epsilon(1e-12));
  CHECK(blanket_exact == doctest::Approx(0.118).epsilon(0.01));
  // The worst case over every eps0-LDP randomizer is binary randomized response's blanket: the same number.
  CHECK(by_name.at("ldp-blanket")["epsilon"].get<double>() == blanket_exact);
  CHECK(by_name.at("ldp-blanket")["validity"].get<std::string>().find("every eps0-LDP randomizer") != std::string::npos);
  // The exact curve of shuffled binary randomized response, printed apart: below every bound.
  REQUIRE(j["lower_bound"].size() == 1);
  CHECK(j["lower_bound"][0]["name"] == "rr-exact");
  const double lower = j["lower_bound"][0]["epsilon"].get<double>();
  CHECK(lower == doctest::Approx(0.085).epsilon(0.02));
  CHECK(lower < blanket_exact);
  CHECK(blanket_exact < numeric);
  // Binary randomized response's exact value over every dataset: between the two, at 0.0847.
  const double exact_all = by_name.at("rr-exact-all")["epsilon"].get<double>();
  CHECK(exact_all == doctest::Approx(shufflempc::rr_exact_all_epsilon(100000, 4, 1e-6)).epsilon(1e-12));
  CHECK(exact_all <= 0.0850);
  CHECK(exact_all >= lower);
  CHECK(exact_all < blanket_exact);
  // With k > 2 the exact curve of k-ary randomized response comes beside the binary one.
  const auto k4 = nlohmann::json::parse(run_command(cli_binary() + " account amplify --parties 10000 --epsilon0 2 --k 4 --json").out);
  REQUIRE(k4["lower_bound"].size() == 2);
  CHECK(k4["lower_bound"][1]["name"] == "rr-exact-k");
  CHECK(k4["lower_bound"][1]["epsilon"].get<double>() == doctest::Approx(shufflempc::rr_exact_epsilon(10000, 2, 1e-6, 4)).epsilon(1e-12));
  // ... and ldp-blanket is its own search, the worst case over every randomizer (not the k-ary blanket).
  std::map<std::string, double> k4_bounds;
  for (const auto& b : k4["bounds"]) k4_bounds[b["name"].get<std::string>()] = b["epsilon"].is_null() ? -1 : b["epsilon"].get<double>();
  CHECK(k4_bounds.at("ldp-blanket") == doctest::Approx(shufflempc::ldp_blanket_epsilon(10000, 2, 1e-6)).epsilon(1e-12));
  CHECK(k4_bounds.at("blanket-exact") == doctest::Approx(shufflempc::blanket_exact_epsilon(10000, 2, 1e-6, 4)).epsilon(1e-12));
  CHECK(k4_bounds.at("rr-exact-all") == -1);  // binary randomized response only
  const auto text = run_command(cli_binary() + " account amplify --epsilon0 4");
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("0.537804") != std::string::npos);
  CHECK(text.out.find("n/a") != std::string::npos);
  // Each bound's scope reads as one: "[valid: every eps0-LDP randomizer, ...]", not "[holds when every ...]".
  CHECK(text.out.find("[valid: every eps0-LDP randomizer, every n and eps0") != std::string::npos);
  CHECK(text.out.find("holds when") == std::string::npos);
}

TEST_CASE("account amplify --rounds: the numeric bounds composed by their privacy-loss distributions, below basic composition" * doctest::test_suite("slow")) {
  const auto r = run_command(cli_binary() + " account amplify --parties 100000 --epsilon0 4 --delta 1e-6 --rounds 10 --json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["rounds"] == 10);
  REQUIRE(j["composed"].size() == 4);
  CHECK(j["composed"][0]["name"] == "fmt-numeric");
  CHECK(j["composed"][1]["name"] == "blanket-exact");
  const double blanket = j["composed"][1]["epsilon"].get<double>();
  CHECK(blanket == doctest::Approx(shufflempc::blanket_exact_pld(100000, 4).self_compose(10).epsilon(1e-6)).epsilon(1e-12));
  CHECK(blanket < j["composed"][0]["epsilon"].get<double>());
  CHECK(j["composed"][2]["name"] == "ldp-blanket");
  CHECK(j["composed"][2]["epsilon"].get<double>() == blanket);  // k = 2: the same pair
  for (const auto& c : j["composed"]) CHECK(c["epsilon"].get<double>() < 0.6 * c["basic_composition"].get<double>());
  CHECK(j["composed"][3]["name"] == "tightest");
  CHECK(j["composed"][3]["epsilon"].get<double>() == blanket);
  // One round prints no composition; a bad count is refused with its range.
  CHECK_FALSE(nlohmann::json::parse(run_command(cli_binary() + " account amplify --epsilon0 4 --json").out).contains("composed"));
  const auto bad = run_command(cli_binary() + " account amplify --epsilon0 4 --rounds 0");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--rounds") != std::string::npos);
}

TEST_CASE("account amplify --rounds: tightest is the smallest composed bound at the grid asked for, at a coarse grid and a fine one") {
  // k = 4: blanket-exact and ldp-blanket are different pairs, and rounding each loss up to the grid
  // costs them differently, so the choice is made after composing, at the grid reported.
  for (const char* step : {"1e-2", "1e-3", "1e-4"}) {
    CAPTURE(step);
    const auto r = run_command(cli_binary() + " account amplify --parties 100000 --epsilon0 4 --delta 1e-6 --k 4 --rounds 10 --pld-step " + step + " --json");
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(r.out);
    REQUIRE(j["composed"].size() == 4);
    const double chosen = j["composed"][3]["epsilon"].get<double>();
    double smallest = 1e300;
    for (std::size_t i = 0; i < 3; ++i) smallest = std::min(smallest, j["composed"][i]["epsilon"].get<double>());
    CHECK(chosen == smallest);
    const std::string from = j["composed"][3]["source"].get<std::string>();
    bool named = false;
    for (std::size_t i = 0; i < 3; ++i)
      if (j["composed"][i]["epsilon"].get<double>() == chosen) named = named || from.ends_with(j["composed"][i]["name"].get<std::string>());
    CHECK(named);
    // Ten rounds cost at least what one round costs on its worst known pair (a lower bound).
    CHECK(chosen >= shufflempc::rr_exact_epsilon(100000, 4, 1e-6, 4));
  }
}

TEST_CASE("account: queries that would take minutes are refused up front, naming what to change") {
  // 100 rounds at eps0 = 8: one-round grids of 160001 points (it ran for minutes); at eps0 = 4, 1000
  // rounds are refused with the most the step allows, and that many run.
  const auto wide = run_command(cli_binary() + " account amplify --parties 100000 --epsilon0 8 --rounds 100");
  CHECK(wide.exit_code == 2);
  CHECK(wide.err.find("rounds = 100 at pld step 0.0001 and epsilon0 = 8 would take minutes") != std::string::npos);
  CHECK(wide.err.find("use a coarser --pld-step") != std::string::npos);
  const auto many = run_command(cli_binary() + " account amplify --parties 100000 --epsilon0 4 --rounds 1000");
  CHECK(many.exit_code == 2);
  const auto at = many.err.find("or at most ");
  REQUIRE(at != std::string::npos);
  const auto allowed = std::stoull(many.err.substr(at + 11));
  CHECK(allowed >= 100);
  CHECK(allowed < 1000);
  CHECK(run_command(cli_binary() + " account amplify --parties 100000 --epsilon0 8 --rounds 100 --pld-step 0.01 --json").exit_code == 0);
  // More parties than the numeric bounds' sums take in about 20 s (10^10 took two minutes).
  for (const std::string command : {"amplify --epsilon0 4", "local --epsilon 0.5"}) {
    const auto big = run_command(cli_binary() + " account " + command + " --parties 10000000000");
    CHECK(big.exit_code == 2);
    CHECK(big.err.find("--parties: Value 10000000000 not in range 2 to 1000000000") != std::string::npos);
  }
}

TEST_CASE("account local and noise: the inverse bounds and the calibrated noises") {
  const auto l = run_command(cli_binary() + " account local --parties 100000 --epsilon 0.5 --json");
  REQUIRE(l.exit_code == 0);
  const auto lj = nlohmann::json::parse(l.out);
  CHECK(lj["fmt_numeric_epsilon0"].get<double>() == doctest::Approx(shufflempc::fmt_local_epsilon(100000, 0.5, 1e-6)).epsilon(1e-12));
  CHECK(lj["blanket_epsilon0"].get<double>() == doctest::Approx(shufflempc::blanket_local_epsilon(100000, 0.5, 1e-6).value()));
  CHECK(lj["blanket_exact_epsilon0"].get<double>() ==
        doctest::Approx(shufflempc::blanket_exact_local_epsilon(100000, 0.5, 1e-6)).epsilon(1e-12));
  CHECK(lj["blanket_exact_epsilon0"].get<double>() > lj["fmt_numeric_epsilon0"].get<double>());
  CHECK(lj["ldp_blanket_epsilon0"].get<double>() == lj["blanket_exact_epsilon0"].get<double>());
  // Binary randomized response's exact value inverts too, and allows more than any bound.
  CHECK(lj["rr_exact_all_epsilon0"].get<double>() == doctest::Approx(shufflempc::rr_exact_all_local_epsilon(100000, 0.5, 1e-6)).epsilon(1e-12));
  CHECK(lj["rr_exact_all_epsilon0"].get<double>() > lj["ldp_blanket_epsilon0"].get<double>());
  const auto l4 = nlohmann::json::parse(run_command(cli_binary() + " account local --parties 100000 --epsilon 0.5 --k 4 --json").out);
  CHECK(l4["ldp_blanket_epsilon0"].get<double>() == doctest::Approx(shufflempc::ldp_blanket_local_epsilon(100000, 0.5, 1e-6)).epsilon(1e-12));
  CHECK(l4["ldp_blanket_epsilon0"].get<double>() > l4["blanket_exact_epsilon0"].get<double>());
  CHECK(l4["rr_exact_all_epsilon0"].is_null());  // binary randomized response only

  const auto b = nlohmann::json::parse(run_command(cli_binary() + " account noise --parties 100000 --epsilon 1 --delta 1e-6 --json").out);
  CHECK(b["p"].get<double>() == doctest::Approx(shufflempc::calibrate_binomial_p(100000, 1, 1e-6)));
  CHECK(b["delta"].get<double>() <= 1e-6);
  const auto d = nlohmann::json::parse(run_command(cli_binary() + " account noise --noise discrete-laplace --epsilon 1 --delta 1e-6 --sensitivity 10 --json").out);
  CHECK(d["scale"].get<double>() > 0.1);
  CHECK(d["delta"].get<double>() <= 1e-6);
  const auto p = nlohmann::json::parse(run_command(cli_binary() + " account noise --noise polya --shape 0.5 --scale 0.05 --epsilon 0.5 --sensitivity 10 --json").out);
  CHECK(p["delta"].get<double>() == doctest::Approx(shufflempc::polya_difference_delta(0.5, 0.05, 0.5, 10).delta()));
}

TEST_CASE("account: a missing or wrong argument gets one line naming it, exit code 2") {
  for (const auto& [args, expect] : std::vector<std::pair<std::string, std::string>>{
           {"account amplify", "--epsilon0 is required"},
           {"account amplify --epsilon0 4 --parties 1", "--parties"},
           {"account noise", "needs --p"},
           {"account noise --noise binomial --scale 1 --p 0.1", "--scale"},
           {"account noise --noise gaussian", "--noise"},
           {"account noise --noise polya --scale 0.0001", "too wide"},
           {"account", "subcommand"}}) {
    const auto r = run_command(cli_binary() + " " + args);
    CHECK_MESSAGE(r.exit_code == 2, args);
    CHECK_MESSAGE(r.err.find(expect) != std::string::npos, args << ": " << r.err);
  }
}

TEST_CASE("account local --protocol: the protocol's own choice of epsilon0 first and marked, its predicted error, the lower bound beside it") {
  // "100,000 users, epsilon = 1, delta = 1e-6, shuffled randomized response: what epsilon0, and what error?" in one command.
  const std::string query = " account local --parties 100000 --epsilon 1 --delta 1e-6 --protocol counting-rr-amplified";
  const auto json = run_command(cli_binary() + query + " --json");
  REQUIRE(json.exit_code == 0);
  const auto out = nlohmann::json::parse(json.out);
  const auto& choice = out.at("protocol");
  // For bits the protocol takes the exact value over every dataset, the accountant's rr-exact-all.
  CHECK(choice.at("epsilon0").get<double>() == doctest::Approx(out.at("rr_exact_all_epsilon0").get<double>()).epsilon(1e-9));
  CHECK(choice.at("bound").get<std::string>().find("exact value") != std::string::npos);
  CHECK(choice.at("predicted_sd").get<double>() > 0);
  CHECK(choice.at("central_epsilon_at_least").get<double>() <= 1.0);
  CHECK(choice.at("central_epsilon_at_least").get<double>() > 0.9);  // the exact value: the lower curve sits just below
  const auto text = run_command(cli_binary() + query);
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.rfind("=> counting-rr-amplified uses epsilon0 = ", 0) == 0);
  CHECK(text.out.find("predicted error: ") != std::string::npos);
  CHECK(text.out.find("at least ") != std::string::npos);
  for (const char* wrong : {"nope", "counting"}) {
    const auto bad = run_command(cli_binary() + " account local --parties 100000 --epsilon 1 --protocol " + wrong);
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find(std::string("--protocol ") + wrong + ": ") != std::string::npos);
  }
}
