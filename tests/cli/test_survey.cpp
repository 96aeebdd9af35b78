// `shufflempc survey` refuses what it cannot run before it makes a key or opens a port: each wrong
// parameter with one line naming it and what it takes, exit 2, and no survey directory left behind;
// its parameters are checked before its pages are looked for (a build without the browser's has none).
// The survey itself, clicked through in a browser, is tests/web/survey_flow.mjs.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/paths.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace shufflempc;

TEST_CASE("shufflempc survey: wrong parameters are refused with one line naming them, before any key is made") {
  const test::TempDir tmp("shufflempc-survey");
  const std::string dir = tmp / "survey";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--answer", "maybe"}, "--answer must be one of yes-no, choice, number; got 'maybe'"},
      {{"--answer", "choice"}, "--choices must list 2 to 64 answers (comma-separated) for --answer choice"},
      {{"--answer", "choice", "--choices", "only"}, "--choices must list 2 to 64 answers"},
      {{"--choices", "a,b"}, "--choices is for --answer choice"},
      {{"--answer", "number", "--range", "5,1"}, "--range must be LO,HI with LO < HI (finite) for --answer number"},
      {{"--answer", "number"}, "--range must be LO,HI"},
      {{"--range", "0,1"}, "--range is for --answer number"},
      {{"--min-respondents", "9"}, "--min-respondents must be in [1, --respondents = 5]"},
      {{"--protocol", "no-such-protocol"}, "no-such-protocol"},
      {{"--protocol", "ikos-key-exchange"}, "is not one round sent to the analyzer"},
      {{"--answer", "number", "--range", "0,10", "--protocol", "counting-rr-amplified"}, "does not take a number answer"},
      {{"--epsilon", "50"}, "--epsilon: Value 50 not in range 0.001000 to 20.000000"},
      {{"--param", "oops"}, "--param must be NAME=VALUE, got 'oops'"},
      {{"--site", tmp / "no-site"}, "has no index.html: the survey's pages come from the browser's build"},
  };
  for (const auto& [extra, said] : cases) {
    std::vector<std::string> argv = {SHUFFLEMPC_CLI, "survey", "--question", "Q?", "--respondents", "5", "--dir", dir};
    argv.insert(argv.end(), extra.begin(), extra.end());
    const auto r = run_command(argv);
    CAPTURE(extra);
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(r.err.find(said) != std::string::npos, r.err);
    CHECK(r.out.empty());
    CHECK_FALSE(std::filesystem::exists(dir));
  }
  // A directory that holds something already is not a survey's: refused, and left as it was.
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/kept.txt") << "mine";
  const auto r = run_command({SHUFFLEMPC_CLI, "survey", "--question", "Q?", "--respondents", "5", "--dir", dir});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--dir " + dir + " is not empty") != std::string::npos);
  CHECK(std::filesystem::directory_iterator(dir)->path().filename() == "kept.txt");
}
