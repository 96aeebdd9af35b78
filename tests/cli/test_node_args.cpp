// The node commands' command lines (cli/node_args.hpp): what the local launcher builds for a
// process is what that command's own definition reads back, field by field, for every field.
#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include "node_args.hpp"
#include "shufflempc/net/shuffler.hpp"
#include "support/temp_dir.hpp"

using namespace shufflempc;

namespace {

// Parses `argv` (executable, command, flags) with the command's options defined by `define` into
// a fresh T, and returns it.
template <class T, class Define>
T parse_node_argv(const std::vector<std::string>& argv, Define define) {
  CLI::App app("node args");
  REQUIRE(argv.size() >= 2);
  auto* cmd = app.add_subcommand(argv[1], "");
  T parsed;
  define(*cmd, parsed);
  std::vector<const char*> raw;
  for (const auto& a : argv) raw.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(raw.size()), raw.data());
  } catch (const CLI::ParseError& e) {
    FAIL("the command line did not parse: " << e.what());
  }
  net::set_link_shape({});  // the options set the process's shape as they are read
  return parsed;
}

// A file that exists, for the options that check it.
std::string touch(const test::TempDir& dir, const std::string& name) {
  std::ofstream(dir / name) << "{}\n";
  return dir / name;
}

const net::LinkShape shaped{.delay = std::chrono::microseconds(1234), .mbps = 12.5};

cli::ClientArgs client(const test::TempDir& dir) {
  return {.config_path = touch(dir, "session.json"), .connect = "127.0.0.1:9", .seed = 42, .json = true, .link_shape = shaped};
}

}  // namespace

TEST_CASE("node args: the shuffler's command line gives back every field it was made from") {
  const test::TempDir dir("shufflempc-nodeargs");
  const cli::ShufflerArgs given{.configs = {touch(dir, "a.json"), touch(dir, "b.json")},
                                .key = touch(dir, "shuffler.key"),
                                .port_file = dir / "port",
                                .listen_fd = 3,
                                .grace_ms = 0,
                                .json = true,
                                .hop_addresses = {"127.0.0.1:1", "127.0.0.1:2"},
                                .fault_entry = "duplicate",
                                .fault_adversary = "type=result,mutation=drop",
                                .link_shape = shaped,
                                .state_dir = dir / "state",
                                .websocket = "127.0.0.1:0",
                                .websocket_port_file = dir / "ws-port"};
  const auto argv = cli::shuffler_argv("shufflempc-node", given);
  CHECK(argv[1] == "shuffler");
  CHECK(parse_node_argv<cli::ShufflerArgs>(argv, cli::define_shuffler_options) == given);
  // --listen instead of --listen-fd (they exclude each other), and every default.
  const cli::ShufflerArgs listening{.configs = {touch(dir, "a.json")}, .key = touch(dir, "shuffler.key"), .listen = "127.0.0.1:0"};
  CHECK(parse_node_argv<cli::ShufflerArgs>(cli::shuffler_argv("x", listening), cli::define_shuffler_options) == listening);
  // The default reconnect grace spelled once for the command and once for the shuffler itself.
  CHECK(cli::ShufflerArgs{}.grace_ms == static_cast<std::size_t>(net::ShufflerOptions{}.reconnect_grace.count()));
}

TEST_CASE("node args: a mix server's command line gives back every field, serving and in a key generation") {
  const test::TempDir dir("shufflempc-nodeargs");
  const cli::MixServerArgs serving{.configs = {touch(dir, "session.json")},
                                   .key = touch(dir, "mix-1.key"),
                                   .listen = "127.0.0.1:0",
                                   .port_file = dir / "port",
                                   .hop = 2,
                                   .json = true,
                                   .fault_tamper = true,
                                   .fault_gone_after_mix = true,
                                   .fault_adversary = "type=hop_result,mutation=flip",
                                   .link_shape = shaped,
                                   .state_dir = dir / "state",
                                   .fault_kill_at = "kept"};
  CHECK(parse_node_argv<cli::MixServerArgs>(cli::mix_server_argv("x", serving), cli::define_mix_server_options) == serving);
  const cli::MixServerArgs dealing{.key = touch(dir, "mix-1.key"),
                                   .listen = "127.0.0.1:0",
                                   .json = true,
                                   .dkg = true,
                                   .shuffler_key = std::string(64, 'a'),
                                   .fault_dkg_bad_share = 3,
                                   .dkg_timeout_ms = 1500};
  const auto argv = cli::mix_server_argv("x", dealing);
  CHECK(argv[1] == "mix-server");
  CHECK(parse_node_argv<cli::MixServerArgs>(argv, cli::define_mix_server_options) == dealing);
}

