// Split-mix secure summation at scale: encode + shuffle + analyze against the bare shuffle of the
// same number of messages of the same width, in one run; and, with --errors, the DP sum's error
// in the local, shuffle and central models on the same inputs.
//
//   build/bin/bench/bench_split_mix [PARTIES=1000000] [SIGMA=40] [INPUT_BITS=32] [REPS=3]
//   build/bin/bench/bench_split_mix --errors [PARTIES=10000] [EPSILON=1] [RUNS=300]
//
// Every timing is the best of REPS repetitions. "encode" splits every party's input with one
// generator (the work a party does for its own messages, all parties back to back); "encode with
// forks" gives every party its own generator as the RoundDriver does; "session" is the whole
// run_in_process (parties as objects, JSON inputs, channel checks), for reference.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#include <iostream>
#include <string>
#include <vector>

#include "shufflempc/inproc.hpp"
#include "shufflempc/registry.hpp"
#include "shufflempc/shuffle.hpp"
#include "shufflempc/protocols/split_mix/dp_sum.hpp"
#include "shufflempc/protocols/split_mix/split_mix.hpp"

using namespace shufflempc;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

int bench_sum(std::size_t n, double sigma, std::size_t input_bits, int reps) {
  const auto c = split_mix::configure_sum(n, sigma, input_bits, 0, 0, false);
  const std::size_t m = c.messages, width = c.modulus.width(), total = n * m;
  std::cerr << fmt::format("split-mix: n = {}, {}-bit inputs, sigma = {}: q = n 2^{}, {} messages of {} bytes per party "
                           "(IKOS-style count {}), {} messages in all\n",
                           n, input_bits, sigma, input_bits, m, width, c.messages_ikos, total);
  SystemRng rng;
  std::vector<std::uint64_t> inputs(n);
  const std::uint64_t mask = input_bits >= 64 ? ~0ull : (1ull << input_bits) - 1;
  for (auto& x : inputs) x = rng.next_u64() & mask;
  BigInt truth = 0;
  for (auto x : inputs) truth += x;

  double encode = 1e300, encode_forks = 1e300, encode_parallel = 1e300, shuffle = 1e300, analyze = 1e300, bare = 1e300;
  // The shuffle uses every core (Shuffler's default); the parallel encode gives the parties the same
  // cores: thread t encodes a contiguous range of parties with its own generator into its own batch.
  const unsigned threads = Shuffler::default_threads();
  std::vector<MessageBatch> parts(threads, MessageBatch(width));
  MessageBatch joined(width);
  Shuffler shuffler;
  // Buffers are reused across repetitions (as the bare shuffle's is), so that the best repetition
  // measures the work rather than the first touch of fresh pages.
  MessageBatch batch(width), forked(width), plain(width, total);
  batch.reserve(total);
  forked.reserve(total);
  for (int r = 0; r < reps; ++r) {
    std::cerr << fmt::format("  repetition {}/{}\n", r + 1, reps);
    batch.clear();
    forked.clear();
    auto t0 = Clock::now();
    for (auto x : inputs) c.modulus.split(x, m, rng, batch);
    encode = std::min(encode, seconds_since(t0));

    t0 = Clock::now();
    for (std::size_t i = 0; i < n; ++i) {
      const auto party_rng = rng.fork(i);
      c.modulus.split(inputs[i], m, *party_rng, forked);
    }
    encode_forks = std::min(encode_forks, seconds_since(t0));

    t0 = Clock::now();
    {
      // Each thread encodes its parties in cache-sized chunks and copies every chunk straight into
      // its own range of the one batch the shuffle takes (party i's shares at [i m, (i + 1) m)).
      joined.resize(total);
      std::vector<std::thread> pool;
      for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
          auto trng = rng.fork(std::uint64_t{1} << 40 | t);
          const std::size_t begin = n * t / threads, end = n * (t + 1) / threads;
          for (std::size_t first = begin; first < end; first += 2048) {
            const std::size_t last = std::min(end, first + 2048);
            parts[t].clear();
            for (std::size_t i = first; i < last; ++i) c.modulus.split(inputs[i], m, *trng, parts[t]);
            std::memcpy(joined.data() + first * m * width, parts[t].data(), parts[t].size_bytes());
          }
        });
      for (auto& th : pool) th.join();
    }
    encode_parallel = std::min(encode_parallel, seconds_since(t0));
    if (c.modulus.sum(joined) != truth) {
      std::cerr << "bench_split_mix: WRONG SUM from the parallel encode\n";
      return 1;
    }

    t0 = Clock::now();
    shuffler.shuffle(batch, rng);
    shuffle = std::min(shuffle, seconds_since(t0));

    t0 = Clock::now();
    const BigInt sum = c.modulus.sum(batch);
    analyze = std::min(analyze, seconds_since(t0));
    if (sum != truth) {
      std::cerr << "bench_split_mix: WRONG SUM\n";
      return 1;
    }

    rng.fill(plain.data(), plain.size_bytes());
    t0 = Clock::now();
    shuffler.shuffle(plain, rng);
    bare = std::min(bare, seconds_since(t0));
  }

  std::cerr << "  session (run_in_process, once)\n";
  const auto protocol = builtin_registry().create(
      "split-mix-sum", {{"sigma", std::to_string(static_cast<int>(sigma))}, {"input-bits", std::to_string(input_bits)}}, n);
  std::vector<Value> values(inputs.begin(), inputs.end());
  auto t0 = Clock::now();
  const auto result = run_in_process(*protocol, values, rng);
  const double session = seconds_since(t0);
  if (result.output != Value(static_cast<std::uint64_t>(truth))) {
    std::cerr << "bench_split_mix: WRONG SESSION SUM\n";
    return 1;
  }

  const double protocol_s = encode + shuffle + analyze;
  fmt::print("parties                        {}\n", n);
  fmt::print("messages per party             {} (BBGN; IKOS-style count {})\n", m, c.messages_ikos);
  fmt::print("message width                  {} bytes (q = n 2^{}, log2 q = {:.2f})\n", width, input_bits, c.modulus.log2());
  fmt::print("encode                         {:.3f} s\n", encode);
  fmt::print("shuffle                        {:.3f} s\n", shuffle);
  fmt::print("analyze                        {:.3f} s\n", analyze);
  fmt::print("encode + shuffle + analyze     {:.3f} s\n", protocol_s);
  fmt::print("bare shuffle, same messages    {:.3f} s\n", bare);
  fmt::print("ratio to the bare shuffle      {:.2f}x (encode on 1 thread, the shuffle on {})\n", protocol_s / bare, threads);
  fmt::print("encode on {} threads            {:.3f} s (ratio with it {:.2f}x, target <= 1.5x: the same cores as the shuffle)\n", threads,
             encode_parallel, (encode_parallel + shuffle + analyze) / bare);
  fmt::print("encode with per-party forks    {:.3f} s (ratio with it {:.2f}x)\n", encode_forks,
             (encode_forks + shuffle + analyze) / bare);
  fmt::print("whole session (run_in_process) {:.3f} s (ratio {:.2f}x)\n", session, session / bare);
  return 0;
}

