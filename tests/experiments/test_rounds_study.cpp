// The rounds experiment (experiments/rounds): every row against the function computed in the
// clear, the round counts each protocol runs, determinism of everything but the time, the CSV
// and the figure, bad options, the registration that makes it `study rounds`, and its runs over
// shaped links (--rtt): the wall time against the rounds reported.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "shufflempc/experiments/experiment.hpp"
#include "shufflempc/experiments/rounds.hpp"
#include "shufflempc/net/loopback.hpp"
#include "shufflempc/process.hpp"
#include "support/errors.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace shufflempc;
using test::error_text;

namespace {

const experiments::RoundsRow& row(const experiments::RoundsStudy& s, const std::string& function, const std::string& protocol) {
  const auto it = std::find_if(s.rows.begin(), s.rows.end(), [&](const auto& r) { return r.function == function && r.protocol == protocol; });
  REQUIRE_MESSAGE(it != s.rows.end(), function << " / " << protocol);
  return *it;
}

}  // namespace

TEST_CASE("rounds study: every exact row equals the function computed in the clear, in the rounds its protocol takes") {
  experiments::RoundsStudyOptions o;
  o.parties = 4;
  o.trials = 3;
  o.length = 5;
  o.seed = 7;
  const auto s = experiments::run_rounds_study(o);
  REQUIRE(s.rows.size() == 23);  // with circuit v2 for each of the five functions (n = 4: t = 1)
  for (const auto& r : s.rows) {
    CAPTURE(r.function);
    CAPTURE(r.protocol);
    CHECK(r.bytes_per_party > 0);
    CHECK(r.messages_per_party > 0);
    // Only randomized response is allowed to miss; every other row is exact in every trial (the
    // generated sum, XOR, AND and inner-product circuits included: the reference is computed here,
    // not by evaluating them).
    if (r.protocol == "xor-sum-rr") continue;
    CHECK(r.wrong == 0);
    CHECK(r.rmse == 0);
  }
  CHECK(row(s, "sum", "split-mix-sum").rounds == 1);
  CHECK(row(s, "sum", "mpc2").rounds == 2);
  CHECK(row(s, "sum", "circuit v1").rounds == 2);
  CHECK(row(s, "sum", "circuit bgw").rounds > 2);
  CHECK(row(s, "xor-sum", "xor-sum-rr").rounds == 1);
  CHECK(row(s, "xor-sum", "circuit bgw").rounds == 2);  // no AND gate: XOR is free
  CHECK(row(s, "and", "circuit bgw").rounds == 3);
  CHECK(row(s, "and", "card-and").rounds == 6);
  CHECK(row(s, "and", "card-and").parties == 2);
  CHECK(row(s, "aes-128", "circuit bgw").rounds == 62);
  CHECK(row(s, "aes-128", "circuit v3").rounds == 2);
  CHECK(row(s, "aes-128", "circuit v2").rounds == 2);
  CHECK(row(s, "aes-128", "circuit v2").threat_model == "any t < n/3 parties; everyone sees both rounds");
  // What the rounds buy for AES-128: BGW moves fewer bytes than the two-round garbled circuits.
  CHECK(row(s, "aes-128", "circuit bgw").bytes_per_party < row(s, "aes-128", "circuit v1").bytes_per_party);
  // One round of randomized response on n = 4 bits errs (the lower bound's price).
  CHECK(row(s, "xor-sum", "xor-sum-rr").rmse > 0);
}

