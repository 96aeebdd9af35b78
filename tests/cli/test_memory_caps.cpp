// Tiny hostile inputs cannot make any process allocate gigabytes: each is refused by a declared
// limit, named in the error and in --help, with the process under a 1 GiB address-space cap
// (ulimit -v) so that an allocation before the check would fail the test with bad_alloc instead.
#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include "shufflempc/runtime.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "support/paths.hpp"

using namespace shufflempc;

namespace {

// AddressSanitizer reserves terabytes of address space: no cap possible (GCC says so by a macro, clang
// by a feature).
#if defined(__SANITIZE_ADDRESS__)
constexpr bool sanitized = true;
#elif defined(__has_feature)
constexpr bool sanitized = __has_feature(address_sanitizer);
#else
constexpr bool sanitized = false;
#endif

CommandResult capped(const std::vector<std::string>& args) {
  std::string line = "ulimit -v 1048576 && exec \"$0\" \"$@\"";
  std::vector<std::string> argv = {"/bin/bash", "-c", line, SHUFFLEMPC_CLI};
  argv.insert(argv.end(), args.begin(), args.end());
  return shufflempc::run_command(argv, std::chrono::minutes(2));
}

}  // namespace

TEST_CASE("memory caps: hostile circuits and programs of a few bytes are refused by a named limit under 1 GiB") {
  if (sanitized) return;
  const test::TempDir tmp("shufflempc-caps");
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(tmp / name) << text;
    return tmp / name;
  };
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      // A header claiming a billion gates.
      {{"run", "circuit", "--parties", "3", "--circuit", write("huge.txt", "1000000000 2000000000\n2 64 64\n1 64\n")},
       "the gate count = 1000000000 is above the limit 268435456"},
      // Within the absolute limits, but far more gates than 31 bytes can hold.
      {{"run", "circuit", "--parties", "3", "--circuit", write("short.txt", "100000000 200000000\n2 64 64\n1 64\n")}, "declares 100000000 gates, but 33 bytes hold at most 3"},
      // Inputs beyond 2^20 elements, inline and from a file.
      {{"run", "mpc2", "--parties", "3", "--function", "input x[100000000]@0; output s = sum(x)"}, "more than 1048576 input elements"},
      {{"run", "mpc2", "--parties", "3", "--function", std::string("@") + write("p.f", "input x[2000000]@0;\noutput s = sum(x)\n")}, "line 1"},
      {{"run", "mpc2", "--parties", "3", "--function", "inner-product", "--length", "10000000"}, "parameter 'length' = 10000000 is out of range: must be an integer in [1, 524288]"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.args.back());
    const auto r = capped(c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(c.says) != std::string::npos);
    CHECK(r.err.find("bad_alloc") == std::string::npos);
  }
  // The cap itself is real: an honest run fits under it.
  const auto honest = capped({"run", "mpc2", "--parties", "3", "--function", "inner-product", "--length", "1000", "--seed", "1"});
  CHECK_MESSAGE(honest.exit_code == 0, honest.err);
}

namespace {

// The peak memory of `local counting` hosting every party in one party process, by its report.
std::size_t party_process_peak(std::size_t parties) {
  const auto r = shufflempc::run_command({SHUFFLEMPC_CLI, "local", "counting", "--parties", std::to_string(parties), "--noise", "calibrated",
                                          "-k", std::to_string(parties), "--seed", "1", "--json"},
                                         std::chrono::minutes(2));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto report = Value::parse(r.out);
  for (const auto& p : report["process_resources"])
    if (p["process"].get<std::string>().rfind("parties", 0) == 0) return p["peak_memory_bytes"].get<std::size_t>();
  FAIL("no party process in the report");
  return 0;
}

}  // namespace

TEST_CASE("memory: a party process grows by at most 1 KB a hosted party (20,000 parties against 1,000, same build)") {
  if (sanitized) return;  // AddressSanitizer's shadow memory and quarantine are not the program's
  // Before the reports were streamed, one party process held every party's report as JSON three
  // times over (about 2 KB a party more).
  const std::size_t small = party_process_peak(1'000), large = party_process_peak(20'000);
  CAPTURE(small);
  CAPTURE(large);
  CHECK(large <= small + 19'000 * 1024);
}
