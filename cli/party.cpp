// `shufflempc party`: runs one or more parties of a session over authenticated links (docs/network.md).
#include <fmt/format.h>

#include <csignal>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "commands.hpp"
#include "common.hpp"
#include "net_common.hpp"
#include "shufflempc/net/receipt_files.hpp"
#include "report.hpp"
#include "shufflempc/api/reports.hpp"
#include "shufflempc/files.hpp"
#include "shufflempc/hex.hpp"
#include "shufflempc/net/adversary.hpp"
#include "shufflempc/net/local.hpp"
#include "shufflempc/net/tcp.hpp"
#include "shufflempc/process.hpp"

namespace shufflempc::cli {

namespace {

// Fault injection for `local --kill-before-round`: the process kills itself (SIGKILL, as `kill -9`
// would), or with --hang stops itself (SIGSTOP: a machine that hangs with its connections open),
// when its parties are about to submit `round`, after the earlier rounds' results arrived.
class DyingChannel final : public AnonymousChannel {
 public:
  DyingChannel(AnonymousChannel& inner, std::uint32_t round, int signal) : inner_(inner), round_(round), signal_(signal) {}
  RoundOutcome exchange(const RoundRules& spec, Submissions local) override {
    if (spec.round == round_) ::raise(signal_);
    return inner_.exchange(spec, std::move(local));
  }