TEST_CASE("rounds study: the same seed gives the same rows (time aside), CSV and figure") {
  experiments::RoundsStudyOptions o;
  o.functions = {"and", "xor-sum"};
  o.parties = 3;
  o.trials = 4;
  const auto a = experiments::run_rounds_study(o);
  std::size_t calls = 0;
  const auto b = experiments::run_rounds_study(o, [&](std::size_t done, std::size_t total) {
    ++calls;
    CHECK(done <= total);
  });
  CHECK(calls == b.rows.size() * o.trials);
  REQUIRE(a.rows.size() == b.rows.size());
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    CHECK(a.rows[i].protocol == b.rows[i].protocol);
    CHECK(a.rows[i].rmse == b.rows[i].rmse);
    CHECK(a.rows[i].wrong == b.rows[i].wrong);
    CHECK(a.rows[i].bytes_per_party == b.rows[i].bytes_per_party);
  }
  std::ostringstream csv;
  experiments::write_csv(csv, a);
  CHECK(csv.str().starts_with("function,protocol,parties,rounds,rmse,wrong,trials,bytes_per_party,messages_per_party,seconds,threat_model,rtt_ms,model_seconds\n"));
  CHECK(csv.str().find("and,card-and,2,6,0,0,4,") != std::string::npos);
  std::ostringstream table;
  experiments::print_table(table, a);
  CHECK(table.str().find("xor-sum-rr") != std::string::npos);
  // The figure: one marker series per function and protocol (out of the key), then a key of the
  // protocols (colours: each its own, as in every figure) and of the functions (markers, in grey),
  // apart; points of different protocols at one round count spread sideways, so none hides another.
  const auto lines = experiments::figure_lines(a);
  std::vector<std::string> keyed;
  std::size_t drawn = 0;
  std::vector<double> at_two;
  for (const auto& l : lines) {
    if (l.key_only) {
      keyed.push_back(l.title);
      continue;
    }
    CHECK(l.title.empty());
    CHECK(l.points_only);
    CHECK(std::find_if(a.rows.begin(), a.rows.end(), [&](const auto& r) { return r.protocol == l.colour; }) != a.rows.end());  // a protocol's colour
    ++drawn;
    for (const auto& [x, y] : l.points)
      if (std::abs(x - 2) < 0.5) at_two.push_back(x);
  }
  // and: mpc2, circuit v1, circuit bgw, card-and; xor-sum: xor-sum-exact, circuit v1, circuit bgw
  // (randomized response errs, so it is not drawn).
  CHECK(drawn == 7);
  CHECK(keyed == std::vector<std::string>{"mpc2", "circuit v1", "circuit bgw", "card-and", "xor-sum-exact", "and", "xor-sum"});
  for (const auto& l : lines)
    if (!l.key_only || l.points_only) continue;
    else CHECK(l.colour == l.title);  // a protocol's key entry: its own colour
  std::sort(at_two.begin(), at_two.end());
  CHECK(std::adjacent_find(at_two.begin(), at_two.end()) != at_two.end());  // the same protocol of two functions shares its place
  CHECK(std::set<double>(at_two.begin(), at_two.end()).size() >= 2);        // and two protocols at 2 rounds do not
}

TEST_CASE("rounds study: every bad option is refused with its name and range, and the experiment is registered") {
  experiments::RoundsStudyOptions o;
  o.parties = 2;
  CHECK(error_text([&] { experiments::validate(o); }) == "--parties 2: must be in [3, 64]");
  o = {};
  o.trials = 0;
  CHECK(error_text([&] { experiments::validate(o); }) == "--trials 0: must be in [1, 100000]");
  o = {};
  o.length = 5000;
  CHECK(error_text([&] { experiments::validate(o); }) == "--length 5000: must be in [1, 4096]");
  o = {};
  o.functions = {"median"};
  CHECK(error_text([&] { experiments::validate(o); }) == "--functions: 'median' is not one of sum, xor-sum, and, inner-product, aes-128, sha-256");
  const auto registry = experiments::builtin_experiments();
  REQUIRE(registry.find("rounds") != nullptr);
  CHECK(registry.find("rounds")->summary.find("what each round buys") != std::string::npos);
}

