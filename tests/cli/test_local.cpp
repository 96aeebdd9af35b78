// `shufflempc local` and `keygen`: the one-command multi-process run gives the in-process answer.
#include <linux/magic.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "cli/run_json.hpp"
#include "net/harness.hpp"
#include "shufflempc/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "support/paths.hpp"

namespace {

using namespace shufflempc;
using namespace shufflempc::test;


}  // namespace

TEST_CASE("shufflempc local: separate party processes over TCP give the in-process estimate") {
  const test::TempDir tmp("shufflempc-localtest");
  const std::string err = tmp / "err";
  // Same seed: same inputs, same party messages, same analyzer noise; the estimate does not
  // depend on the order the shuffler chose, so the runs agree exactly.
  const std::vector<std::string> common = {"counting", "--parties", "300", "--noise", "calibrated", "--seed", "9", "--json"};
  std::vector<std::string> local = {SHUFFLEMPC_CLI, "local"}, run = {SHUFFLEMPC_CLI, "run"};
  local.insert(local.end(), common.begin(), common.end());
  local.insert(local.end(), {"--parties-per-process", "64", "--dropouts", "3"});
  run.insert(run.end(), common.begin(), common.end());
  run.insert(run.end(), {"--dropouts", "3"});
  const Value tcp = run_json(local, err);
  // Three dropouts make one summary line, not one line per party that hung up.
  CHECK(slurp(err).find("peer closed the connection") == std::string::npos);
  CHECK(slurp(err).find("round 0: 3 parties dropped") != std::string::npos);
  const Value mem = run_json(run, err);
  CHECK(tcp["output"] == mem["output"]);
  CHECK(tcp["truth"] == mem["truth"]);
  CHECK(tcp["dropped"] == mem["dropped"]);
  CHECK(tcp["messages"] == mem["messages"]);
  CHECK(tcp["transport"] == "tcp");
  CHECK(tcp["processes"]["party_processes"] == 5);
  // A built-in protocol: the processes ran from shufflempc-node beside shufflempc.
  CHECK(tcp["processes"]["executable"] == (std::filesystem::path(SHUFFLEMPC_CLI).parent_path() / "shufflempc-node").string());
  REQUIRE(tcp["per_party"].size() == 300);
  std::size_t dropped = 0;
  for (const auto& p : tcp["per_party"]) {
    if (p["dropped"].get<bool>()) {
      ++dropped;
      CHECK(p["messages_sent"] == 0);
    } else {
      CHECK(p["rounds"] == 1);
      CHECK(p["bytes_sent"].get<std::uint64_t>() > 0);
      // ESA mode: a party hears only that its own batch was accepted, never the list of all
      // submitters (4 bytes each: 1,188 bytes here, growing with n). Handshake, confirm, result.
      CHECK(p["bytes_received"].get<std::uint64_t>() <= 300);
    }
  }
  CHECK(dropped == 3);
}

TEST_CASE("shufflempc local --link-delay-ms and --link-mbps: every process's links shaped, the same result later, and out of range refused naming the option") {
  const test::TempDir tmp("shufflempc-localtest");
  const std::string err = tmp / "err";
  const std::vector<std::string> base = {SHUFFLEMPC_CLI, "local", "counting", "--parties", "300", "--noise", "calibrated", "--seed", "9", "--json"};
  auto shaped = base;
  shaped.insert(shaped.end(), {"--link-delay-ms", "150", "--link-mbps", "100"});
  const Value plain = run_json(base, err);
  const Value slow = run_json(shaped, err);
  CHECK(slow["output"] == plain["output"]);
  CHECK(slow["messages"] == plain["messages"]);
  // Each round the run reports is a round trip between the parties and the shuffler (submit,
  // result): 2D each, waited on the clock by the processes.
  CHECK(slow["rounds"] == 1);
  CHECK(slow["seconds"].get<double>() >= 0.3);
  // Two rounds: mpc2 reports the rounds it ran, and its time holds both round trips.
  const Value two = run_json({SHUFFLEMPC_CLI, "local", "mpc2", "--parties", "4", "--function", "sum", "--seed", "9", "--json", "--link-delay-ms", "150"},
                             err);
  CHECK(two["rounds"] == 2);
  CHECK(two["seconds"].get<double>() >= 2 * 0.3);
  for (const auto& [option, value, says] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"--link-delay-ms", "10001", "--link-delay-ms: must be a number in [0, 10000] (milliseconds), got '10001'"},
           {"--link-mbps", "0", "--link-mbps: must be a number in [0.001, 1000000] (Mbit/s), got '0'"},
           // What std::stod alone would take: hexadecimal, empty, a leading space.
           {"--link-delay-ms", "0x10", "--link-delay-ms: must be a number in [0, 10000] (milliseconds), got '0x10'"},
           {"--link-delay-ms", "", "--link-delay-ms: must be a number in [0, 10000] (milliseconds), got ''"},
           {"--link-mbps", " 5", "--link-mbps: must be a number in [0.001, 1000000] (Mbit/s), got ' 5'"}}) {
    auto bad = base;
    bad.insert(bad.end(), {option, value});
    const auto r = run_command(bad);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(says) != std::string::npos);
  }
}

