// `shufflempc local PROTOCOL --parties N`: one command that runs a protocol across real processes
// on 127.0.0.1. It generates the keys and the session config in a temporary directory, starts the
// shuffler (port chosen by the OS, read back from its "listening on" line), the analyzer and
// ceil(N / K) party processes hosting K parties each, waits for all of them with a deadline, and
// prints the usual report plus a per-party table.
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <array>
#include <csignal>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>

#include "commands.hpp"
#include "common.hpp"
#include "report.hpp"
#include "shufflempc/api/reports.hpp"
#include "net_common.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/files.hpp"
#include "shufflempc/cli/launcher.hpp"
#include "shufflempc/net/local.hpp"
#include "shufflempc/process.hpp"

namespace shufflempc::cli {

namespace {

// The signal that interrupted a local run (0: none). Signal handling is process-wide by nature; this
// is the command's, never the library's.
volatile std::sig_atomic_t interrupted = 0;
extern "C" void on_interrupt(int sig) { interrupted = sig; }

// Catches SIGINT, SIGTERM and SIGHUP while a local run is under way (without SA_RESTART, so a wait
// returns at once), and restores the previous handlers afterwards.
class InterruptGuard {
 public:
  InterruptGuard() {
    interrupted = 0;
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    for (std::size_t i = 0; i < signals_.size(); ++i) ::sigaction(signals_[i], &sa, &old_[i]);
  }
  ~InterruptGuard() {
    for (std::size_t i = 0; i < signals_.size(); ++i) ::sigaction(signals_[i], &old_[i], nullptr);
  }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  std::array<int, 3> signals_ = {SIGINT, SIGTERM, SIGHUP};
  std::array<struct sigaction, 3> old_{};
};

struct LocalArgs {
  std::size_t parties_per_process = 0;  // 0: automatic
  std::size_t deadline_ms = 30'000;
  std::string keep_dir;
  std::optional<std::size_t> kill_party_process;  // fault injection: kill this party process at once
  std::optional<std::uint32_t> kill_before_round;  // ... or just before it submits this round
  bool hang = false;                               // ... stopping (SIGSTOP) instead of dying
  ChainArgs chain;                               // --mix-servers, --mix, --transcript
  std::optional<std::size_t> kill_mix_server;  // fault injection: kill this further server at once
  std::optional<std::size_t> tamper_mix_server;  // fault injection: this further server alters a record after its proof
  std::string tamper_entry;                      // fault injection: the chain's entry drops, replaces or duplicates a record
  std::string fault_adversary;                   // fault injection: the entry as the tests' adversary harness plays it
  net::LinkShape link_shape;                     // --link-delay-ms, --link-mbps: every process's links
  std::string state_dir;                         // --state-dir: the shuffler keeps what it admits there
  bool leave_after_receipt = false;              // --leave-after-receipt: party processes go once their batches are kept
  std::string receipts_dir;                      // --receipts: the receipts, the commitments and the config kept there
  std::optional<std::size_t> close_after_ms, close_count;  // --close-after-ms, --close-count: a collection window
};

// The executable the processes of a run start from: shufflempc-node beside this one when the
// protocol is a built-in one (the networked commands without the study's and the attack's
// libraries: lighter to start), else this executable, which knows the protocols its binary added.
std::string process_executable(const std::string& protocol) {
  const std::filesystem::path self = self_executable();
  const std::filesystem::path node = self.parent_path() / "shufflempc-node";
  if (builtin_registry().find(protocol) != nullptr && ::access(node.c_str(), X_OK) == 0) return node.string();
  return self.string();
}

int run_local(const ProtocolInfo& info, RunArgs& args, const LocalArgs& la, const Registry& registry, const std::string& program) {
  // Its lines name the binary that runs it (a protocol built out of tree speaks as its own binary).
  const std::string said = program + " local: ";
  const net::ChainSpec chain = la.chain.spec("local");
  const std::size_t n = args.parties;
  if (args.dropouts >= n) throw std::invalid_argument("--dropouts must be below --parties");
  std::size_t min_parties = args.min_parties;
  if (args.dropouts > 0 && min_parties == 0) min_parties = n - args.dropouts;
  // The protocol calibrates for the parties guaranteed to submit.
  auto protocol = registry.create(info.name, args.params, args.parties, min_parties);
  auto rng = make_rng(args.seed);
  const std::vector<Value> inputs = load_inputs(*protocol, args, *rng);
  LaunchOptions options{.executable = process_executable(info.name),
                             .parties_per_process = la.parties_per_process,
                             .deadline = std::chrono::milliseconds(la.deadline_ms),
                             .keep_dir = la.keep_dir,
                             .seed = args.seed,
                             .kill_party_process = la.kill_party_process,
                             .kill_before_round = la.kill_before_round,
                             .hang_instead = la.hang,
                             .chain = chain,
                             .kill_mix_server = la.kill_mix_server,
                             .tamper_entry = la.tamper_entry,
                             .adversary = la.fault_adversary,
                             .tamper_mix_server = la.tamper_mix_server,
                             .transcript = la.chain.transcript.empty() ? std::string() : std::filesystem::absolute(la.chain.transcript).string(),
                             .state_dir = la.state_dir.empty() ? std::string() : std::filesystem::absolute(la.state_dir).string(),
                             .leave_after_receipt = la.leave_after_receipt,
                             .receipts_dir = la.receipts_dir.empty() ? std::string() : std::filesystem::absolute(la.receipts_dir).string(),
                             .link_shape = la.link_shape};
  auto drop_rng = rng->fork(rng_labels::dropouts);
  while (options.dropouts.size() < args.dropouts) options.dropouts.insert(static_cast<PartyId>(drop_rng->uniform(n)));
  options.stop = [] { return interrupted != 0 ? "signal " + std::to_string(interrupted) : std::string(); };
  options.progress = [said](const std::string& line) { std::cerr << (said + line + "\n") << std::flush; };
  options.started = [&](const std::string& dir, std::size_t processes) {
    if (!args.json)
      std::cout << said << "shuffler, " << (chain.chained() ? std::to_string(chain.further()) + " further mix server(s), " : "")
                << "analyzer and " << processes << " party processes started; session files in " << dir
                << (la.keep_dir.empty() ? " (removed at the end)" : "") << std::endl;
  };
  net::SessionConfig base;
  base.protocol = info.name;
  base.params = args.params;
  base.min_parties = min_parties;
  if (la.close_after_ms || la.close_count) {
    if (protocol->rounds() != 1)
      throw std::invalid_argument("--close-after-ms and --close-count make a collection window, for a protocol of one round; " + info.name +
                                  " has " + std::to_string(protocol->rounds()));
    if (la.close_count && (*la.close_count > n || *la.close_count < min_parties))
      throw std::invalid_argument("--close-count must be in [" + std::to_string(std::max<std::size_t>(min_parties, 1)) + ", " + std::to_string(n) +
                                  "] (at least the parties the noise is calibrated for), got " + std::to_string(*la.close_count));
  }
  if (la.close_after_ms)
    base.close_at = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count() +
                    static_cast<std::int64_t>(*la.close_after_ms);
  if (la.close_count) base.close_count = *la.close_count;
  bind_files(base, registry);
  // Every party's report as the launcher reads it back, kept typed (a gigabyte as JSON at 10^6).
  std::vector<api::PartyReport> table;
  options.on_party = [&table](const Value& p) { table.push_back(api::party_report_from_json(p, "a party process")); };
  const InterruptGuard guard;  // an interrupted run stops every process; the launcher removes the keys
  const std::string executable = options.executable;
  // The truth while the processes run: the driver only waits for them meanwhile.
  const auto all_truth = api::truth_in_background(*protocol, inputs);
  const LaunchResult run = LocalLauncher(std::move(base), *protocol, n, std::move(options)).run(inputs);
  // A process that failed after its parties submitted (a receipt it could not keep, say) may still
  // have been counted: the report's dropped list says which were not.
  for (const auto& what : run.lost)
    std::cerr << said << "warning: " << what << " (the lines above say why; the report lists the parties that were dropped)\n";

  // The report: the analyzer's result, every party's output and traffic, read back from what the
  // processes printed.
  const api::AnalyzerReport analyzer = api::analyzer_report_from_json(run.analyzer, "the analyzer");
  RunResult result = api::run_result_of(analyzer, table);
  result.seconds = run.seconds;  // the whole run's, processes started and stopped
  api::RunReport typed = api::run_report_of(info.name, *protocol, n, result, inputs, all_truth);
  typed.mix_chain = analyzer.mix_chain;
  typed.verifiable_mix = analyzer.verifiable_mix;
  // The config a transcript is checked against (verify --config): kept only with --keep-dir.
  if (typed.verifiable_mix)
    typed.verifiable_mix->session_config =
        la.keep_dir.empty() ? std::string() : (std::filesystem::absolute(la.keep_dir) / net::session_config_file).string();
  Value report = api::to_json(typed);
  // What only a run across processes has.
  report["transport"] = "tcp";
  report["processes"] = {{"shuffler", 1},
                         {"further_mix_servers", chain.further()},
                         {"analyzer", 1},
                         {"party_processes", run.party_processes},
                         {"parties_per_process", run.parties_per_process},
                         {"executable", executable}};
  report["analyzer_bytes_received"] = analyzer.bytes_received;
  report["lost_processes"] = run.lost;
  report["process_resources"] = run.process_resources;  // peak memory (each process's own where it reports it) and CPU time, for the scale benchmarks
  if (args.json) {
    // The report with "per_party" written a party at a time (as one JSON tree it held every
    // party's report twice over: gigabytes at 10^6 parties).
    std::string head = report.dump();
    head.pop_back();  // its closing brace
    std::cout << head << ",\"per_party\":[";
    for (std::size_t i = 0; i < table.size(); ++i) std::cout << (i == 0 ? "" : ",") << api::to_json(table[i]).dump();
    std::cout << "]}" << std::endl;
    return 0;
  }
  print_report(report, false);
  std::cout << fmt::format("processes {} shuffler{} + 1 analyzer + {} party processes ({} parties each)\n\n", 1,
                           chain.chained() ? fmt::format(" + {} further mix server(s)", chain.further()) : std::string(),
                           run.party_processes, run.parties_per_process);
  // Two kinds of traffic, each sent and received: the protocol's messages, and every byte of the
  // party's connection (a one-round party receives no message but the round's close).
  std::cout << fmt::format("{:>7} {:>15} {:>21} {:>6} {:>8}  {}\n", "party", "messages", "wire bytes", "rounds", "seconds", "output")
            << fmt::format("{:>7} {:>7} {:>7} {:>10} {:>10}\n", "", "sent", "recv", "sent", "recv");
  const std::size_t shown = table.size() <= 32 ? table.size() : 10;
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& p = table[i];
    std::string out = p.dropped ? std::string("(dropped)") : p.output.dump();
    if (out.size() > 40) out = out.substr(0, 37) + "...";
    std::cout << fmt::format("{:>7} {:>7} {:>7} {:>10} {:>10} {:>6} {:>8.3f}  {}\n", p.party, p.messages_sent, p.messages_received,
                             p.bytes_sent, p.bytes_received, p.rounds, p.seconds, out);
  }
  if (shown < table.size()) {
    std::uint64_t ms = 0, bs = 0, mr = 0, br = 0;
    for (const auto& p : table) {
      ms += p.messages_sent;
      bs += p.bytes_sent;
      mr += p.messages_received;
      br += p.bytes_received;
    }
    std::cout << fmt::format("    ... {} more parties (--json lists all)\n", table.size() - shown)
              << fmt::format("{:>7} {:>7} {:>7} {:>10} {:>10}\n", "total", ms, mr, bs, br);
  }
  std::cout << "\nmessages: the protocol's own, to and from the shuffle\nwire bytes: all that the party's connection carried "
               "(handshake, framing, tags, seals, the round's close and results), split evenly among the parties sharing it\n";
  return 0;
}

}  // namespace

