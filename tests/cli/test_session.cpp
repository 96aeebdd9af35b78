// `shufflempc session`: a session config from public keys and an address, then the multi-host
// workflow with it (keygen on every "host", session, shuffler, analyzer and a party process).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "net/harness.hpp"
#include "shufflempc/files.hpp"
#include "shufflempc/hex.hpp"
#include "shufflempc/net/mix_hop.hpp"
#include "shufflempc/net/store.hpp"
#include "shufflempc/net/verifiable.hpp"
#include "shufflempc/registry.hpp"
#include "support/temp_dir.hpp"
#include "support/paths.hpp"

using namespace shufflempc;
using namespace shufflempc::test;

namespace {

// What every host does first: keygen for the shuffler, the analyzer and three parties (the
// parties' public keys listed in party-keys.txt). Returns the shuffler's public key.
std::string make_keys(const std::string& dir) {
  const auto keygen = [&](const std::string& name) {
    Process p({SHUFFLEMPC_CLI, "keygen", "--out", dir + "/" + name}, dir + "/keygen.err");
    const std::string pub = p.read_line();
    REQUIRE(p.wait() == 0);
    return pub;
  };
  const std::string shuffler_pub = keygen("shuffler.key");
  (void)keygen("analyzer.key");
  std::ofstream keys(dir + "/party-keys.txt");
  for (int i = 0; i < 3; ++i) keys << keygen("party-" + std::to_string(i) + ".key") << '\n';
  return shuffler_pub;
}

// One run of dir/session.json as separate hosts would make it: the shuffler, the analyzer and one
// party process per item of `parties` (its arguments after `party --config`; `--connect` is
// added). Every process must exit 0; returns the analyzer's report and sets `address` to the
// shuffler's.
Value run_hosts(const std::string& dir, const std::vector<std::vector<std::string>>& parties, std::string& address,
                const std::vector<std::string>& shuffler_extra = {}) {
  std::vector<std::string> shuffler_args = {SHUFFLEMPC_CLI, "shuffler", "--config", dir + "/session.json", "--key", dir + "/shuffler.key", "--json"};
  shuffler_args.insert(shuffler_args.end(), shuffler_extra.begin(), shuffler_extra.end());
  Process shuffler(shuffler_args, dir + "/shuffler.log");
  const std::string line = shuffler.read_line();
  REQUIRE_MESSAGE(line.rfind("listening on 127.0.0.1:", 0) == 0, line << slurp(dir + "/shuffler.log"));
  address = line.substr(std::string("listening on ").size());
  Process analyzer({SHUFFLEMPC_CLI, "analyzer", "--config", dir + "/session.json", "--key", dir + "/analyzer.key", "--connect",
                    address, "--json"},
                   dir + "/analyzer.log");
  std::vector<std::unique_ptr<Process>> hosts;
  for (std::size_t i = 0; i < parties.size(); ++i) {
    std::vector<std::string> args = {SHUFFLEMPC_CLI, "party", "--config", dir + "/session.json"};
    args.insert(args.end(), parties[i].begin(), parties[i].end());
    args.insert(args.end(), {"--connect", address});
    hosts.push_back(std::make_unique<Process>(args, dir + "/parties-" + std::to_string(i) + ".log"));
  }
  for (std::size_t i = 0; i < hosts.size(); ++i) CHECK_MESSAGE(hosts[i]->wait() == 0, slurp(dir + "/parties-" + std::to_string(i) + ".log"));
  const Value report = Value::parse(analyzer.read_line(std::chrono::seconds(30)), nullptr, false);
  CHECK_MESSAGE(analyzer.wait() == 0, slurp(dir + "/analyzer.log"));
  CHECK(shuffler.wait() == 0);
  REQUIRE_FALSE(report.is_discarded());
  return report;
}

}  // namespace