TEST_CASE("shufflempc local mpc2: two rounds over TCP give the in-process result, to every party (MPC) or the analyzer (ESA)") {
  const test::TempDir tmp("shufflempc-localtest");
  const std::string err = tmp / "err";
  for (const std::string delivery : {"mpc", "esa"}) {
    CAPTURE(delivery);
    const std::vector<std::string> common = {"mpc2", "--parties", "5", "--function", "inner-product", "--length", "200",
                                             "--delivery", delivery, "--seed", "9", "--json"};
    std::vector<std::string> local = {SHUFFLEMPC_CLI, "local"}, run = {SHUFFLEMPC_CLI, "run"};
    local.insert(local.end(), common.begin(), common.end());
    local.insert(local.end(), {"--parties-per-process", "2"});
    run.insert(run.end(), common.begin(), common.end());
    const Value tcp = run_json(local, err);
    const Value mem = run_json(run, err);
    CHECK(tcp["output"] == mem["output"]);
    CHECK(tcp["output"] == tcp["truth"]);
    CHECK(tcp["messages"] == mem["messages"]);
    CHECK(tcp["transport"] == "tcp");
    REQUIRE(tcp["per_party"].size() == 5);
    for (const auto& p : tcp["per_party"]) CHECK(p["rounds"] == 2);
    // Round 1 is OSM chaff and shares (kdf: 160 chaff labels per pair); round 2 one value per output.
    REQUIRE(tcp["run"]["rounds"].size() == 2);
    CHECK(tcp["run"]["rounds"][1]["messages_per_party"] == 1.0);
    CHECK(tcp["run"]["observer"]["min_uncertain_labels"] == 160);
  }
}

TEST_CASE("shufflempc local circuit: AES-128 among three processes over TCP, every variant, gives FIPS-197's ciphertext") {
  const test::TempDir tmp("shufflempc-localtest");
  const std::string err = tmp / "err";
  const std::string inputs = tmp / "inputs.json";
  {
    std::ofstream f(inputs);
    f << R"(["000102030405060708090a0b0c0d0e0f", "00112233445566778899aabbccddeeff", null])";
  }
  for (const std::string variant : {"v1", "v3", "bgw"}) {
    CAPTURE(variant);
    const Value tcp = run_json({SHUFFLEMPC_CLI, "local", "circuit", "--parties", "3", "--circuit", "aes_128", "--variant", variant,
                                "--inputs", inputs, "--json"},
                               err);
    CHECK(tcp["output"] == "69c4e0d86a7b0430d8cdb78070b4c55a");
    CHECK(tcp["transport"] == "tcp");
    REQUIRE(tcp["per_party"].size() == 3);
    // The many-round baseline: one round per layer of AND gates (AES-128: 60) plus two.
    REQUIRE(tcp["run"]["rounds"].size() == (variant == "bgw" ? 62 : 2));
    CHECK(tcp["run"]["observer"]["min_uncertain_labels"] == 160);
    for (const auto& p : tcp["per_party"]) CHECK(p["output"] == (variant == "v3" ? Value() : Value("69c4e0d86a7b0430d8cdb78070b4c55a")));
  }
}