TEST_CASE("node args: the analyzer's command line gives back every field") {
  const test::TempDir dir("shufflempc-nodeargs");
  const cli::AnalyzerArgs given{.key = touch(dir, "analyzer.key"),
                                .transcript = dir / "t.json",
                                .client = client(dir),
                                .listen_fd = 3,
                                .commitment = dir / "c.json",
                                .state_dir = dir / "state",
                                .fault_kill_at = "kept"};
  const auto argv = cli::analyzer_argv("x", given);
  CHECK(argv[1] == "analyzer");
  CHECK(parse_node_argv<cli::AnalyzerArgs>(argv, cli::define_analyzer_options) == given);
  const cli::AnalyzerArgs listening{.key = touch(dir, "analyzer.key"),
                                    .listen = "127.0.0.1:0",
                                    .port_file = dir / "port",
                                    .client = client(dir),
                                    .websocket = "127.0.0.1:0",
                                    .websocket_port_file = dir / "ws-port"};
  CHECK(parse_node_argv<cli::AnalyzerArgs>(cli::analyzer_argv("x", listening), cli::define_analyzer_options) == listening);
}

TEST_CASE("node args: a party process's command line gives back every field") {
  const test::TempDir dir("shufflempc-nodeargs");
  std::filesystem::create_directory(dir / "keys");
  const cli::PartyArgs bundle{.ids = "0-9",
                              .key_bundle = touch(dir, "bundle.json"),
                              .inputs_file = touch(dir, "inputs.json"),
                              .dropouts = "3,4",
                              .analyzer = "127.0.0.1:7",
                              .fault_adversary = "type=submit,mutation=drop",
                              .kill_before_round = 1,
                              .hang = true,
                              .client = client(dir),
                              .leave_after_receipt = true};
  const auto argv = cli::party_argv("x", bundle);
  CHECK(argv[1] == "party");
  CHECK(parse_node_argv<cli::PartyArgs>(argv, cli::define_party_options) == bundle);
  const cli::PartyArgs one{.ids = "3", .key = touch(dir, "party.key"), .input = "true", .client = client(dir)};
  CHECK(parse_node_argv<cli::PartyArgs>(cli::party_argv("x", one), cli::define_party_options) == one);
  const cli::PartyArgs directory{.ids = "0-1", .key_dir = dir / "keys", .inputs_file = touch(dir, "inputs.json"), .client = client(dir)};
  CHECK(parse_node_argv<cli::PartyArgs>(cli::party_argv("x", directory), cli::define_party_options) == directory);
}

TEST_CASE("node args: a flag the command does not define fails to parse, so a renamed flag fails these tests") {
  const test::TempDir dir("shufflempc-nodeargs");
  auto argv = cli::analyzer_argv("x", {.key = touch(dir, "analyzer.key"), .client = client(dir)});
  argv.push_back("--hop-adresses");
  argv.push_back("1");
  CLI::App app("node args");
  cli::AnalyzerArgs parsed;
  cli::define_analyzer_options(*app.add_subcommand("analyzer", ""), parsed);
  std::vector<const char*> raw;
  for (const auto& a : argv) raw.push_back(a.c_str());
  CHECK_THROWS_AS(app.parse(static_cast<int>(raw.size()), raw.data()), CLI::ParseError);
  net::set_link_shape({});
}