TEST_CASE("shufflempc session writes the config every process of a multi-host run reads") {
  const test::TempDir tmp("shufflempc-sessiontest");
  const std::string& dir = tmp.path();
  const std::string shuffler_pub = make_keys(dir);
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
  std::string address;
  const Value report = run_hosts(dir, {{"--id", "0-2", "--key-dir", dir, "--inputs", dir + "/inputs.json", "--json"}}, address);
  CHECK(report["messages"] == 3);

  // --listen-fd must name a listening TCP socket this process inherited (as `local` passes one),
  // and excludes --listen: one line each, exit 2.
  Process not_socket({SHUFFLEMPC_CLI, "shuffler", "--config", dir + "/session.json", "--key", dir + "/shuffler.key", "--listen-fd", "7"},
                     dir + "/fd.err");
  CHECK(not_socket.wait() == 2);
  CHECK(slurp(dir + "/fd.err").find("descriptor 7 is not a listening TCP socket") != std::string::npos);
  Process both({SHUFFLEMPC_CLI, "shuffler", "--config", dir + "/session.json", "--key", dir + "/shuffler.key", "--listen-fd", "3",
                "--listen", "127.0.0.1:0"},
               dir + "/both.err");
  CHECK(both.wait() == 2);
  CHECK(slurp(dir + "/both.err").find("--listen excludes --listen-fd") != std::string::npos);

  // A key bundle that does not hold every party of --id: one line naming both, exit 2.
  Process bundle({SHUFFLEMPC_CLI, "keygen", "--parties", "0-1", "--out", dir + "/two.keys"}, dir + "/bundle.err");
  CHECK(bundle.wait() == 0);
  Process short_bundle({SHUFFLEMPC_CLI, "party", "--config", dir + "/session.json", "--id", "0-2", "--key-bundle", dir + "/two.keys",
                        "--inputs", dir + "/inputs.json", "--connect", address},
                       dir + "/short.err");
  CHECK(short_bundle.wait() == 2);
  CHECK(slurp(dir + "/short.err").find("--id 0-2 is not inside --key-bundle " + dir + "/two.keys, which holds parties 0-1") != std::string::npos);

  // --inputs holds the hosted parties' inputs in id order or every party's: any other length is
  // refused with both counts named, exit 2. (`local` gives each party process its own parties' only.)
  {
    std::ofstream in(dir + "/one.json");
    in << "[1]\n";
  }
  Process wrong_inputs({SHUFFLEMPC_CLI, "party", "--config", dir + "/session.json", "--id", "0-1", "--key-dir", dir, "--inputs",
                        dir + "/one.json", "--connect", address},
                       dir + "/wrong-inputs.err");
  CHECK(wrong_inputs.wait() == 2);
  CHECK(slurp(dir + "/wrong-inputs.err").find("--inputs must be a JSON array of 2 inputs (parties 0-1, in id order) or of 3 (every party's, by id), got an array of 1") !=
        std::string::npos);

  // A parameter the protocol does not accept: one line naming it, exit 2.
  Process bad({SHUFFLEMPC_CLI, "session", "--protocol", "central-laplace", "--param", "epsilon=0", "--shuffler-key", shuffler_pub,
               "--analyzer-key", shuffler_pub, "--party-keys", dir + "/party-keys.txt", "--out", dir + "/bad.json"},
              dir + "/bad.err");
  CHECK(bad.wait() == 2);
  CHECK(slurp(dir + "/bad.err").find("parameter 'epsilon' = 0 is out of range") != std::string::npos);

  // --out through a symbolic link (planted in a shared directory, say): refused, the target untouched.
  {
    std::ofstream target(dir + "/target.txt");
    target << "untouched\n";
  }
  REQUIRE(::symlink((dir + "/target.txt").c_str(), (dir + "/link.json").c_str()) == 0);
  Process linked({SHUFFLEMPC_CLI, "session", "--protocol", "central-laplace", "--shuffler-key", shuffler_pub, "--analyzer-key",
                  dir + "/analyzer.key", "--party-keys", dir + "/party-keys.txt", "--out", dir + "/link.json"},
                 dir + "/linked.err");
  CHECK(linked.wait() == 2);
  CHECK(slurp(dir + "/linked.err").find("is a symbolic link") != std::string::npos);
  CHECK(slurp(dir + "/target.txt") == "untouched\n");
}

