// The one process helper (lib/process.hpp).
#include <doctest/doctest.h>

#include <sys/resource.h>

#include <filesystem>

#include "shufflempc/process.hpp"
#include "support/temp_dir.hpp"

using namespace shufflempc;

TEST_CASE("ChildProcess: lines, exit status, time limits and kill") {
  ChildProcess echo("printf", {"/usr/bin/printf", "one\\ntwo\\nthree"});
  CHECK(echo.read_line(std::chrono::seconds(10)) == "one");
  CHECK(echo.read_line(std::chrono::seconds(10)) == "two");
  CHECK(echo.read_all(std::chrono::seconds(10)) == "three");
  CHECK(echo.wait_for(std::chrono::seconds(10)) == 0);

  ChildProcess failing("false", {"/bin/false"});
  CHECK(failing.wait_for(std::chrono::seconds(10)) == 1);

  ChildProcess slow("sleep", {"/bin/sleep", "30"});
  CHECK_FALSE(slow.read_line(std::chrono::milliseconds(50)).has_value());
  CHECK_FALSE(slow.wait_for(std::chrono::milliseconds(50)).has_value());
  slow.kill();
  CHECK(slow.status() == 128 + 9);

  CHECK_THROWS_AS(ChildProcess("missing", {"/nonexistent/program"}), std::system_error);
}

TEST_CASE("ChildProcess: wait_all kills what outlives the deadline, run_command captures both streams") {
  std::vector<ChildProcess> children;
  children.emplace_back("true", std::vector<std::string>{"/bin/true"});
  children.emplace_back("sleep", std::vector<std::string>{"/bin/sleep", "30"});
  CHECK_FALSE(wait_all(children, std::chrono::steady_clock::now() + std::chrono::milliseconds(200)));
  CHECK(children[0].status() == 0);
  CHECK(children[1].status() == 128 + 9);

  const auto r = run_command({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"});
  CHECK(r.exit_code == 3);
  CHECK(r.out == "out\n");
  CHECK(r.err == "err\n");
}

TEST_CASE("ensure_descriptors: raised within the hard limit, one clear line beyond it") {
  rlimit lim{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &lim) == 0);
  CHECK_NOTHROW(ensure_descriptors(16, "a test"));
  if (lim.rlim_max == RLIM_INFINITY) return;  // nothing is beyond the limit here
  const auto beyond = static_cast<std::size_t>(lim.rlim_max) + 1;
  const std::string expected = "the test's shuffler needs " + std::to_string(beyond) + " file descriptors";
  CHECK_THROWS_WITH_AS(ensure_descriptors(beyond, "the test's shuffler"), doctest::Contains(expected.c_str()), std::invalid_argument);
  CHECK_THROWS_WITH_AS(ensure_descriptors(beyond, "x"), doctest::Contains("raise it with ulimit -n"), std::invalid_argument);
}
