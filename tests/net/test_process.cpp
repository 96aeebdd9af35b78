// The one process helper (net/process.hpp) and the one place that makes a local session's keys
// and config (net/local.hpp).
#include <doctest/doctest.h>

#include <sys/resource.h>

#include <filesystem>

#include "shufflempc/net/local.hpp"
#include "shufflempc/net/process.hpp"
#include "support/temp_dir.hpp"

using namespace shufflempc;

TEST_CASE("ChildProcess: lines, exit status, time limits and kill") {
  net::ChildProcess echo("printf", {"/usr/bin/printf", "one\\ntwo\\nthree"});
  CHECK(echo.read_line(std::chrono::seconds(10)) == "one");
  CHECK(echo.read_line(std::chrono::seconds(10)) == "two");
  CHECK(echo.read_all(std::chrono::seconds(10)) == "three");
  CHECK(echo.wait_for(std::chrono::seconds(10)) == 0);

  net::ChildProcess failing("false", {"/bin/false"});
  CHECK(failing.wait_for(std::chrono::seconds(10)) == 1);

  net::ChildProcess slow("sleep", {"/bin/sleep", "30"});
  CHECK_FALSE(slow.read_line(std::chrono::milliseconds(50)).has_value());
  CHECK_FALSE(slow.wait_for(std::chrono::milliseconds(50)).has_value());
  slow.kill();
  CHECK(slow.status() == 128 + 9);

  CHECK_THROWS_AS(net::ChildProcess("missing", {"/nonexistent/program"}), std::system_error);
}

TEST_CASE("ChildProcess: wait_all kills what outlives the deadline, run_command captures both streams") {
  std::vector<net::ChildProcess> children;
  children.emplace_back("true", std::vector<std::string>{"/bin/true"});
  children.emplace_back("sleep", std::vector<std::string>{"/bin/sleep", "30"});
  CHECK_FALSE(net::wait_all(children, std::chrono::steady_clock::now() + std::chrono::milliseconds(200)));
  CHECK(children[0].status() == 0);
  CHECK(children[1].status() == 128 + 9);

  const auto r = net::run_command({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"});
  CHECK(r.exit_code == 3);
  CHECK(r.out == "out\n");
  CHECK(r.err == "err\n");
}

TEST_CASE("LocalDeployment: one key pair per identity, a config naming them, files that load back") {
  SeededRng rng(4);
  net::SessionConfig base;
  base.protocol = "counting";
  base.params = {{"epsilon", "0.5"}};
  base.min_parties = 3;
  const auto d = net::LocalDeployment::create(4, rng, base);
  CHECK(d.config.parties == 4);
  CHECK(d.config.protocol == "counting");
  CHECK(d.config.min_parties == 3);
  REQUIRE(d.config.party_keys.size() == 4);
  for (std::size_t i = 0; i < 4; ++i) CHECK(d.config.party_keys[i] == d.parties[i].public_key());
  CHECK(d.config.shuffler_key == d.shuffler.public_key());
  CHECK(d.config.analyzer_key == d.analyzer.public_key());
  CHECK(d.config.party_keys[0] != d.config.party_keys[1]);
  const auto ids = d.all_identities();
  REQUIRE(ids.size() == 5);
  CHECK(ids.back().id == net::analyzer_id);

  const test::TempDir tmp("shufflempc-deploytest");
  const std::string& dir = tmp.path();
  d.save(dir);
  const auto config = net::SessionConfig::load(dir + "/" + net::session_config_file);
  CHECK(config.session == d.config.session);
  CHECK(config.party_keys == d.config.party_keys);
  CHECK(net::KeyPair::load(net::party_key_file(dir, 2)).public_key() == d.parties[2].public_key());
  CHECK(net::KeyPair::load(dir + "/" + net::shuffler_key_file).public_key() == d.shuffler.public_key());
}

TEST_CASE("ensure_descriptors: raised within the hard limit, one clear line beyond it") {
  rlimit lim{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &lim) == 0);
  CHECK_NOTHROW(net::ensure_descriptors(16, "a test"));
  if (lim.rlim_max == RLIM_INFINITY) return;  // nothing is beyond the limit here
  const auto beyond = static_cast<std::size_t>(lim.rlim_max) + 1;
  const std::string expected = "the test's shuffler needs " + std::to_string(beyond) + " file descriptors";
  CHECK_THROWS_WITH_AS(net::ensure_descriptors(beyond, "the test's shuffler"), doctest::Contains(expected.c_str()), std::invalid_argument);
  CHECK_THROWS_WITH_AS(net::ensure_descriptors(beyond, "x"), doctest::Contains("raise it with ulimit -n"), std::invalid_argument);
}
