// `shufflempc local PROTOCOL --parties N`: one command that runs a protocol across real processes
// on 127.0.0.1. It generates the keys and the session config in a temporary directory, starts the
// shuffler (port chosen by the OS, read back from its "listening on" line), the analyzer and
// ceil(N / K) party processes hosting K parties each, waits for all of them with a deadline, and
// prints the usual report plus a per-party table.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "common.hpp"
#include "net_common.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/net/tcp.hpp"

extern char** environ;

namespace shufflempc::cli {

namespace {

struct LocalArgs {
  std::size_t parties_per_process = 0;  // 0: automatic
  std::size_t deadline_ms = 30'000;
  std::string keep_dir;
};

struct Child {
  std::string name;
  pid_t pid = -1;
  int pidfd = -1;
  int status = -1;
  std::string out_path;
};

std::string self_exe() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find the shufflempc binary: " + ec.message());
  return p.string();
}

// Starts `argv` with stdout to `stdout_fd` (dup'ed) or to the file `out_path`; stderr is inherited.
Child spawn(const std::string& name, const std::vector<std::string>& args, int stdout_fd, const std::string& out_path) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (stdout_fd >= 0) posix_spawn_file_actions_adddup2(&fa, stdout_fd, STDOUT_FILENO);
  else posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  Child c;
  c.name = name;
  c.out_path = out_path;
  const int rc = posix_spawn(&c.pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::system_error(rc, std::generic_category(), "cannot start " + name);
  c.pidfd = static_cast<int>(::syscall(SYS_pidfd_open, c.pid, 0));  // glibc 2.36's wrapper lacks C linkage
  if (c.pidfd < 0) throw std::system_error(errno, std::generic_category(), "pidfd_open for " + name);
  return c;
}

// Waits for every child until `deadline`; kills the ones still running after it. Returns false on timeout.
bool wait_all(std::vector<Child>& children, std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<Child*> running;
    for (auto& c : children)
      if (c.status < 0) {
        fds.push_back({c.pidfd, POLLIN, 0});
        running.push_back(&c);
      }
    if (running.empty()) return true;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      for (Child* c : running) {
        ::kill(c->pid, SIGKILL);
        int st = 0;
        ::waitpid(c->pid, &st, 0);
        c->status = 128 + SIGKILL;
        ::close(c->pidfd);
      }
      return false;
    }
    const int n = ::poll(fds.data(), fds.size(), static_cast<int>(std::min<long long>(left, 60'000)));
    if (n < 0 && errno != EINTR) throw std::system_error(errno, std::generic_category(), "poll");
    for (std::size_t i = 0; i < fds.size(); ++i)
      if (fds[i].revents != 0) {
        int st = 0;
        ::waitpid(running[i]->pid, &st, 0);
        running[i]->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        ::close(running[i]->pidfd);
      }
  }
}

// Reads one line from `fd` within `limit` (the shuffler's readiness line).
std::string read_line(int fd, std::chrono::milliseconds limit) {
  std::string line;
  const auto end = std::chrono::steady_clock::now() + limit;
  char ch = 0;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now()).count();
    pollfd p{fd, POLLIN, 0};
    if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0) throw std::runtime_error("the shuffler did not report its port in time");
    const ssize_t n = ::read(fd, &ch, 1);
    if (n <= 0) throw std::runtime_error("the shuffler exited before reporting its port");
    if (ch == '\n') return line;
    line.push_back(ch);
  }
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int run_local(const ProtocolInfo& info, RunArgs& args, const LocalArgs& la, const Registry& registry) {
  auto protocol = registry.create(info.name, args.params, args.parties);
  auto rng = make_rng(args.seed);
  const std::vector<Value> inputs = load_inputs(*protocol, args, *rng);
  const std::size_t n = args.parties;
  if (args.dropouts >= n) throw std::invalid_argument("--dropouts must be below --parties");
  std::map<PartyId, std::uint32_t> dropouts;
  auto drop_rng = rng->fork(rng_labels::dropouts);
  while (dropouts.size() < args.dropouts) dropouts[static_cast<PartyId>(drop_rng->uniform(n))] = 0;
  std::size_t min_parties = args.min_parties;
  if (args.dropouts > 0 && min_parties == 0) min_parties = n - args.dropouts;
  std::size_t k = la.parties_per_process;
  if (k == 0) k = std::max<std::size_t>(1, (n + 7) / 8);  // at most 8 party processes by default
  k = std::min(k, n);

  // Keys, config and inputs in a private directory.
  std::string dir = la.keep_dir;
  if (dir.empty()) {
    char tmpl[] = "/tmp/shufflempc-local-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) throw std::system_error(errno, std::generic_category(), "mkdtemp");
    dir = tmpl;
  } else {
    std::filesystem::create_directories(dir);
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
  net::SessionConfig config;
  key_rng.fill(config.session);
  config.protocol = info.name;
  config.params = args.params;
  config.parties = n;
  config.min_parties = min_parties;
  config.deadline = std::chrono::milliseconds(la.deadline_ms);
  config.shuffler_address = "127.0.0.1:0";
  const auto shuffler_keys = net::KeyPair::generate(key_rng);
  const auto analyzer_keys = net::KeyPair::generate(key_rng);
  shuffler_keys.save(dir + "/shuffler.key");
  analyzer_keys.save(dir + "/analyzer.key");
  config.shuffler_key = shuffler_keys.public_key();
  config.analyzer_key = analyzer_keys.public_key();
  for (std::size_t i = 0; i < n; ++i) {
    const auto keys = net::KeyPair::generate(key_rng);
    keys.save(party_key_file(dir, static_cast<PartyId>(i)));
    config.party_keys.push_back(keys.public_key());
  }
  const std::string config_path = dir + "/session.json", inputs_path = dir + "/inputs.json";
  config.save(config_path);
  {
    std::ofstream out(inputs_path);
    out << Value(inputs).dump() << '\n';
  }

  const auto start = std::chrono::steady_clock::now();
  const std::string exe = self_exe();
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
  std::vector<Child> children;
  children.push_back(spawn("shuffler", {exe, "shuffler", "--config", config_path, "--key", dir + "/shuffler.key", "--listen", "127.0.0.1:0", "--json"},
                           pipe_fds[1], ""));
  ::close(pipe_fds[1]);
  std::string line;
  try {
    line = read_line(pipe_fds[0], std::chrono::seconds(30));
  } catch (...) {
    wait_all(children, std::chrono::steady_clock::now());
    ::close(pipe_fds[0]);
    throw;
  }
  const std::string prefix = "listening on ";
  if (line.rfind(prefix, 0) != 0) throw std::runtime_error("unexpected line from the shuffler: " + line);
  const std::string address = line.substr(prefix.size());

  std::vector<std::string> common = {"--config", config_path, "--connect", address, "--json"};
  if (args.seed) common.insert(common.end(), {"--seed", std::to_string(*args.seed)});
  {
    std::vector<std::string> a = {exe, "analyzer", "--key", dir + "/analyzer.key"};
    a.insert(a.end(), common.begin(), common.end());
    children.push_back(spawn("analyzer", a, -1, dir + "/analyzer.out"));
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
    children.push_back(spawn("parties " + range, a, -1, dir + "/party-" + range + ".out"));
  }
  // Every round may take its deadline (twice, counting the clients' grace) plus start-up time.
  const auto limit = std::chrono::milliseconds(la.deadline_ms) * 2 * (protocol->rounds() + 1) + std::chrono::seconds(30);
  const bool in_time = wait_all(children, start + limit);
  std::string shuffler_out;
  {
    char buf[4096];
    ssize_t got = 0;
    while ((got = ::read(pipe_fds[0], buf, sizeof buf)) > 0) shuffler_out.append(buf, static_cast<std::size_t>(got));
    ::close(pipe_fds[0]);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string failures;
  for (const auto& c : children)
    if (c.status != 0) failures += (failures.empty() ? "" : "; ") + c.name + " exited with status " + std::to_string(c.status);
  if (!in_time) throw std::system_error(make_error_code(Errc::timeout), "local run exceeded " + std::to_string(limit.count()) + " ms: " + failures);
  if (!failures.empty()) throw std::system_error(make_error_code(Errc::session_aborted), "local run failed: " + failures + " (see the lines above)");

  // Assemble the report: the analyzer's result, every party's output and traffic.
  const Value analyzer = Value::parse(slurp(dir + "/analyzer.out"), nullptr, false);
  if (analyzer.is_discarded()) throw std::runtime_error("the analyzer's report is not JSON");
  RunResult result;
  result.output = analyzer["output"];
  result.messages = analyzer["messages"].get<std::size_t>();
  result.bytes = analyzer["bytes"].get<std::size_t>();
  result.dropped = analyzer["dropped"].get<std::vector<PartyId>>();
  result.seconds = seconds;
  Value table = Value::array();
  for (std::size_t i = 2; i < children.size(); ++i) {
    const Value v = Value::parse(slurp(children[i].out_path), nullptr, false);
    if (v.is_discarded() || !v.contains("parties")) throw std::runtime_error(children[i].name + " printed no report");
    for (const auto& p : v["parties"]) {
      if (!p["dropped"].get<bool>()) result.party_outputs[p["party"].get<PartyId>()] = p["output"];
      table.push_back(p);
    }
  }
  Value report = make_report(info.name, *protocol, n, result, inputs);
  report["transport"] = "tcp";
  report["processes"] = {{"shuffler", 1}, {"analyzer", 1}, {"party_processes", children.size() - 2}, {"parties_per_process", k}};
  report["analyzer_bytes_received"] = analyzer["bytes_received"];
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
