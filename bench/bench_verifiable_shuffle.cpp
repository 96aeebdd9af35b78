// One hop of the verifiable mix: seconds to re-encrypt and permute N one-limb records, to prove the
// shuffle and to check the proof, on every core, against in the same run the cost of N variable-base
// scalar multiplications (libsodium's crypto_scalarmult_ristretto255) and of N additions; prover and
// verifier also in units of that multiplication per record (the targets: at most 3 each). A process
// keeps the generators H_i it has made: the prover pays for them and the check after it finds them
// made, so the check's cold cost (a verifier process of its own) is "check s" plus "N hashes s", the
// same run's N hashes to the group in coordinates, and "check cold mults/r" says it.
//
//   build/bin/bench/bench_verifiable_shuffle [LARGEST_N=10000] [LIMBS=1] [THREADS=0: every core]
//
// N runs over 1000, 10000, 100000 up to LARGEST_N. Progress goes to stderr, the table to stdout.
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "shufflempc/mixnet/detail/edwards.hpp"
#include "shufflempc/mixnet/shuffle_proof.hpp"
#include "shufflempc/little_endian.hpp"
#include "shufflempc/parallel.hpp"

using namespace shufflempc;
using namespace shufflempc::mixnet;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace

int main(int argc, char** argv) {
  const std::size_t largest = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10000;
  const std::size_t limbs = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  const unsigned threads = jobs_or_cores(argc > 3 ? static_cast<unsigned>(std::strtoul(argv[3], nullptr, 10)) : 0);
  // The mix's records are one limb; the proof takes tuples of any width, benched up to 8.
  if (limbs < 1 || limbs > 8) {
    std::cerr << "bench_verifiable_shuffle: LIMBS must be in [1, 8]\n";
    return 2;
  }
  std::cout << fmt::format("one hop, records of {} limb(s), {} thread(s); 'mults/r': seconds per record over one multiplication's\n", limbs, threads);
  std::cout << fmt::format("{:>7} {:>9} {:>9} {:>11} {:>9} {:>9} {:>9} {:>11} {:>11} {:>13} {:>18} {:>10}\n", "N", "N mults s", "N adds s",
                           "N hashes s", "reenc s", "prove s", "check s", "prove us/r", "check us/r", "prove mults/r", "check cold mults/r", "proof MB");
  SeededRng rng(1);
  const ElGamalKey key = ElGamalKey::generate(rng);
  const ProofContext ctx{};
  for (std::size_t n = 1000; n <= largest; n *= 10) {
    std::cerr << fmt::format("bench_verifiable_shuffle: N = {}: encrypting the input ...", n) << std::endl;
    CiphertextBatch input(limbs, n);
    parallel_for(n, threads, [&](std::size_t i) {
      for (std::size_t j = 0; j < limbs; ++j)
        input.at(i, j) = encrypt_point(mul_base(scalar_from_u64(i + j)), key.public_key, scalar_from_u64(i * limbs + j + 1));
    });
    // The baseline: N variable-base multiplications on the same threads.
    std::vector<Point> sink(n);
    auto t0 = Clock::now();
    parallel_for(n, threads, [&](std::size_t i) { sink[i] = scalar_from_u64(i + 3) * key.public_key; });
    const double mults_s = seconds_since(t0);
    // And N additions (libsodium decodes both points and encodes the sum each time).
    t0 = Clock::now();
    parallel_for(n, threads, [&](std::size_t i) { sink[i] = sink[i] + key.public_key; });
    const double adds_s = seconds_since(t0);
    // And N hashes to the group (what making the generators H_i costs).
    std::vector<edwards::Ext> hashed(n);
    t0 = Clock::now();
    parallel_for(n, threads, [&](std::size_t i) {
      std::uint8_t b[8];
      store_le(b, std::uint64_t{i});
      hashed[i] = edwards::from_hash(wide_hash("bench", b));
    });
    (void)edwards::to_niels(hashed);
    const double hashes_s = seconds_since(t0);
    std::cerr << fmt::format("bench_verifiable_shuffle: N = {}: shuffling ...", n) << std::endl;
    t0 = Clock::now();
    const auto shuffled = reencrypt_shuffle(input, key.public_key, rng, threads);
    const double reenc_s = seconds_since(t0);
    std::cerr << fmt::format("bench_verifiable_shuffle: N = {}: proving ...", n) << std::endl;
    t0 = Clock::now();
    const auto proof = prove_shuffle(ctx, key.public_key, input, shuffled.output, shuffled.witness, rng, threads);
    const double prove_s = seconds_since(t0);
    std::cerr << fmt::format("bench_verifiable_shuffle: N = {}: checking ...", n) << std::endl;
    t0 = Clock::now();
    const std::string fault = check_shuffle(ctx, key.public_key, input, shuffled.output, proof, threads);
    const double check_s = seconds_since(t0);
    if (!fault.empty()) {
      std::cerr << "bench_verifiable_shuffle: the honest proof does not check: " << fault << '\n';
      return 1;
    }
    const double dn = static_cast<double>(n);
    std::cout << fmt::format("{:>7} {:>9.3f} {:>9.3f} {:>11.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>11.1f} {:>11.1f} {:>13.2f} {:>18.2f} {:>10.2f}\n", n, mults_s,
                             adds_s, hashes_s, reenc_s, prove_s, check_s, 1e6 * prove_s / dn, 1e6 * check_s / dn, prove_s / mults_s,
                             (check_s + hashes_s) / mults_s, static_cast<double>(ShuffleProof::size_bytes(n, limbs)) / 1e6)
              << std::flush;
  }
}