TEST_CASE("shufflempc local: circuit v2 over TCP at n = 4 and 7, AES-128 and SHA-256, every party gets the output") {
  const test::TempDir tmp("shufflempc-localv2");
  const std::string err = tmp / "err";
  struct Case {
    std::string circuit, first, second, output;
  };
  const std::string sha_block = "61626380" + std::string(104, '0') + "0000000000000018";
  const Case cases[] = {{"aes_128", "000102030405060708090a0b0c0d0e0f", "00112233445566778899aabbccddeeff", "69c4e0d86a7b0430d8cdb78070b4c55a"},
                        {"sha256", sha_block, "6a09e667bb67ae853c6ef372a54ff53a510e527f9b05688c1f83d9ab5be0cd19",
                         "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}};
  for (const std::size_t n : {4u, 7u})
    for (const Case& c : cases) {
      CAPTURE(n);
      CAPTURE(c.circuit);
      // The two input groups belong to the last two parties (at n = 7 neither garbles).
      const std::string inputs = tmp / (c.circuit + std::to_string(n) + ".json");
      {
        std::ofstream f(inputs);
        f << "[";
        for (std::size_t p = 0; p < n; ++p)
          f << (p > 0 ? ", " : "") << (p == n - 2 ? "\"" + c.first + "\"" : p == n - 1 ? "\"" + c.second + "\"" : "null");
        f << "]";
      }
      const Value tcp = run_json({SHUFFLEMPC_CLI, "local", "circuit", "--parties", std::to_string(n), "--circuit", c.circuit, "--variant", "v2",
                                  "--owners", fmt::format("{},{}", n - 2, n - 1), "--inputs", inputs, "--json"},
                                 err);
      CHECK(tcp["output"] == c.output);
      CHECK(tcp["transport"] == "tcp");
      REQUIRE(tcp["per_party"].size() == n);
      REQUIRE(tcp["run"]["rounds"].size() == 2);
      for (const auto& p : tcp["per_party"]) CHECK(p["output"] == c.output);
    }
}

TEST_CASE("shufflempc-node has the networked commands only, with the same refusals") {
  const test::TempDir tmp("shufflempc-nodetest");
  const std::string node = (std::filesystem::path(SHUFFLEMPC_CLI).parent_path() / "shufflempc-node").string();
  const auto help = run_command({node, "--help"});
  CHECK(help.exit_code == 0);
  for (const char* name : {"keygen", "shuffler", "mix-server", "party", "analyzer"}) CHECK(help.out.find(name) != std::string::npos);
  CHECK(help.out.find("study") == std::string::npos);
  const auto run = run_command({node, "run", "counting"});
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("unknown command 'run' (commands: keygen, shuffler, mix-server, party, analyzer)") != std::string::npos);
  // Its keygen writes the same key files (0600) that shufflempc's party command reads.
  const auto key = run_command({node, "keygen", "--out", tmp / "a.key"});
  CHECK(key.exit_code == 0);
  const auto owner_only = std::filesystem::perms::owner_read | std::filesystem::perms::owner_write;
  CHECK(std::filesystem::status(tmp / "a.key").permissions() == owner_only);
}

TEST_CASE("shufflempc runs its study in shufflempc-study and loads neither MPI nor CLP itself") {
  const std::filesystem::path bin = std::filesystem::path(SHUFFLEMPC_CLI).parent_path();
  const std::string study = (bin / "shufflempc-study").string();
  const auto help = run_command({SHUFFLEMPC_CLI, "--help"});
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("study") != std::string::npos);
  // The whole line after `study`, --help included, reaches shufflempc-study.
  const auto forwarded = run_command({SHUFFLEMPC_CLI, "study", "--help"});
  const auto direct = run_command({study, "study", "--help"});
  CHECK(forwarded.exit_code == 0);
  CHECK(forwarded.out.find("--protocol") != std::string::npos);
  CHECK(forwarded.out == direct.out);
  const auto bogus = run_command({SHUFFLEMPC_CLI, "study", "--bogus"});
  CHECK(bogus.exit_code == 2);
  CHECK(bogus.err.find("--bogus") != std::string::npos);
  CHECK(bogus.err.find("usage: shufflempc study") != std::string::npos);
  // The libraries each binary loads (the dynamic loader's own list); libstdc++ shows the list is there.
  const auto libs = [](const std::string& exe) { return run_command({"/usr/bin/env", "LD_DEBUG=libs", exe, "--help"}).err; };
  const std::string front = libs(SHUFFLEMPC_CLI), back = libs(study), node = libs((bin / "shufflempc-node").string());
  for (const std::string* list : {&front, &back, &node}) CHECK(list->find("libstdc++.so") != std::string::npos);
  CHECK(front.find("libClp") == std::string::npos);
  CHECK(front.find("libmpi") == std::string::npos);
  CHECK(back.find("libClp") != std::string::npos);
  // The binaries a `local` run starts many of carry libsodium, GMP and libcrypto themselves where the
  // build found their static archives (cmake/static_deps.cmake); shufflempc-study loads them shared.
  for (const char* shared : std::initializer_list<const char*>{SHUFFLEMPC_STATIC_LIBS}) {
    CAPTURE(shared);
    CHECK(front.find(shared) == std::string::npos);
    CHECK(node.find(shared) == std::string::npos);
    CHECK(back.find(shared) != std::string::npos);
  }
  // Without shufflempc-study beside it: one line naming the path, exit 1.
  const test::TempDir tmp("shufflempc-studyfwd");
  const std::filesystem::path alone = std::filesystem::path(tmp.path()) / "shufflempc";
  std::filesystem::copy_file(SHUFFLEMPC_CLI, alone);
  const auto missing = run_command({alone.string(), "study", "--help"});
  CHECK(missing.exit_code == 1);
  CHECK(missing.out.empty());
  CHECK(missing.err == "shufflempc: error: cannot start " + (alone.parent_path() / "shufflempc-study").string() +
                           " (the study runs in it): No such file or directory\n");
}

TEST_CASE("the binaries load no library from the directory they are run in") {
  // Files named like the shared libraries every binary needs, none of them a library: a run path
  // with an empty entry (the current directory) would make the dynamic loader take them and fail.
  const test::TempDir tmp("shufflempc-cwdlibs");
  for (const char* name : {"libfmt.so.9", "libstdc++.so.6", "libm.so.6", "libgcc_s.so.1", "libc.so.6", "libsodium.so.23"})
    write_private_file(tmp.path() + "/" + name, "not a library\n", "decoy");
  const std::filesystem::path bin = std::filesystem::path(SHUFFLEMPC_CLI).parent_path();
  for (const char* exe : {"shufflempc", "shufflempc-node", "shufflempc-study"}) {
    CAPTURE(exe);
    const auto r = run_command({"/bin/sh", "-c", "cd \"$1\" && exec \"$2\" --help", "sh", tmp.path(), (bin / exe).string()});
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK(r.out.find("shufflempc") != std::string::npos);
  }
}

TEST_CASE("shufflempc keygen writes a key file the party command accepts, and bad flags exit 2") {
  const test::TempDir tmp("shufflempc-keygentest");
  const std::string& dir = tmp.path();
  Process p({SHUFFLEMPC_CLI, "keygen", "--out", dir + "/k.key"}, dir + "/err");
  const std::string pub = p.read_line();
  CHECK(p.wait() == 0);
  CHECK(pub.size() == 64);
  CHECK(to_hex(net::KeyPair::load(dir + "/k.key").public_key()) == pub);
  CHECK((std::filesystem::status(dir + "/k.key").permissions() & std::filesystem::perms::others_read) == std::filesystem::perms::none);
  // A bundle for parties 2..4: one public key per line, in order; a party process outside it is refused.
  Process bundle({SHUFFLEMPC_CLI, "keygen", "--parties", "2-4", "--out", dir + "/b.keys"}, dir + "/err3");
  std::vector<std::string> lines;
  for (int i = 0; i < 3; ++i) lines.push_back(bundle.read_line());
  CHECK(bundle.wait() == 0);
  const auto keys = net::KeyBundle::load(dir + "/b.keys");
  REQUIRE(keys.keys.size() == 3);
  for (PartyId id = 2; id <= 4; ++id) CHECK(to_hex(keys.of(id).public_key()) == lines[id - 2]);
  Process mixed({SHUFFLEMPC_CLI, "keygen", "--parties", "4-2", "--out", dir + "/c.keys"}, dir + "/err4");
  CHECK(mixed.wait() == 2);
  CHECK(slurp(dir + "/err4").find("--parties must be a party id or a range FIRST-LAST") != std::string::npos);
  Process bad({SHUFFLEMPC_CLI, "local", "counting", "--parties", "10", "--parties-per-process", "0"}, dir + "/err2");
  CHECK(bad.wait() == 2);
  CHECK(slurp(dir + "/err2").find("parties-per-process") != std::string::npos);
}

