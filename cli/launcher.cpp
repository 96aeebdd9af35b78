#include "shufflempc/cli/launcher.hpp"

#include "node_args.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <linux/magic.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <optional>
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <system_error>

#include "shufflempc/error.hpp"
#include "shufflempc/files.hpp"
#include "shufflempc/json.hpp"
#include "shufflempc/net/adversary.hpp"
#include "shufflempc/net/dkg.hpp"
#include "shufflempc/parallel.hpp"
#include "shufflempc/net/local.hpp"
#include "shufflempc/net/round_shapes.hpp"
#include "shufflempc/net/shuffler.hpp"
#include "shufflempc/process.hpp"

namespace shufflempc::cli {
namespace {

// Where a fresh session directory goes: under $TMPDIR when it is set, as for any temporary file;
// else in memory, under /dev/shm, when that is a tmpfs we may write with room for twice the
// session's files (`bytes`) and 64 MiB besides (a container's default /dev/shm is 64 MB): the secret
// keys then never reach a disk, and making, writing and removing the run's files costs no
// journaling file system's work (measured: git log -p -- docs/PERFORMANCE.md); else under /tmp.
std::string session_parent(std::uintmax_t bytes) {
  if (const char* t = std::getenv("TMPDIR"); t != nullptr && *t != '\0') return t;
  struct statfs fs {};
  if (::statfs("/dev/shm", &fs) == 0 && fs.f_type == TMPFS_MAGIC && ::access("/dev/shm", W_OK | X_OK) == 0 &&
      static_cast<std::uintmax_t>(fs.f_bavail) * static_cast<std::uintmax_t>(fs.f_bsize) >= 2 * bytes + (std::uintmax_t{64} << 20))
    return "/dev/shm";
  return "/tmp";
}

// A private directory for the session's files: made fresh for about `bytes` of them (and removed at
// the end), or the one the caller keeps.
class SessionDir {
 public:
  SessionDir(const std::string& keep, std::uintmax_t bytes) : keep_(!keep.empty()) {
    if (keep_) {
      path_ = keep;
      // Keys, inputs and outputs go here: never through a symbolic link to somewhere else.
      if (std::filesystem::is_symlink(path_))
        throw std::invalid_argument("--keep-dir " + path_ + " is a symbolic link: give the directory itself");
      std::filesystem::create_directories(path_);
      std::filesystem::permissions(path_, std::filesystem::perms::owner_all, std::filesystem::perm_options::replace);
      return;
    }
    const std::string parent = session_parent(bytes);
    std::string tmpl = parent + "/shufflempc-local-XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr)
      throw std::system_error(errno, std::generic_category(),
                              "cannot make the session directory under " + parent + (parent == "/tmp" || parent == "/dev/shm" ? "" : " ($TMPDIR)"));
    path_ = tmpl;
  }
  ~SessionDir() {
    std::error_code ec;
    if (!keep_) std::filesystem::remove_all(path_, ec);
  }
  SessionDir(const SessionDir&) = delete;
  SessionDir& operator=(const SessionDir&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
  bool keep_;
};

// A TCP socket on 127.0.0.1, at a port the OS picks, bound and listening before any process of the
// run starts: the shuffler gets it as descriptor 3 (`shuffler --listen-fd 3`), and through a chain
// the analyzer one for the parties' verdicts (`analyzer --listen-fd 3`), so the clients need not
// wait for either to start; their connections wait in the backlog until it accepts.
// Close-on-exec and above 3, so that no other child inherits it.
class ListeningSocket {
 public:
  explicit ListeningSocket(const std::string& whose) {
    const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) throw std::system_error(errno, std::generic_category(), "socket for " + whose);
    fd_ = ::fcntl(s, F_DUPFD_CLOEXEC, 10);
    const int err = errno;
    ::close(s);
    if (fd_ < 0) throw std::system_error(err, std::generic_category(), "fcntl for the socket of " + whose);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, SOMAXCONN) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      const int e = errno;
      close();
      throw std::system_error(e, std::generic_category(), "binding a loopback port for " + whose);
    }
    port_ = ntohs(a.sin_port);
  }
  ~ListeningSocket() { close(); }
  ListeningSocket(const ListeningSocket&) = delete;
  ListeningSocket& operator=(const ListeningSocket&) = delete;
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  [[nodiscard]] int fd() const { return fd_; }
  [[nodiscard]] std::uint16_t port() const { return port_; }

