// The durable admissions of a server's state directory (net/store.hpp): how many admissions a
// second the store makes durable, with the group commit and without it, at each durability, against
// in the same run the same records copied into memory (what admitting costs without a disk).
//
//   build/bin/bench/bench_store [N=100000] [WIDTH=102] [DIR=a new directory under /tmp]
//
// Each admission is one party's batch of 2 messages of WIDTH bytes (102: a `local counting` party's
// sealed record), admitted as fast as one thread can queue them, as the shuffler's io thread does;
// the time runs from the first admit to the last one reported durable. Latency: from an admit to its
// report, the median and the 99th percentile; a burst queues everything at once, so its latency is
// the whole burst's, and the last row paces the admissions at the target rate instead. Progress goes to stderr, the table to stdout.
#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <thread>
#include <vector>

#include "shufflempc/net/store.hpp"
#include "timing.hpp"

using namespace shufflempc;
using namespace shufflempc::net;
using Clock = std::chrono::steady_clock;

namespace {

struct Row {
  double seconds = 0, p50_ms = 0, p99_ms = 0;
  std::uint64_t commits = 0;
};

// `rate` admissions a second (0: as fast as one thread queues them).
Row run(const std::filesystem::path& dir, std::size_t n, std::size_t width, StoreOptions options, double rate = 0) {
  std::filesystem::remove_all(dir);
  SessionId session{};
  ConfigDigest digest{};
  auto store = open_state_directory(dir, session, digest, "bench", options);
  std::vector<Clock::time_point> queued(n), reported(n);
  std::vector<std::uint8_t> record(2 * width, 0x5a);
  std::atomic<std::size_t> failed{0};
  Row row;
  row.seconds = bench::seconds_of([&] {
    const auto start = Clock::now();
    for (std::size_t i = 0; i < n; ++i) {
      if (rate > 0)
        std::this_thread::sleep_until(start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(i / rate)));
      Admission a{.round = 0, .first = static_cast<PartyId>(i), .counts = {2}, .width = static_cast<std::uint32_t>(width), .messages = record};
      queued[i] = Clock::now();
      store->admit(std::move(a), [&, i](const AdmitResult& r) {
        reported[i] = Clock::now();
        if (!r.durable) ++failed;
      });
    }
    store->flush();
  });
  if (failed > 0) throw std::runtime_error(std::to_string(failed.load()) + " admissions failed");
  std::vector<double> ms(n);
  for (std::size_t i = 0; i < n; ++i) ms[i] = std::chrono::duration<double, std::milli>(reported[i] - queued[i]).count();
  std::sort(ms.begin(), ms.end());
  row.p50_ms = ms[n / 2];
  row.p99_ms = ms[std::min(n - 1, n * 99 / 100)];
  row.commits = store->commits();
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 100'000;
  const std::size_t width = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 102;
  std::filesystem::path base;
  if (argc > 3) base = argv[3];
  else {
    std::string tmpl = "/tmp/bench-store-XXXXXX";
    if (!::mkdtemp(tmpl.data())) return 2;
    base = tmpl;
  }
  if (n == 0 || width == 0) {
    std::cerr << "bench_store: N and WIDTH must be positive\n";
    return 2;
  }
  // The baseline: the same records copied into one buffer, as the rounds keep them in memory.
  std::vector<std::uint8_t> record(2 * width, 0x5a), kept;
  const double memory_s = bench::seconds_of([&] {
    kept.reserve(n * record.size());
    for (std::size_t i = 0; i < n; ++i) kept.insert(kept.end(), record.begin(), record.end());
  });
  fmt::print("{} admissions of 2 messages of {} B, state under {}\n", n, width, base.string());
  fmt::print("{:<44} {:>10} {:>14} {:>10} {:>10} {:>9}\n", "store", "seconds", "admissions/s", "p50 ms", "p99 ms", "commits");
  fmt::print("{:<44} {:>10.4f} {:>14.0f} {:>10} {:>10} {:>9}\n", "memory only (the baseline)", memory_s, n / memory_s, "-", "-", "-");
  struct Case {
    const char* name;
    StoreOptions options;
    std::size_t count;
    double rate = 0;
  };
  const Case cases[] = {
      {"durable (synchronous=FULL), group commit", {.durability = Durability::full, .group_commit = true, .max_bytes = 0}, n},
      {"survives a process crash (NORMAL), group", {.durability = Durability::process, .group_commit = true, .max_bytes = 0}, n},
      {"durability off (no fsync), group commit", {.durability = Durability::off, .group_commit = true, .max_bytes = 0}, n},
      {"durable, one commit an admission", {.durability = Durability::full, .group_commit = false, .max_bytes = 0}, std::min<std::size_t>(n, 5000)},
      {"durable, group, paced at 20,000 a second", {.durability = Durability::full, .group_commit = true, .max_bytes = 0},
       std::min<std::size_t>(n, 40'000), 20'000},
  };
  for (const auto& c : cases) {
    std::cerr << "bench_store: " << c.name << " ..." << std::endl;
    const Row r = run(base / "state", c.count, width, c.options, c.rate);
    fmt::print("{:<44} {:>10.4f} {:>14.0f} {:>10.3f} {:>10.3f} {:>9}{}\n", c.name, r.seconds, c.count / r.seconds, r.p50_ms, r.p99_ms,
               r.commits, c.count < n ? fmt::format("  ({} admissions)", c.count) : std::string());
  }
  std::filesystem::remove_all(base);
  return 0;
}