TEST_CASE("the walkthrough's conveniences: keygen --show prints a key's token again, --port-file, session refuses to overwrite, one line for an ESA round's parties") {
  const test::TempDir tmp("shufflempc-walkthrough");
  const std::string& dir = tmp.path();
  const std::string shuffler_pub = make_keys(dir);
  // The token again, from the key file alone (the analyzer's, with --verifiable: its ElGamal key too).
  Process show({SHUFFLEMPC_CLI, "keygen", "--show", dir + "/shuffler.key"}, dir + "/show.err");
  CHECK(show.read_line() == shuffler_pub);
  CHECK(show.wait() == 0);
  Process verifiable({SHUFFLEMPC_CLI, "keygen", "--verifiable", "--show", dir + "/analyzer.key"}, dir + "/show-v.err");
  const std::string token = verifiable.read_line();
  CHECK(verifiable.wait() == 0);
  CHECK(token.rfind(to_hex(net::KeyPair::load(dir + "/analyzer.key").public_key()) + ":", 0) == 0);
  CHECK(net::check_verifiable_key(net::parse_verifiable_key(token.substr(65), "token"), net::KeyPair::load(dir + "/analyzer.key").public_key()) == "");
  Process neither({SHUFFLEMPC_CLI, "keygen"}, dir + "/neither.err");
  CHECK(neither.wait() == 2);
  CHECK(slurp(dir + "/neither.err").find("--out FILE is required (or --show FILE") != std::string::npos);
  Process missing({SHUFFLEMPC_CLI, "keygen", "--show", dir + "/none.key"}, dir + "/missing.err");
  CHECK(missing.wait() == 2);
  CHECK(slurp(dir + "/missing.err").find("cannot read key file " + dir + "/none.key") != std::string::npos);

  const std::vector<std::string> write = {SHUFFLEMPC_CLI, "session", "--protocol", "central-laplace", "--shuffler-key", shuffler_pub,
                                          "--analyzer-key", dir + "/analyzer.key", "--party-keys", dir + "/party-keys.txt", "--out",
                                          dir + "/session.json"};
  Process first(write, dir + "/first.err");
  REQUIRE(first.wait() == 0);
  const std::string written = slurp(dir + "/session.json");
  Process again(write, dir + "/again.err");
  CHECK(again.wait() == 2);
  CHECK(slurp(dir + "/again.err").find("exists already: give --force to replace it") != std::string::npos);
  CHECK(slurp(dir + "/session.json") == written);
  auto forced = write;
  forced.push_back("--force");
  Process replaced(forced, dir + "/forced.err");
  CHECK(replaced.wait() == 0);
  CHECK(slurp(dir + "/session.json") != written);  // a new session id

  // The shuffler writes its port to --port-file; the party process's text report is one line for
  // parties whose output is the analyzer's (central-laplace delivers to it only).
  Process shuffler({SHUFFLEMPC_CLI, "shuffler", "--config", dir + "/session.json", "--key", dir + "/shuffler.key", "--listen", "127.0.0.1:0",
                    "--port-file", dir + "/shuffler.port"},
                   dir + "/shuffler.log");
  const std::string line = shuffler.read_line();
  const std::string port = line.substr(line.rfind(':') + 1);
  CHECK(slurp(dir + "/shuffler.port") == port + "\n");
  CHECK_FALSE(std::filesystem::exists(dir + "/shuffler.port.partial"));
  // The analyzer's port file is that of the parties' verdicts: without --listen there is none.
  Process no_listen({SHUFFLEMPC_CLI, "analyzer", "--config", dir + "/session.json", "--key", dir + "/analyzer.key", "--port-file",
                     dir + "/analyzer.port"},
                    dir + "/no-listen.err");
  CHECK(no_listen.wait() == 2);
  CHECK(slurp(dir + "/no-listen.err").find("--port-file needs --listen") != std::string::npos);
  // Its WebSocket door is the verdict port's: it needs --listen, and its port file needs the door;
  // the shuffler's port file needs its door too. Each refused with one line, exit 2.
  const std::vector<std::pair<std::vector<std::string>, std::string>> doors = {
      {{"analyzer", "--websocket", "127.0.0.1:0"}, "--websocket needs --listen: the door carries the parties' verdicts to the verdict port"},
      {{"analyzer", "--listen", "127.0.0.1:0", "--websocket-port-file", dir + "/ws.port"}, "--websocket-port-file needs --websocket ADDR:PORT"},
      {{"shuffler", "--websocket-port-file", dir + "/ws.port"}, "--websocket-port-file needs --websocket ADDR:PORT"}};
  for (const auto& [args, said] : doors) {
    std::vector<std::string> argv = {SHUFFLEMPC_CLI};
    argv.insert(argv.end(), args.begin(), args.end());
    for (const auto& a : {std::string("--config"), dir + "/session.json", std::string("--key"), dir + "/" + args[0] + ".key"}) argv.push_back(a);
    Process refused(argv, dir + "/door.err");
    CAPTURE(args);
    CHECK(refused.wait() == 2);
    CHECK(slurp(dir + "/door.err").find(said) != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir + "/ws.port"));
  }
  Process analyzer({SHUFFLEMPC_CLI, "analyzer", "--config", dir + "/session.json", "--key", dir + "/analyzer.key", "--connect", "127.0.0.1:" + port},
                   dir + "/analyzer.log");
  {
    std::ofstream in(dir + "/inputs.json");
    in << "[1, 0, 1]\n";
  }
  Process parties({SHUFFLEMPC_CLI, "party", "--config", dir + "/session.json", "--id", "0-2", "--key-dir", dir, "--inputs", dir + "/inputs.json",
                   "--connect", "127.0.0.1:" + port},
                  dir + "/parties.log");
  CHECK(parties.read_line() == "3 of parties 0-2 took part; their output is the analyzer's (its rounds deliver to it only)");
  CHECK(parties.wait() == 0);
  CHECK(analyzer.wait() == 0);
  CHECK(shuffler.wait() == 0);
}

