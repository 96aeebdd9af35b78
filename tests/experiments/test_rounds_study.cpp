// The rounds experiment (experiments/rounds): every row against the function computed in the
// clear, the round counts each protocol declares, determinism of everything but the time, the CSV
// and the figure, bad options, and the registration that makes it `study rounds`.
#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>
#include <string>

#include "shufflempc/experiments/experiment.hpp"
#include "shufflempc/experiments/rounds.hpp"
#include "shufflempc/process.hpp"
#include "support/errors.hpp"
#include "support/process.hpp"

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
  CHECK(csv.str().starts_with("function,protocol,parties,rounds,rmse,wrong,trials,bytes_per_party,messages_per_party,seconds,threat_model\n"));
  CHECK(csv.str().find("and,card-and,2,6,0,0,4,") != std::string::npos);
  std::ostringstream table;
  experiments::print_table(table, a);
  CHECK(table.str().find("xor-sum-rr") != std::string::npos);
  const auto lines = experiments::figure_lines(a);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].title == "and");
  CHECK(lines[0].points.size() == 4);  // mpc2, circuit v1, circuit bgw, card-and
  CHECK(lines[1].points.size() == 3);  // xor-sum-exact, circuit v1, circuit bgw: randomized response errs
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
  CHECK(error_text([&] { experiments::validate(o); }) == "--functions: 'median' is not one of sum, xor-sum, and, inner-product, aes-128");
  const auto registry = experiments::builtin_experiments();
  REQUIRE(registry.find("rounds") != nullptr);
  CHECK(registry.find("rounds")->summary.find("what each round buys") != std::string::npos);
}

TEST_CASE("shufflempc study rounds: the CSV on standard output, and a bad option exits 2 naming it") {
  const auto ok = run_command({test::cli(), "study", "rounds", "--functions", "and", "--parties", "3", "--trials", "2", "--csv", "-", "-q"});
  CHECK_MESSAGE(ok.exit_code == 0, ok.err);
  CHECK(ok.out.starts_with("function,protocol,parties,rounds,"));
  CHECK(ok.out.find("and,circuit bgw,3,3,0,0,2,") != std::string::npos);
  const auto bad = run_command({test::cli(), "study", "rounds", "--functions", "median"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--functions: 'median' is not one of sum, xor-sum, and, inner-product, aes-128") != std::string::npos);
}
