// `shufflempc session --decryption-threshold` over real processes: three further servers run
// `mix-server --dkg`, one of them dealing a bad share; `session` coordinates the key generation
// with the shuffler's key file, names the cheat as disqualified and writes the 2-of-4 key and the
// transcript into the config; the session then runs (IKOS, a round to every party) with two of the
// four servers gone after the mix, and `verify --config` accepts its transcript. Wrong thresholds
// and missing addresses are refused with one line naming the option; `local --decryption-threshold`
// makes the key the same way, and refuses a threshold above the servers or without --mix verifiable.
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "net/harness.hpp"
#include "shufflempc/hex.hpp"
#include "shufflempc/net/keys.hpp"
#include "shufflempc/process.hpp"
#include "support/paths.hpp"
#include "support/temp_dir.hpp"

using namespace shufflempc;
using namespace shufflempc::test;

namespace {

// keygen's one line (a key or a server's token) for a key file written to dir/name.
std::string dkg_keygen(const std::string& dir, const std::string& name, std::vector<std::string> flags) {
  std::vector<std::string> args{SHUFFLEMPC_CLI, "keygen", "--out", dir + "/" + name};
  args.insert(args.end(), flags.begin(), flags.end());
  Process p(args, dir + "/keygen.err");
  const std::string line = p.read_line();
  REQUIRE(p.wait() == 0);
  return line;
}

// A process whose first line is "listening on ADDRESS": it and the address.
std::pair<std::unique_ptr<Process>, std::string> dkg_start(const std::string& dir, const std::string& name, std::vector<std::string> args) {
  auto p = std::make_unique<Process>(std::move(args), dir + "/" + name + ".log");
  const std::string line = p->read_line();
  REQUIRE_MESSAGE(line.rfind("listening on 127.0.0.1:", 0) == 0, line << slurp(dir + "/" + name + ".log"));
  return {std::move(p), line.substr(std::string("listening on ").size())};
}

}  // namespace