TEST_CASE("a session config binds the content of the files its parameters read, and a host with another file is refused") {
  const test::TempDir tmp("shufflempc-sessionfiles");
  const std::string& dir = tmp.path();
  const std::string shuffler_pub = make_keys(dir);
  const std::string program = dir + "/prog.f";
  const auto write_program = [&](const std::string& text) {
    std::ofstream out(program, std::ios::trunc);
    out << text;
  };
  write_program("input x@*;\noutput s = sum(x);\n");
  Process session({SHUFFLEMPC_CLI, "session", "--protocol", "mpc2", "--param", "function=@" + program, "--shuffler-key", shuffler_pub,
                   "--analyzer-key", dir + "/analyzer.key", "--party-keys", dir + "/party-keys.txt", "--out", dir + "/session.json"},
                  dir + "/session.err");
  REQUIRE_MESSAGE(session.wait() == 0, slurp(dir + "/session.err"));
  const auto config = net::SessionConfig::load(dir + "/session.json");
  REQUIRE(config.file_digests.count("function") == 1);
  CHECK(config.file_digests.at("function") == file_digest(program, "program"));

  // A party (or the analyzer) checks the files before it connects; port 1 is never reached.
  const auto party = [&](const std::string& config_path, const std::string& log) {
    return std::make_unique<Process>(std::vector<std::string>{SHUFFLEMPC_CLI, "party", "--config", config_path, "--id", "0", "--key",
                                                              dir + "/party-0.key", "--input", "1", "--connect", "127.0.0.1:1"},
                                     dir + "/" + log);
  };
  const auto analyzer = [&](const std::string& config_path, const std::string& log) {
    return std::make_unique<Process>(std::vector<std::string>{SHUFFLEMPC_CLI, "analyzer", "--config", config_path, "--key",
                                                              dir + "/analyzer.key", "--connect", "127.0.0.1:1"},
                                     dir + "/" + log);
  };

  // One host's prog.f differs (the same digest would otherwise let it compute another function).
  write_program("input x@*;\noutput s = sum(x) + 1;\n");
  auto other = party(dir + "/session.json", "other.log");
  CHECK(other->wait() == 2);
  CHECK(slurp(dir + "/other.log").find("parameter 'function' reads " + program + ", whose content here differs") != std::string::npos);
  auto other_analyzer = analyzer(dir + "/session.json", "other-analyzer.log");
  CHECK(other_analyzer->wait() == 2);
  CHECK(slurp(dir + "/other-analyzer.log").find("whose content here differs") != std::string::npos);

  // The shuffler reads no file a parameter names: it enforces the config's round shapes and serves
  // whatever the program on its host, or with none there at all.
  std::filesystem::remove(program);
  {
    Process shuffler({SHUFFLEMPC_CLI, "shuffler", "--config", dir + "/session.json", "--key", dir + "/shuffler.key", "--listen",
                      "127.0.0.1:0"},
                     dir + "/shuffler.log");
    CHECK_MESSAGE(shuffler.read_line().rfind("listening on 127.0.0.1:", 0) == 0, slurp(dir + "/shuffler.log"));
  }

  // A config that binds nothing for a file-reading parameter, or binds a file no parameter reads.
  write_program("input x@*;\noutput s = sum(x);\n");
  Value j = config.to_json();
  j.erase("file_digests");
  {
    std::ofstream out(dir + "/unbound.json");
    out << j.dump();
  }
  auto unbound = party(dir + "/unbound.json", "unbound.log");
  CHECK(unbound->wait() == 2);
  CHECK(slurp(dir + "/unbound.log").find("binds no content for it") != std::string::npos);
  j["file_digests"] = {{"function", config.file_digests.at("function")}, {"prime", config.file_digests.at("function")}};
  {
    std::ofstream out(dir + "/extra.json");
    out << j.dump();
  }
  auto extra = party(dir + "/extra.json", "extra.log");
  CHECK(extra->wait() == 2);
  CHECK(slurp(dir + "/extra.log").find("file_digests.prime binds a file no parameter reads") != std::string::npos);
}

TEST_CASE("a party or analyzer whose protocol declares other round shapes than its config is refused before it connects") {
  // The shuffler enforces the config's shapes; a config edited (or written by another version) so
  // that they differ from what the protocol declares would have every honest batch refused there.
  const test::TempDir tmp("shufflempc-sessionrounds");
  const std::string& dir = tmp.path();
  const std::string shuffler_pub = make_keys(dir);
  Process session({SHUFFLEMPC_CLI, "session", "--protocol", "central-laplace", "--shuffler-key", shuffler_pub,
                   "--analyzer-key", dir + "/analyzer.key", "--party-keys", dir + "/party-keys.txt", "--out", dir + "/session.json"},
                  dir + "/session.err");
  REQUIRE_MESSAGE(session.wait() == 0, slurp(dir + "/session.err"));
  const auto config = net::SessionConfig::load(dir + "/session.json");
  // central-laplace: one round, each party sends its bit sealed to the analyzer.
  REQUIRE(config.rounds.size() == 1);
  CHECK(config.rounds[0].width == 1 + 48);
  CHECK(config.rounds[0].delivery == Delivery::analyzer_only);
  CHECK(config.rounds[0].min_messages == 1);
  CHECK(config.rounds[0].max_messages == 1);
  const auto run = [&](const Value& j, const std::string& name) {
    {
      std::ofstream out(dir + "/" + name + ".json");
      out << j.dump();
    }
    Process p({SHUFFLEMPC_CLI, "party", "--config", dir + "/" + name + ".json", "--id", "0", "--key", dir + "/party-0.key", "--input",
               "1", "--connect", "127.0.0.1:1"},
              dir + "/" + name + ".log");
    CHECK(p.wait() == 2);
    return slurp(dir + "/" + name + ".log");
  };
  Value j = config.to_json();
  j["rounds"][0]["max_messages"] = 3u;
  CHECK(run(j, "wider").find("rounds[0] is width 49 analyzer-only, 1..3 messages per party, but the protocol central-laplace here "
                             "declares width 49 analyzer-only, 1..1 messages per party") != std::string::npos);
  j = config.to_json();
  j["rounds"].push_back(j["rounds"][0]);
  CHECK(run(j, "longer").find("it declares 2 round(s), the protocol central-laplace here has 1") != std::string::npos);
}