TEST_CASE("shufflempc study rounds: the CSV on standard output, and a bad option exits 2 naming it") {
  const auto ok = run_command({test::cli_binary(), "study", "rounds", "--functions", "and", "--parties", "3", "--trials", "2", "--csv", "-", "-q"});
  CHECK_MESSAGE(ok.exit_code == 0, ok.err);
  CHECK(ok.out.starts_with("function,protocol,parties,rounds,"));
  CHECK(ok.out.find("and,circuit bgw,3,3,0,0,2,") != std::string::npos);
  const auto bad = run_command({test::cli_binary(), "study", "rounds", "--functions", "median"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--functions: 'median' is not one of sum, xor-sum, and, inner-product, aes-128, sha-256") != std::string::npos);
}

TEST_CASE("shufflempc study rounds --rtt --plot FILE: the file named, in a directory made for it, a panel a function, and nothing else") {
  REQUIRE_MESSAGE(study::gnuplot_available(), "gnuplot is missing: scripts/setup.sh installs gnuplot-nox");
  const test::TempDir tmp("shufflempc-rttplot");
  const std::string figure = tmp / "new/rtt.svg";
  const auto r = run_command({test::cli_binary(), "study", "rounds", "--functions", "and,xor-sum", "--parties", "3", "--trials", "1", "--rtt", "1",
                              "--plot", figure, "-q"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::vector<std::string> written;
  for (const auto& e : std::filesystem::directory_iterator(tmp / "new")) written.push_back(e.path().filename().string());
  CHECK(written == std::vector<std::string>{"rtt.svg"});
  std::ifstream in(figure);
  const std::string drawn((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(drawn.find("and: wall time against round-trip time, n = 3") != std::string::npos);
  CHECK(drawn.find("xor-sum: wall time against round-trip time, n = 3") != std::string::npos);
  CHECK(drawn.find("dashed: the model, (rounds + 2.5) x RTT + the time at 0") != std::string::npos);
  CHECK(drawn.find("mpc2: 2 rounds, ") != std::string::npos);
  CHECK(drawn.find("xor-sum-rr: 1 round, 1 message a party, each sealed to the analyzer") != std::string::npos);
}

TEST_CASE("rounds study over shaped links: each row's wall time holds the rounds it reports and the session's round trips, and the model counts both") {
  // The program's runner, as `shufflempc study rounds` sets it: the TCP transport over loopback,
  // every link shaped to half the round trip.
  experiments::set_network_runner(net::run_over_shaped_loopback, net::shaped_session_round_trips);
  experiments::RoundsStudyOptions o;
  o.parties = 3;
  o.trials = 1;
  o.functions = {"and"};
  o.rtt_ms = {100};
  const auto s = experiments::run_rounds_study(o);
  REQUIRE(s.rows.size() == 8);  // mpc2, circuit v1, circuit bgw, card-and, each at 0 and 100 ms
  for (const auto& r : s.rows) {
    CAPTURE(r.protocol);
    REQUIRE(r.rtt_ms.has_value());
    CHECK(r.wrong == 0);
    if (*r.rtt_ms == 0) continue;
    const double zero = row(s, "and", r.protocol).milliseconds;  // the row's time at RTT 0 (listed first)
    // Every round the run reports waited a round trip, and the session its handshakes (two round
    // trips before any round) and its close: a protocol that reported fewer rounds than it ran, or a
    // model that left the session out, would fail the upper bound; one that reported more the lower.
    CHECK(net::shaped_session_round_trips == 2.5);
    CHECK(r.milliseconds >= (static_cast<double>(r.rounds) + 2) * 100);
    CHECK(r.milliseconds <= zero + (static_cast<double>(r.rounds) + net::shaped_session_round_trips) * 100 + 150);
    CHECK(r.model_milliseconds == doctest::Approx(zero + (static_cast<double>(r.rounds) + net::shaped_session_round_trips) * 100));
    CHECK(r.sealed_rounds == 0);  // every protocol of `and` delivers to the parties
  }
  CHECK(s.session_round_trips == net::shaped_session_round_trips);
  CHECK(row(s, "and", "mpc2").rounds == 2);
  CHECK(row(s, "and", "circuit bgw").rounds == 3);
  CHECK(row(s, "and", "card-and").rounds == 6);
  // The table and the CSV carry the RTT and the model.
  std::ostringstream table, csv;
  experiments::print_table(table, s);
  experiments::write_csv(csv, s);
  CHECK(table.str().find("model ms") != std::string::npos);
  CHECK(table.str().find("model: (rounds + 2.5) x RTT + the row's time at RTT 0 (2.5: the session's handshakes and close)") != std::string::npos);
  // The figure: a panel for the function, a line per protocol in its colour named with its rounds and
  // messages, its model dashed in the same colour, and a key entry saying what the dashes are.
  const auto panels = experiments::rtt_panels(s);
  REQUIRE(panels.size() == 1);
  std::size_t measured = 0;
  for (const auto& l : panels.front().lines) {
    if (l.key_only) {
      CHECK(l.title == "dashed: the model, (rounds + 2.5) x RTT + the time at 0");
      continue;
    }
    REQUIRE(l.points.size() == 1);
    if (l.dashed) continue;
    ++measured;
    CHECK(l.title.starts_with(l.colour + ": "));
    CHECK(l.title.find(" a party") != std::string::npos);
  }
  CHECK(measured == 4);
  CHECK(csv.str().find("rtt_ms,model_seconds") != std::string::npos);
  // Without a runner (a program without the TCP transport), --rtt is refused with the reason; out of range too.
  experiments::set_network_runner({}, 0);
  CHECK(error_text([&] { (void)experiments::run_rounds_study(o); }).find("--rtt needs the TCP transport") != std::string::npos);
  o.rtt_ms = {-1};
  CHECK(error_text([&] { experiments::validate(o); }).find("--rtt -1: each round-trip time must be in [0, 20000] ms") != std::string::npos);
  o.rtt_ms = {};
  o.mbps = 10;
  CHECK(error_text([&] { experiments::validate(o); }).find("--mbps needs --rtt") != std::string::npos);
}

TEST_CASE("rounds study: SHA-256's compression, asked for by name, is exact in every variant, BGW in its 1609 rounds") {
  experiments::RoundsStudyOptions o;
  o.parties = 3;
  o.trials = 1;
  o.functions = {"sha-256"};
  const auto s = experiments::run_rounds_study(o);
  REQUIRE(s.rows.size() == 3);  // v1, v3 and bgw (v2 needs n >= 4)
  for (const auto& r : s.rows) CHECK(r.wrong == 0);
  CHECK(row(s, "sha-256", "circuit v1").rounds == 2);
  CHECK(row(s, "sha-256", "circuit bgw").rounds == 1609);
  const auto defaults = experiments::RoundsStudyOptions{}.functions;
  CHECK(std::find(defaults.begin(), defaults.end(), "sha-256") == defaults.end());
}