TEST_CASE("shufflempc local: the report's truth is over the parties who submitted") {
  // Every input is 1, so the truth counts the parties it covers. Without dropouts `local` computes
  // it while the processes run; with them, after, over the submitters only.
  const test::TempDir tmp("shufflempc-localtest");
  const std::string err = tmp / "err", inputs = tmp / "ones.json";
  std::ofstream(inputs) << Value(std::vector<int>(300, 1)).dump();
  for (const int dropouts : {0, 3}) {
    CAPTURE(dropouts);
    const Value v = run_json({SHUFFLEMPC_CLI, "local", "counting", "--parties", "300", "--noise", "calibrated", "--inputs", inputs,
                              "--dropouts", std::to_string(dropouts), "--seed", "4", "--json"},
                             err);
    CHECK(v["dropped"].size() == static_cast<std::size_t>(dropouts));
    CHECK(v["truth"] == 300 - dropouts);
  }
}

TEST_CASE("shufflempc local: the per-party table labels both kinds of traffic and says what a wire byte counts") {
  // A one-round party receives no message but its connection carries the handshake and the
  // round's close: the table says so instead of a bare `bytes recv` beside `msgs recv 0`.
  const auto r = run_command(std::string(SHUFFLEMPC_CLI) + " local counting --parties 300 --seed 4");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto at = r.out.find("  party        messages");
  REQUIRE(at != std::string::npos);
  std::istringstream table(r.out.substr(at));
  std::string heading, sub_heading, row;
  std::getline(table, heading);
  std::getline(table, sub_heading);
  std::getline(table, row);
  CHECK(heading.find("wire bytes") != std::string::npos);
  CHECK(sub_heading == "           sent    recv       sent       recv");
  std::istringstream fields(row);
  std::uint64_t party = 9, sent = 0, received = 9, bytes_sent = 0, bytes_received = 0;
  fields >> party >> sent >> received >> bytes_sent >> bytes_received;
  CHECK(party == 0);
  CHECK(sent == 2);
  CHECK(received == 0);
  CHECK(bytes_sent > 0);
  CHECK(bytes_received > 0);
  CHECK(r.out.find("\nwire bytes: all that the party's connection carried (handshake, framing, tags, seals, the round's close and results)") !=
        std::string::npos);
}

TEST_CASE("shufflempc local: a party process that dies is a dropout, the run stands when enough parties submitted") {
  const test::TempDir tmp("shufflempc-localtest");
  const std::string err = tmp / "err";
  // It dies just before it submits round 0 (killed at once instead, it may have submitted first on a
  // loaded machine: its batch then stands and nobody is dropped).
  const Value v = run_json({SHUFFLEMPC_CLI, "local", "counting", "--parties", "200", "--noise", "calibrated", "-k", "50", "--min-parties",
                            "150", "--deadline-ms", "1500", "--kill-party-process", "1", "--kill-before-round", "0", "--seed", "3", "--json"},
                           err);
  REQUIRE(v["dropped"].size() == 50);
  CHECK(v["dropped"][0] == 50);
  CHECK(v["lost_processes"].size() == 1);
  CHECK(v["run"]["achieved"]["submitted"] == 150);
  CHECK(v["run"]["achieved"]["delta"].get<double>() <= 1e-6);
  CHECK(v["truth"].get<double>() <= 150);  // over the 150 submitters
  CHECK(slurp(err).find("warning: parties 50-99 exited with status 137 (the lines above say why; the report lists the parties that were dropped)") != std::string::npos);
}

TEST_CASE("shufflempc local --hang: a party process that stops (SIGSTOP) with its links open is named a deadline after it last spoke, the run stands") {
  const test::TempDir tmp("shufflempc-localtest");
  const std::string err = tmp / "err";
  // It connects, then stops just before it prepares round 0: its links stay open and silent. The
  // shuffler gives them up a deadline after their admission (not at the round's limit), the round
  // closes with the others, and the launcher stops the hung process once the run is over.
  const auto start = std::chrono::steady_clock::now();
  const Value v = run_json({SHUFFLEMPC_CLI, "local", "counting", "--parties", "200", "--noise", "calibrated", "-k", "50", "--min-parties",
                            "150", "--deadline-ms", "1500", "--kill-party-process", "1", "--kill-before-round", "0", "--hang", "--seed",
                            "3", "--json"},
                           err);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(v["dropped"].size() == 50);
  CHECK(v["dropped"][0] == 50);
  CHECK(v["run"]["achieved"]["submitted"] == 150);
  CHECK(v["lost_processes"].size() == 1);
  const std::string said = slurp(err);
  INFO(said);
  CHECK(said.find("round 0: parties 50-99 sent nothing for 1500 ms (no batch, no word that a batch was being prepared): missed the "
                  "deadline, dropped") != std::string::npos);
  CHECK(said.find("deadline expired") == std::string::npos);
  CHECK(said.find("warning: parties 50-99 still ran 1500 ms after the shuffler and the analyzer ended (it hangs; its links were given "
                  "up): stopped") != std::string::npos);
  // The hung process was waited for a deadline (and 5 s) after the run, never the launcher's limit.
  CHECK(seconds < 30);
}