 private:
  AnonymousChannel& inner_;
  std::uint32_t round_;
  int signal_;
};

}  // namespace

void define_party_options(CLI::App& cmd, PartyArgs& o) {
  add_client_options(cmd, o.client, "the parties'");
  cmd.add_option(std::string(flag::analyzer), o.analyzer,
                 "the analyzer's HOST:PORT for the verdicts on the receipts (its --listen), needed when the session's analyzer-only "
                 "rounds cross a mix chain (docs/mix-chain.md, receipts and complaints)");
  cmd.add_option(std::string(flag::id), o.ids, "party id, or a range FIRST-LAST of parties hosted by this process")->required();
  cmd.add_option(std::string(flag::key) + ",-k", o.key, "the party's key file (one party)")->check(CLI::ExistingFile);
  cmd.add_option(std::string(flag::key_dir), o.key_dir, "directory of key files party-<id>.key (a range of parties)")->check(CLI::ExistingDirectory);
  cmd.add_option(std::string(flag::key_bundle), o.key_bundle, "one file with the keys of a range of parties (keygen --parties), holding every --id")
      ->check(CLI::ExistingFile);
  cmd.add_option(std::string(flag::input), o.input, "the party's input as JSON (one party)");
  cmd.add_option(std::string(flag::inputs), o.inputs_file,
                 "JSON array of the hosted parties' inputs in id order (this host needs no one else's), or of every party's, "
                 "indexed by id")
      ->check(CLI::ExistingFile);
  cmd.add_option(std::string(flag::fault_kill_before_round), o.kill_before_round,
                 "fault injection (local --kill-before-round): kill this process just before its parties submit round R")
      ->group("");  // not in --help: a test's tool
  cmd.add_flag(std::string(flag::fault_hang), o.hang, "fault injection (local --hang): with --fault-kill-before-round, stop (SIGSTOP) instead")
      ->group("");
  cmd.add_option(std::string(flag::fault_adversary), o.fault_adversary,
                 "fault injection (local --fault-adversary role=party-P,...): the hosted parties' frames mutated, type=T,mutation=M "
                 "(net/adversary.hpp)")
      ->group("");
  cmd.add_option(std::string(flag::dropouts), o.dropouts, "comma-separated ids of hosted parties that drop out before round 0 (simulation)");
  cmd.add_flag(std::string(flag::leave_after_receipt), o.leave_after_receipt,
               "a collection round (a shuffler with --state-dir): leave once the shuffler's signed receipt of the batch has come, "
               "without waiting for the round's result (docs/network.md, \"Durable collection\"); not through a chain");
  cmd.add_option(std::string(flag::receipt), o.receipt_file,
                 "a collection round (a shuffler with --state-dir): write the shuffler's signed receipts of this process's batches, "
                 "with the batches, to FILE, for `shufflempc receipt FILE --commitment ...` once the analyzer has published its "
                 "commitment (exit 1 if none came)");
}

std::vector<std::string> party_argv(const std::string& executable, const PartyArgs& o) {
  Argv argv(executable, node_command::party);
  argv.add(flag::id, o.ids).add(flag::key, o.key).add(flag::key_dir, o.key_dir).add(flag::key_bundle, o.key_bundle);
  argv.add(flag::input, o.input).add(flag::inputs, o.inputs_file);
  add_client_argv(argv, o.client);
  argv.add(flag::analyzer, o.analyzer).add(flag::dropouts, o.dropouts).add(flag::fault_adversary, o.fault_adversary);
  argv.add(flag::fault_kill_before_round, o.kill_before_round).add(flag::fault_hang, o.hang);
  argv.add(flag::leave_after_receipt, o.leave_after_receipt).add(flag::receipt, o.receipt_file);
  return argv.take();
}

void add_party_command(CLI::App& app, const Registry& registry, Action& action) {
  auto* cmd = app.add_subcommand(std::string(node_command::party), "run one or more parties of a session, each over its own authenticated link");
  auto o = std::make_shared<PartyArgs>();
  define_party_options(*cmd, *o);
  cmd->callback([o, &registry, &action] {
    action = [o, &registry] {
      const auto& [ids, key, key_dir, key_bundle, input, inputs_file, dropouts, analyzer, fault_adversary, kill_before_round, hang, client,
                   leave_after_receipt, receipt_file] = *o;
      net::FrameTap tap = net::adversary::parse_tap(fault_adversary);  // none without a mutation
      auto config = net::SessionConfig::load(client.config_path);
      const WarmUp warm_up(config, registry);  // beside building the protocol, reading keys, connecting
      auto protocol = session_protocol(config, registry);
      const auto [first, last] = parse_ids(ids, config.parties);
      if (int{!key.empty()} + int{!key_dir.empty()} + int{!key_bundle.empty()} != 1)
        throw std::invalid_argument("give exactly one of --key (one party), --key-dir and --key-bundle");
      if (!key.empty() && first != last) throw std::invalid_argument("--key is for one party; use --key-dir for a range");
      if (input.empty() == inputs_file.empty()) throw std::invalid_argument("give exactly one of --input and --inputs");
      if (!input.empty() && first != last) throw std::invalid_argument("--input is for one party; use --inputs for a range");
      prepare_output_file(receipt_file, "--receipt");
      Value all_inputs;
      if (!inputs_file.empty()) {
        all_inputs = read_json_file(inputs_file, "--inputs");
        const std::size_t hosted = std::size_t{last} - first + 1;
        // Either reading is the same when the process hosts every party (first = 0).
        if (!all_inputs.is_array() || (all_inputs.size() != config.parties && all_inputs.size() != hosted))
          throw std::invalid_argument("--inputs must be a JSON array of " + std::to_string(hosted) + " inputs (parties " + ids +
                                      ", in id order) or of " + std::to_string(config.parties) + " (every party's, by id), got " +
                                      (all_inputs.is_array() ? "an array of " + std::to_string(all_inputs.size()) : std::string("a ") + all_inputs.type_name()));
      }
      // The hosted parties' inputs only (first at 0), or every party's (by id).
      const PartyId input_base = all_inputs.size() == config.parties ? 0 : first;
      RunOptions options;
      for (std::size_t pos = 0; pos < dropouts.size();) {
        const auto comma = dropouts.find(',', pos);
        const std::string item = dropouts.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        const auto [d, d2] = parse_ids(item, config.parties);
        for (PartyId x = d; x <= d2; ++x) options.dropouts[x] = 0;
        pos = comma == std::string::npos ? dropouts.size() : comma + 1;
      }
      std::vector<net::Identity> identities;
      if (!key_bundle.empty()) {
        const auto bundle = net::KeyBundle::load(key_bundle);
        if (first < bundle.first || last > bundle.last())
          throw std::invalid_argument("--id " + ids + " is not inside --key-bundle " + key_bundle + ", which holds parties " +
                                      std::to_string(bundle.first) + "-" + std::to_string(bundle.last()));
        for (PartyId id = first; id <= last; ++id) identities.push_back({id, bundle.of(id)});
      } else {
        for (PartyId id = first; id <= last; ++id)
          identities.push_back({id, net::KeyPair::load(key.empty() ? net::party_key_file(key_dir, id) : key)});
      }
      const auto [host, port] = connect_address(config, client.connect);
      const std::size_t capacity = net::link_capacity(config);
      ensure_descriptors((identities.size() + capacity - 1) / capacity + 64, "party process " + ids + " (one link per " +
                                                                                      std::to_string(capacity) + " hosted parties)");
      auto rng = make_rng(client.seed);
      // The config moves into the channel (no second copy of every party's key: 32 MB at 10^6
      // parties), which keeps none of those keys once it has checked the hosted ones.
      const std::size_t parties = config.parties;
      const SessionId session_id = config.session;
      net::TcpChannel channel(std::move(config), std::move(identities), host, port, stderr_logger("party " + ids),
                              {.share_links = true, .analyzer_address = analyzer, .frame_tap = std::move(tap),
                               .leave_after_receipt = leave_after_receipt});
      std::optional<DyingChannel> dying;
      if (kill_before_round) dying.emplace(channel, *kill_before_round, hang ? SIGSTOP : SIGKILL);
      RoundDriver session(*protocol, dying ? static_cast<AnonymousChannel&>(*dying) : channel, *rng, parties);
      for (PartyId id = first; id <= last; ++id) {
        Value v;
        if (!input.empty()) {
          v = Value::parse(input, nullptr, false);
          if (v.is_discarded()) v = input;  // a bare word is a string input
        } else {
          v = std::move(all_inputs[id - input_base]);
        }
        session.add_party(id, std::move(v));
      }
      // The receipts, written whole before the reports, and also when the run fails after they came
      // (a window that closed below --min-parties, say): they are what outlives this process.
      const auto keep_receipts = [&] {
        const auto receipts = channel.admission_receipts();
        if (!receipt_file.empty()) write_file(receipt_file, net::receipts_json(session_id, receipts).dump() + "\n", "--receipt");
        return receipts.size();
      };
      RunResult result;
      try {
        result = session.run(options);
      } catch (...) {
        if (!receipt_file.empty() && keep_receipts() > 0) std::cerr << "shufflempc party " << ids << ": receipts kept in " << receipt_file << '\n';
        throw;
      }
      if (!receipt_file.empty()) {
        if (keep_receipts() == 0)
          throw std::runtime_error("--receipt: no admission receipt came for parties " + ids +
                                   " (the shuffler keeps no state directory, or its receipt did not hold: the line above says which)");
      }
      const auto counters = channel.counters();
      // One party's report at a time, written as it is made (one line of JSON in all): a process
      // hosting 10^5 parties never holds them all as JSON (that tree, its copy and its text were
      // 2 KB a party at the peak).
      if (client.json) std::cout << "{\"parties\":[";
      std::size_t without_output = 0;  // parties whose rounds delivered to the analyzer only: one line for them all
      for (PartyId id = first; id <= last; ++id) {
        const auto& c = counters.at(id);
        const auto out = result.party_outputs.find(id);
        const bool dropped = out == result.party_outputs.end();
        const Value output = dropped ? Value() : out->second;
        if (!client.json) {
          if (!dropped && output.is_null()) ++without_output;
          else std::cout << fmt::format("party {}: output {}{}\n", id, output.dump(), dropped ? " (dropped)" : "");
          continue;
        }
        std::cout << (id == first ? "" : ",")
                  << api::to_json(api::PartyReport{.party = id,
                                                   .output = output,
                                                   .dropped = dropped,
                                                   .messages_sent = c.messages_sent,
                                                   .bytes_sent = c.bytes_sent,
                                                   .messages_received = c.messages_received,
                                                   .bytes_received = c.bytes_received,
                                                   .rounds = c.rounds,
                                                   .seconds = result.seconds})
                         .dump();
      }
      if (!client.json && without_output > 0)
        std::cout << fmt::format("{} of parties {}-{} took part; their output is the analyzer's (its rounds deliver to it only)\n", without_output,
                                 first, last);
      // The process's own peak memory (wait4 would count the launcher's up to the spawn too).
      if (client.json) std::cout << "],\"process\":" << Value{{"peak_memory_bytes", own_peak_memory()}}.dump() << "}" << std::endl;
      std::cout.flush();
      return 0;
    };
  });
}

}  // namespace shufflempc::cli
