// `shufflempc session`: a session config from public keys and an address, then the multi-host
// workflow with it (keygen on every "host", session, shuffler, analyzer and a party process).
#include <fstream>

#include "net/harness.hpp"
#include "shufflempc/registry.hpp"
#include "support/temp_dir.hpp"

using namespace shufflempc;
using namespace shufflempc::test;

TEST_CASE("shufflempc session writes the config every process of a multi-host run reads") {
  const test::TempDir tmp("shufflempc-sessiontest");
  const std::string& dir = tmp.path();
  const auto keygen = [&](const std::string& name) {
    Process p({SHUFFLEMPC_CLI, "keygen", "--out", dir + "/" + name}, dir + "/keygen.err");
    const std::string pub = p.read_line();
    REQUIRE(p.wait() == 0);
    return pub;
  };
  const std::string shuffler_pub = keygen("shuffler.key");
  (void)keygen("analyzer.key");
  {
    std::ofstream keys(dir + "/party-keys.txt");
    for (int i = 0; i < 3; ++i) keys << keygen("party-" + std::to_string(i) + ".key") << '\n';
  }
  Process session({SHUFFLEMPC_CLI, "session", "--protocol", "central-laplace", "--param", "epsilon=2", "--shuffler-key", shuffler_pub,
                   "--analyzer-key", dir + "/analyzer.key", "--party-keys", dir + "/party-keys.txt", "--out", dir + "/session.json"},
                  dir + "/session.err");
  CHECK(session.read_line().find("with 3 parties written to") != std::string::npos);
  REQUIRE_MESSAGE(session.wait() == 0, slurp(dir + "/session.err"));
  const auto config = net::SessionConfig::load(dir + "/session.json");
  CHECK(config.protocol == "central-laplace");
  CHECK(config.params.at("epsilon") == "2");
  CHECK(config.parties == 3);
  CHECK(to_hex(config.shuffler_key) == shuffler_pub);
  CHECK(config.analyzer_key == net::KeyPair::load(dir + "/analyzer.key").public_key());
  CHECK(config.party_keys[2] == net::KeyPair::load(dir + "/party-2.key").public_key());

  // The run: shuffler, analyzer and one party process hosting parties 0-2, all from that file.
  {
    std::ofstream in(dir + "/inputs.json");
    in << "[1, 1, 0]\n";
  }
  Process shuffler({SHUFFLEMPC_CLI, "shuffler", "--config", dir + "/session.json", "--key", dir + "/shuffler.key", "--json"},
                   dir + "/shuffler.log");
  const std::string line = shuffler.read_line();
  REQUIRE_MESSAGE(line.rfind("listening on 127.0.0.1:", 0) == 0, line << slurp(dir + "/shuffler.log"));
  const std::string address = line.substr(std::string("listening on ").size());
  Process analyzer({SHUFFLEMPC_CLI, "analyzer", "--config", dir + "/session.json", "--key", dir + "/analyzer.key", "--connect",
                    address, "--json"},
                   dir + "/analyzer.log");
  Process parties({SHUFFLEMPC_CLI, "party", "--config", dir + "/session.json", "--id", "0-2", "--key-dir", dir, "--inputs",
                   dir + "/inputs.json", "--connect", address, "--json"},
                  dir + "/parties.log");
  CHECK_MESSAGE(parties.wait() == 0, slurp(dir + "/parties.log"));
  const Value report = Value::parse(analyzer.read_line(std::chrono::seconds(30)), nullptr, false);
  CHECK_MESSAGE(analyzer.wait() == 0, slurp(dir + "/analyzer.log"));
  CHECK(shuffler.wait() == 0);
  REQUIRE_FALSE(report.is_discarded());
  CHECK(report["messages"] == 3);

  // A parameter the protocol does not accept: one line naming it, exit 2.
  Process bad({SHUFFLEMPC_CLI, "session", "--protocol", "central-laplace", "--param", "epsilon=0", "--shuffler-key", shuffler_pub,
               "--analyzer-key", shuffler_pub, "--party-keys", dir + "/party-keys.txt", "--out", dir + "/bad.json"},
              dir + "/bad.err");
  CHECK(bad.wait() == 2);
  CHECK(slurp(dir + "/bad.err").find("parameter 'epsilon' = 0 is out of range") != std::string::npos);
}