TEST_CASE("an @FILE program that does not parse is refused with its position, never its text") {
  const test::TempDir tmp("shufflempc-atfile");
  const std::string path = tmp.path() + "/secret.txt";
  {
    std::ofstream out(path);
    out << "input x@*;\noutput s = sum(x) + SECRETWORD;\n";
  }
  const Registry registry = builtin_registry();
  try {
    (void)registry.create("mpc2", {{"function", "@" + path}}, 3);
    FAIL("accepted an invalid program");
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    CHECK(what.find("--function @" + path + ", line 2") != std::string::npos);
    CHECK(what.find("SECRETWORD") == std::string::npos);
  }
  // Inline, the same program's error names the identifier.
  CHECK_THROWS_WITH_AS((void)registry.create("mpc2", {{"function", "input x@*; output s = sum(x) + SECRETWORD"}}, 3),
                       doctest::Contains("SECRETWORD"), std::invalid_argument);
}

namespace {

// keygen --mix-server, session --mix-server-keys, mix-server and shuffler --hop-addresses, the
// analyzer and the parties as separate processes; with `verifiable`, keygen --verifiable, session
// --mix verifiable, and the analyzer's transcript checked by shufflempc verify. Without it, the second
// server and the shuffler are started with the spellings before 0.2 (shuffler --hop 2, shuffler
// --mix-servers ADDRESSES), which still run and say what to type instead.
void multi_host_chain(bool verifiable) {
  const test::TempDir tmp("shufflempc-sessionchain");
  const std::string& dir = tmp.path();
  (void)make_keys(dir);
  std::string analyzer_key = dir + "/analyzer.key";
  if (verifiable) {  // the analyzer's KEY:ELGAMAL_KEY:PROOF, from a key file of its own
    Process p({SHUFFLEMPC_CLI, "keygen", "--verifiable", "--out", dir + "/analyzer-v.key"}, dir + "/keygen.err");
    analyzer_key = p.read_line();
    REQUIRE(p.wait() == 0);
    REQUIRE(analyzer_key.size() == 64 + 1 + 64 + 1 + 128);
    std::filesystem::rename(dir + "/analyzer-v.key", dir + "/analyzer.key");
  }
  // Each server's token KEY:SIGNING_KEY (the shuffler of a chained session is its first server).
  const auto token = [&](const std::string& name) {
    std::vector<std::string> args{SHUFFLEMPC_CLI, "keygen", "--mix-server", "--out", dir + "/" + name};
    if (verifiable) args.push_back("--verifiable");
    Process p(args, dir + "/keygen.err");
    const std::string t = p.read_line();
    REQUIRE(p.wait() == 0);
    REQUIRE(t.size() == (verifiable ? 64 + 1 + 64 + 1 + 64 + 1 + 128 : 64 + 1 + 64));
    CHECK(t.substr(0, 64) == to_hex(net::KeyPair::load(dir + "/" + name).public_key()));
    return t;
  };
  const std::string t0 = token("entry.key"), t1 = token("mix-1.key"), t2 = token("mix-2.key");
  const auto session = [&](const std::string& chain, const std::string& out) {
    std::vector<std::string> args{SHUFFLEMPC_CLI,     "session", "--protocol",     "central-laplace", "--shuffler-key",
                                  t0.substr(0, 64),   "--analyzer-key", analyzer_key, "--party-keys", dir + "/party-keys.txt",
                                  "--mix-server-keys", chain,      "--out",          dir + "/" + out};
    if (verifiable) args.insert(args.end(), {"--mix", "verifiable"});
    return std::make_unique<Process>(args, dir + "/" + out + ".err");
  };
  {
    auto s = session(t0 + "," + t1 + "," + t2, "session.json");
    CHECK(s->read_line().find(verifiable ? "over a verifiable chain of 3 mix servers written to" : "over a chain of 3 mix servers written to") !=
          std::string::npos);
    REQUIRE_MESSAGE(s->wait() == 0, slurp(dir + "/session.json.err"));
  }
  const auto config = net::SessionConfig::load(dir + "/session.json");
  REQUIRE(config.mix_chain.size() == 3);
  CHECK(net::to_string(config.mix_chain[2]) == t2);
  if (verifiable) {  // the analyzer's key file itself, or a file holding its token, does as well as the token
    const std::string token_text = analyzer_key;
    {
      std::ofstream f(dir + "/analyzer.token");
      f << token_text << '\n';
    }
    for (const std::string& given : {dir + "/analyzer.key", dir + "/analyzer.token"}) {
      CAPTURE(given);
      analyzer_key = given;
      auto s = session(t0 + "," + t1 + "," + t2, "by-file.json");
      REQUIRE_MESSAGE(s->wait() == 0, slurp(dir + "/by-file.json.err"));
      const auto by_file = net::SessionConfig::load(dir + "/by-file.json");
      CHECK(by_file.analyzer_key == config.analyzer_key);
      REQUIRE(by_file.analyzer_elgamal.has_value());
      CHECK(by_file.analyzer_elgamal->key == config.analyzer_elgamal->key);
      std::filesystem::remove(dir + "/by-file.json");
    }
    analyzer_key = dir + "/party-keys.txt";  // neither: one line naming what it takes
    auto bad = session(t0 + "," + t1 + "," + t2, "bad-analyzer.json");
    CHECK(bad->wait() == 2);
    CHECK(slurp(dir + "/bad-analyzer.json.err").find("--analyzer-key " + dir + "/party-keys.txt holds neither KEY:ELGAMAL_KEY:PROOF") !=
          std::string::npos);
    analyzer_key = token_text;
  }
  // Refused, each with one line: one server, the shuffler not first.
  {
    auto s = session(t0, "one.json");
    CHECK(s->wait() == 2);
    CHECK(slurp(dir + "/one.json.err").find("--mix-server-keys must list 2 to 16 servers") != std::string::npos);
    auto t = session(t1 + "," + t0, "order.json");
    CHECK(t->wait() == 2);
    CHECK(slurp(dir + "/order.json.err").find("the first server is the shuffler") != std::string::npos);
  }
  // A server started at the wrong place of the chain says where its key is.
  {
    Process wrong({SHUFFLEMPC_CLI, "mix-server", "--hop", "2", "--config", dir + "/session.json", "--key", dir + "/mix-1.key", "--listen",
                   "127.0.0.1:0"},
                  dir + "/wrong.err");
    CHECK(wrong.wait() == 2);
    CHECK(slurp(dir + "/wrong.err").find("--hop 2: this key is server 1 of the chain") != std::string::npos);
  }
  // The run: two further servers, the shuffler given their addresses, the analyzer and the parties.
  {
    std::ofstream in(dir + "/inputs.json");
    in << "[1, 1, 0]\n";
  }
  const auto start = [&](const std::string& name, std::vector<std::string> args) {
    auto p = std::make_unique<Process>(std::move(args), dir + "/" + name + ".log");
    const std::string line = p->read_line();
    REQUIRE_MESSAGE(line.rfind("listening on 127.0.0.1:", 0) == 0, line << slurp(dir + "/" + name + ".log"));
    return std::make_pair(std::move(p), line.substr(std::string("listening on ").size()));
  };
  const bool old_spelling = !verifiable;
  auto [one, a1] = start("mix-1", {SHUFFLEMPC_CLI, "mix-server", "--config", dir + "/session.json", "--key", dir + "/mix-1.key",
                                   "--listen", "127.0.0.1:0", "--json"});
  auto [two, a2] = start("mix-2", {SHUFFLEMPC_CLI, old_spelling ? "shuffler" : "mix-server", "--hop", "2", "--config", dir + "/session.json",
                                   "--key", dir + "/mix-2.key", "--listen", "127.0.0.1:0", "--json"});
  auto [entry, address] = start("shuffler", {SHUFFLEMPC_CLI, "shuffler", "--config", dir + "/session.json", "--key", dir + "/entry.key",
                                             old_spelling ? "--mix-servers" : "--hop-addresses", a1 + "," + a2, "--json"});
  // The analyzer takes the parties' verdicts on their receipts on an address of its own (this
  // analyzer-only round crosses the chain): it says where, as the servers do.
  std::vector<std::string> analyzer_args{SHUFFLEMPC_CLI, "analyzer", "--config", dir + "/session.json", "--key", dir + "/analyzer.key",
                                         "--connect", address, "--listen", "127.0.0.1:0", "--json"};
  if (verifiable) analyzer_args.insert(analyzer_args.end(), {"--transcript", dir + "/transcript.json"});
  auto [analyzer_process, verdicts_at] = start("analyzer", analyzer_args);
  Process& analyzer = *analyzer_process;
  Process parties({SHUFFLEMPC_CLI, "party", "--config", dir + "/session.json", "--id", "0-2", "--key-dir", dir, "--inputs",
                   dir + "/inputs.json", "--connect", address, "--analyzer", verdicts_at, "--json"},
                  dir + "/parties.log");
  CHECK_MESSAGE(parties.wait() == 0, slurp(dir + "/parties.log"));
  const Value report = Value::parse(analyzer.read_line(std::chrono::seconds(30)), nullptr, false);
  CHECK_MESSAGE(analyzer.wait() == 0, slurp(dir + "/analyzer.log"));
  CHECK_MESSAGE(entry->wait() == 0, slurp(dir + "/shuffler.log"));
  const Value r1 = Value::parse(one->read_line(std::chrono::seconds(30)), nullptr, false);
  CHECK_MESSAGE(one->wait() == 0, slurp(dir + "/mix-1.log"));
  CHECK_MESSAGE(two->wait() == 0, slurp(dir + "/mix-2.log"));
  REQUIRE_FALSE(report.is_discarded());
  CHECK(report["messages"] == 3);
  REQUIRE_FALSE(r1.is_discarded());
  CHECK(r1[0]["hop"] == 1);
  CHECK(r1[0]["rounds"][0]["records_in"] == 3);
  CHECK(r1[0]["error"] == "");
  CHECK((slurp(dir + "/mix-2.log").find("--hop is spelled `shufflempc mix-server` now") != std::string::npos) == old_spelling);
  CHECK((slurp(dir + "/shuffler.log").find("--mix-servers ADDRESSES is spelled --hop-addresses now") != std::string::npos) == old_spelling);
  if (verifiable) {
    REQUIRE(report.contains("verifiable_mix"));
    CHECK(report["verifiable_mix"]["rounds"][0]["records"] == 3);
    CHECK(report["verifiable_mix"]["hops"] == 3);
    // Its closing hint names the session config it ran with (verify --config ties the transcript to it).
    CHECK(report["verifiable_mix"]["session_config"] == dir + "/session.json");
    Process verify({SHUFFLEMPC_CLI, "verify", dir + "/transcript.json"}, dir + "/verify.err");
    CHECK(verify.read_line().find("verified: 1 round(s), 3 records each proved by its sender, 3 proofs of shuffle each signed by its hop's server") == 0);
    CHECK(verify.read_line().find("not tied to a session") == 0);
    CHECK(verify.wait() == 0);
    // Tied to the session every host read: its id, its three servers as the signers, its one round.
    Process bound({SHUFFLEMPC_CLI, "verify", dir + "/transcript.json", "--config", dir + "/session.json"}, dir + "/verify-bound.err");
    CHECK(bound.read_line().find("verified: 1 round(s)") == 0);
    CHECK(bound.read_line().find("session " + to_hex(config.session)) == 0);
    CHECK(bound.wait() == 0);
    return;
  }
  REQUIRE(report.contains("mix_chain"));
  REQUIRE(report["mix_chain"]["rounds"].size() == 1);
  CHECK(report["mix_chain"]["rounds"][0]["hops"].size() == 3);
  CHECK(report["mix_chain"]["rounds"][0]["hops"][2]["records_out"] == 3);
}

}  // namespace

