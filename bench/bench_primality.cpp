// The Miller-Rabin test that checks a big modulus (mpc2's --prime, up to 2000 digits): the
// library's is_probable_prime (64 rounds on GMP's integers, through Boost.Multiprecision's gmp
// backend) against, in the same run, the same 64 rounds on Boost's cpp_int, which the library used
// before, on the Mersenne primes 2^p - 1 for p = 521, 1279, 2203 and 4423.
//
//   build/bin/bench/bench_primality [LARGEST_P=4423]
//
// Progress goes to stderr, the table to stdout.
#include <fmt/format.h>

#include <boost/multiprecision/miller_rabin.hpp>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <utility>

#include "shufflempc/algebra.hpp"
#include "shufflempc/random.hpp"

using namespace shufflempc;

// Seconds `test` takes, and its answer.
template <class Test>
std::pair<double, bool> timed(Test test) {
  const auto t0 = std::chrono::steady_clock::now();
  const bool prime = test();
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), prime};
}

int main(int argc, char** argv) {
  const unsigned largest = argc > 1 ? static_cast<unsigned>(std::strtoul(argv[1], nullptr, 10)) : 4423;
  std::cout << fmt::format("{:>6} {:>7} {:>14} {:>14} {:>8}\n", "p", "digits", "gmp (s)", "cpp_int (s)", "speedup");
  for (const unsigned p : {521u, 1279u, 2203u, 4423u}) {
    if (p > largest) break;
    const BigInt m = (BigInt(1) << p) - 1;
    std::cerr << "bench_primality: 2^" << p << " - 1 on GMP ..." << std::endl;
    SeededRng rng(p);
    const auto [gmp_s, gmp] = timed([&] { return is_probable_prime(m, rng); });
    std::cerr << "bench_primality: 2^" << p << " - 1 on cpp_int ..." << std::endl;
    std::mt19937_64 bases(p);  // the bases need no secrecy
    const auto [plain_s, plain] = timed([&] { return boost::multiprecision::miller_rabin_test(m, 64, bases); });
    if (!gmp || !plain) {
      std::cerr << "bench_primality: 2^" << p << " - 1 was not found prime\n";
      return 1;
    }
    std::cout << fmt::format("{:>6} {:>7} {:>14.3f} {:>14.3f} {:>7.1f}x\n", p, m.str().size(), gmp_s, plain_s, plain_s / gmp_s);
  }
  return 0;
}
