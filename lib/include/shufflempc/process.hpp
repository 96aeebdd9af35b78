// Child processes for the local launcher (`shufflempc local`) and the tests: one helper, so the
// CLI and the tests start, read and reap processes the same way. A child's stdout goes to a pipe
// (read_line, read_all) or to a file; its stderr is inherited or goes to a file. Waiting never
// sleeps: it polls the pipe or a pidfd, with a deadline. A ChildProcess still running when it is
// destroyed is killed and reaped.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace shufflempc {

struct ProcessOptions {
  std::string stdout_path;  // empty: a pipe, read with read_line() / read_all()
  std::string stderr_path;  // empty: inherited from this process
  // A descriptor of this process the child gets as descriptor 3 (a listening socket bound before
  // the child starts, say); -1: none. Above 3 and close-on-exec here, so no other child inherits it.
  int pass_as_fd3 = -1;
};

class ChildProcess {
 public:
  // Starts argv[0] (a path) with arguments argv[1..]. Throws std::system_error if it cannot.
  ChildProcess(std::string name, const std::vector<std::string>& argv, const ProcessOptions& options = {});
  ~ChildProcess();
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // One line of stdout (without the newline), or nullopt if none came within `limit` or stdout closed.
  [[nodiscard]] std::optional<std::string> read_line(std::chrono::milliseconds limit);
  // Everything left on stdout, until the child closes it or `limit` passes.
  [[nodiscard]] std::string read_all(std::chrono::milliseconds limit);
  // The exit status (128 + signal if killed by one), or nullopt if the child is still running at
  // `limit` or `stop()` turned true (checked whenever a signal interrupts the wait).
  [[nodiscard]] std::optional<int> wait_for(std::chrono::milliseconds limit, const std::function<bool()>& stop = {});
  // Kills (SIGKILL) and reaps the child if it is still running; its status becomes 128 + 9.
  void kill();

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] pid_t pid() const { return pid_; }
  [[nodiscard]] std::optional<int> status() const { return status_; }
  // After the child ended: its peak resident memory in bytes and its CPU time (user + system).
  // The child's peak resident memory by wait4. A child started by posix_spawn counts its parent's
  // peak up to the spawn too (the kernel keeps the larger of the two address spaces' marks): a
  // process that reports its own (own_peak_memory) is measured better that way.
  [[nodiscard]] std::size_t peak_memory() const { return peak_memory_; }
  [[nodiscard]] double cpu_seconds() const { return cpu_seconds_; }

 private:
  void reap(bool block);

  std::string name_;
  pid_t pid_ = -1;
  int pidfd_ = -1;
  int out_ = -1;  // read end of the stdout pipe, if any
  std::string pending_;  // read from stdout but not yet returned as a line
  std::optional<int> status_;
  std::size_t peak_memory_ = 0;
  double cpu_seconds_ = 0;
};

// This process's own peak resident memory (VmHWM of /proc/self/status, in bytes; 0 if unknown):
// its address space's alone, not its parent's up to the exec.
[[nodiscard]] std::size_t own_peak_memory();

// Waits for every child until `deadline` (or until `stop()` turns true after a signal), killing the
// ones still running then. Returns false if any had to be killed.
[[nodiscard]] bool wait_all(std::span<ChildProcess> children, std::chrono::steady_clock::time_point deadline,
                            const std::function<bool()>& stop = {});

// Runs a command to its end (killed after `limit`), capturing stdout and stderr.
struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
[[nodiscard]] CommandResult run_command(const std::vector<std::string>& argv,
                                        std::chrono::milliseconds limit = std::chrono::minutes(5));

// Makes sure this process may open `needed` file descriptors: raises the soft limit towards the
// hard one if it must, and otherwise throws std::invalid_argument with one line that names `who`,
// what is needed and the limit ("raise it with ulimit -n, or host fewer parties per process").
void ensure_descriptors(std::size_t needed, const std::string& who);
// Raises the soft limit towards `wanted` as far as the hard limit allows; returns the limit now
// in force (at least `wanted` when it is met).
std::size_t raise_descriptors(std::size_t wanted);

// The path of the running executable (/proc/self/exe).
[[nodiscard]] std::string self_executable();

}  // namespace shufflempc
