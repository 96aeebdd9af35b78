// Helpers for the TCP transport tests: a session directory with keys and config, a real
// `shufflempc shuffler` process (port read from its "listening on" line, stderr kept for the
// log checks), and synchronous wrappers around the link coroutines for playing bad peers.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <asio.hpp>
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "shufflempc/net/detail/link.hpp"
#include "shufflempc/net/keys.hpp"
#include "shufflempc/net/tcp.hpp"

extern char** environ;

namespace shufflempc::test {

struct NetSession {
  std::string dir;
  net::SessionConfig config;
  net::KeyPair shuffler, analyzer;
  std::vector<net::KeyPair> parties;

  NetSession(std::size_t n, std::uint64_t seed, std::size_t min_parties = 0, std::chrono::milliseconds deadline = std::chrono::seconds(20),
             std::string protocol = "central-laplace") {
    char tmpl[] = "/tmp/shufflempc-nettest-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    dir = tmpl;
    SeededRng rng(seed);  // test keys only
    rng.fill(config.session);
    shuffler = net::KeyPair::generate(rng);
    analyzer = net::KeyPair::generate(rng);
    config.protocol = std::move(protocol);
    config.parties = n;
    config.min_parties = min_parties;
    config.deadline = deadline;
    config.max_frame_bytes = 4096;
    config.shuffler_key = shuffler.public_key();
    config.analyzer_key = analyzer.public_key();
    for (std::size_t i = 0; i < n; ++i) {
      parties.push_back(net::KeyPair::generate(rng));
      config.party_keys.push_back(parties.back().public_key());
      parties.back().save(dir + "/party-" + std::to_string(i) + ".key");
    }
    shuffler.save(dir + "/shuffler.key");
    analyzer.save(dir + "/analyzer.key");
    config.save(dir + "/session.json");
  }
  ~NetSession() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  [[nodiscard]] std::string path(const std::string& name) const { return dir + "/" + name; }
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A child process of the test; killed (by its pid) if the test ends first.
class Process {
 public:
  // stdout goes to a pipe (read_line), stderr to `err_path`.
  Process(const std::vector<std::string>& args, const std::string& err_path) {
    int fds[2];
    REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const int rc = posix_spawn(&pid_, argv[0], &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(fds[1]);
    out_ = fds[0];
    REQUIRE(rc == 0);
  }
  ~Process() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      int st = 0;
      ::waitpid(pid_, &st, 0);
    }
    ::close(out_);
  }
  // One line of stdout, or "" if none came within `limit`.
  std::string read_line(std::chrono::milliseconds limit = std::chrono::seconds(20)) {
    std::string line;
    const auto end = std::chrono::steady_clock::now() + limit;
    for (char ch = 0;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now()).count();
      pollfd p{out_, POLLIN, 0};
      if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0 || ::read(out_, &ch, 1) != 1) return "";
      if (ch == '\n') return line;
      line.push_back(ch);
    }
  }
  // Exit status, or -1 if the process did not end within `limit` (it is then killed).
  int wait(std::chrono::milliseconds limit = std::chrono::seconds(30)) {
    const auto end = std::chrono::steady_clock::now() + limit;
    for (;;) {  // wait for stdout to close (the process exited), then reap it
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now()).count();
      pollfd p{out_, POLLIN, 0};
      if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0) return -1;
      char buf[256];
      if (::read(out_, buf, sizeof buf) <= 0) break;
    }
    int st = 0;
    ::waitpid(pid_, &st, 0);
    pid_ = -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }
  [[nodiscard]] pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
};

// `shufflempc shuffler` on 127.0.0.1, port chosen by the OS.
struct ShufflerProcess {
  const NetSession& session;
  std::string log_path;
  Process process;
  std::uint16_t port = 0;

  explicit ShufflerProcess(const NetSession& s)
      : session(s),
        log_path(s.path("shuffler.log")),
        process({SHUFFLEMPC_CLI, "shuffler", "--config", s.path("session.json"), "--key", s.path("shuffler.key"), "--listen",
                 "127.0.0.1:0", "--json"},
                s.path("shuffler.log")) {
    const std::string line = process.read_line();
    REQUIRE_MESSAGE(line.rfind("listening on 127.0.0.1:", 0) == 0, "shuffler said: " << line << slurp(log_path));
    port = static_cast<std::uint16_t>(std::stoul(line.substr(line.rfind(':') + 1)));
  }
  [[nodiscard]] std::string log() const { return slurp(log_path); }
};

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
inline std::error_code wait_closed(asio::io_context& io, net::detail::SecureLink& link) {
  try {
    for (;;) (void)run_sync(io, link.receive());
  } catch (const std::system_error& e) {
    return e.code();
  }
}

}  // namespace shufflempc::test
