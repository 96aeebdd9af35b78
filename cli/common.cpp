#include "common.hpp"

#include "shufflempc/files.hpp"
#include "shufflempc/random_inputs.hpp"

#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <iostream>

namespace shufflempc::cli {

CLI::App* add_protocol_group(CLI::App& app, const std::string& name, const std::string& description,
                             const Registry& registry) {
  auto* group = app.add_subcommand(name, description);
  group->require_subcommand(0, 1);
  group->allow_extras();  // so that `NAME nope` reaches the callback below instead of a generic error
  group->callback([group, &registry] {
    const auto rest = group->remaining();
    if (group->get_subcommands().empty() && (rest.empty() || rest.front().starts_with('-'))) {
      std::string names;
      for (const auto& p : registry.all()) names += (names.empty() ? "" : ", ") + p.name;
      throw std::invalid_argument("name the protocol first: " + group->get_parent()->get_name() + " " + group->get_name() +
                                  " PROTOCOL [OPTIONS] (protocols: " + names + ")");
    }
    if (group->get_subcommands().empty()) (void)registry.get(rest.front());
    if (!rest.empty()) throw std::invalid_argument("unknown option or argument '" + rest.front() + "'");
  });
  return group;
}

CLI::App* add_protocol_subcommand(CLI::App& group, const ProtocolInfo& info) {
  auto* cmd = group.add_subcommand(info.name, info.summary);
  cmd->allow_extras(false);  // the group allows extras; a protocol's own flags are checked strictly
  return cmd;
}

void add_run_options(CLI::App& cmd, const ProtocolInfo& info, RunArgs& args) {
  cmd.add_option("--parties,-n", args.parties, "number of parties")
      ->required()
      ->check(CLI::Range(info.min_parties, info.max_parties));
  cmd.add_option("--inputs", args.inputs_file, "file with one input per party (JSON array, or one JSON value per line)")
      ->check(CLI::ExistingFile);
  cmd.add_option("--random-inputs", args.random_inputs, "random inputs: " + describe(info.random_inputs));
  cmd.add_option("--seed", args.seed, "seed a reproducible simulation (never use a seed for real data)")->check(seed_check());
  cmd.add_flag("--json", args.json, "print one JSON object");
  cmd.add_option("--min-parties", args.min_parties,
                 "the run completes if at least this many parties submit, and DP noise is calibrated for them (default: all)")
      ->check(count_check());
  cmd.add_option("--dropouts", args.dropouts, "simulate this many randomly chosen parties dropping out before round 0")
      ->check(count_check());
  for (const auto& p : info.params) {
    auto* opt = cmd.add_option("--" + p.name)->description(p.help + " (" + p.range_text() + ", default " + p.default_value + ")");
    opt->type_name(p.type == ParamType::integer ? "INT" : p.type == ParamType::real ? "REAL" : p.type == ParamType::boolean ? "[BOOL]" : p.type == ParamType::text ? "TEXT" : "CHOICE");
    // A boolean parameter works as a bare flag (--show-keys) or with a value (--show-keys false).
    if (p.type == ParamType::boolean) opt->expected(0, 1);
  }
  (void)args;
}

void collect_params(const CLI::App& cmd, const ProtocolInfo& info, RunArgs& args) {
  for (const auto& p : info.params) {
    const auto* opt = cmd.get_option("--" + p.name);
    if (opt->count() == 0) continue;
    const auto& given = opt->results();
    args.params[p.name] = (p.type == ParamType::boolean && (given.empty() || given.back().empty())) ? "true" : given.back();
  }
}

std::optional<std::vector<Value>> read_inputs(const RunArgs& args) {
  if (args.inputs_file.empty()) return std::nullopt;
  if (!args.random_inputs.empty()) throw std::invalid_argument("--inputs and --random-inputs exclude each other");
  std::vector<Value> inputs;
  const std::string text = read_text_file(args.inputs_file, "--inputs");
  Value all = Value::parse(text, nullptr, false);
  if (!all.is_discarded() && all.is_array()) {
    auto& elements = all.get_ref<Value::array_t&>();
    inputs.assign(std::make_move_iterator(elements.begin()), std::make_move_iterator(elements.end()));
  } else {
    std::istringstream lines(text);
    std::string line;
    std::size_t number = 0;
    while (std::getline(lines, line)) {
      ++number;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      Value v = Value::parse(line, nullptr, false);
      if (v.is_discarded()) throw std::invalid_argument(args.inputs_file + ":" + std::to_string(number) + ": not a JSON value: " + line);
      inputs.push_back(std::move(v));
    }
  }
  if (inputs.size() != args.parties)
    throw std::invalid_argument("--inputs " + args.inputs_file + " holds " + std::to_string(inputs.size()) + " inputs for --parties " +
                                std::to_string(args.parties));
  return inputs;
}

std::vector<Value> load_inputs(const Protocol& protocol, const RunArgs& args, Rng& rng) {
  if (auto given = read_inputs(args)) return std::move(*given);
  return draw_random_inputs(protocol, args.parties, args.random_inputs, rng);
}

net::ChainSpec ChainArgs::spec(const std::string& command) const {
  std::size_t n = servers;
  if (n == 0 && command == "run") {
    std::cerr << "shufflempc run: --mix-servers 0 is spelled --mix-servers 1 now (the one shuffler, no chain; 0 is accepted until "
                 "0.3)\n";
    n = 1;
  }
  return net::ChainSpec::make(n, net::parse_mix_kind(kind), decryption_threshold);
}

void add_chain_options(CLI::App& cmd, ChainArgs& args, const std::string& where) {
  cmd.add_option("--mix-servers", args.servers,
                 "the servers the records cross, the shuffler first (" + where + "): 1, the one shuffler (default; it reads every "
                 "record in MPC mode and knows who sent it); 2 to " + std::to_string(net::max_mix_servers) +
                 ", a chain of mix servers, of which one honest server keeps every record unlinkable to its sender (docs/mix-chain.md)");
  cmd.add_option("--mix", args.kind,
                 "what a chain carries: decryption (onion records each server peels, shuffles and signs for; default) or verifiable "
                 "(ElGamal records each server re-encrypts, permutes and proves, so a server that alters one is caught; "
                 "docs/verifiable-shuffle.md)")
      ->check(CLI::IsMember({"decryption", "verifiable"}));
  cmd.add_option("--transcript", args.transcript,
                 "with --mix verifiable: write every round verified (each hop's output and proof, each decryption proof) to this "
                 "file, for `shufflempc verify`");
  cmd.add_option("--decryption-threshold", args.decryption_threshold,
                 "with --mix verifiable: the mix servers needed to decrypt a round delivered to every party, 1 to --mix-servers "
                 "(default: all of them); fewer than all lets a round finish without some servers, and lets that many decrypt "
                 "anything. Over TCP the servers make that key themselves (a distributed key generation) before the session")
      ->check(CLI::Range(std::size_t{1}, net::max_mix_servers));
}

}  // namespace shufflempc::cli
