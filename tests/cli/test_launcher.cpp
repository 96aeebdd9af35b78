// The local launcher (shufflempc/cli/launcher.hpp): every process of a session on this machine.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "shufflempc/cli/launcher.hpp"
#include "shufflempc/parallel.hpp"
#include "shufflempc/registry.hpp"
#include "support/paths.hpp"
#include "support/temp_dir.hpp"

using namespace shufflempc;

TEST_CASE("LocalLauncher: a shuffler that ends before reporting its port ends the run at once, naming it") {
  // Every process of the run is a script that exits at once: the shuffler's stdout closes without
  // its readiness line. The launcher waits for that line as long as the run may take (150 s here),
  // but an end of stdout is an answer.
  const test::TempDir tmp("shufflempc-launchertest");
  const std::string script = tmp.path() + "/exits-at-once.sh";
  {
    std::ofstream f(script);
    f << "#!/bin/sh\nexit 3\n";
  }
  REQUIRE(::chmod(script.c_str(), 0700) == 0);
  const Registry registry = builtin_registry();
  const std::size_t n = 2000;  // counting's default parameters need about 1,400 parties
  const auto protocol = registry.create("counting", {}, n);
  net::SessionConfig base;
  base.protocol = "counting";
  cli::LocalLauncher launcher(base, *protocol, n, cli::LaunchOptions{.executable = script});
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH_AS((void)launcher.run(std::vector<Value>(n, 0)),
                       doctest::Contains("shuffler did not report its port within"), std::runtime_error);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
}

TEST_CASE("LocalLauncher: a run that lasts says how it goes, while the shuffler and the analyzer run") {
  // The progress line at every step (here from 1 ms, every 20 ms; `local` says it from 5 s, every 10 s).
  const Registry registry = builtin_registry();
  const std::size_t n = 2000;
  const auto protocol = registry.create("counting", {{"noise", "calibrated"}}, n);
  net::SessionConfig base;
  base.protocol = "counting";
  base.params = {{"noise", "calibrated"}};
  std::vector<std::string> lines;
  cli::LaunchOptions options{.executable = SHUFFLEMPC_CLI};
  options.progress = [&](const std::string& line) { lines.push_back(line); };
  options.progress_after = std::chrono::milliseconds(1);
  options.progress_every = std::chrono::milliseconds(20);
  cli::LocalLauncher launcher(base, *protocol, n, options);
  const auto result = launcher.run(std::vector<Value>(n, 1));
  REQUIRE_FALSE(lines.empty());
  CHECK(lines.front().find(" s: the shuffler and the analyzer running, ") != std::string::npos);
  CHECK(lines.front().find(" party processes (the run's limit: ") != std::string::npos);
}

TEST_CASE("LocalLauncher: at most 8 party processes, and over a verifiable chain with a round to every party at most one a core") {
  // Each party process checks every proof of a verifiable round delivered to every party: more
  // processes than cores would repeat that check on the same cores.
  net::SessionConfig config;
  config.rounds = {RoundShape::exactly(16, Delivery::all_parties, 1)};
  CHECK(cli::default_party_processes(config) == 8);
  config.mix = net::MixKind::decryption;
  CHECK(cli::default_party_processes(config) == 8);
  config.mix = net::MixKind::verifiable;
  const std::size_t cores = std::clamp<std::size_t>(hardware_threads(), 1, 8);
  CHECK(cli::default_party_processes(config) == cores);
  // Rounds that reach the analyzer only are checked by the analyzer alone.
  config.rounds = {RoundShape::exactly(16, Delivery::analyzer_only, 1)};
  CHECK(cli::default_party_processes(config) == 8);
}