 private:
  int fd_ = -1;
  std::uint16_t port_ = 0;
};

// A party process's report, {"parties":[...],"process":{...}}: each party's report goes to `each`
// as the parser completes it and is dropped from the tree (never the whole array at once: a
// gigabyte at 10^6 parties). Returns the "process" object.
Value read_party_reports(const std::string& path, const std::string& who, const std::function<void(Value)>& each) {
  std::ifstream in(path);
  const Value v = Value::parse(
      in,
      [&](int depth, Value::parse_event_t event, Value& parsed) {
        if (depth != 2 || event != Value::parse_event_t::object_end) return true;
        each(std::move(parsed));  // a party's report, inside "parties"
        return false;
      },
      false);
  if (v.is_discarded() || !v.is_object() || !v.contains("parties")) throw std::runtime_error(who + " printed no report");
  return v.value("process", Value());
}

Value read_report(const std::string& path, const std::string& who) {
  try {
    return parse_json_document(read_text_file(path, who + "'s report"), who + "'s report");
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
}

}  // namespace

LocalLauncher::LocalLauncher(net::SessionConfig base, const Protocol& protocol, std::size_t parties, LaunchOptions options)
    : base_(std::move(base)), protocol_(protocol), parties_(parties), options_(std::move(options)) {
  if (parties_ == 0) throw std::invalid_argument("local launcher: a session needs at least one party");
  if (options_.executable.empty()) throw std::invalid_argument("local launcher: no executable to run");
  const net::ChainSpec& chain = options_.chain;  // made by ChainSpec::make, which checked it
  if (options_.kill_before_round && !options_.kill_party_process)
    throw std::invalid_argument("--kill-before-round needs --kill-party-process (the process that dies)");
  if (options_.kill_before_round && *options_.kill_before_round >= protocol_.rounds())
    throw std::invalid_argument("--kill-before-round must be in [0, " + std::to_string(protocol_.rounds() - 1) + "] (the protocol has " +
                                std::to_string(protocol_.rounds()) + " rounds)");
  if (options_.kill_mix_server) chain.check_further(*options_.kill_mix_server, "--kill-mix-server");
  if (!chain.verifiable() && (options_.tamper_mix_server || !options_.transcript.empty()))
    throw std::invalid_argument(std::string(options_.tamper_mix_server ? "--tamper-mix-server" : "--transcript") + " needs --mix verifiable");
  prepare_output_file(options_.transcript, "--transcript");  // before any process starts, not when the analyzer writes it
  if (!options_.tamper_entry.empty()) chain.require_chain("--tamper-entry", "a chain's entry");
  if (options_.tamper_mix_server) chain.check_further(*options_.tamper_mix_server, "--tamper-mix-server");
  if (!options_.adversary.empty()) {
    // The spec is checked here, once, not by a process in the middle of the run.
    const auto a = net::adversary::split_role(options_.adversary);
    if (a.role == net::adversary::RoleSpec::Role::entry) (void)net::adversary::parse_entry(a.spec);
    else (void)net::adversary::parse_tap(a.spec);
    if (a.role == net::adversary::RoleSpec::Role::mix_server) chain.check_further(a.index, "--fault-adversary role=mix-server-I");
    if (a.role == net::adversary::RoleSpec::Role::party && a.index >= parties_)
      throw std::invalid_argument("--fault-adversary: role=party-P must name a party in [0, " + std::to_string(parties_ - 1) + "]");
  }
  // What the shuffler enforces, and what sizes the links.
  base_.mix = chain.kind();
  base_.rounds = net::wire_rounds(protocol_, chain.hops(), chain.kind());
}

