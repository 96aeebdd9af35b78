// `shufflempc local PROTOCOL --parties N`: one command that runs a protocol across real processes
// on 127.0.0.1. It generates the keys and the session config in a temporary directory, starts the
// shuffler (port chosen by the OS, read back from its "listening on" line), the analyzer and
// ceil(N / K) party processes hosting K parties each, waits for all of them with a deadline, and
// prints the usual report plus a per-party table.
#include <signal.h>
#include <stdlib.h>

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
#include "net_common.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/files.hpp"
#include "shufflempc/net/local.hpp"
#include "shufflempc/process.hpp"
#include "shufflempc/net/tcp.hpp"

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
};

int run_local(const ProtocolInfo& info, RunArgs& args, const LocalArgs& la, const Registry& registry) {
  const std::size_t n = args.parties;
  if (args.dropouts >= n) throw std::invalid_argument("--dropouts must be below --parties");
  std::size_t min_parties = args.min_parties;
  if (args.dropouts > 0 && min_parties == 0) min_parties = n - args.dropouts;
  // The protocol calibrates for the parties guaranteed to submit.
  auto protocol = registry.create(info.name, args.params, args.parties, min_parties);
  auto rng = make_rng(args.seed);
  const std::vector<Value> inputs = load_inputs(*protocol, args, *rng);
  std::map<PartyId, std::uint32_t> dropouts;
  auto drop_rng = rng->fork(rng_labels::dropouts);
  while (dropouts.size() < args.dropouts) dropouts[static_cast<PartyId>(drop_rng->uniform(n))] = 0;
  std::size_t k = la.parties_per_process;
  if (k == 0) k = std::max<std::size_t>(1, (n + 7) / 8);  // at most 8 party processes by default
  k = std::min(k, n);

  // The shuffler holds a link per party process (more if its parties overflow one frame) and the
  // analyzer's: check (and raise, for the children too) the descriptor limit before any key is made.
  {
    net::SessionConfig sizing;
    sizing.parties = n;
    const std::size_t capacity = net::link_capacity(sizing, net::wire_rounds(*protocol));
    const std::size_t processes = (n + k - 1) / k;
    const std::size_t links = processes * ((k + capacity - 1) / capacity);
    ensure_descriptors(links + 1 + 64 + net::ShufflerOptions{}.max_unauthenticated,
                            "the shuffler of this local run (" + std::to_string(links) + " links of " + std::to_string(processes) +
                                " party processes, and the analyzer's)");
  }

  // Keys, config and inputs in a private directory.
  std::string dir = la.keep_dir;
  if (dir.empty()) {
    char tmpl[] = "/tmp/shufflempc-local-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) throw std::system_error(errno, std::generic_category(), "mkdtemp");
    dir = tmpl;
  } else {
    std::filesystem::create_directories(dir);
    std::filesystem::permissions(dir, std::filesystem::perms::owner_all, std::filesystem::perm_options::replace);
  }
  struct Cleanup {
    std::string dir;
    bool keep;
    ~Cleanup() {
      std::error_code ec;
      if (!keep) std::filesystem::remove_all(dir, ec);
    }
  } cleanup{dir, !la.keep_dir.empty()};

  SystemRng key_rng;
  net::SessionConfig base;
  base.protocol = info.name;
  base.params = args.params;
  base.min_parties = min_parties;
  base.deadline = std::chrono::milliseconds(la.deadline_ms);
  const net::LocalDeployment local = net::LocalDeployment::create(n, key_rng, std::move(base));
  local.save(dir);
  const std::string config_path = dir + "/" + net::session_config_file, inputs_path = dir + "/inputs.json";
  write_private_file(inputs_path, Value(inputs).dump() + "\n", "inputs file");  // private inputs: mode 0600

  const InterruptGuard guard;  // an interrupted run stops every process; Cleanup removes the keys
  const auto start = std::chrono::steady_clock::now();
  const std::string exe = self_executable();
  std::vector<ChildProcess> children;
  children.reserve(2 + (n + k - 1) / k);
  children.emplace_back("shuffler",
                        std::vector<std::string>{exe, "shuffler", "--config", config_path, "--key", dir + "/" + net::shuffler_key_file,
                                                 "--listen", "127.0.0.1:0", "--json"});
  const auto line = children.front().read_line(std::chrono::seconds(30));
  if (!line) throw std::runtime_error("the shuffler did not report its port in time");
  const std::string prefix = "listening on ";
  if (line->rfind(prefix, 0) != 0) throw std::runtime_error("unexpected line from the shuffler: " + *line);
  const std::string address = line->substr(prefix.size());

  std::vector<std::string> common = {"--config", config_path, "--connect", address, "--json"};
  if (args.seed) common.insert(common.end(), {"--seed", std::to_string(*args.seed)});
  std::vector<std::string> outputs;  // stdout files of the analyzer and the party processes
  {
    std::vector<std::string> a = {exe, "analyzer", "--key", dir + "/" + net::analyzer_key_file};
    a.insert(a.end(), common.begin(), common.end());
    outputs.push_back(dir + "/analyzer.out");
    children.emplace_back("analyzer", a, ProcessOptions{.stdout_path = outputs.back()});
  }
  for (std::size_t first = 0; first < n; first += k) {
    const std::size_t last = std::min(n, first + k) - 1;
    const std::string range = std::to_string(first) + "-" + std::to_string(last);
    std::vector<std::string> a = {exe, "party", "--id", range, "--key-dir", dir, "--inputs", inputs_path};
    a.insert(a.end(), common.begin(), common.end());
    std::string drops;
    for (const auto& [id, r] : dropouts)
      if (id >= first && id <= last) drops += (drops.empty() ? "" : ",") + std::to_string(id);
    if (!drops.empty()) a.insert(a.end(), {"--dropouts", drops});
    outputs.push_back(dir + "/party-" + range + ".out");
    children.emplace_back("parties " + range, a, ProcessOptions{.stdout_path = outputs.back()});
  }
  if (la.kill_party_process) {
    if (*la.kill_party_process + 2 >= children.size())
      throw std::invalid_argument("--kill-party-process must be below the number of party processes (" +
                                  std::to_string(children.size() - 2) + ")");
    children[2 + *la.kill_party_process].kill();
  }
  // Every round may take its deadline (twice, counting the clients' grace) plus start-up time.
  const auto limit = std::chrono::milliseconds(la.deadline_ms) * 2 * (protocol->rounds() + 1) + std::chrono::seconds(30);
  if (!args.json)
    std::cout << "shufflempc local: shuffler, analyzer and " << children.size() - 2 << " party processes started; session files in "
              << dir << (la.keep_dir.empty() ? " (removed at the end)" : "") << std::endl;
  const bool in_time = wait_all(children, start + limit, [] { return interrupted != 0; });
  if (interrupted != 0) {
    for (auto& c : children) c.kill();
    throw std::runtime_error("interrupted by signal " + std::to_string(interrupted) + ": every process of the run was stopped" +
                             (la.keep_dir.empty() ? " and its temporary keys removed" : ""));
  }
  (void)children.front().read_all(std::chrono::seconds(1));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The run stands if the shuffler and the analyzer completed: a party process that died is a
  // dropout like any other (the session's min-parties decided whether the rounds could close).
  std::string failures;
  std::vector<std::string> lost;  // party processes that failed
  for (std::size_t i = 0; i < children.size(); ++i) {
    const auto& c = children[i];
    if (c.status() == 0) continue;
    const std::string what = c.name() + " exited with status " + std::to_string(c.status().value_or(-1));
    if (i < 2) failures += (failures.empty() ? "" : "; ") + what;
    else lost.push_back(what);
  }
  if (!in_time) throw std::system_error(make_error_code(Errc::timeout), "local run exceeded " + std::to_string(limit.count()) + " ms");
  if (!failures.empty()) throw std::system_error(make_error_code(Errc::session_aborted), "local run failed: " + failures + " (see the lines above)");
  for (const auto& what : lost) std::cerr << "shufflempc local: warning: " << what << "; its parties count as dropped\n";

  // Assemble the report: the analyzer's result, every party's output and traffic.
  const Value analyzer = Value::parse(read_text_file(outputs[0], "the analyzer's report"), nullptr, false);
  if (analyzer.is_discarded()) throw std::runtime_error("the analyzer's report is not JSON");
  RunResult result;
  result.output = analyzer["output"];
  result.messages = analyzer["messages"].get<std::size_t>();
  result.bytes = analyzer["bytes"].get<std::size_t>();
  result.dropped = analyzer["dropped"].get<std::vector<PartyId>>();
  result.details = analyzer.value("details", Value());
  result.seconds = seconds;
  Value table = Value::array();
  for (std::size_t i = 2; i < children.size(); ++i) {
    if (children[i].status() != 0) continue;  // a lost process: its parties are in the analyzer's dropped list
    const Value v = Value::parse(read_text_file(outputs[i - 1], children[i].name() + "'s report"), nullptr, false);
    if (v.is_discarded() || !v.contains("parties")) throw std::runtime_error(children[i].name() + " printed no report");
    for (const auto& p : v["parties"]) {
      if (!p["dropped"].get<bool>()) result.party_outputs[p["party"].get<PartyId>()] = p["output"];
      table.push_back(p);
    }
  }
  Value report = make_report(info.name, *protocol, n, result, inputs);
  report["transport"] = "tcp";
  report["processes"] = {{"shuffler", 1}, {"analyzer", 1}, {"party_processes", children.size() - 2}, {"parties_per_process", k}};
  report["analyzer_bytes_received"] = analyzer["bytes_received"];
  report["lost_processes"] = lost;
  // Every process's peak memory and CPU time (from wait4), for the scale benchmarks.
  Value resources = Value::array();
  for (const auto& c : children)
    resources.push_back({{"process", c.name()}, {"peak_memory_bytes", c.peak_memory()}, {"cpu_seconds", c.cpu_seconds()}});
  report["process_resources"] = resources;
  report["per_party"] = table;
  if (args.json) {
    print_report(report, true);
    return 0;
  }
  print_report(report, false);
  std::cout << fmt::format("processes {} shuffler + 1 analyzer + {} party processes ({} parties each)\n\n", 1,
                           children.size() - 2, k);
  std::cout << fmt::format("{:>7} {:>9} {:>11} {:>9} {:>11} {:>6} {:>8}  {}\n", "party", "msgs sent", "bytes sent",
                           "msgs recv", "bytes recv", "rounds", "seconds", "output");
  const std::size_t shown = table.size() <= 32 ? table.size() : 10;
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& p = table[i];
    std::string out = p["dropped"].get<bool>() ? std::string("(dropped)") : p["output"].dump();
    if (out.size() > 40) out = out.substr(0, 37) + "...";
    std::cout << fmt::format("{:>7} {:>9} {:>11} {:>9} {:>11} {:>6} {:>8.3f}  {}\n", p["party"].get<PartyId>(),
                             p["messages_sent"].get<std::uint64_t>(), p["bytes_sent"].get<std::uint64_t>(),
                             p["messages_received"].get<std::uint64_t>(), p["bytes_received"].get<std::uint64_t>(),
                             p["rounds"].get<std::uint32_t>(), p["seconds"].get<double>(), out);
  }
  if (shown < table.size()) {
    std::uint64_t ms = 0, bs = 0, mr = 0, br = 0;
    for (const auto& p : table) {
      ms += p["messages_sent"].get<std::uint64_t>();
      bs += p["bytes_sent"].get<std::uint64_t>();
      mr += p["messages_received"].get<std::uint64_t>();
      br += p["bytes_received"].get<std::uint64_t>();
    }
    std::cout << fmt::format("    ... {} more parties (--json lists all)\n", table.size() - shown)
              << fmt::format("{:>7} {:>9} {:>11} {:>9} {:>11}\n", "total", ms, bs, mr, br);
  }
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
                    "parties hosted by each party process, each with its own connection (default: N/8 rounded up)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{100'000'000}));
    cmd->add_option("--deadline-ms", both.second.deadline_ms, "the shuffler's per-round deadline in milliseconds (default 30000)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{86'400'000}));
    cmd->add_option("--keep-dir", both.second.keep_dir, "write keys, config and process outputs here and keep them");
    cmd->add_option("--kill-party-process", both.second.kill_party_process,
                    "fault injection: kill party process K (from 0) as soon as it starts; its parties drop out")
        ->check(count_check());
    cmd->callback([cmd, owned, &info, &registry, &action] {
      collect_params(*cmd, info, owned->first);
      action = [owned, &info, &registry] { return run_local(info, owned->first, owned->second, registry); };
    });
  }
}

void add_net_commands(CLI::App& app, const Registry& registry, Action& action) {
  add_net_process_commands(app, registry, action);
  add_local_command(app, registry, action);
}

}  // namespace shufflempc::cli