void add_local_command(CLI::App& app, const Registry& registry, Action& action) {
  auto* local = add_protocol_group(
      app, "local", "run a protocol across real processes on 127.0.0.1 (shuffler, analyzer, parties over TCP)", registry);
  for (const auto& info : registry.all()) {
    auto* cmd = add_protocol_subcommand(*local, info);
    // Owned by the callback, so it lives exactly as long as the App that fills it.
    auto owned = std::make_shared<std::pair<RunArgs, LocalArgs>>();
    auto& both = *owned;
    add_run_options(*cmd, info, both.first);
    cmd->add_option("--parties-per-process,-k", both.second.parties_per_process,
                    "parties hosted by each party process, each with its own connection (default: N/8 rounded up; over a verifiable chain with a round to every party, N/cores rounded up: each party process checks the whole round)")
        ->check(CLI::Range(std::size_t{1}, net::max_session_parties));
    cmd->add_option("--deadline-ms", both.second.deadline_ms, "the shuffler's per-round deadline in milliseconds: a round ends this long after it last moved (a new link, a batch, a process saying its parties are still preparing theirs), and a process that says nothing for this long is dropped; a round's limit is twice this plus 1 ms per party (default 30000)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{86'400'000}));
    cmd->add_option("--keep-dir", both.second.keep_dir, "write keys, config and process outputs here and keep them");
    add_link_shape_options(*cmd, both.second.link_shape);  // passed on to every process of the run
    cmd->add_option("--kill-party-process", both.second.kill_party_process,
                    "fault injection: kill party process K (from 0) as soon as it starts; its parties drop out")
        ->check(count_check());
    cmd->add_option("--kill-before-round", both.second.kill_before_round,
                    "fault injection, with --kill-party-process: that process kills itself just before it submits round R (from 0), "
                    "after the earlier rounds' results reached it");
    cmd->add_flag("--hang", both.second.hang,
                  "fault injection, with --kill-before-round: that process stops (SIGSTOP, a machine that hangs with its connections "
                  "open) instead of dying; it is dropped a deadline after it last spoke")
        ->needs("--kill-before-round");
    add_chain_options(*cmd, both.second.chain, "each a process of its own");
    cmd->add_option("--kill-mix-server", both.second.kill_mix_server,
                    "fault injection: kill further mix server I (1 to --mix-servers - 1) as soon as it listens; the round fails "
                    "with a line naming it");
    cmd->add_option("--tamper-mix-server", both.second.tamper_mix_server,
                    "fault injection, with --mix verifiable: further mix server I (1 to --mix-servers - 1) replaces one record after "
                    "proving its shuffle; the run fails with a line naming it");
    cmd->add_option("--state-dir", both.second.state_dir,
                    "the shuffler keeps every batch it admits on disk in DIR (SQLite) before it tells the party process, with a "
                    "signed receipt (shuffler --state-dir; a protocol of one round; docs/network.md, \"Durable collection\"); "
                    "without a chain, the analyzer keeps the delivered round and its output in DIR/analyzer (analyzer --state-dir); "
                    "a chain's further servers keep their answers (a verifiable chain's: and decryption shares) in DIR/mix-server-I "
                    "(mix-server --state-dir)");
    cmd->add_flag("--leave-after-receipt", both.second.leave_after_receipt,
                  "with --state-dir: each party process leaves once the shuffler's signed receipts of its batches have come, "
                  "without waiting for the round's result")
        ->needs("--state-dir");
    cmd->add_option("--receipts", both.second.receipts_dir,
                    "with --state-dir: keep in DIR each party process's signed receipts (party-FIRST-LAST.json), the analyzer's "
                    "published commitment to the batch (commitment.json) and the session config (session.json), for `shufflempc "
                    "receipt DIR/party-0-9.json --commitment DIR/commitment.json --config DIR/session.json`")
        ->needs("--state-dir");
    cmd->add_option("--close-after-ms", both.second.close_after_ms,
                    "a collection window: the round closes this long after the session is made, however quiet it is (a protocol "
                    "of one round; at least min-parties must have submitted by then)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{86'400'000}));
    cmd->add_option("--close-count", both.second.close_count,
                    "a collection window: the round closes once this many parties have submitted (at least --min-parties)")
        ->check(count_check());
    cmd->add_option("--tamper-entry", both.second.tamper_entry,
                    "fault injection, with a chain: the shuffler (the chain's entry) drops, replaces or duplicates one record it "
                    "admits (the n - 1 attack); the sender's process names the entry, and the analyzer outputs nothing")
        ->check(CLI::IsMember({"drop", "replace", "duplicate"}));
    cmd->add_option("--fault-adversary", both.second.fault_adversary,
                    "fault injection (the tests' adversary harness): role=entry|mix-server-I|party-P (default entry) plays that "
                    "process dishonestly: ignore=A-B,to=WHO (the entry only),type=T,mutation=M (net/adversary.hpp)")
        ->group("");  // hidden
    cmd->callback([cmd, owned, &info, &registry, &action] {
      collect_params(*cmd, info, owned->first);
      const CLI::App* root = cmd;
      while (root->get_parent() != nullptr) root = root->get_parent();
      action = [owned, &info, &registry, program = root->get_name()] { return run_local(info, owned->first, owned->second, registry, program); };
    });
  }
}


}  // namespace shufflempc::cli