namespace {

// The shuffler holds a link per party process (more if its parties overflow one frame) and the
// analyzer's: checks (and raises, for the children too) the descriptor limit before any key is made.
void check_descriptors(const std::vector<RoundShape>& rounds, std::size_t n, std::size_t k, std::size_t processes) {
  net::SessionConfig sizing;
  sizing.parties = n;
  sizing.rounds = rounds;
  const std::size_t capacity = net::link_capacity(sizing);
  const std::size_t links = processes * ((k + capacity - 1) / capacity);
  ensure_descriptors(links + 1 + 64 + net::default_max_unauthenticated,
                     "the shuffler of this local run (" + std::to_string(links) + " links of " + std::to_string(processes) +
                         " party processes, and the analyzer's)");
}

// Each party process's inputs (parties first .. first + k - 1), as its file will hold them; `bytes`
// grows by their size (it goes into the choice of the session directory).
std::vector<std::string> input_texts(const std::vector<Value>& inputs, std::size_t k, std::uintmax_t& bytes) {
  std::vector<std::string> texts;
  const std::size_t n = inputs.size();
  for (std::size_t first = 0; first < n; first += k) {
    const std::size_t last = std::min(n, first + k) - 1;
    std::string text = "[";
    for (std::size_t id = first; id <= last; ++id) {
      if (id > first) text += ',';
      text += inputs[id].dump();
    }
    text += "]\n";
    bytes += text.size();
    texts.push_back(std::move(text));
  }
  return texts;
}

// The address in a server's readiness line ("listening on HOST:PORT").
std::string address_of(ChildProcess& c, std::chrono::milliseconds within) {
  const auto line = c.read_line(within);
  if (!line)
    throw std::runtime_error(c.name() + " did not report its port within " + std::to_string(within.count()) + " ms (or ended before it did)");
  const std::string prefix = "listening on ";
  if (line->rfind(prefix, 0) != 0) throw std::runtime_error("unexpected line from " + c.name() + ": " + *line);
  return line->substr(prefix.size());
}

// One run's processes: children[0] is the shuffler, [1] the analyzer, then the party processes
// (up to party_end); the further servers of a chain apart, until the run ends.
struct Processes {
  std::vector<ChildProcess> children, servers;
  std::vector<std::string> outputs;  // stdout files of the analyzer and the party processes
  std::size_t party_end = 0;
  std::set<std::size_t> hung;  // party processes still running well after the run ended, stopped
  std::set<std::size_t> orphaned;  // further servers stopped because the shuffler, their only peer, had failed
};

// The --fault-adversary spec of the process that plays LaunchOptions::adversary's role, for the
// process of `role` hosting positions first .. last (a mix server's hop, a party process's
// parties); empty for any other process, or without an adversary.
std::string adversary_spec(const LaunchOptions& options, net::adversary::RoleSpec::Role role, std::size_t first = 0, std::size_t last = 0) {
  if (options.adversary.empty()) return {};
  const auto a = net::adversary::split_role(options.adversary);
  if (a.role != role || (role != net::adversary::RoleSpec::Role::entry && (a.index < first || a.index > last))) return {};
  return a.spec;
}

// The further servers of a chain, started first; returns their addresses, hop 1 first (the shuffler
// dials them).
std::vector<std::string> start_mix_servers(Processes& p, const LaunchOptions& options, const SessionDir& dir, std::size_t further) {
  std::vector<std::string> hop_addresses;
  for (std::size_t h = 1; h <= further; ++h) {
    const MixServerArgs server{.configs = {dir / net::session_config_file},
                               .key = net::mix_server_key_file(dir.path(), h),
                               .listen = "127.0.0.1:0",
                               .hop = h,
                               .json = true,
                               .fault_tamper = options.tamper_mix_server == h,
                               .fault_adversary = adversary_spec(options, net::adversary::RoleSpec::Role::mix_server, h, h),
                               .link_shape = options.link_shape,
                               // Beside the shuffler's: each round's answer (and a verifiable chain's shares).
                               .state_dir = options.state_dir.empty()
                                                ? std::string()
                                                : (std::filesystem::path(options.state_dir) / ("mix-server-" + std::to_string(h))).string()};
    p.servers.emplace_back("mix server " + std::to_string(h), mix_server_argv(options.executable, server));
    hop_addresses.push_back(address_of(p.servers.back(), std::chrono::seconds(30)));
  }
  if (options.kill_mix_server) p.servers[*options.kill_mix_server - 1].kill();
  return hop_addresses;
}

// The servers' key generation (net/dkg.hpp) before the session: each further server's key file in
// a `mix-server --dkg` process, coordinated here with the shuffler's key; the key and its
// transcript then go into the session config every process reads.
void make_distributed_key(net::LocalDeployment& local, const LaunchOptions& options, const SessionDir& dir) {
  std::vector<ChildProcess> dealers;
  std::vector<std::string> addresses;
  const std::string shuffler = to_hex(local.shuffler.public_key());
  for (std::size_t h = 1; h <= local.further_server_keys.size(); ++h) {
    const MixServerArgs dealer{.key = net::mix_server_key_file(dir.path(), h),
                               .listen = "127.0.0.1:0",
                               .json = true,
                               .dkg = true,
                               .shuffler_key = shuffler,
                               .dkg_timeout_ms = static_cast<std::size_t>(local.config.deadline.count()),
                               .fault_adversary = adversary_spec(options, net::adversary::RoleSpec::Role::mix_server, h, h),
                               .link_shape = options.link_shape};
    dealers.emplace_back("mix server " + std::to_string(h) + " (key generation)", mix_server_argv(options.executable, dealer));
    addresses.push_back(address_of(dealers.back(), std::chrono::seconds(30)));
  }
  const net::KeyGeneration g = net::generate_key(net::dkg_setup(local.config, options.chain.decryption_threshold()), local.shuffler, addresses, local.config.deadline);
  for (auto& d : dealers) {
    const auto status = d.wait_for(local.config.deadline);
    if (status != 0) d.kill();
  }
  g.require_everyone();
  for (const auto& line : g.notes)
    if (options.progress) options.progress("key generation: " + line);
  local.config.distributed_key =
      std::make_shared<net::SessionConfig::DistributedKey>(net::SessionConfig::DistributedKey{g.transcript, g.outcome});
  local.config = net::SessionConfig::from_json(local.config.to_json());
  local.config.save(dir / net::session_config_file);
}

// The shuffler, on a socket bound here so that the analyzer and the parties start with it at once
// (each process start is milliseconds of CPU on a small machine) instead of after its readiness
// line. Returns the address the clients connect to.
std::string start_shuffler(Processes& p, const LaunchOptions& options, const SessionDir& dir, const std::vector<std::string>& hop_addresses) {
  ListeningSocket listening("the shuffler");
  const ShufflerArgs shuffler{.configs = {dir / net::session_config_file},
                              .key = dir / net::shuffler_key_file,
                              .listen_fd = 3,
                              .json = true,
                              .hop_addresses = hop_addresses,
                              .fault_entry = options.tamper_entry,
                              .fault_adversary = adversary_spec(options, net::adversary::RoleSpec::Role::entry),
                              .link_shape = options.link_shape,
                              .state_dir = options.state_dir};
  p.children.emplace_back("shuffler", shuffler_argv(options.executable, shuffler), ProcessOptions{.pass_as_fd3 = listening.fd()});
  listening.close();  // the shuffler holds it now
  return "127.0.0.1:" + std::to_string(listening.port());
}

// The analyzer and the party processes (k parties each, party process i inputs_file(i)). Through a
// chain, the parties' verdicts on their receipts go to the analyzer directly: its socket is bound
// here too, so the parties know its port as they start.
void start_clients(Processes& p, const LaunchOptions& options, const SessionDir& dir, const net::SessionConfig& config, const std::string& address,
                   std::size_t k, const std::function<std::string(std::size_t, std::size_t)>& inputs_file) {
  const std::size_t n = config.parties;
  const ClientArgs client{
      .config_path = dir / net::session_config_file, .connect = address, .seed = options.seed, .json = true, .link_shape = options.link_shape};
  std::optional<ListeningSocket> verdicts;
  if (net::takes_verdicts(config)) verdicts.emplace("the analyzer's verdicts");
  const std::filesystem::path receipts(options.receipts_dir);
  if (!receipts.empty()) {
    std::filesystem::create_directories(receipts);
    std::filesystem::copy_file(dir / net::session_config_file, receipts / "session.json", std::filesystem::copy_options::overwrite_existing);
  }
  const AnalyzerArgs analyzer{.key = dir / net::analyzer_key_file,
                              .transcript = options.transcript,
                              .client = client,
                              .listen_fd = verdicts ? std::optional<int>(3) : std::nullopt,
                              .commitment = receipts.empty() ? std::string() : (receipts / "commitment.json").string(),
                              // Beside the shuffler's: the delivered round and the output (no chain).
                              .state_dir = options.state_dir.empty() || !config.mix_chain.empty()
                                               ? std::string()
                                               : (std::filesystem::path(options.state_dir) / "analyzer").string()};
  p.outputs.push_back(dir / "analyzer.out");
  p.children.emplace_back("analyzer", analyzer_argv(options.executable, analyzer),
                          ProcessOptions{.stdout_path = p.outputs.back(), .pass_as_fd3 = verdicts ? verdicts->fd() : -1});
  const std::string verdict_address = verdicts ? "127.0.0.1:" + std::to_string(verdicts->port()) : std::string();
  if (verdicts) verdicts->close();  // the analyzer holds it now
  for (std::size_t first = 0; first < n; first += k) {
    const std::size_t last = std::min(n, first + k) - 1;
    const std::string range = std::to_string(first) + "-" + std::to_string(last);
    std::string drops;
    for (PartyId id : options.dropouts)
      if (id >= first && id <= last) {
        if (!drops.empty()) drops += ',';
        drops += std::to_string(id);
      }
    const bool dies = options.kill_party_process && options.kill_before_round && first / k == *options.kill_party_process;
    const PartyArgs party{.ids = range,
                          .key_bundle = net::party_key_bundle_file(dir.path(), static_cast<PartyId>(first), static_cast<PartyId>(last)),
                          .inputs_file = inputs_file(first, last),
                          .dropouts = drops,
                          .analyzer = verdict_address,
                          .fault_adversary = adversary_spec(options, net::adversary::RoleSpec::Role::party, first, last),
                          .kill_before_round = dies ? options.kill_before_round : std::nullopt,
                          .hang = dies && options.hang_instead,
                          .client = client,
                          .leave_after_receipt = options.leave_after_receipt,
                          .receipt_file = receipts.empty() ? std::string() : (receipts / ("party-" + range + ".json")).string()};
    p.outputs.push_back(dir / ("party-" + range + ".out"));
    p.children.emplace_back("parties " + range, party_argv(options.executable, party), ProcessOptions{.stdout_path = p.outputs.back()});
  }
  p.party_end = p.children.size();
}

// The run's result once every process ended. The run stands if the shuffler and the analyzer
// completed: a party process that died is a dropout like any other (the session's min-parties
// decided whether the rounds could close).
LaunchResult collect(Processes& p, const LaunchOptions& options, bool in_time, std::chrono::milliseconds limit) {
  LaunchResult r;
  auto& children = p.children;
  std::string failures;
  for (std::size_t i = 0; i < children.size(); ++i) {
    const auto& c = children[i];
    if (c.status() == 0) continue;
    const std::string what = p.hung.count(i) ? c.name() + " still ran " + std::to_string(options.deadline.count()) +
                                                   " ms after the shuffler and the analyzer ended (it hangs; its links were given up): stopped"
                             : p.orphaned.count(i) ? c.name() + " was stopped: the shuffler, its only peer, had failed"
                                                   : c.name() + " exited with status " + std::to_string(c.status().value_or(-1));
    if (i >= p.party_end && options.kill_mix_server && c.name() == "mix server " + std::to_string(*options.kill_mix_server)) continue;
    if (i < 2 || i >= p.party_end) failures += (failures.empty() ? "" : "; ") + what;
    else r.lost.push_back(what);
  }
  if (!in_time) throw std::system_error(make_error_code(Errc::timeout), "local run exceeded " + std::to_string(limit.count()) + " ms");
  if (!failures.empty()) {
    // Party processes that ended early too: one may be why (a party whose receipt did not hold).
    std::string also;
    for (const auto& l : r.lost) also += (also.empty() ? "" : ", ") + l;
    throw std::system_error(make_error_code(Errc::session_aborted), "local run failed: " + failures +
                                                                        (also.empty() ? std::string() : "; and " + also) +
                                                                        " (see the lines above)");
  }
  std::vector<std::size_t> peak(children.size());
  for (std::size_t i = 0; i < children.size(); ++i) peak[i] = children[i].peak_memory();
  const auto own_peak = [&](std::size_t i, const Value& process) {
    if (process.is_object() && process.contains("peak_memory_bytes")) peak[i] = process["peak_memory_bytes"].get<std::size_t>();
  };
  r.analyzer = read_report(p.outputs[0], "the analyzer");
  if (r.analyzer.contains("process")) {
    own_peak(1, r.analyzer["process"]);
    r.analyzer.erase("process");
  }
  for (std::size_t i = 2; i < p.party_end; ++i) {
    if (children[i].status() != 0) continue;  // a lost process: its parties are in the analyzer's dropped list
    own_peak(i, read_party_reports(p.outputs[i - 1], children[i].name(), [&](Value party) {
               if (options.on_party) options.on_party(party);
               else r.per_party.push_back(std::move(party));
             }));
  }
  for (std::size_t i = 0; i < children.size(); ++i)
    r.process_resources.push_back({{"process", children[i].name()}, {"peak_memory_bytes", peak[i]}, {"cpu_seconds", children[i].cpu_seconds()}});
  return r;
}

using Clock = std::chrono::steady_clock;

// Waits for the shuffler and the analyzer (children 0 and 1) until `start + limit`, saying every
// LaunchOptions::progress_every how the run goes; kills them if the limit passes or the run is
// interrupted (`reason` not empty). False when they did not end in time.
bool wait_for_session(Processes& p, const LaunchOptions& options, Clock::time_point start, std::chrono::milliseconds limit,
                      const std::function<bool()>& interrupted) {
  bool in_time = true;
  auto next_word = start + options.progress_after;
  for (std::size_t i = 0; i < 2; ++i) {
    auto& c = p.children[i];
    for (;;) {
      const auto until = options.progress && in_time ? std::min(start + limit, next_word) : start + limit;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
      if (!in_time || c.wait_for(std::max(left, std::chrono::milliseconds(0)), interrupted)) break;
      if (interrupted() || Clock::now() >= start + limit) {
        in_time = false;
        break;
      }
      std::size_t parties_running = 0;
      for (std::size_t k = 2; k < p.children.size(); ++k) parties_running += p.children[k].wait_for(std::chrono::milliseconds(0)) ? 0 : 1;
      const auto ran = std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - start).count();
      // (whole seconds: a test's progress_after of milliseconds says "0 s")
      std::string line = std::to_string(ran);
      line += i == 0 ? " s: the shuffler and the analyzer running, " : " s: the analyzer running, ";
      line += std::to_string(parties_running);
      line += " of " + std::to_string(p.children.size() - 2) + " party processes (the run's limit: ";
      line += std::to_string(std::chrono::duration_cast<std::chrono::seconds>(limit).count());
      line += " s)";
      options.progress(line);
      next_word += options.progress_every;
    }
    if (!in_time) c.kill();
  }
  return in_time;
}

