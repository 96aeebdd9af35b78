#include "shufflempc/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

extern char** environ;

namespace shufflempc {

namespace {

int millis_left(std::chrono::steady_clock::time_point end) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 60'000));
}

int decode_status(int st) { return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st); }

}  // namespace

ChildProcess::ChildProcess(std::string name, const std::vector<std::string>& argv, const ProcessOptions& options)
    : name_(std::move(name)) {
  if (argv.empty()) throw std::invalid_argument("ChildProcess: no program given for " + name_);
  // dup2 onto 3 clears close-on-exec on the copy; a descriptor that is 3 already would keep it.
  if (options.pass_as_fd3 >= 0 && options.pass_as_fd3 <= 3)
    throw std::invalid_argument("ChildProcess: the descriptor passed as 3 must be above 3, for " + name_);
  // An output file is opened without following a symbolic link (O_NOFOLLOW); one that is a link is
  // named here, not reported as a failure to start the program.
  for (const std::string* out : {&options.stdout_path, &options.stderr_path}) {
    std::error_code ec;
    if (!out->empty() && std::filesystem::is_symlink(std::filesystem::symlink_status(*out, ec)))
      throw std::system_error(ELOOP, std::generic_category(),
                              "cannot start " + name_ + ": its output file " + *out + " is a symbolic link, which is not followed");
  }
  int fds[2] = {-1, -1};
  if (options.stdout_path.empty() && ::pipe2(fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe for " + name_);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (options.stdout_path.empty()) {
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
  } else {
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, options.stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
  }
  if (!options.stderr_path.empty())
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, options.stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
  if (options.pass_as_fd3 >= 0) posix_spawn_file_actions_adddup2(&fa, options.pass_as_fd3, 3);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int rc = posix_spawn(&pid_, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (fds[1] >= 0) ::close(fds[1]);
  out_ = fds[0];
  if (rc != 0) {
    if (out_ >= 0) ::close(out_);
    throw std::system_error(rc, std::generic_category(), "cannot start " + name_ + " (" + argv[0] + ")");
  }
  pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));  // glibc 2.36's wrapper lacks C linkage
  if (pidfd_ < 0) {
    const int err = errno;
    kill();
    throw std::system_error(err, std::generic_category(), "pidfd_open for " + name_);
  }
}

ChildProcess::ChildProcess(ChildProcess&& o) noexcept
    : name_(std::move(o.name_)),
      pid_(o.pid_),
      pidfd_(o.pidfd_),
      out_(o.out_),
      pending_(std::move(o.pending_)),
      status_(o.status_),
      peak_memory_(o.peak_memory_),
      cpu_seconds_(o.cpu_seconds_) {
  o.pid_ = -1;
  o.pidfd_ = -1;
  o.out_ = -1;
  o.status_ = 0;
}

ChildProcess::~ChildProcess() {
  kill();
  if (out_ >= 0) ::close(out_);
}

void ChildProcess::reap(bool block) {
  if (status_ || pid_ <= 0) return;
  int st = 0;
  rusage usage{};
  const pid_t r = ::wait4(pid_, &st, block ? 0 : WNOHANG, &usage);
  if (r == pid_) {
    status_ = decode_status(st);
    peak_memory_ = static_cast<std::size_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
    cpu_seconds_ = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                   static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    if (pidfd_ >= 0) ::close(pidfd_);
    pidfd_ = -1;
  }
}

void ChildProcess::kill() {
  if (status_ || pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  reap(true);
}

std::optional<std::string> ChildProcess::read_line(std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (auto nl = pending_.find('\n'); nl != std::string::npos) {
      std::string line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      return line;
    }
    if (out_ < 0) return std::nullopt;
    pollfd p{out_, POLLIN, 0};
    const int left = millis_left(end);
    const int n = ::poll(&p, 1, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (left == 0 || n < 0) return std::nullopt;
      continue;
    }
    char buf[4096];
    const ssize_t got = ::read(out_, buf, sizeof buf);
    if (got <= 0) return std::nullopt;
    pending_.append(buf, static_cast<std::size_t>(got));
  }
}

std::string ChildProcess::read_all(std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  std::string all = std::move(pending_);
  pending_.clear();
  while (out_ >= 0) {
    pollfd p{out_, POLLIN, 0};
    const int left = millis_left(end);
    const int n = ::poll(&p, 1, left);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0 && left == 0) break;
    if (n <= 0) continue;
    char buf[4096];
    const ssize_t got = ::read(out_, buf, sizeof buf);
    if (got <= 0) {
      ::close(out_);
      out_ = -1;
      break;
    }
    all.append(buf, static_cast<std::size_t>(got));
  }
  return all;
}

std::optional<int> ChildProcess::wait_for(std::chrono::milliseconds limit, const std::function<bool()>& stop) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!status_ && pidfd_ >= 0) {
    if (stop && stop()) break;
    pollfd p{pidfd_, POLLIN, 0};
    const int left = millis_left(end);
    const int n = ::poll(&p, 1, left);
    if (n < 0 && errno != EINTR) throw std::system_error(errno, std::generic_category(), "poll");
    if (n > 0) reap(true);
    else if (left == 0) break;
  }
  return status_;
}

std::size_t own_peak_memory() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return static_cast<std::size_t>(std::stoull(line.substr(6))) * 1024;  // in kB
  return 0;
}

bool wait_all(std::span<ChildProcess> children, std::chrono::steady_clock::time_point deadline, const std::function<bool()>& stop) {
  bool in_time = true;
  for (auto& c : children) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (!c.wait_for(std::max(left, std::chrono::milliseconds(0)), stop)) {
      c.kill();
      in_time = false;
    }
  }
  return in_time;
}

CommandResult run_command(const std::vector<std::string>& argv, std::chrono::milliseconds limit) {
  char err_path[] = "/tmp/shufflempc-stderr-XXXXXX";
  const int fd = ::mkstemp(err_path);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "mkstemp");
  ::close(fd);
  CommandResult r;
  {
    ChildProcess child(argv.front(), argv, {.stdout_path = "", .stderr_path = err_path});
    const auto end = std::chrono::steady_clock::now() + limit;
    r.out = child.read_all(limit);
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
    const auto status = child.wait_for(std::max(left, std::chrono::milliseconds(0)));
    if (!status) child.kill();
    r.exit_code = status.value_or(-1);
  }
  std::ifstream in(err_path);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  std::remove(err_path);
  return r;
}

void ensure_descriptors(std::size_t needed, const std::string& who) {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY || lim.rlim_cur >= needed) return;
  if (lim.rlim_max == RLIM_INFINITY || lim.rlim_max >= needed) {
    rlimit raised = lim;
    raised.rlim_cur = needed;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) return;
  }
  throw std::invalid_argument(who + " needs " + std::to_string(needed) + " file descriptors, but this process may open only " +
                              std::to_string(lim.rlim_cur) + " (hard limit " +
                              (lim.rlim_max == RLIM_INFINITY ? std::string("unlimited") : std::to_string(lim.rlim_max)) +
                              "): raise it with ulimit -n, or host fewer parties per process");
}

std::size_t raise_descriptors(std::size_t wanted) {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return 0;
  if (lim.rlim_cur == RLIM_INFINITY || lim.rlim_cur >= wanted) return wanted;
  rlimit raised = lim;
  raised.rlim_cur = lim.rlim_max == RLIM_INFINITY ? wanted : std::min<rlim_t>(wanted, lim.rlim_max);
  if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) return raised.rlim_cur;
  return lim.rlim_cur;
}

std::string self_executable() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::system_error(ec, "cannot find the running executable");
  return p.string();
}

}  // namespace shufflempc
