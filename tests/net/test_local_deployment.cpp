// The one place that makes a local session's keys and config (net/local.hpp).
#include <doctest/doctest.h>

#include <string>

#include "shufflempc/net/local.hpp"
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