// The party processes, which end once they have the last result (or were told they are dropped):
// one still running a deadline after the session hangs (its links were given up already), and is
// stopped and counted as lost (Processes::hung), not waited for.
void stop_stragglers(Processes& p, const LaunchOptions& options, bool in_time, Clock::time_point start, std::chrono::milliseconds limit,
                     const std::function<std::string()>& reason) {
  const auto interrupted = [&] { return !reason().empty(); };
  const auto stragglers = in_time ? std::min(start + limit, Clock::now() + options.deadline + std::chrono::seconds(5)) : Clock::now();
  for (std::size_t i = 2; i < p.children.size(); ++i) {
    auto& c = p.children[i];
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(stragglers - Clock::now());
    if (c.wait_for(std::max(left, std::chrono::milliseconds(0)), interrupted)) continue;
    c.kill();
    if (in_time && reason().empty()) p.hung.insert(i);
  }
}

// A further server ends when its last round is mixed or the shuffler's link says the session
// ended; one the shuffler never reached (a run that failed early) is stopped after a grace. The
// shuffler is a further server's only peer: once it has failed nothing more can reach one, which
// would otherwise wait out its idle limit (the round limit plus 5 s), so the grace is short. The
// servers join the children (after the party processes) for collect().
void end_mix_servers(Processes& p, const std::function<std::string()>& reason) {
  if (p.servers.empty()) return;
  const bool shuffler_failed = p.children.front().status() != 0;
  const auto grace = shuffler_failed ? std::chrono::milliseconds(500) : std::chrono::milliseconds(10'000);
  const auto until = Clock::now() + grace;
  for (auto& c : p.servers) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
    if (!c.wait_for(std::max(left, std::chrono::milliseconds(0)), [&] { return !reason().empty(); })) {
      c.kill();
      if (shuffler_failed) p.orphaned.insert(p.children.size() + static_cast<std::size_t>(&c - p.servers.data()));
    }
  }
  for (auto& c : p.servers) p.children.push_back(std::move(c));
}

