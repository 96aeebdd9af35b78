// Parties on another "host": a network namespace joined to this one by a veth pair. Skipped, with
// a message, where the test may not create namespaces (no root, no CAP_NET_ADMIN, no iproute2).
#include <cstdlib>

#include "net/harness.hpp"
#include "support/paths.hpp"

namespace {

using namespace shufflempc;
using namespace shufflempc::test;

bool sh(const std::string& command) { return std::system((command + " >/dev/null 2>&1").c_str()) == 0; }

struct Namespace {
  std::string name, host_if, peer_if, host_ip, peer_ip;
  bool ok = false;
  Namespace() {
    const auto id = std::to_string(::getpid());
    const auto net = std::to_string(::getpid() % 250 + 1);
    name = "shufflempc-t" + id;
    host_if = "smh" + id;
    peer_if = "smp" + id;
    host_ip = "10.231." + net + ".1";
    peer_ip = "10.231." + net + ".2";
    if (!sh("ip netns add " + name)) return;
    ok = sh("ip link add " + host_if + " type veth peer name " + peer_if) &&
         sh("ip link set " + peer_if + " netns " + name) && sh("ip addr add " + host_ip + "/24 dev " + host_if) &&
         sh("ip link set " + host_if + " up") && sh("ip netns exec " + name + " ip addr add " + peer_ip + "/24 dev " + peer_if) &&
         sh("ip netns exec " + name + " ip link set " + peer_if + " up") &&
         sh("ip netns exec " + name + " ip link set lo up");
  }
  ~Namespace() {
    sh("ip link del " + host_if);
    sh("ip netns del " + name);
  }
};

}  // namespace

TEST_CASE("parties in their own network namespace reach the shuffler over a veth link") {
  Namespace ns;
  if (!ns.ok) {
    MESSAGE("skipped: cannot create a network namespace with a veth pair here (needs root / CAP_NET_ADMIN and iproute2)");
    return;
  }
  NetSession s(3, 21, 0, std::chrono::seconds(20));
  {
    std::ofstream in(s.path("inputs.json"));
    in << "[1, 0, 1]\n";
  }
  Process shuffler({SHUFFLEMPC_CLI, "shuffler", "--config", s.path("session.json"), "--key", s.path("shuffler.key"), "--listen",
                    ns.host_ip + ":0", "--json"},
                   s.path("shuffler.log"));
  const std::string line = shuffler.read_line();
  REQUIRE_MESSAGE(line.rfind("listening on " + ns.host_ip + ":", 0) == 0, line << slurp(s.path("shuffler.log")));
  const std::string address = line.substr(std::string("listening on ").size());
  Process analyzer({SHUFFLEMPC_CLI, "analyzer", "--config", s.path("session.json"), "--key", s.path("analyzer.key"), "--connect",
                    address, "--json", "--seed", "1"},
                   s.path("analyzer.log"));
  Process parties({"/usr/bin/env", "ip", "netns", "exec", ns.name, SHUFFLEMPC_CLI, "party", "--config", s.path("session.json"),
                   "--id", "0-2", "--key-dir", s.dir, "--inputs", s.path("inputs.json"), "--connect", address, "--json"},
                  s.path("parties.log"));
  const std::string party_report = parties.read_line(std::chrono::seconds(30));
  CHECK_MESSAGE(parties.wait() == 0, slurp(s.path("parties.log")));
  const std::string analyzer_report = analyzer.read_line(std::chrono::seconds(30));
  CHECK_MESSAGE(analyzer.wait() == 0, slurp(s.path("analyzer.log")));
  CHECK(shuffler.wait() == 0);
  const Value a = Value::parse(analyzer_report, nullptr, false);
  REQUIRE_FALSE(a.is_discarded());
  CHECK(a["messages"] == 3);
  CHECK(a["dropped"].empty());
  const Value p = Value::parse(party_report, nullptr, false);
  REQUIRE_FALSE(p.is_discarded());
  CHECK(p["parties"].size() == 3);
}
