// Helpers for the TCP transport tests: a session directory with keys and config, a real
// `shufflempc shuffler` process (port read from its "listening on" line, stderr kept for the
// log checks), and synchronous wrappers around the link coroutines for playing bad peers.
#pragma once

#include <stdlib.h>

#include <asio.hpp>
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "shufflempc/net/detail/link.hpp"
#include "shufflempc/net/keys.hpp"
#include "shufflempc/net/local.hpp"
#include "shufflempc/process.hpp"
#include "shufflempc/registry.hpp"
#include "shufflempc/net/round_shapes.hpp"
#include "support/temp_dir.hpp"
#include "support/paths.hpp"

namespace shufflempc::test {

// A session directory with keys and config (net::LocalDeployment, test keys from a seed).
struct NetSession : net::LocalDeployment {
  TempDir tmp{"shufflempc-nettest"};
  std::string dir = tmp.path();

  NetSession(std::size_t n, std::uint64_t seed, std::size_t min_parties = 0, std::chrono::milliseconds deadline = std::chrono::seconds(20),
             std::string protocol = "central-laplace", std::map<std::string, std::string> params = {}) {
    SeededRng rng(seed);  // test keys only
    net::SessionConfig base;
    base.protocol = std::move(protocol);
    base.params = std::move(params);
    base.min_parties = min_parties;
    base.deadline = deadline;
    base.max_frame_bytes = 4096;
    base.rounds = net::wire_rounds(*builtin_registry().create(base.protocol, base.params, n, min_parties));
    static_cast<net::LocalDeployment&>(*this) = net::LocalDeployment::create(n, rng, std::move(base));
    save(dir);
  }
  [[nodiscard]] std::string path(const std::string& name) const { return dir + "/" + name; }
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A child process of the test (ChildProcess): stdout to a pipe, stderr to `err_path`; killed
// if the test ends first. read_line() gives "" and wait() -1 when the time runs out.
class Process {
 public:
  Process(const std::vector<std::string>& args, const std::string& err_path)
      : child_(args.front(), args, {.stdout_path = "", .stderr_path = err_path}) {}
  std::string read_line(std::chrono::milliseconds limit = std::chrono::seconds(20)) { return child_.read_line(limit).value_or(""); }
  int wait(std::chrono::milliseconds limit = std::chrono::seconds(30)) {
    const auto end = std::chrono::steady_clock::now() + limit;
    (void)child_.read_all(limit);  // drain stdout so the child never blocks on a full pipe
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
    const auto status = child_.wait_for(std::max(left, std::chrono::milliseconds(0)));
    if (!status) child_.kill();
    return status.value_or(-1);
  }
  [[nodiscard]] pid_t pid() const { return child_.pid(); }

 private:
  ChildProcess child_;
};

// `shufflempc shuffler` on 127.0.0.1, port chosen by the OS.
struct ShufflerProcess {
  const NetSession& session;
  std::string log_path;
  Process process;
  std::uint16_t port = 0;

  // `listen`: 127.0.0.1:0, or the port of a shuffler this one starts again after (its state directory).
  explicit ShufflerProcess(const NetSession& s, const std::vector<std::string>& extra = {}, const std::string& listen = "127.0.0.1:0",
                           const std::string& log_name = "shuffler.log")
      : session(s),
        log_path(s.path(log_name)),
        process(with(extra, {SHUFFLEMPC_CLI, "shuffler", "--config", s.path("session.json"), "--key", s.path("shuffler.key"), "--listen",
                             listen, "--json"}),
                s.path(log_name)) {
    const std::string line = process.read_line();
    REQUIRE_MESSAGE(line.rfind("listening on 127.0.0.1:", 0) == 0, "shuffler said: " << line << slurp(log_path));
    port = static_cast<std::uint16_t>(std::stoul(line.substr(line.rfind(':') + 1)));
  }
  [[nodiscard]] std::string log() const { return slurp(log_path); }

