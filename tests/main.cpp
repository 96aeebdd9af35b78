// The test runner. One rule beyond doctest's own: a run whose filters select no test case fails.
// ctest runs each case by name (--test-case=NAME); a name that discovery mangled (CMake splits a
// list at ';') selects nothing, and doctest alone would report that empty run as a success.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

namespace {

int cases_selected = -1;  // -1: no test run happened (a listing, --count, --help)

struct SelectedCases : doctest::IReporter {
  explicit SelectedCases(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& stats) override {
    cases_selected = static_cast<int>(stats.numTestCasesPassingFilters);
  }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

REGISTER_LISTENER("selected-cases", 1, SelectedCases);

}  // namespace

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int result = context.run();
  if (context.shouldExit() || result != 0) return result;
  if (cases_selected == 0) {
    std::fprintf(stderr, "shufflempc_tests: the filters select no test case (a name split or misspelt?)\n");
    return 3;
  }
  return 0;
}
