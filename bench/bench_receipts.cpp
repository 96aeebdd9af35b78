// Receipts (net/receipts.hpp): what the entry of a chain pays to commit to a batch of N records
// (their Merkle leaves, the leaf order, the tree) and to make every sender's receipt, and what a
// sender pays to check its own; with no chain (net/batch_commitment.hpp), what the shuffler pays to
// sign its commitment to the batch and the analyzer to check it against the records. Against, in
// the same run, the flat BLAKE2b digest of the same bytes (what a hop report signed before) and a
// memcpy of them.
//
//   build/bin/bench/bench_receipts [N=20000] [WIDTH=192]
//
// WIDTH 192: a record of `local counting` through a chain of 3 onion servers. Leaves are hashed on
// every core; the rest runs on one. Progress goes to stderr, the table to stdout.
#include <fmt/format.h>
#include <sodium.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <vector>

#include "timing.hpp"
#include "shufflempc/merkle.hpp"
#include "shufflempc/net/batch_commitment.hpp"
#include "shufflempc/net/receipts.hpp"
#include "shufflempc/parallel.hpp"

using namespace shufflempc;

using bench::seconds_of;

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 20000;
  const std::size_t width = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 192;
  if (n == 0 || width == 0) {
    std::cerr << "bench_receipts: N and WIDTH must be positive\n";
    return 2;
  }
  SeededRng rng(1);
  MessageBatch batch(width, n);
  rng.fill(std::span(batch.data(), batch.size_bytes()));
  ensure_sodium();
  const unsigned threads = hardware_threads();

  std::cerr << "bench_receipts: baselines ..." << std::endl;
  std::vector<std::uint8_t> copy(batch.size_bytes());
  const double memcpy_s = seconds_of([&] { std::memcpy(copy.data(), batch.data(), copy.size()); });
  std::array<std::uint8_t, 32> flat{};
  const double flat_s = seconds_of([&] { crypto_generichash(flat.data(), flat.size(), batch.data(), batch.size_bytes(), nullptr, 0); });

  std::cerr << "bench_receipts: the entry's commitment ..." << std::endl;
  net::InLeafOrder<MessageBatch> ordered;
  const double order_s = seconds_of([&] { ordered = net::in_leaf_order(batch, threads); });
  std::unique_ptr<net::ReceiptMaker> maker;
  const double tree_s = seconds_of([&] { maker = std::make_unique<net::ReceiptMaker>(width, ordered.leaves); });
  std::cerr << "bench_receipts: every sender's receipt (one record each) ..." << std::endl;
  std::size_t bytes = 0;
  std::vector<std::vector<std::uint8_t>> receipts(n);
  const double make_s = seconds_of([&] {
    for (std::size_t i = 0; i < n; ++i) {
      receipts[i] = net::encode_receipt(maker->receipt(batch[i], {}));
      bytes += receipts[i].size();
    }
  });
  std::cerr << "bench_receipts: every sender's check ..." << std::endl;
  std::size_t faults = 0;
  const double check_s = seconds_of([&] {
    for (std::size_t i = 0; i < n; ++i)
      faults += net::receipt_fault(net::decode_receipt(receipts[i], 1), width, batch[i], maker->root()).has_value();
  });

  std::cerr << "bench_receipts: no chain: the shuffler's signed commitment, the analyzer's check ..." << std::endl;
  const auto signer = mixnet::SigningKeyPair::generate(rng);
  const SessionId session{};
  net::CommittedBatch committed;
  const double commit_s = seconds_of([&] { committed = net::commit_batch(session, 0, width, batch.bytes(), signer, threads); });
  const auto encoded = net::encode_batch_commitment(committed.commitment);
  const double check_batch_s = seconds_of([&] {
    faults += net::check_batch(session, signer.public_key(), 0, width, batch.bytes(), encoded, threads).leaves != committed.leaves;
  });

  std::cout << fmt::format("{} records of {} bytes ({:.1f} MB), {} threads for the leaves\n", n, width, batch.size_bytes() / 1e6, threads);
  std::cout << fmt::format("{:<46} {:>10} {:>16}\n", "", "seconds", "per record (us)");
  const auto row = [&](const std::string& what, double s) { std::cout << fmt::format("{:<46} {:>10.4f} {:>16.3f}\n", what, s, 1e6 * s / n); };
  row("memcpy of the batch (baseline)", memcpy_s);
  row("flat BLAKE2b of the batch (baseline)", flat_s);
  row("entry: leaves and leaf order", order_s);
  row("entry: the tree", tree_s);
  row("entry: every sender's receipt, encoded", make_s);
  row("senders: every receipt decoded and checked", check_s);
  row("no chain: shuffler's signed batch commitment", commit_s);
  row("no chain: analyzer's check of it", check_batch_s);
  std::cout << fmt::format("receipt: {:.0f} bytes on average; {} faults (0 expected)\n", double(bytes) / n, faults);
  return faults == 0 ? 0 : 1;
}
