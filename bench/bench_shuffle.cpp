// Shuffle throughput: shufflempc::Shuffler (ChaCha20 CSPRNG; all cores, then 1 thread) against std::shuffle driven by
// std::mt19937_64 and against memcpy of the same bytes, in one run.
//   build/bin/bench/bench_shuffle [messages=10000000] [width=8] [repetitions=5]
#include <fmt/format.h>

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <iostream>
#include <string>
#include <random>
#include <vector>

#include "shufflempc/shuffle.hpp"

using namespace shufflempc;
using Clock = std::chrono::steady_clock;

namespace {
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
struct Timing {
  double wall = 1e300;  // best wall-clock seconds
  double cpu = 1e300;   // best CPU seconds of this thread (robust when other processes share the cores)
};
template <class F>
Timing best_of(int reps, F&& f) {
  Timing best;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    const double c0 = thread_cpu_seconds();
    f();
    best.cpu = std::min(best.cpu, thread_cpu_seconds() - c0);
    best.wall = std::min(best.wall, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}
struct Record8 {
  std::uint64_t v;
};
}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::stoull(argv[1]) : 10'000'000;
  const std::size_t width = argc > 2 ? std::stoull(argv[2]) : 8;
  const int reps = argc > 3 ? std::stoi(argv[3]) : 5;
  std::cerr << fmt::format("shuffling {} messages of {} bytes, best of {}\n", n, width, reps);

  MessageBatch batch(width, n);
  for (std::size_t i = 0; i < n; ++i) store_le<std::uint32_t>(batch[i].data(), static_cast<std::uint32_t>(i));
  std::vector<std::uint8_t> copy(batch.size_bytes());

  const Timing t_memcpy = best_of(reps, [&] { std::memcpy(copy.data(), batch.data(), batch.size_bytes()); });
  std::cerr << "memcpy done\n";

  SystemRng rng;
  Shuffler shuffler;  // all cores (at most 8)
  const Timing t_csprng = best_of(reps, [&] { shuffler.shuffle(batch, rng); });
  Shuffler single(Shuffler::default_leaf_bytes, 1);
  const Timing t_single = best_of(reps, [&] { single.shuffle(batch, rng); });
  std::cerr << "Shuffler done\n";

  Timing t_std;
  if (width == 8) {
    std::vector<Record8> records(n);
    for (std::size_t i = 0; i < n; ++i) records[i].v = i;
    std::mt19937_64 mt(12345);
    t_std = best_of(reps, [&] { std::shuffle(records.begin(), records.end(), mt); });
  } else {
    // std::shuffle over an index array plus a gather of the records: the usual way to shuffle
    // variable-size records with the standard library.
    std::vector<std::uint32_t> index(n);
    for (std::size_t i = 0; i < n; ++i) index[i] = static_cast<std::uint32_t>(i);
    std::mt19937_64 mt(12345);
    t_std = best_of(reps, [&] {
      std::shuffle(index.begin(), index.end(), mt);
      for (std::size_t i = 0; i < n; ++i) std::memcpy(copy.data() + i * width, batch.data() + index[i] * width, width);
    });
  }
  std::cerr << "std::shuffle done\n";

  const double mb = static_cast<double>(batch.size_bytes()) / 1e6;
  std::cout << fmt::format("{:<40} {:>10} {:>10} {:>14} {:>10}\n", "method", "wall s", "cpu s*", "messages/s", "vs memcpy");
  const auto row = [&](const char* name, const Timing& t) {
    std::cout << fmt::format("{:<40} {:>10.4f} {:>10.4f} {:>14.3e} {:>9.1f}x\n", name, t.wall, t.cpu,
                             static_cast<double>(n) / t.wall, t.wall / t_memcpy.wall);
  };
  row("memcpy", t_memcpy);
  const std::string threads = fmt::format("shufflempc::Shuffler, {} threads", Shuffler::default_threads());
  row(threads.c_str(), t_csprng);
  row("shufflempc::Shuffler, 1 thread", t_single);
  row("std::shuffle (std::mt19937_64)", t_std);
  std::cout << "* CPU time of the calling thread only (robust when other processes share the cores)\n";
  std::cout << fmt::format("\n{} MB. Against std::shuffle: {:.2f}x faster with {} threads, {:.2f}x with 1 thread (wall); "
                           "{:.1f}x and {:.1f}x the time of memcpy\n",
                           mb, t_std.wall / t_csprng.wall, Shuffler::default_threads(), t_std.wall / t_single.wall,
                           t_csprng.wall / t_memcpy.wall, t_single.wall / t_memcpy.wall);
  return 0;
}
