// Counting bits end to end in one process: n parties encode (bit + Bernoulli noise bit), the
// channel shuffles all 2n messages with the CSPRNG, the analyzer sums. Reports the phases and, in
// the same run, the bare shuffle of the same 2n one-byte messages.
//   build/bin/bench/bench_counting [parties=1000000] [repetitions=3]
#include <fmt/format.h>

#include <chrono>
#include <iostream>

#include "shufflempc/inproc.hpp"
#include "shufflempc/registry.hpp"
#include "shufflempc/shuffle.hpp"

using namespace shufflempc;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::stoull(argv[1]) : 1'000'000;
  const int reps = argc > 2 ? std::stoi(argv[2]) : 3;
  const Registry registry = builtin_registry();
  auto protocol = registry.create("counting", {{"epsilon", "1"}, {"delta", "1e-6"}}, n);
  SystemRng rng;
  std::vector<Value> inputs(n);
  for (std::size_t i = 0; i < n; ++i) inputs[i] = (i % 3 == 0) ? 1 : 0;

  double best = 1e300, err = 0;
  std::size_t messages = 0;
  for (int r = 0; r < reps; ++r) {
    std::cerr << fmt::format("run {}/{}: {} parties\n", r + 1, reps, n);
    const auto t0 = Clock::now();
    const RunResult res = run_in_process(*protocol, inputs, rng);
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
    messages = res.messages;
    err = res.output.get<double>() - protocol->truth(inputs)->get<double>();
  }
  MessageBatch bare(1, messages);
  Shuffler shuffler;
  double t_shuffle = 1e300;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    shuffler.shuffle(bare, rng);
    t_shuffle = std::min(t_shuffle, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  std::cout << fmt::format("counting, {} parties, {} messages: {:.3f} s end to end (best of {}), {:.3e} messages/s, {:.3e} parties/s\n",
                           n, messages, best, reps, static_cast<double>(messages) / best, static_cast<double>(n) / best);
  std::cout << fmt::format("bare shuffle of the same {} one-byte messages: {:.4f} s ({:.1f}% of the run)\n", messages, t_shuffle,
                           100 * t_shuffle / best);
  std::cout << fmt::format("last run's error: {:.1f} (predicted sd {:.1f})\n", err, protocol->describe()["noise_sd"].get<double>());
  return 0;
}