TEST_CASE("the multi-host commands of a chain of mix servers: keygen --mix-server, session --mix-server-keys, mix-server, shuffler --hop-addresses, and the spellings before 0.2") {
  multi_host_chain(false);
}

TEST_CASE("the multi-host commands of a verifiable chain: keygen --verifiable, session --mix verifiable, analyzer --transcript, verify") {
  multi_host_chain(true);
}

TEST_CASE("shufflempc session: a host's range of parties under one key (keygen --one-key, a KEY COUNT line) runs, and a bad line is named") {
  const test::TempDir tmp("shufflempc-sessiontest");
  const std::string& dir = tmp.path();
  const auto keygen = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {SHUFFLEMPC_CLI, "keygen"});
    Process p(args, dir + "/keygen.err");
    const std::string line = p.read_line();
    REQUIRE_MESSAGE(p.wait() == 0, slurp(dir + "/keygen.err"));
    return line;
  };
  const std::string shuffler_pub = keygen({"--out", dir + "/shuffler.key"});
  (void)keygen({"--out", dir + "/analyzer.key"});
  const std::string one = keygen({"--out", dir + "/party-0.key"});
  const std::string range = keygen({"--parties", "1-4", "--one-key", "--out", dir + "/parties-1-4.keys"});
  REQUIRE(range.size() == 64 + 2);
  CHECK(range.substr(64) == " 4");
  {
    std::ofstream keys(dir + "/party-keys.txt");
    keys << one << '\n' << range << '\n';
  }
  Process session({SHUFFLEMPC_CLI, "session", "--protocol", "central-laplace", "--param", "epsilon=2", "--shuffler-key", shuffler_pub,
                   "--analyzer-key", dir + "/analyzer.key", "--party-keys", dir + "/party-keys.txt", "--out", dir + "/session.json"},
                  dir + "/session.err");
  CHECK(session.read_line().find("with 5 parties written to") != std::string::npos);
  REQUIRE_MESSAGE(session.wait() == 0, slurp(dir + "/session.err"));
  const auto config = net::SessionConfig::load(dir + "/session.json");
  REQUIRE(config.parties == 5);
  for (PartyId id = 1; id <= 4; ++id) CHECK(to_hex(config.party_keys[id]) == range.substr(0, 64));
  CHECK(to_hex(config.party_keys[0]) == one);
  CHECK(net::KeyBundle::load(dir + "/parties-1-4.keys").shares_one_key());
  // The largest range keygen takes in one bundle is still one key in a file of one line.
  const std::string most = keygen({"--parties", "0-9999999", "--one-key", "--out", dir + "/parties-0-9999999.keys"});
  CHECK(most.substr(64) == " 10000000");
  CHECK(std::filesystem::file_size(dir + "/parties-0-9999999.keys") < 256);

  // The run: party 0 with its key file, parties 1-4 in one process with the one-key bundle.
  {
    std::ofstream in(dir + "/inputs.json");
    in << "[1, 0, 1, 1, 0]\n";
  }
  std::string address;
  const Value report = run_hosts(dir,
                                 {{"--id", "0", "--key", dir + "/party-0.key", "--inputs", dir + "/inputs.json"},
                                  {"--id", "1-4", "--key-bundle", dir + "/parties-1-4.keys", "--inputs", dir + "/inputs.json"}},
                                 address);
  CHECK(report["messages"] == 5);

  // A line with a zero, a negative or a non-numeric count, or a third field: one line naming it, exit 2.
  for (const auto& [text, expected] : std::vector<std::pair<std::string, std::string>>{
           {one + " 0", "--party-keys line 1: the party count must be in [1, 100000000], got '0'"},
           {one + " -3", "--party-keys line 1: the party count must be in [1, 100000000], got '-3'"},
           {one + " many", "--party-keys line 1: the party count must be in [1, 100000000], got 'many'"},
           {one + " 2 3", "--party-keys line 1 must be KEY or KEY COUNT"}}) {
    CAPTURE(text);
    {
      std::ofstream keys(dir + "/bad-keys.txt");
      keys << text << '\n';
    }
    Process bad({SHUFFLEMPC_CLI, "session", "--protocol", "central-laplace", "--param", "epsilon=2", "--shuffler-key", shuffler_pub,
                 "--analyzer-key", dir + "/analyzer.key", "--party-keys", dir + "/bad-keys.txt", "--out", dir + "/bad.json"},
                dir + "/bad.err");
    CHECK(bad.wait() == 2);
    CHECK(slurp(dir + "/bad.err").find(expected) != std::string::npos);
  }
  // --one-key without --parties.
  Process lone({SHUFFLEMPC_CLI, "keygen", "--one-key", "--out", dir + "/lone.key"}, dir + "/lone.err");
  CHECK(lone.wait() == 2);
  CHECK(slurp(dir + "/lone.err").find("--one-key needs --parties FIRST-LAST") != std::string::npos);
}