  // A shuffler that must refuse to start: its exit status and what it said.
  struct Refused {
    int status = 0;
    std::string log;
    Refused(const NetSession& s, const std::vector<std::string>& extra, const std::string& log_name) {
      Process p(with(extra, {SHUFFLEMPC_CLI, "shuffler", "--config", s.path("session.json"), "--key", s.path("shuffler.key"), "--listen",
                             "127.0.0.1:0", "--json"}),
                s.path(log_name));
      status = p.wait();
      log = slurp(s.path(log_name));
    }
  };

 private:
  static std::vector<std::string> with(const std::vector<std::string>& extra, std::vector<std::string> args) {
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }
};

// One party's batch on a link of its own: the submit payload with its one count.
inline void send_batch(net::detail::SecureLink& link, std::uint32_t round, std::uint32_t width, std::uint32_t count,
                       const std::vector<std::uint8_t>& messages) {
  const std::uint32_t counts[] = {count};
  link.send(net::FrameType::submit, round, width, count, net::encode_submit(counts, messages));
}

// Runs one link coroutine to completion on `io` (deadline: a test fails instead of hanging).
template <class T>
T run_sync(asio::io_context& io, asio::awaitable<T> op, std::chrono::seconds limit = std::chrono::seconds(20)) {
  std::exception_ptr error;
  std::optional<T> value;
  bool done = false;
  asio::co_spawn(io, std::move(op), [&](std::exception_ptr e, T v) {
    error = e;
    if (!e) value = std::move(v);
    done = true;
  });
  io.restart();
  io.run_for(limit);
  REQUIRE_MESSAGE(done, "a link operation did not finish in time");
  if (error) std::rethrow_exception(error);
  return std::move(*value);
}
inline void run_sync(asio::io_context& io, asio::awaitable<void> op, std::chrono::seconds limit = std::chrono::seconds(20)) {
  std::exception_ptr error;
  bool done = false;
  asio::co_spawn(io, std::move(op), [&](std::exception_ptr e) {
    error = e;
    done = true;
  });
  io.restart();
  io.run_for(limit);
  REQUIRE_MESSAGE(done, "a link operation did not finish in time");
  if (error) std::rethrow_exception(error);
}

// A raw TCP connection to the shuffler wrapped in a SecureLink (not yet authenticated).
inline std::shared_ptr<net::detail::SecureLink> dial(asio::io_context& io, std::uint16_t port, const net::Limits& limits = {}) {
  net::detail::tcp::socket socket(io);
  socket.connect({asio::ip::make_address("127.0.0.1"), port});
  return std::make_shared<net::detail::SecureLink>(std::move(socket), limits);
}

// Waits until the shuffler closes the link (what a rejected peer observes); returns the code.
// How many of `sockets` the peer has closed (a non-blocking read sees the end of the stream).
inline std::size_t count_closed(std::vector<asio::ip::tcp::socket>& sockets) {
  std::size_t closed = 0;
  for (auto& s : sockets) {
    s.non_blocking(true);
    std::array<char, 1> b{};
    std::error_code ec;
    (void)s.read_some(asio::buffer(b), ec);
    if (ec && ec != asio::error::would_block) ++closed;
  }
  return closed;
}

inline std::error_code wait_closed(asio::io_context& io, net::detail::SecureLink& link) {
  try {
    for (;;) (void)run_sync(io, link.receive());
  } catch (const std::system_error& e) {
    return e.code();
  }
}

// The first byte of every record a round delivered (the tests' parties send one-byte records).
inline std::multiset<std::uint8_t> received(const RoundOutcome& out) {
  REQUIRE(out.output.has_value());
  std::multiset<std::uint8_t> all;
  for (std::size_t i = 0; i < out.output->count(); ++i) all.insert((*out.output)[i][0]);
  return all;
}

}  // namespace shufflempc::test
