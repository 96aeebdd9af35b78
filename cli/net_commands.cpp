// The TCP processes: `shufflempc keygen`, `shuffler`, `party` and `analyzer` (and `local`, in
// local.cpp, which launches them all on this machine).
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "commands.hpp"
#include "common.hpp"
#include "net_common.hpp"
#include "report.hpp"
#include "shufflempc/files.hpp"
#include "shufflempc/net/local.hpp"
#include "shufflempc/process.hpp"
#include "shufflempc/net/tcp.hpp"

namespace shufflempc::cli {

namespace {

net::Logger stderr_logger(const std::string& who) {
  return [who](const std::string& line) { std::cerr << "shufflempc " << who << ": " << line << std::endl; };
}

std::pair<std::string, std::uint16_t> connect_address(const net::SessionConfig& config, const std::string& flag) {
  const auto addr = net::split_address(flag.empty() ? config.shuffler_address : flag, "--connect");
  if (addr.second == 0)
    throw std::invalid_argument("--connect HOST:PORT is needed: the session config's shuffler_address has port 0");
  return addr;
}

// "3" or "0-99" -> [first, last].
std::pair<PartyId, PartyId> parse_ids(const std::string& text, std::size_t parties) {
  const auto dash = text.find('-');
  try {
    std::size_t used = 0;
    const unsigned long first = std::stoul(text.substr(0, dash), &used);
    if (used != (dash == std::string::npos ? text.size() : dash)) throw std::invalid_argument("");
    unsigned long last = first;
    if (dash != std::string::npos) {
      last = std::stoul(text.substr(dash + 1), &used);
      if (used != text.size() - dash - 1) throw std::invalid_argument("");
    }
    if (first <= last && last < parties) return {static_cast<PartyId>(first), static_cast<PartyId>(last)};
  } catch (const std::logic_error&) {
  }
  throw std::invalid_argument("--id must be a party id or a range FIRST-LAST within [0, " + std::to_string(parties - 1) +
                              "], got '" + text + "'");
}

Value read_json_file(const std::string& path, const std::string& what) {
  Value v = Value::parse(read_text_file(path, what), nullptr, false);
  if (v.is_discarded()) throw std::invalid_argument(what + " " + path + " is not JSON");
  return v;
}

// Options shared by the party and analyzer processes.
struct ClientArgs {
  std::string config_path, connect;
  std::optional<std::uint64_t> seed;
  bool json = false;
};

void add_client_options(CLI::App& cmd, ClientArgs& args, const std::string& whose) {
  cmd.add_option("--config,-c", args.config_path, "session config")->required()->check(CLI::ExistingFile);
  cmd.add_option("--connect", args.connect, "shuffler HOST:PORT (default: the config's shuffler_address)");
  cmd.add_option("--seed", args.seed, "seed " + whose + " randomness (reproducible simulation only)")->check(seed_check());
  cmd.add_flag("--json", args.json, "print JSON");
}

}  // namespace


void add_net_process_commands(CLI::App& app, const Registry& registry, Action& action) {
  // keygen
  {
    auto* cmd = app.add_subcommand("keygen", "generate an X25519 key pair (party, shuffler or analyzer identity)");
    struct Options { std::string out; };
    auto o = std::make_shared<Options>();  // owned by the callback, so it lives as long as the App
    cmd->add_option("--out,-o", o->out, "key file to write (mode 0600); its public key is printed")->required();
    cmd->callback([o, &action] {
      action = [o] {
        const auto& [out] = *o;
        SystemRng rng;
        const auto keys = net::KeyPair::generate(rng);
        keys.save(out);
        std::cout << to_hex(keys.public_key()) << '\n';
        return 0;
      };
    });
  }
  // shuffler
  {
    auto* cmd = app.add_subcommand("shuffler", "serve one or more sessions: collect, validate, shuffle and deliver each round");
    struct Options {
      std::vector<std::string> configs;
      std::string key, listen;
      bool json = false;
    };
    auto o = std::make_shared<Options>();
    cmd->add_option("--config,-c", o->configs, "session config (repeat to serve several sessions)")->required()->check(CLI::ExistingFile);
    cmd->add_option("--key,-k", o->key, "the shuffler's key file")->required()->check(CLI::ExistingFile);
    cmd->add_option("--listen", o->listen, "ADDR:PORT to listen on (default: the first config's shuffler_address; port 0 = any)");
    cmd->add_flag("--json", o->json, "print the final report as JSON");
    cmd->callback([o, &registry, &action] {
      action = [o, &registry] {
        const auto& [configs, key, listen, json] = *o;
        const auto keys = net::KeyPair::load(key);
        std::vector<net::ShufflerSessionSpec> sessions;
        for (const auto& path : configs) {
          auto config = net::SessionConfig::load(path);
          auto protocol = registry.create(config.protocol, config.params, config.parties, config.min_parties);
          sessions.push_back({config, net::wire_rounds(*protocol)});
        }
        // One descriptor per client connection. A process hosting many parties shares its links, so
        // the connections number the client processes (unknown here): what is certain is checked,
        // and the limit is raised as far as one connection per party would need.
        std::size_t links = 64;  // the listening socket, the log, slack
        for (const auto& spec : sessions) links += spec.config.parties + 1;
        const std::size_t floor = 64 + 2 * sessions.size() + net::ShufflerOptions{}.max_unauthenticated;
        ensure_descriptors(floor, "the shuffler (its analyzers and unauthenticated connections)");
        const std::size_t room = raise_descriptors(links + net::ShufflerOptions{}.max_unauthenticated);
        if (room < links + net::ShufflerOptions{}.max_unauthenticated)
          std::cerr << "shuffler: descriptor limit " << room << ": room for " << room - floor + 2 * sessions.size()
                    << " client connections at once (a process hosting many parties needs one)\n";
        const auto [host, port] = net::split_address(listen.empty() ? sessions.front().config.shuffler_address : listen, "--listen");
        net::TcpShuffler shuffler(keys, sessions, host, port, stderr_logger("shuffler"));
        // Readiness: the launcher (or the user) reads this line, then starts the clients.
        std::cout << "listening on " << host << ':' << shuffler.port() << std::endl;
        const auto reports = shuffler.run();
        int status = 0;
        Value all = Value::array();
        for (const auto& r : reports) {
          std::size_t messages = 0;
          for (const auto& s : r.rounds) messages += s.messages;
          all.push_back({{"session", to_hex(r.session)}, {"rounds", r.rounds.size()}, {"messages", messages},
                         {"dropped", r.dropped}, {"error", r.error}});
          if (!r.error.empty()) status = 1;
        }
        if (json) std::cout << all.dump() << std::endl;
        else
          for (const auto& r : all)
            std::cout << fmt::format("session {}: {} round(s), {} messages, {} dropped{}\n", r["session"].get<std::string>(),
                                     r["rounds"].get<std::size_t>(), r["messages"].get<std::size_t>(), r["dropped"].size(),
                                     r["error"].get<std::string>().empty() ? std::string() : ", error: " + r["error"].get<std::string>());
        return status;
      };
    });
  }
  // party
  {
    auto* cmd = app.add_subcommand("party", "run one or more parties of a session, each over its own authenticated link");
    struct Options {
      std::string ids, key, key_dir, input, inputs_file, dropouts;
      ClientArgs client;
    };
    auto o = std::make_shared<Options>();
    add_client_options(*cmd, o->client, "the parties'");
    cmd->add_option("--id", o->ids, "party id, or a range FIRST-LAST of parties hosted by this process")->required();
    cmd->add_option("--key,-k", o->key, "the party's key file (one party)")->check(CLI::ExistingFile);
    cmd->add_option("--key-dir", o->key_dir, "directory of key files party-<id>.key (a range of parties)")->check(CLI::ExistingDirectory);
    cmd->add_option("--input", o->input, "the party's input as JSON (one party)");
    cmd->add_option("--inputs", o->inputs_file, "JSON array with every party's input, indexed by id")->check(CLI::ExistingFile);
    cmd->add_option("--dropouts", o->dropouts, "comma-separated ids of hosted parties that drop out before round 0 (simulation)");
    cmd->callback([o, &registry, &action] {
      action = [o, &registry] {
        const auto& [ids, key, key_dir, input, inputs_file, dropouts, client] = *o;
        const auto config = net::SessionConfig::load(client.config_path);
        auto protocol = registry.create(config.protocol, config.params, config.parties, config.min_parties);
        const auto [first, last] = parse_ids(ids, config.parties);
        if (key.empty() == key_dir.empty()) throw std::invalid_argument("give exactly one of --key (one party) and --key-dir");
        if (!key.empty() && first != last) throw std::invalid_argument("--key is for one party; use --key-dir for a range");
        if (input.empty() == inputs_file.empty()) throw std::invalid_argument("give exactly one of --input and --inputs");
        if (!input.empty() && first != last) throw std::invalid_argument("--input is for one party; use --inputs for a range");
        Value all_inputs;
        if (!inputs_file.empty()) {
          all_inputs = read_json_file(inputs_file, "--inputs");
          if (!all_inputs.is_array() || all_inputs.size() != config.parties)
            throw std::invalid_argument("--inputs must be a JSON array of " + std::to_string(config.parties) + " inputs");
        }
        RunOptions options;
        for (std::size_t pos = 0; pos < dropouts.size();) {
          const auto comma = dropouts.find(',', pos);
          const std::string item = dropouts.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
          const auto [d, d2] = parse_ids(item, config.parties);
          for (PartyId x = d; x <= d2; ++x) options.dropouts[x] = 0;
          pos = comma == std::string::npos ? dropouts.size() : comma + 1;
        }
        std::vector<net::Identity> identities;
        for (PartyId id = first; id <= last; ++id)
          identities.push_back({id, net::KeyPair::load(key.empty() ? net::party_key_file(key_dir, id) : key)});
        const auto [host, port] = connect_address(config, client.connect);
        const auto rounds = net::wire_rounds(*protocol);
        const std::size_t capacity = net::link_capacity(config, rounds);
        ensure_descriptors((identities.size() + capacity - 1) / capacity + 64, "party process " + ids + " (one link per " +
                                                                                        std::to_string(capacity) + " hosted parties)");
        auto rng = make_rng(client.seed);
        net::TcpChannel channel(config, std::move(identities), host, port, stderr_logger("party " + ids), {rounds});
        RoundDriver session(*protocol, channel, *rng, config.parties);
        for (PartyId id = first; id <= last; ++id) {
          Value v;
          if (!input.empty()) {
            v = Value::parse(input, nullptr, false);
            if (v.is_discarded()) v = input;  // a bare word is a string input
          } else {
            v = all_inputs[id];
          }
          session.add_party(id, v);
        }
        const RunResult result = session.run(options);
        const auto counters = channel.counters();
        Value parties = Value::array();
        for (PartyId id = first; id <= last; ++id) {
          const auto& c = counters.at(id);
          const auto out = result.party_outputs.find(id);
          parties.push_back({{"party", id},
                             {"output", out == result.party_outputs.end() ? Value() : out->second},
                             {"dropped", out == result.party_outputs.end()},
                             {"messages_sent", c.messages_sent},
                             {"bytes_sent", c.bytes_sent},
                             {"messages_received", c.messages_received},
                             {"bytes_received", c.bytes_received},
                             {"rounds", c.rounds},
                             {"seconds", result.seconds}});
        }
        if (client.json) {
          std::cout << Value{{"parties", parties}}.dump() << std::endl;
        } else {
          for (const auto& p : parties)
            std::cout << fmt::format("party {}: output {}{}\n", p["party"].get<PartyId>(), p["output"].dump(),
                                     p["dropped"].get<bool>() ? " (dropped)" : "");
        }
        return 0;
      };
    });
  }
  // analyzer
  {
    auto* cmd = app.add_subcommand("analyzer", "receive each round's shuffled output and run the protocol's analyzer");
    struct Options {
      std::string key;
      ClientArgs client;
    };
    auto o = std::make_shared<Options>();
    add_client_options(*cmd, o->client, "the analyzer's");
    cmd->add_option("--key,-k", o->key, "the analyzer's key file")->required()->check(CLI::ExistingFile);
    cmd->callback([o, &registry, &action] {
      action = [o, &registry] {
        const auto& [key, client] = *o;
        const auto config = net::SessionConfig::load(client.config_path);
        auto protocol = registry.create(config.protocol, config.params, config.parties, config.min_parties);
        const auto [host, port] = connect_address(config, client.connect);
        auto rng = make_rng(client.seed);
        std::vector<net::Identity> identities;
        identities.push_back({net::analyzer_id, net::KeyPair::load(key)});
        net::TcpChannel channel(config, std::move(identities), host, port, stderr_logger("analyzer"), {net::wire_rounds(*protocol)});
        RoundDriver session(*protocol, channel, *rng, config.parties);
        session.host_analyzer();
        const RunResult result = session.run({});
        const auto c = channel.counters().at(net::analyzer_id);
        Value report = analyzer_report(result);
        report["bytes_received"] = c.bytes_received;
        if (client.json) {
          std::cout << report.dump() << std::endl;
        } else {
          std::cout << "output    " << result.output.dump() << '\n'
                    << fmt::format("traffic   {} messages, {} bytes, {:.3f} s\n", result.messages, result.bytes, result.seconds);
          if (!result.dropped.empty()) std::cout << "dropped   " << Value(result.dropped).dump() << '\n';
        }
        return 0;
      };
    });
  }
}

}  // namespace shufflempc::cli
