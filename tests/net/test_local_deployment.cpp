// The one place that makes a local session's keys and config (net/local.hpp).
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "shufflempc/net/launcher.hpp"
#include "shufflempc/net/local.hpp"
#include "shufflempc/parallel.hpp"
#include "shufflempc/registry.hpp"
#include "support/paths.hpp"
#include "support/temp_dir.hpp"

using namespace shufflempc;

TEST_CASE("LocalDeployment: one key pair per identity, a config naming them, files that load back") {
  SeededRng rng(4);
  net::SessionConfig base;
  base.protocol = "counting";
  base.params = {{"epsilon", "0.5"}};
  base.min_parties = 3;
  base.rounds = {RoundShape::exactly(1 + 48, Delivery::analyzer_only, 2)};
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
  CHECK(config.digest() == d.config.digest());
  CHECK(net::KeyPair::load(net::party_key_file(dir, 2)).public_key() == d.parties[2].public_key());
  CHECK(net::KeyPair::load(dir + "/" + net::shuffler_key_file).public_key() == d.shuffler.public_key());
}

TEST_CASE("LocalDeployment: one key per block of parties (a party process's), saved as one bundle each and one run each in the config") {
  SeededRng rng(5);
  net::SessionConfig base;
  base.protocol = "counting";
  base.params = {{"epsilon", "0.5"}};
  base.rounds = {RoundShape::exactly(1 + 48, Delivery::analyzer_only, 2)};
  const auto d = net::LocalDeployment::create(7, rng, base, 1, 3);  // blocks 0-2, 3-5, 6
  REQUIRE(d.parties.size() == 7);
  for (std::size_t i = 0; i < 7; ++i) {
    CAPTURE(i);
    CHECK(d.config.party_keys[i] == d.parties[i].public_key());
    CHECK(d.parties[i].public_key() == d.parties[i / 3 * 3].public_key());
  }
  CHECK(d.parties[2].public_key() != d.parties[3].public_key());
  CHECK(d.parties[5].public_key() != d.parties[6].public_key());
  CHECK(d.parties[0].public_key() != d.parties[6].public_key());
  const auto json = d.config.to_json();
  REQUIRE(json["party_keys"].size() == 3);
  CHECK(json["party_keys"][1]["parties"] == 3);
  CHECK(json["party_keys"][2].is_string());  // a block of one party: its key, as before

  const test::TempDir tmp("shufflempc-deploytest");
  d.save(tmp.path(), 3);
  const auto config = net::SessionConfig::load(tmp.path() + "/" + net::session_config_file);
  CHECK(config.party_keys == d.config.party_keys);
  CHECK(config.digest() == d.config.digest());
  const auto bundle = net::KeyBundle::load(net::party_key_bundle_file(tmp.path(), 3, 5));
  CHECK(bundle.shares_one_key());
  CHECK(bundle.of(4).public_key() == d.parties[4].public_key());
  CHECK(net::KeyBundle::load(net::party_key_bundle_file(tmp.path(), 6, 6)).of(6).public_key() == d.parties[6].public_key());
  CHECK_THROWS_WITH_AS((void)net::LocalDeployment::create(2, rng, base, 1, 0), doctest::Contains("parties per key must be at least 1"),
                       std::invalid_argument);
}

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
  net::LocalLauncher launcher(base, *protocol, n, net::LaunchOptions{.executable = script});
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
  net::LaunchOptions options{.executable = SHUFFLEMPC_CLI};
  options.progress = [&](const std::string& line) { lines.push_back(line); };
  options.progress_after = std::chrono::milliseconds(1);
  options.progress_every = std::chrono::milliseconds(20);
  net::LocalLauncher launcher(base, *protocol, n, options);
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
  CHECK(net::default_party_processes(config) == 8);
  config.mix = net::MixKind::decryption;
  CHECK(net::default_party_processes(config) == 8);
  config.mix = net::MixKind::verifiable;
  const std::size_t cores = std::clamp<std::size_t>(hardware_threads(), 1, 8);
  CHECK(net::default_party_processes(config) == cores);
  // Rounds that reach the analyzer only are checked by the analyzer alone.
  config.rounds = {RoundShape::exactly(16, Delivery::analyzer_only, 1)};
  CHECK(net::default_party_processes(config) == 8);
}
