// The pause-and-replay attack on a one-round XOR-sum protocol (docs/xor-sum.md): its queries (each
// a copy of the frozen half G, the query half's randomizers, a shuffle and the protocol's own
// analyzer) and its decoders, against the baseline of running the whole protocol afresh for every
// query (all n randomizers, the shuffle, the analyzer), on one thread.
//   build/bin/bench/bench_xor_sum [parties=256] [queries-per-party=16] [alpha=0.5] [protocol=rr|noise-ids]
#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <string>

#include "shufflempc/attacks/xor_sum.hpp"
#include "shufflempc/protocols/xor_sum/xor_sum.hpp"

using namespace shufflempc;
using Clock = std::chrono::steady_clock;

namespace {

template <class M>
void bench(const M& m, const std::string& name, std::size_t n, std::size_t per_party) {
  const std::size_t queries = per_party * n;
  SeededRng rng(1);
  const auto t0 = Clock::now();
  const auto data = attacks::replay_queries(m, n, queries, rng, [&](std::size_t done, std::size_t total) {
    if (done % (total / 4 == 0 ? 1 : total / 4) == 0) std::cerr << fmt::format("{}: {}/{} queries\n", name, done, total);
  });
  const double t_queries = std::chrono::duration<double>(Clock::now() - t0).count();

  // The baseline: the same number of whole executions, every user's randomizer run each time.
  const auto t1 = Clock::now();
  const std::size_t h = n / 2;
  double sink = 0;
  for (std::size_t q = 0; q < queries; ++q) {
    OneRoundRun<M> run(m);
    auto party_rng = rng.fork(q);
    for (std::size_t i = 0; i < 2 * h; ++i) run.add(static_cast<PartyId>(i), {static_cast<std::uint32_t>(i % h), (i & 1) != 0}, *party_rng);
    auto s = rng.fork(q + 1), a = rng.fork(q + 2);
    sink += static_cast<double>(run.finish(*s, *a));
  }
  const double t_fresh = std::chrono::duration<double>(Clock::now() - t1).count();

  std::cout << fmt::format("{:<10} n = {}, m = {} queries ({}n): queries {:.3f} s ({:.1f} us each), whole executions {:.3f} s ({:.2f}x)\n", name,
                           n, queries, per_party, t_queries, 1e6 * t_queries / static_cast<double>(queries), t_fresh, t_fresh / t_queries);
  for (std::size_t m_used : {n, 4 * n, queries}) {
    if (m_used > queries) continue;
    for (auto d : {attacks::Decoder::least_squares, attacks::Decoder::lp}) {
      std::cerr << fmt::format("{}: decoding {} queries by {}\n", name, m_used, attacks::to_string(d));
      const auto r = attacks::reconstruct(data, m_used, d);
      std::cout << fmt::format("  m = {:>5}  {:<13}  decode {:8.3f} s  recovered {:.3f}  of G's bits {:.3f}  ceiling {:.3f}  alpha {:.2f}\n",
                               m_used, attacks::to_string(d), r.seconds_decode, r.recovered, r.of_encoded, r.ceiling, r.alpha());
    }
  }
  if (sink == 0.123456) std::cout << '\n';
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::stoull(argv[1]) : 256;
  const std::size_t per_party = argc > 2 ? std::stoull(argv[2]) : 16;
  const double alpha = argc > 3 ? std::stod(argv[3]) : 0.5;
  const std::string which = argc > 4 ? argv[4] : "rr";
  const auto t0 = Clock::now();
  if (which == "rr") {
    bench(xor_sum::RrMechanism{.buckets = static_cast<std::uint32_t>(n), .flip = xor_sum::rr_flip_for_alpha(alpha), .alpha = alpha}, "rr", n,
          per_party);
  } else {
    const auto b = static_cast<std::uint32_t>(n);
    bench(xor_sum::NoiseIdsMechanism{.buckets = b, .parties = n, .rate = xor_sum::noise_rate_for_alpha(alpha, n, b), .alpha = alpha},
          "noise-ids", n, per_party);
  }
  std::cout << fmt::format("whole attack (queries, baseline and every decode): {:.2f} s\n",
                           std::chrono::duration<double>(Clock::now() - t0).count());
}
