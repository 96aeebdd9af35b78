// The one process helper (lib/process.hpp).
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

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

TEST_CASE("ChildProcess: an output file that is a symbolic link is refused naming the file, not the program") {
  const test::TempDir dir;
  std::filesystem::create_symlink(dir / "elsewhere", dir / "analyzer.out");
  for (const bool as_stdout : {true, false}) {
    CAPTURE(as_stdout);
    ProcessOptions options;
    (as_stdout ? options.stdout_path : options.stderr_path) = dir / "analyzer.out";
    try {
      ChildProcess p("analyzer", {"/bin/true"}, options);
      FAIL("started");
    } catch (const std::system_error& e) {
      const std::string what = e.what();
      CHECK(what.find("cannot start analyzer: its output file " + (dir / "analyzer.out") + " is a symbolic link") == 0);
      CHECK(what.find("/bin/true") == std::string::npos);
    }
  }
  CHECK_FALSE(std::filesystem::exists(dir / "elsewhere"));
}

TEST_CASE("ChildProcess: a descriptor passed as 3 reaches the child, and only that child") {
  // A pipe's write end, above 3 and close-on-exec here (as `local` makes the shuffler's socket).
  int fds[2] = {-1, -1};
  REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
  const int high = ::fcntl(fds[1], F_DUPFD_CLOEXEC, 10);
  ::close(fds[1]);
  REQUIRE(high > 3);
  {
    ChildProcess writer("sh", {"/bin/sh", "-c", "echo through-3 >&3"}, ProcessOptions{.pass_as_fd3 = high});
    CHECK(writer.wait_for(std::chrono::seconds(10)) == 0);
    // Another child does not inherit it (close-on-exec): the descriptor is not open there.
    ChildProcess other("sh", {"/bin/sh", "-c", "test -e /proc/self/fd/" + std::to_string(high)});
    CHECK(other.wait_for(std::chrono::seconds(10)) == 1);
    // (The control: the shell does see a descriptor it does hold.)
    ChildProcess control("sh", {"/bin/sh", "-c", "test -e /proc/self/fd/1"});
    CHECK(control.wait_for(std::chrono::seconds(10)) == 0);
  }
  ::close(high);
  char buf[64] = {};
  const ssize_t got = ::read(fds[0], buf, sizeof buf - 1);
  ::close(fds[0]);
  CHECK(std::string(buf, got > 0 ? static_cast<std::size_t>(got) : 0) == "through-3\n");
  CHECK_THROWS_AS(ChildProcess("sh", {"/bin/sh", "-c", "true"}, ProcessOptions{.pass_as_fd3 = 2}), std::invalid_argument);
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
