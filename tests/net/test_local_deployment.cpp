// The one place that makes a local session's keys and config (net/local.hpp).
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

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