TEST_CASE("session names the shuffler's signing key from its key file or token, and a shuffler with a state directory needs it") {
  const test::TempDir tmp("shufflempc-sessionsigner");
  const std::string& dir = tmp.path();
  const std::string shuffler_pub = make_keys(dir);
  const auto signer = net::signing_key_of(net::KeyPair::load(dir + "/shuffler.key")).public_key();
  const auto write = [&](const std::string& shuffler_key) {
    Process session({SHUFFLEMPC_CLI, "session", "--protocol", "central-laplace", "--param", "epsilon=2", "--shuffler-key", shuffler_key,
                     "--analyzer-key", dir + "/analyzer.key", "--party-keys", dir + "/party-keys.txt", "--out", dir + "/session.json", "--force"},
                    dir + "/session.err");
    REQUIRE_MESSAGE(session.wait() == 0, slurp(dir + "/session.err"));
    return net::SessionConfig::load(dir + "/session.json");
  };
  CHECK_FALSE(write(shuffler_pub).shuffler_signer.has_value());  // 64 hex digits do not tell it
  CHECK(write(shuffler_pub + ":" + to_hex(signer)).shuffler_signer == signer);
  const auto config = write(dir + "/shuffler.key");
  CHECK(config.shuffler_signer == signer);
  // The run of the hosts with the shuffler keeping its state: the same report, every batch kept.
  {
    std::ofstream in(dir + "/inputs.json");
    in << "[1, 1, 0]\n";
  }
  std::string address;
  const Value report = run_hosts(dir, {{"--id", "0-2", "--key-dir", dir, "--inputs", dir + "/inputs.json", "--json"}}, address,
                                 {"--state-dir", dir + "/state"});
  CHECK(report["messages"] == 3);
  auto store = net::open_state_directory(std::filesystem::path(dir) / "state" / to_hex(config.session), config.session, config.digest(), "test");
  CHECK(store->admitted(0).size() == 1);  // one link for parties 0-2
  CHECK(store->ended().has_value());
}