int bench_errors(std::size_t n, double epsilon, std::size_t runs) {
  const auto c = split_mix::configure_dp_sum(n, epsilon, 40, 0, 0, false);
  SeededRng rng(2024);  // a reproducible simulation, not a deployment
  std::vector<double> inputs(n);
  for (auto& x : inputs) x = rng.uniform01();
  std::cerr << fmt::format("dp sum: n = {}, eps = {}, p = {}, {} runs per model\n", n, epsilon, c.precision, runs);
  const auto e = split_mix::compare_models(inputs, c, runs, rng);
  fmt::print("model     measured RMSE   predicted RMSE\n");
  fmt::print("local     {:13.3f}   {:14.3f}\n", e.local, e.predicted_local);
  fmt::print("shuffle   {:13.3f}   {:14.3f}\n", e.shuffle, e.predicted_shuffle);
  fmt::print("central   {:13.3f}   {:14.3f}\n", e.central, e.predicted_central);
  fmt::print("shuffle: {} messages of {} bytes per party, (eps, delta) = ({}, {:.3g})\n", c.split.messages,
             c.split.modulus.width(), epsilon, c.delta);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && args[0] == "--errors") {
      return bench_errors(args.size() > 1 ? std::stoull(args[1]) : 10'000, args.size() > 2 ? std::stod(args[2]) : 1.0,
                          args.size() > 3 ? std::stoull(args[3]) : 300);
    }
    return bench_sum(args.size() > 0 ? std::stoull(args[0]) : 1'000'000, args.size() > 1 ? std::stod(args[1]) : 40,
                     args.size() > 2 ? std::stoull(args[2]) : 32, args.size() > 3 ? std::stoi(args[3]) : 3);
  } catch (const std::exception& e) {
    std::cerr << "bench_split_mix: " << e.what() << "\nusage: bench_split_mix [PARTIES] [SIGMA] [INPUT_BITS] [REPS]\n"
              << "       bench_split_mix --errors [PARTIES] [EPSILON] [RUNS]\n";
    return 2;
  }
}
