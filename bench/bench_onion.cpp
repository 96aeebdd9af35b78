// The onion of a chain of k mix servers (net/onion.hpp), in one process: what the parties pay to
// wrap N records for k = 1, 2, 3 hops and what one hop pays to peel and shuffle them, against, in
// the same run, today's ESA sealing of the same records (crypto_box_seal, one layer) and the bare
// shuffle of the peeled batch.
//
//   build/bin/bench/bench_onion [N=100000] [WIDTH=2]
//
// Every figure uses all cores (wrap and peel run on parallel_for; the shuffle on its own threads).
// Progress goes to stderr, the table to stdout.
#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <vector>

#include "timing.hpp"
#include "shufflempc/net/onion.hpp"
#include "shufflempc/net/sealing.hpp"
#include "shufflempc/shuffle.hpp"

using namespace shufflempc;
using namespace shufflempc::net;

using bench::seconds_of;

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 100000;
  const std::size_t width = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 2;
  SeededRng rng(1);
  MessageBatch messages(width, n);
  rng.fill(std::span(messages.data(), messages.size_bytes()));
  const KeyPair analyzer = KeyPair::generate(rng);
  SessionId session{};
  rng.fill(session);

  std::cerr << "bench_onion: sealing " << n << " records (the single shuffler's ESA baseline) ..." << std::endl;
  std::vector<std::uint8_t> sealed(n * sealing::sealed_width(width));
  const double seal_s = seconds_of([&] { sealing::seal(messages.bytes(), width, analyzer.public_key(), sealed); });
  double open_s = 0;
  std::size_t opened = 0;
  open_s = seconds_of([&] { opened = sealing::open(sealed, width, analyzer).messages.count(); });
  std::cout << fmt::format("{} records of {} bytes (MPC mode: the innermost layer is the message)\n", n, width);
  std::cout << fmt::format("{:<34} {:>10} {:>14}\n", "", "seconds", "records / s");
  std::cout << fmt::format("{:<34} {:>10.3f} {:>14.0f}\n", "seal (crypto_box_seal, serial)", seal_s, n / seal_s);
  std::cout << fmt::format("{:<34} {:>10.3f} {:>14.0f}\n", "open (crypto_box_seal_open, serial)", open_s, opened / open_s);

  for (std::size_t k = 1; k <= 3; ++k) {
    std::vector<KeyPair> hops;
    std::vector<PublicKey> keys;
    for (std::size_t i = 0; i < k; ++i) {
      hops.push_back(KeyPair::generate(rng));
      keys.push_back(hops.back().public_key());
    }
    std::cerr << "bench_onion: k = " << k << " ..." << std::endl;
    MessageBatch batch;
    const double wrap_s = seconds_of([&] { batch = onion::wrap(messages.bytes(), width, Delivery::all_parties, {}, keys, session, 0); });
    std::cout << fmt::format("{:<34} {:>10.3f} {:>14.0f}\n", fmt::format("k = {}: wrap, all cores", k), wrap_s, n / wrap_s);
    Shuffler shuffler;
    for (std::size_t h = 0; h < k; ++h) {
      onion::Peeled p;
      const double peel_s = seconds_of([&] { p = onion::peel(batch, hops[h], {session, 0, static_cast<std::uint32_t>(h)}); });
      const double shuffle_s = seconds_of([&] { shuffler.shuffle(p.records, rng); });
      std::cout << fmt::format("{:<34} {:>10.3f} {:>14.0f}   (shuffle alone {:.4f} s; {} did not open)\n",
                               fmt::format("k = {}: hop {} peel + shuffle", k, h), peel_s + shuffle_s, n / (peel_s + shuffle_s),
                               shuffle_s, p.not_opened);
      batch = std::move(p.records);
    }
  }
  return 0;
}