// The shuffler and the analyzer first (wait_for_session), then the party processes
// (stop_stragglers), then the further servers (end_mix_servers). False when the session did not
// end within its limit.
bool wait_for_run(Processes& p, const LaunchOptions& options, Clock::time_point start, std::chrono::milliseconds limit,
                  const std::function<std::string()>& reason) {
  const bool in_time = wait_for_session(p, options, start, limit, [&] { return !reason().empty(); });
  stop_stragglers(p, options, in_time, start, limit, reason);
  end_mix_servers(p, reason);
  return in_time;
}

}  // namespace

std::size_t default_party_processes(const net::SessionConfig& config) {
  // Over a verifiable chain each party process checks every proof of a round delivered to every
  // party, once for all the parties it hosts: processes beyond the cores repeat that check on the
  // same cores and only slow the run.
  const bool checks = config.mix == net::MixKind::verifiable &&
                      std::any_of(config.rounds.begin(), config.rounds.end(), [](const RoundShape& r) { return r.delivery == Delivery::all_parties; });
  return checks ? std::clamp<std::size_t>(hardware_threads(), 1, 8) : 8;
}

LaunchResult LocalLauncher::run(const std::vector<Value>& inputs) {
  const std::size_t n = parties_;
  if (inputs.size() != n) throw std::invalid_argument("local launcher: one input per party is needed");
  std::size_t k = options_.parties_per_process;
  if (k == 0) k = std::max<std::size_t>(1, (n + default_party_processes(base_) - 1) / default_party_processes(base_));
  k = std::min(k, n);
  const std::size_t processes = (n + k - 1) / k;
  check_descriptors(base_.rounds, n, k, processes);
  std::uintmax_t bytes = std::uintmax_t{1} << 20;
  std::vector<std::string> texts = input_texts(inputs, k, bytes);
  bytes += std::uintmax_t{n} * 512;  // a party's keys in its bundle, its public key in the config, its line of output

  // Keys, config and inputs in the private directory.
  const SessionDir dir(options_.keep_dir, bytes);
  SystemRng key_rng;
  net::SessionConfig base = base_;
  base.deadline = options_.deadline;
  // One key for the parties of each party process, in one bundle each: the process holds all their
  // secrets either way, and the shuffler and the process then make one X25519 for it, not one per
  // party (at 10^6 parties, 3·10^6 fewer).
  net::LocalDeployment local = net::LocalDeployment::create(n, key_rng, std::move(base), options_.chain.servers(), k);
  local.save(dir.path(), k);
  if (options_.chain.decryption_threshold() > 0) make_distributed_key(local, options_, dir);
  // Each party process gets its own parties' inputs only (mode 0600): it parses no one else's, as a
  // host of a real deployment holds only its own.
  const auto inputs_file = [&](std::size_t first, std::size_t last) {
    return dir / ("inputs-" + std::to_string(first) + "-" + std::to_string(last) + ".json");
  };
  for (std::size_t first = 0; first < n; first += k) {
    std::string& text = texts[first / k];
    write_private_file(inputs_file(first, std::min(n, first + k) - 1), text, "inputs file");
    std::string().swap(text);
  }

  const auto start = std::chrono::steady_clock::now();
  Processes p;
  p.children.reserve(2 + processes + local.further_server_keys.size());
  // Every round may take its limit (twice the deadline, and more with more parties), and start-up
  // (keys, inputs, processes: one limit more) with 30 s to spare.
  const auto limit = local.config.round_limit() * (protocol_.rounds() + 1) + local.config.window_left() + std::chrono::seconds(30);
  const std::vector<std::string> hop_addresses = start_mix_servers(p, options_, dir, local.further_server_keys.size());
  const std::string address = start_shuffler(p, options_, dir, hop_addresses);
  start_clients(p, options_, dir, local.config, address, k, inputs_file);
  // The shuffler's readiness line, read once every client is on its way: a shuffler that could not
  // start ends the run here (its stdout closes), and its clients with it. It comes after one X25519
  // per party (K_p, on cores shared with every client starting at once: over 30 s at 10^6 parties),
  // so it may take as long as the whole run.
  const auto until_limit = std::chrono::duration_cast<std::chrono::milliseconds>(start + limit - std::chrono::steady_clock::now());
  if (const std::string said = address_of(p.children.front(), std::max(until_limit, std::chrono::milliseconds(1))); said != address)
    throw std::runtime_error("the shuffler listens on " + said + ", not on the socket it was given (" + address + ")");
  if (options_.kill_party_process) {
    if (*options_.kill_party_process >= processes)
      throw std::invalid_argument("--kill-party-process must be below the number of party processes (" + std::to_string(processes) + ")");
    if (!options_.kill_before_round) p.children[2 + *options_.kill_party_process].kill();
  }
  if (options_.started) options_.started(dir.path(), processes);
  const auto reason = [this] { return options_.stop ? options_.stop() : std::string(); };
  const bool in_time = wait_for_run(p, options_, start, limit, reason);
  if (const std::string why = reason(); !why.empty()) {
    for (auto& c : p.children) c.kill();
    throw std::runtime_error("interrupted by " + why + ": every process of the run was stopped" +
                             (options_.keep_dir.empty() ? " and its temporary keys removed" : ""));
  }
  (void)p.children.front().read_all(std::chrono::seconds(1));
  LaunchResult r = collect(p, options_, in_time, std::chrono::duration_cast<std::chrono::milliseconds>(limit));
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.party_processes = processes;
  r.parties_per_process = k;
  return r;
}

}  // namespace shufflempc::cli