TEST_CASE("shufflempc local mpc2: a party process killed between the rounds ends round 1 at its link's loss, and the error names its parties") {
  const test::TempDir tmp("shufflempc-localtest");
  const std::string err = tmp / "err";
  // Process 1 hosts parties 2 and 3; it gets round 0's result, then dies (SIGKILL) before round 1.
  // mpc2 needs every party: the session ends after the reconnection grace, long before the 60 s
  // deadline (the wait below is a bound, not a timing).
  Process p({SHUFFLEMPC_CLI, "local", "mpc2", "--parties", "6", "--function", "inner-product", "--length", "20", "--parties-per-process",
             "2", "--kill-party-process", "1", "--kill-before-round", "1", "--deadline-ms", "60000", "--seed", "2"},
            err);
  CHECK(p.wait(std::chrono::seconds(40)) == 1);
  const std::string log = slurp(err);
  CHECK(log.find("session aborted: round 1: 4 of 6 parties submitted, at least 6 needed; missing: parties 2-3") != std::string::npos);
  CHECK(log.find("deadline expired") == std::string::npos);
  // A round the protocol does not have: one line naming the range, exit 2.
  Process bad({SHUFFLEMPC_CLI, "local", "mpc2", "--parties", "6", "--function", "inner-product", "--length", "20", "--kill-party-process", "1",
               "--kill-before-round", "2"},
              tmp / "err2");
  CHECK(bad.wait() == 2);
  CHECK(slurp(tmp / "err2").find("--kill-before-round must be in [0, 1] (the protocol has 2 rounds)") != std::string::npos);
}

TEST_CASE("shufflempc local: interrupted, it stops every process and removes its temporary keys") {
  const test::TempDir tmp("shufflempc-localtest");
  const std::string err = tmp / "err";
  // Party process 0 never runs, so the round waits for its 60 s deadline: time to interrupt.
  Process p({SHUFFLEMPC_CLI, "local", "counting", "--parties", "200", "--noise", "calibrated", "-k", "100", "--kill-party-process", "0",
             "--deadline-ms", "60000"},
            err);
  const std::string line = p.read_line(std::chrono::seconds(30));
  const std::string marker = "session files in ";
  const auto at = line.find(marker);
  REQUIRE_MESSAGE(at != std::string::npos, line << slurp(err));
  const std::string dir = line.substr(at + marker.size(), line.find(" (removed") - at - marker.size());
  CHECK(std::filesystem::exists(dir + "/session.json"));
  CHECK(std::filesystem::exists(dir + "/parties-0-99.keys"));  // one key bundle per party process
  REQUIRE(::kill(p.pid(), SIGINT) == 0);
  CHECK(p.wait(std::chrono::seconds(30)) == 1);
  CHECK_FALSE(std::filesystem::exists(dir));
  CHECK(slurp(err).find("interrupted by signal 2: every process of the run was stopped and its temporary keys removed") != std::string::npos);
}

TEST_CASE("shufflempc local: its session files go under TMPDIR when set, else in memory when /dev/shm has room, else under /tmp") {
  const test::TempDir tmp("shufflempc-sessiondir");
  const std::vector<std::string> command = {SHUFFLEMPC_CLI, "local", "mpc2", "--parties", "3", "--function", "inner-product", "--length", "4"};
  const auto run_with = [&](std::vector<std::string> env) {
    env.insert(env.begin(), "/usr/bin/env");
    env.insert(env.end(), command.begin(), command.end());
    return run_command(env);
  };
  const auto session_dir = [](const CommandResult& r) {
    const std::string marker = "session files in ";
    const auto at = r.out.find(marker);
    REQUIRE_MESSAGE(at != std::string::npos, r.out << r.err);
    return r.out.substr(at + marker.size(), r.out.find(" (removed", at) - at - marker.size());
  };
  const auto chosen = run_with({"TMPDIR=" + tmp.path()});
  CHECK(chosen.exit_code == 0);
  const std::string under_tmpdir = session_dir(chosen);
  CHECK(under_tmpdir.rfind(tmp.path() + "/shufflempc-local-", 0) == 0);
  CHECK_FALSE(std::filesystem::exists(under_tmpdir));
  // Without TMPDIR: /dev/shm if it is a tmpfs with 64 MiB free beyond twice the run's files (about
  // 1 MiB here), else /tmp. Within a few MiB of that line the choice is not this test's to know.
  const auto unset = run_with({"-u", "TMPDIR"});
  CHECK(unset.exit_code == 0);
  const std::string dir = session_dir(unset);
  CHECK_FALSE(std::filesystem::exists(dir));
  struct statfs fs {};
  const bool tmpfs = ::statfs("/dev/shm", &fs) == 0 && fs.f_type == TMPFS_MAGIC && ::access("/dev/shm", W_OK | X_OK) == 0;
  const std::uintmax_t free_mib = tmpfs ? static_cast<std::uintmax_t>(fs.f_bavail) * fs.f_bsize >> 20 : 0;
  CAPTURE(free_mib);
  if (free_mib < 64 || free_mib >= 72) CHECK(dir.rfind(std::string(free_mib >= 72 ? "/dev/shm" : "/tmp") + "/shufflempc-local-", 0) == 0);
  // A TMPDIR that is not a directory: one line naming it, before any process starts.
  const auto bad = run_with({"TMPDIR=" + tmp.path() + "/missing"});
  CHECK(bad.exit_code == 1);
  CHECK(bad.out.empty());
  CHECK(bad.err == "shufflempc: error: cannot make the session directory under " + tmp.path() + "/missing ($TMPDIR): No such file or directory\n");
}

