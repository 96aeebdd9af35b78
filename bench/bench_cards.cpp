// Card protocols: simulated six-card ANDs per second, cryptographic ANDs (card-and, ElGamal on
// ristretto255) per second in-process, and group operations per AND, with the cost of one
// ristretto255 scalar multiplication as the baseline measured in the same run.
//   build/bin/bench/bench_cards [crypto_runs]     (default 200; progress on stderr)
#include <fmt/format.h>
#include <sodium.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>

#include "shufflempc/protocols/cards/card_and.hpp"
#include "shufflempc/protocols/cards/elgamal.hpp"
#include "shufflempc/protocols/cards/gates.hpp"
#include "shufflempc/inproc.hpp"

using namespace shufflempc;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

int main(int argc, char** argv) {
  const long crypto_runs = argc > 1 ? std::atol(argv[1]) : 200;
  if (crypto_runs < 1) {
    std::cerr << "usage: bench_cards [crypto_runs >= 1]\n";
    return 2;
  }
  ensure_sodium();
  SeededRng rng(2024);

  // Baseline: one variable-base and one fixed-base scalar multiplication on ristretto255.
  std::cerr << "baseline: scalar multiplications...\n";
  const int mults = 2000;
  cards::Scalar k = cards::CardCrypto::random_scalar(rng);
  cards::Point p = cards::face_point(cards::Suit::hearts), q{};
  auto start = Clock::now();
  for (int i = 0; i < mults; ++i) {
    if (crypto_scalarmult_ristretto255(q.data(), k.data(), p.data()) != 0) return 1;
    p = q;
  }
  const double mult_us = seconds_since(start) / mults * 1e6;
  start = Clock::now();
  for (int i = 0; i < mults; ++i) {
    if (crypto_scalarmult_ristretto255_base(q.data(), k.data()) != 0) return 1;
    k[0] ^= q[0];
  }
  const double base_us = seconds_since(start) / mults * 1e6;

  // Simulated table: six-card ANDs with random inputs.
  std::cerr << "simulated table...\n";
  const int simulated = 200000;
  cards::RngCoins coins(rng);
  int ones = 0;
  start = Clock::now();
  for (int i = 0; i < simulated; ++i) {
    cards::Table t;
    const cards::Commitment a = t.commit(rng.bit(), 0);
    const cards::Commitment b = t.commit(rng.bit(), 1);
    ones += t.open(cards::six_card_and(t, a, b, coins).output) ? 1 : 0;
  }
  const double simulated_s = seconds_since(start);

  // Cryptographic cards through the in-process transport (both parties, analyzer, shuffle).
  std::cerr << "card-and in-process...\n";
  auto protocol = cards::make_card_and();
  std::uint64_t ops_alice = 0, ops_bob = 0, scalar_mults = 0;
  start = Clock::now();
  for (long i = 0; i < crypto_runs; ++i) {
    const std::vector<Value> inputs = {rng.bit() ? "yes" : "no", rng.bit() ? "yes" : "no"};
    auto run_rng = rng.fork(static_cast<std::uint64_t>(i));
    const RunResult r = run_in_process(*protocol, inputs, *run_rng);
    ops_alice = r.party_outputs.at(cards::alice)["group_ops"].get<std::uint64_t>();
    ops_bob = r.party_outputs.at(cards::bob)["group_ops"].get<std::uint64_t>();
    scalar_mults = r.party_outputs.at(cards::alice)["scalar_mults"].get<std::uint64_t>() +
                   r.party_outputs.at(cards::bob)["scalar_mults"].get<std::uint64_t>();
    if ((i + 1) % 100 == 0) std::cerr << "  " << i + 1 << " / " << crypto_runs << '\n';
  }
  const double crypto_s = seconds_since(start);

  fmt::print("machine: 2-core VM (see docs/PERFORMANCE.md for the CPU model)\n");
  fmt::print("baseline ristretto255 scalar mult      {:>10.1f} us   fixed-base {:>8.1f} us\n", mult_us, base_us);
  fmt::print("simulated six-card AND                 {:>10.0f} ANDs/s  ({} runs, {} outputs were 1)\n",
             simulated / simulated_s, simulated, ones);
  fmt::print("card-and in-process (crypto)           {:>10.1f} ANDs/s  ({:.2f} ms per AND, {} runs)\n",
             static_cast<double>(crypto_runs) / crypto_s, crypto_s / static_cast<double>(crypto_runs) * 1e3, crypto_runs);
  fmt::print("group operations per AND               {:>10}  (Alice {}, Bob {}; {} scalar mults, the rest additions)\n",
             ops_alice + ops_bob, ops_alice, ops_bob, scalar_mults);
  fmt::print("scalar mults x baseline                {:>10.2f} ms per AND (the crypto floor; the rest is decoding and transport)\n",
             static_cast<double>(scalar_mults) * mult_us / 1e3);
  return 0;
}
