// `shufflempc local counting --noise calibrated` at growing party counts: wall time, the peak memory
// and CPU time of every process (the shuffler, the analyzer, the largest party process), and the
// bytes each party sends and receives. Baseline in the same run: `shufflempc run` of the same
// protocol and parties, all in one process.
//
//   build/bin/bench/local_scale [N ...]        (default: 1000 10000 100000; --deadline-ms max(30000, 0.3 N))
//
// A count the machine cannot host (descriptors) is reported with the command's own one-line error.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include "shufflempc/process.hpp"
#include "shufflempc/runtime.hpp"

using namespace shufflempc;

namespace {

struct Timed {
  CommandResult result;
  double seconds = 0;
};

Timed timed(const std::vector<std::string>& argv) {
  const auto start = std::chrono::steady_clock::now();
  Timed t;
  t.result = run_command(argv, std::chrono::minutes(30));
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> counts;
  for (int i = 1; i < argc; ++i) counts.push_back(std::stoul(argv[i]));
  if (counts.empty()) counts = {1000, 10000, 100000};
  const std::string cli = SHUFFLEMPC_CLI;
  fmt::print("{:>8} {:>9} {:>9} | {:>12} {:>12} {:>14} | {:>10} {:>10} | {:>9}\n", "parties", "local s", "run s",
             "shuffler MB", "analyzer MB", "party proc MB", "recv/party", "sent/party", "shuffler CPU s");
  for (const std::size_t n : counts) {
    std::cerr << "local_scale: " << n << " parties over TCP..." << std::endl;
    const std::string parties = std::to_string(n);
    // The round deadline grows with the work: 30 s, or 0.3 ms per party (10^6 parties: 300 s), since
    // every party costs its process and the analyzer about 0.3 ms of X25519 (keys, seals, openings).
    const std::string deadline = std::to_string(std::max<std::size_t>(30'000, n * 3 / 10));
    const Timed local = timed({cli, "local", "counting", "--noise", "calibrated", "--parties", parties, "--seed", "1", "--deadline-ms",
                               deadline, "--json"});
    std::cerr << "local_scale: " << n << " parties in one process (baseline)..." << std::endl;
    const Timed run = timed({cli, "run", "counting", "--noise", "calibrated", "--parties", parties, "--seed", "1", "--json"});
    if (local.result.exit_code != 0) {
      // The error is the last line on stderr (warnings and notices come before it).
      std::string why = local.result.err;
      while (!why.empty() && why.back() == '\n') why.pop_back();
      if (auto nl = why.rfind('\n'); nl != std::string::npos) why.erase(0, nl + 1);
      fmt::print("{:>8} failed ({:.1f} s): {}\n", n, local.seconds, why);
      continue;
    }
    const Value report = Value::parse(local.result.out);
    double shuffler = 0, analyzer = 0, party = 0, shuffler_cpu = 0;
    for (const auto& p : report["process_resources"]) {
      const double mb = p["peak_memory_bytes"].get<double>() / 1e6;
      const std::string name = p["process"];
      if (name == "shuffler") {
        shuffler = mb;
        shuffler_cpu = p["cpu_seconds"].get<double>();
      } else if (name == "analyzer") {
        analyzer = mb;
      } else {
        party = std::max(party, mb);
      }
    }
    std::uint64_t recv = 0, sent = 0;
    for (const auto& p : report["per_party"]) {
      recv = std::max<std::uint64_t>(recv, p["bytes_received"].get<std::uint64_t>());
      sent = std::max<std::uint64_t>(sent, p["bytes_sent"].get<std::uint64_t>());
    }
    fmt::print("{:>8} {:>9.2f} {:>9.2f} | {:>12.1f} {:>12.1f} {:>14.1f} | {:>10} {:>10} | {:>9.2f}\n", n, local.seconds, run.seconds,
               shuffler, analyzer, party, recv, sent, shuffler_cpu);
  }
  return 0;
}