TEST_CASE("shufflempc local: more party processes than descriptors is one clear line before any key is made") {
  rlimit lim{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &lim) == 0);
  if (lim.rlim_max == RLIM_INFINITY || lim.rlim_max >= 100'000'000) return;  // no count is beyond this machine's limit
  const test::TempDir tmp("shufflempc-localtest");
  const std::string err = tmp / "err";
  const std::string n = std::to_string(lim.rlim_max + 1);
  Process p({SHUFFLEMPC_CLI, "local", "central-laplace", "--parties", n, "--parties-per-process", "1"}, err);
  CHECK(p.wait(std::chrono::seconds(30)) == 2);
  CHECK(slurp(err).find("the shuffler of this local run (" + n + " links of " + n + " party processes, and the analyzer's) needs") !=
        std::string::npos);
  CHECK(slurp(err).find("raise it with ulimit -n") != std::string::npos);
}

TEST_CASE("shufflempc local: a --keep-dir that is a symbolic link is refused before any key is written") {
  const test::TempDir tmp("shufflempc-keepdir");
  const std::string elsewhere = tmp / "elsewhere", link = tmp / "keep";
  std::filesystem::create_directory(elsewhere);
  std::filesystem::create_directory_symlink(elsewhere, link);
  Process p({SHUFFLEMPC_CLI, "local", "central-laplace", "--parties", "3", "--keep-dir", link}, tmp / "err");
  CHECK(p.wait(std::chrono::seconds(30)) == 2);
  CHECK(slurp(tmp / "err").find("--keep-dir " + link + " is a symbolic link") != std::string::npos);
  CHECK(std::filesystem::is_empty(elsewhere));
}

TEST_CASE("shufflempc local --mix-servers 3: separate server processes, the in-process result, and every hop named in the report") {
  const test::TempDir tmp("shufflempc-localchain");
  const std::string err = tmp / "err";
  for (const std::string protocol : {"counting", "split-mix-sum"}) {
    CAPTURE(protocol);
    std::vector<std::string> common = {protocol, "--parties", "120", "--seed", "4", "--json"};
    if (protocol == "counting") common.insert(common.end(), {"--noise", "calibrated"});
    std::vector<std::string> local = {SHUFFLEMPC_CLI, "local"}, run = {SHUFFLEMPC_CLI, "run"};
    local.insert(local.end(), common.begin(), common.end());
    local.insert(local.end(), {"--mix-servers", "3", "--parties-per-process", "32"});
    run.insert(run.end(), common.begin(), common.end());
    const Value tcp = run_json(local, err);
    const Value mem = run_json(run, err);
    CHECK(tcp["output"] == mem["output"]);
    CHECK(tcp["messages"] == mem["messages"]);
    CHECK(tcp["processes"]["further_mix_servers"] == 2);
    REQUIRE(tcp.contains("mix_chain"));
    CHECK(tcp["mix_chain"]["hops"] == 3);
    REQUIRE(tcp["mix_chain"]["rounds"].size() == 1);
    const auto& hops = tcp["mix_chain"]["rounds"][0]["hops"];
    REQUIRE(hops.size() == 3);
    for (std::size_t h = 0; h < 3; ++h) {
      CHECK(hops[h]["hop"] == h);
      CHECK(hops[h]["records_in"] == mem["messages"]);
      CHECK(hops[h]["records_out"] == mem["messages"]);
      CHECK(hops[h]["not_opened"] == 0);
    }
  }
}

TEST_CASE("shufflempc local --mix-servers 3 --kill-mix-server 2: the run fails, and the shuffler's one line names the server") {
  const test::TempDir tmp("shufflempc-localchainkill");
  const std::string err = tmp / "err";
  Process p({SHUFFLEMPC_CLI, "local", "counting", "--parties", "120", "--noise", "calibrated", "--mix-servers", "3", "--kill-mix-server", "2",
             "--seed", "1", "--json"},
            err);
  const int status = p.wait(std::chrono::seconds(120));
  const std::string text = slurp(err);
  INFO("stderr: " << text);
  CHECK(status != 0);
  CHECK(text.find("shuffler: session ") != std::string::npos);
  std::size_t lines = 0;
  for (std::size_t at = 0; (at = text.find("session aborted: round 0: mix server 2 (127.0.0.1:", at)) != std::string::npos; ++at) ++lines;
  CHECK(lines == 1);
  CHECK(text.find("local run failed: shuffler exited with status 1") != std::string::npos);
}