TEST_CASE("session --decryption-threshold: a key made by the servers over TCP, a cheating dealer named, a round with two servers gone") {
  const TempDir tmp("shufflempc-dkg");
  const std::string& dir = tmp.path();
  const std::string analyzer = dkg_keygen(dir, "analyzer.key", {"--verifiable"});
  std::vector<std::string> tokens;
  for (int h = 0; h < 4; ++h) tokens.push_back(dkg_keygen(dir, "mix-" + std::to_string(h) + ".key", {"--mix-server", "--verifiable"}));
  {
    std::ofstream keys(dir + "/party-keys.txt");
    for (int i = 0; i < 3; ++i) keys << dkg_keygen(dir, "party-" + std::to_string(i) + ".key", {}) << '\n';
  }
  const std::string chain = tokens[0] + "," + tokens[1] + "," + tokens[2] + "," + tokens[3];
  const auto session = [&](std::vector<std::string> extra, const std::string& out) {
    std::vector<std::string> args{SHUFFLEMPC_CLI, "session", "--protocol", "ikos-key-exchange", "--param", "k=2", "--param", "labels=6",
                                  "--shuffler-key", dir + "/mix-0.key", "--analyzer-key", analyzer, "--party-keys", dir + "/party-keys.txt",
                                  "--mix-server-keys", chain, "--mix", "verifiable", "--out", dir + "/" + out};
    args.insert(args.end(), extra.begin(), extra.end());
    return std::make_unique<Process>(args, dir + "/" + out + ".err");
  };
  // Refused with one line each, before anything is dialled.
  {
    auto s = session({"--decryption-threshold", "5", "--dkg-addresses", "127.0.0.1:1,127.0.0.1:2,127.0.0.1:3"}, "five.json");
    CHECK(s->wait() == 2);
    CHECK(slurp(dir + "/five.json.err").find("--decryption-threshold must be in [1, 4] (the chain's servers), got 5") != std::string::npos);
    auto a = session({"--decryption-threshold", "2"}, "none.json");
    CHECK(a->wait() == 2);
    CHECK(slurp(dir + "/none.json.err").find("--dkg-addresses must list the 3 further servers' addresses") != std::string::npos);
  }
  // The key generation: server 3 cheats server 1.
  std::vector<std::unique_ptr<Process>> dealers;
  std::string addresses;
  for (int h = 1; h <= 3; ++h) {
    std::vector<std::string> args{SHUFFLEMPC_CLI, "mix-server", "--dkg", "--key", dir + "/mix-" + std::to_string(h) + ".key", "--shuffler-key",
                                  tokens[0].substr(0, 64), "--listen", "127.0.0.1:0", "--json"};
    if (h == 3) args.insert(args.end(), {"--fault-dkg-bad-share", "1"});
    auto [p, address] = dkg_start(dir, "dkg-" + std::to_string(h), args);
    dealers.push_back(std::move(p));
    addresses += (addresses.empty() ? "" : ",") + address;
  }
  {
    auto s = session({"--decryption-threshold", "2", "--dkg-addresses", addresses}, "session.json");
    const std::string first = s->read_line();
    CHECK(first.find("over a verifiable chain of 4 mix servers written to") != std::string::npos);
    CHECK(s->read_line().find("its key made 2-of-4 by the servers (3 of them qualified)") != std::string::npos);
    REQUIRE_MESSAGE(s->wait() == 0, slurp(dir + "/session.json.err"));
    CHECK(slurp(dir + "/session.json.err").find("server 3 (" ) != std::string::npos);
    CHECK(slurp(dir + "/session.json.err").find("is disqualified: its share for server 1 is not on its commitments") != std::string::npos);
  }
  for (int h = 1; h <= 3; ++h) {
    CAPTURE(h);
    const Value r = Value::parse(dealers[h - 1]->read_line(), nullptr, false);
    CHECK(dealers[h - 1]->wait() == 0);
    REQUIRE_FALSE(r.is_discarded());
    CHECK(r["error"] == "");
    CHECK(r["server"] == h);
    CHECK(r["qualified"] == Value::array({0, 1, 2}));
    CHECK(r["disqualified"][0]["server"] == 3);
  }
  const auto config = net::SessionConfig::load(dir + "/session.json");
  REQUIRE(config.distributed_key);
  CHECK(config.distributed_key->outcome.key.threshold == 2);

  // The session: servers 2 and 3 go away once they have mixed; 0 and 1 decrypt.
  {
    std::ofstream in(dir + "/inputs.json");
    in << "[null, null, null]\n";
  }
  std::vector<std::unique_ptr<Process>> servers;
  std::string hops;
  for (int h = 1; h <= 3; ++h) {
    std::vector<std::string> args{SHUFFLEMPC_CLI, "mix-server", "--config", dir + "/session.json", "--key", dir + "/mix-" + std::to_string(h) + ".key",
                                  "--listen", "127.0.0.1:0", "--json"};
    if (h >= 2) args.push_back("--fault-gone-after-mix");
    auto [p, address] = dkg_start(dir, "mix-" + std::to_string(h), args);
    servers.push_back(std::move(p));
    hops += (hops.empty() ? "" : ",") + address;
  }
  auto [entry, address] = dkg_start(dir, "shuffler", {SHUFFLEMPC_CLI, "shuffler", "--config", dir + "/session.json", "--key", dir + "/mix-0.key",
                                                      "--hop-addresses", hops, "--json"});
  // A round to every party: no analyzer-only round, so no verdicts and no --listen for the analyzer.
  auto analyzer_process = std::make_unique<Process>(
      std::vector<std::string>{SHUFFLEMPC_CLI, "analyzer", "--config", dir + "/session.json", "--key", dir + "/analyzer.key", "--connect", address,
                               "--transcript", dir + "/transcript.json", "--json"},
      dir + "/analyzer.log");
  Process parties({SHUFFLEMPC_CLI, "party", "--config", dir + "/session.json", "--id", "0-2", "--key-dir", dir, "--inputs", dir + "/inputs.json",
                   "--connect", address, "--json"},
                  dir + "/parties.log");
  CHECK_MESSAGE(parties.wait() == 0, slurp(dir + "/parties.log"));
  CHECK_MESSAGE(analyzer_process->wait() == 0, slurp(dir + "/analyzer.log"));
  CHECK_MESSAGE(entry->wait() == 0, slurp(dir + "/shuffler.log"));
  CHECK(slurp(dir + "/shuffler.log").find("(going on without it)") != std::string::npos);
  CHECK(servers[0]->wait() == 0);
  CHECK(servers[1]->wait() == 1);  // gone after the mix: its session failed
  CHECK(servers[2]->wait() == 1);
  Process verify({SHUFFLEMPC_CLI, "verify", dir + "/transcript.json", "--config", dir + "/session.json"}, dir + "/verify.err");
  CHECK(verify.read_line().find("verified: 1 round(s)") == 0);
  const std::string out = verify.read_line() + "\n" + verify.read_line() + "\n" + verify.read_line();
  CHECK(verify.wait() == 0);
  CHECK(out.find("session " + to_hex(config.session)) != std::string::npos);
  CHECK(out.find("key made 2-of-4 by its servers (qualified: 0, 1, 2; disqualified: server 3)") != std::string::npos);
}

TEST_CASE("local --decryption-threshold: the servers make the key, the round says how many were needed, and wrong uses are refused") {
  const auto ok = run_command({SHUFFLEMPC_CLI, "local", "ikos-key-exchange", "--parties", "3", "--k", "2", "--labels", "6", "--mix-servers", "3",
                               "--mix", "verifiable", "--decryption-threshold", "2"},
                              std::chrono::minutes(2));
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.find("the decryption proofs of 3 of 3 servers (2 needed) verified") != std::string::npos);
  const auto over = run_command({SHUFFLEMPC_CLI, "local", "ikos-key-exchange", "--parties", "3", "--mix-servers", "3", "--mix", "verifiable",
                                 "--decryption-threshold", "4"},
                                std::chrono::minutes(1));
  CHECK(over.exit_code == 2);
  CHECK(over.err.find("--decryption-threshold must be in [1, 3] (the chain's servers), got 4") != std::string::npos);
  const auto onion = run_command({SHUFFLEMPC_CLI, "local", "ikos-key-exchange", "--parties", "3", "--mix-servers", "3", "--decryption-threshold", "2"},
                                 std::chrono::minutes(1));
  CHECK(onion.exit_code == 2);
  CHECK(onion.err.find("--decryption-threshold needs --mix verifiable") != std::string::npos);
}