TEST_CASE("a shuffler whose key does not derive its config's shuffler signing key, and an analyzer asked to publish no commitment, are refused") {
  const test::TempDir tmp("shufflempc-sessionsigner-refused");
  const std::string& dir = tmp.path();
  const std::string shuffler_pub = make_keys(dir);
  Process other_key({SHUFFLEMPC_CLI, "keygen", "--mix-server", "--out", dir + "/other.key"}, dir + "/keygen.err");
  const std::string other_token = other_key.read_line();  // KEY:SIGNING_KEY
  REQUIRE(other_key.wait() == 0);
  REQUIRE(other_token.find(':') == 64);
  const auto write = [&](const std::string& shuffler_key) {
    Process session({SHUFFLEMPC_CLI, "session", "--protocol", "central-laplace", "--param", "epsilon=2", "--shuffler-key", shuffler_key,
                     "--analyzer-key", dir + "/analyzer.key", "--party-keys", dir + "/party-keys.txt", "--out", dir + "/session.json", "--force"},
                    dir + "/session.err");
    REQUIRE_MESSAGE(session.wait() == 0, slurp(dir + "/session.err"));
  };
  // The config names the shuffler's key with other.key's signing key beside it.
  write(shuffler_pub + other_token.substr(64));
  auto r = shufflempc::run_command({SHUFFLEMPC_CLI, "shuffler", "--config", dir + "/session.json", "--key", dir + "/shuffler.key", "--listen",
                                    "127.0.0.1:0"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("its config's shuffler_signing_key is not the one this shuffler's key file derives") != std::string::npos);
  // A config naming no shuffler signing key: its shuffler commits to nothing, so nothing to publish.
  write(shuffler_pub);
  r = shufflempc::run_command({SHUFFLEMPC_CLI, "analyzer", "--config", dir + "/session.json", "--key", dir + "/analyzer.key", "--connect",
                               "127.0.0.1:1", "--commitment", dir + "/commitment.json"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--commitment: the shuffler commits to its batches in a session with no chain of mix servers whose config names its "
                   "signing key (shuffler_signing_key); this one names none") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir + "/commitment.json"));
}