TEST_CASE("shufflempc local --mix verifiable: separate server processes, the in-process result, and a transcript verify accepts") {
  const test::TempDir tmp("shufflempc-localverifiable");
  const std::string err = tmp / "err";
  // counting: one analyzer-only round (the analyzer decrypts); IKOS: one round to every party (the servers do).
  for (const std::vector<std::string>& common : {std::vector<std::string>{"counting", "--parties", "120", "--noise", "calibrated"},
                                                std::vector<std::string>{"ikos-key-exchange", "--parties", "3", "--k", "2", "--labels", "6"}}) {
    CAPTURE(common[0]);
    std::vector<std::string> local = {SHUFFLEMPC_CLI, "local"}, run = {SHUFFLEMPC_CLI, "run"};
    local.insert(local.end(), common.begin(), common.end());
    run.insert(run.end(), common.begin(), common.end());
    const std::string transcript = tmp / (common[0] + ".json");
    local.insert(local.end(), {"--seed", "4", "--json", "--mix-servers", "3", "--mix", "verifiable", "--transcript", transcript});
    run.insert(run.end(), {"--seed", "4", "--json"});
    const Value tcp = run_json(local, err);
    const Value mem = run_json(run, err);
    CHECK(tcp["output"] == mem["output"]);
    CHECK(tcp["messages"] == mem["messages"]);
    REQUIRE(tcp.contains("verifiable_mix"));
    CHECK(tcp["verifiable_mix"]["hops"] == 3);
    CHECK(tcp["verifiable_mix"]["rounds"][0]["records"] == mem["messages"]);
    CHECK(tcp["verifiable_mix"]["rounds"][0]["trustees"] == 3);  // every server decrypts, in either delivery
    Process verify({SHUFFLEMPC_CLI, "verify", transcript}, tmp / "verify.err");
    CHECK(verify.read_line().find("verified: 1 round(s)") == 0);
    CHECK(verify.wait() == 0);
    CHECK(tcp["verifiable_mix"]["session_config"] == "");  // no --keep-dir: the config is gone
  }
  // With --keep-dir the report names the kept config, and the text says how to tie the file to it.
  const std::string kept = tmp / "kept";
  Process p({SHUFFLEMPC_CLI, "local", "counting", "--parties", "120", "--noise", "calibrated", "--seed", "4", "--mix-servers", "3", "--mix",
             "verifiable", "--transcript", tmp / "kept.json", "--keep-dir", kept},
            err);
  std::string text;
  for (std::string line; !(line = p.read_line(std::chrono::seconds(120))).empty();) text += line + "\n";
  CHECK(p.wait() == 0);
  const std::string config = std::filesystem::absolute(kept).string() + "/session.json";
  CHECK(text.find("(check it against its session with: shufflempc verify " + (tmp / "kept.json") + " --config " + config + ")") !=
        std::string::npos);
  Process bound({SHUFFLEMPC_CLI, "verify", tmp / "kept.json", "--config", config}, tmp / "verify.err");
  CHECK(bound.read_line().find("verified: 1 round(s)") == 0);
  CHECK(bound.wait() == 0);
}

TEST_CASE("shufflempc local --mix verifiable: six parties of IKOS with the defaults (a round to every party of 11,520 records) complete, as the plain run" *
          doctest::test_suite("slow")) {
  // Every party checks every hop and every trustee's shares of a round whose records grow as the
  // square of the parties: before a record was one group element, the servers' proofs outran the
  // round's deadline here and every process exited 1.
  const test::TempDir tmp("shufflempc-localverifiablesix");
  const Value tcp = run_json({SHUFFLEMPC_CLI, "local", "ikos-key-exchange", "--parties", "6", "--seed", "4", "--json", "--mix-servers", "3", "--mix",
                              "verifiable"},
                             tmp / "err", std::chrono::seconds(600));  // 45 s on an idle 2-core machine
  const Value mem = run_json({SHUFFLEMPC_CLI, "run", "ikos-key-exchange", "--parties", "6", "--seed", "4", "--json"}, tmp / "err");
  CHECK(tcp["output"] == mem["output"]);
  CHECK(tcp["messages"] == 11520);
  REQUIRE(tcp.contains("verifiable_mix"));
  CHECK(tcp["verifiable_mix"]["rounds"][0]["records"] == 11520);
  CHECK(tcp["verifiable_mix"]["rounds"][0]["trustees"] == 3);
}

TEST_CASE("shufflempc local --mix verifiable --tamper-mix-server 2: the run fails, and the shuffler's one line names the cheating server") {
  const test::TempDir tmp("shufflempc-localtamper");
  const std::string err = tmp / "err";
  Process p({SHUFFLEMPC_CLI, "local", "counting", "--parties", "120", "--noise", "calibrated", "--mix-servers", "3", "--mix", "verifiable",
             "--tamper-mix-server", "2", "--seed", "1", "--json"},
            err);
  const int status = p.wait(std::chrono::seconds(120));
  const std::string text = slurp(err);
  INFO("stderr: " << text);
  CHECK(status != 0);
  std::size_t lines = 0;
  for (std::size_t at = 0; (at = text.find("session aborted: round 0: mix server 2 (127.0.0.1:", at)) != std::string::npos; ++at) ++lines;
  CHECK(lines == 1);
  CHECK(text.find(": the proof of shuffle does not verify") != std::string::npos);
  CHECK(text.find("local run failed: shuffler exited with status 1") != std::string::npos);
}

TEST_CASE("shufflempc local --mix verifiable: a chain too short, a protocol whose records do not fit, or a stray flag is refused naming it") {
  const test::TempDir tmp("shufflempc-localverifiablebad");
  const auto refused = [&](std::vector<std::string> args, const std::string& what) {
    CAPTURE(what);
    args.insert(args.begin(), {SHUFFLEMPC_CLI, "local"});
    Process p(args, tmp / "err");
    CHECK(p.wait(std::chrono::seconds(60)) == 2);
    CHECK(slurp(tmp / "err").find(what) != std::string::npos);
  };
  refused({"counting", "--parties", "120", "--noise", "calibrated", "--mix", "verifiable"}, "--mix verifiable needs --mix-servers in [2, 16]");
  refused({"circuit", "--parties", "3", "--mix-servers", "2", "--mix", "verifiable"},
          "round 0: records of 48 bytes do not fit the verifiable mix (at most 16 bytes, one ElGamal ciphertext of a point carrying them); use --mix decryption");
  refused({"counting", "--parties", "120", "--noise", "calibrated", "--mix-servers", "2", "--transcript", tmp / "t.json"},
          "--transcript needs --mix verifiable");
  refused({"counting", "--parties", "120", "--noise", "calibrated", "--mix-servers", "3", "--mix", "verifiable", "--tamper-mix-server", "3"},
          "--tamper-mix-server must be in [1, 2]");
  refused({"counting", "--parties", "120", "--mix", "onion"}, "--mix: onion not in {decryption,verifiable}");
}

TEST_CASE("shufflempc local --tamper-entry: an entry that drops, replaces or copies a record it admits is named by that sender's process, and the analyzer outputs nothing") {
  // The n - 1 attack in an analyzer-only round, through each kind of chain, with real processes:
  // every proof and signature holds, and only the sender's receipt shows what the entry did.
  for (const std::string kind : {"decryption", "verifiable"}) {
    for (const std::string fault : {"drop", "replace", "duplicate"}) {
      CAPTURE(kind);
      CAPTURE(fault);
      const test::TempDir tmp("shufflempc-localentry");
      const std::string keep = tmp / "run";
      Process p({SHUFFLEMPC_CLI, "local", "randomized-response", "--parties", "8", "--mix-servers", "3", "--mix", kind, "--parties-per-process",
                 "1", "--tamper-entry", fault, "--seed", "1", "--keep-dir", keep},
                tmp / "err");
      const int status = p.wait(std::chrono::seconds(120));
      const std::string text = slurp(tmp / "err");
      INFO("stderr: " << text);
      CHECK(status != 0);
      CHECK(text.find("analyzer exited with status 1") != std::string::npos);
      CHECK(slurp(keep + "/analyzer.out").empty());
      if (kind == "verifiable" && fault == "replace") {
        // A replacement carries no sender's proof: every further server refuses to decrypt the
        // round, the session ends, and each sender, whose round the entry ended, complains.
        CHECK(text.find("refused to decrypt: round 0: the evidence's input is not the senders': 1 of the 8 submitted records carry no valid "
                        "proof of plaintext knowledge") != std::string::npos);
        CHECK(text.find("ended the round for it, though it submitted") != std::string::npos);
        continue;
      }
      // The sender's process: one line naming the entry and what its receipt shows, then it exits non-zero.
      const std::string shows = fault == "duplicate" ? "is in the batch the entry committed to twice" : "is not in the batch the entry committed to";
      const auto at = text.find("error: round 0: the chain's entry (the shuffler) gave a receipt that does not hold: record 0 of those submitted " + shows +
                                " (party ");
      REQUIRE(at != std::string::npos);
      const std::string party = text.substr(at + text.substr(at).find("(party ") + 7, 1);
      CHECK(text.find("parties " + party + "-" + party + " exited with status 1") != std::string::npos);
      // The analyzer: refuses the round (on the complaint, or in a verifiable chain on the evidence
      // itself: a copy is in it twice) and outputs nothing.
      if (!(kind == "verifiable" && fault == "duplicate"))
        CHECK(text.find("round 0: party " + party + " complains that the chain's entry (the shuffler) gave a receipt that does not hold") !=
              std::string::npos);
    }
  }
}

TEST_CASE("shufflempc local --fault-adversary: an entry that drops parties and answers them with a result that does not parse is named by each, who complain, and the analyzer outputs nothing") {
  // The n - 1 attack by silencing: the entry throws away the submissions of parties 1 to 6 (they
  // count as dropped) and sends each of them, in place of the abort that says so, a frame of type
  // result whose payload does not parse. A party that submitted complains on every way out of its
  // check, so the analyzer, which outputs a round only when no party complains, refuses it.
  for (const std::string kind : {"decryption", "verifiable"}) {
    CAPTURE(kind);
    const test::TempDir tmp("shufflempc-localsilence");
    const std::string keep = tmp / "run";
    Process p({SHUFFLEMPC_CLI, "local", "split-mix-sum", "--parties", "8", "--min-parties", "2", "--mix-servers", "3", "--mix", kind,
               "--parties-per-process", "1", "--seed", "1", "--keep-dir", keep, "--fault-adversary", "ignore=1-6,type=abort,to=1-6,mutation=type-result"},
              tmp / "err");
    const int status = p.wait(std::chrono::seconds(120));
    const std::string text = slurp(tmp / "err");
    INFO("stderr: " << text);
    CHECK(status != 0);
    CHECK(slurp(keep + "/analyzer.out").empty());
    CHECK(text.find("local run failed: analyzer exited with status 1") != std::string::npos);
    for (int party = 1; party <= 6; ++party) {
      CAPTURE(party);
      CHECK(text.find("error: round 0: the chain's entry (the shuffler) sent a result that does not parse (") != std::string::npos);
      CHECK(text.find("(party " + std::to_string(party) + "): complaint sent to the analyzer, which outputs nothing for the round") != std::string::npos);
      CHECK(text.find("parties " + std::to_string(party) + "-" + std::to_string(party) + " exited with status 1") != std::string::npos);
    }
    CHECK(text.find("complains that the chain's entry (the shuffler) sent a result that does not parse") != std::string::npos);
  }
}

