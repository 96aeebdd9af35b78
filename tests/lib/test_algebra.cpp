#include <doctest/doctest.h>

#include <vector>

#include "shufflempc/algebra.hpp"
#include "support/stats.hpp"

using namespace shufflempc;

TEST_CASE("ZqSmall known answers") {
  const ZqSmall z(97);
  CHECK(z.bytes() == 1);
  CHECK(z.add(90, 10) == 3);
  CHECK(z.sub(3, 10) == 90);
  CHECK(z.neg(0) == 0);
  CHECK(z.mul(50, 50) == 2500 % 97);
  CHECK(z.inverse(5) == 39);  // 5 * 39 = 195 = 2 * 97 + 1
  CHECK(z.pow(3, 96) == 1);   // Fermat
  CHECK_THROWS_AS((void)ZqSmall(12).inverse(4), std::invalid_argument);
  CHECK_THROWS_AS(ZqSmall(1), std::invalid_argument);

  const ZqSmall p(18446744073709551557ull);  // the largest prime below 2^64
  CHECK(p.bytes() == 8);
  CHECK(p.pow(2, 18446744073709551556ull) == 1);
  CHECK(p.add(18446744073709551556ull, 18446744073709551556ull) == 18446744073709551555ull);
  CHECK(p.mul(p.inverse(123456789), 123456789) == 1);

  const ZqSmall w = ZqSmall::two_to_64();
  CHECK(w.modulus() == BigInt(1) << 64);
  CHECK(w.add(~0ull, 2) == 1);
  CHECK(w.mul(1ull << 63, 2) == 0);
  CHECK(w.sub(0, 1) == ~0ull);
  CHECK(ZqSmall::from_big(BigInt(1) << 64).is_two_to_64());
  CHECK_THROWS_AS((void)ZqSmall::from_big((BigInt(1) << 64) + 1), std::invalid_argument);
}

TEST_CASE("ZqSmall mul by shifts for 2^61 - 1 equals the product reduced by division") {
  // The Mersenne modulus takes a path of its own; its neighbours and the largest prime below 2^64
  // take the 128-bit division. Every answer is checked against Boost's exact product.
  const std::uint64_t m = (std::uint64_t{1} << 61) - 1;
  SeededRng rng(61);
  for (const std::uint64_t q : {m, m - 2, m + 2, std::uint64_t{18446744073709551557ull}}) {
    const ZqSmall z(q);
    std::vector<std::uint64_t> operands = {0, 1, 2, m - 1, m, m + 1, q - 1, q - 2, std::uint64_t{1} << 61,
                                           std::uint64_t{1} << 62, std::uint64_t{1} << 63, ~std::uint64_t{0}};
    for (int i = 0; i < 2000; ++i) operands.push_back(i % 2 ? rng.next_u64() : rng.uniform(q));
    for (std::size_t i = 0; i < operands.size(); ++i) {
      const std::uint64_t a = operands[i], b = operands[(i * 7 + 3) % operands.size()];
      const BigInt exact = (BigInt(a) * BigInt(b)) % BigInt(q);
      REQUIRE(BigInt(z.mul(a, b)) == exact);
      REQUIRE(BigInt(z.mul(a, a)) == (BigInt(a) * BigInt(a)) % BigInt(q));
    }
  }
}

TEST_CASE("ZqSmall encode/decode round trip and range checks") {
  const ZqSmall z(1000);  // 2 bytes
  std::array<std::uint8_t, 2> buf{};
  z.encode(999, buf);
  CHECK(z.decode(buf) == 999);
  buf = {0xe8, 0x03};  // 1000
  CHECK_THROWS_AS((void)z.decode(buf), std::invalid_argument);
  // Eight-byte elements (the inline path): 2^61 - 1 and 2^64.
  const std::uint64_t q = (std::uint64_t{1} << 61) - 1;
  const ZqSmall m(q);
  std::array<std::uint8_t, 8> b8{};
  m.encode(q - 1, b8);
  CHECK(b8 == std::array<std::uint8_t, 8>{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x1f});  // little-endian
  CHECK(m.decode(b8) == q - 1);
  b8[0] = 0xff;  // q itself
  CHECK_THROWS_AS((void)m.decode(b8), std::invalid_argument);
  b8.fill(0xff);
  CHECK_THROWS_AS((void)m.decode(b8), std::invalid_argument);
  const ZqSmall w = ZqSmall::two_to_64();
  w.encode(0x0123456789abcdefULL, b8);
  CHECK(b8 == std::array<std::uint8_t, 8>{0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01});
  CHECK(w.decode(b8) == 0x0123456789abcdefULL);
}

TEST_CASE("ZqBig known answers on 2^255 - 19 and 2^256") {
  const BigInt p = (BigInt(1) << 255) - 19;
  const ZqBig z(p);
  CHECK(z.bytes() == 32);
  CHECK(z.mul(z.inverse(BigInt(2)), BigInt(2)) == 1);
  CHECK(z.pow(BigInt(2), p - 1) == 1);
  CHECK(z.add(p - 1, BigInt(5)) == 4);
  CHECK(z.sub(BigInt(0), BigInt(1)) == p - 1);
  SeededRng rng(41);
  CHECK(is_probable_prime(p, rng));
  CHECK_FALSE(is_probable_prime((BigInt(1) << 256) - 1, rng));
  CHECK_FALSE(is_probable_prime(BigInt(561), rng));  // Carmichael number
  // Through GMP: Mersenne primes and composites of a few thousand bits, strong pseudoprimes to the
  // smallest bases (3825123056546413051 to every prime base up to 23, 318665857834031151167461 up
  // to 37), and a product of two Mersenne primes.
  CHECK(is_probable_prime((BigInt(1) << 1279) - 1, rng));
  CHECK(is_probable_prime((BigInt(1) << 4423) - 1, rng));
  CHECK_FALSE(is_probable_prime((BigInt(1) << 1277) - 1, rng));  // M1277 is composite
  CHECK_FALSE(is_probable_prime((BigInt(1) << 4409) - 1, rng));  // M4409 is composite
  CHECK_FALSE(is_probable_prime(BigInt("3825123056546413051"), rng));
  CHECK_FALSE(is_probable_prime(BigInt("318665857834031151167461"), rng));
  CHECK_FALSE(is_probable_prime(((BigInt(1) << 521) - 1) * ((BigInt(1) << 607) - 1), rng));
  CHECK(is_probable_prime(BigInt(2), rng));
  CHECK(is_probable_prime(BigInt(3), rng));
  CHECK_FALSE(is_probable_prime(BigInt(1), rng));

  const ZqBig w(BigInt(1) << 256);
  CHECK(w.bytes() == 32);
  std::vector<std::uint8_t> buf(32);
  const BigInt x = (BigInt(1) << 256) - 12345;
  w.encode(x, buf);
  CHECK(w.decode(buf) == x);
  CHECK(buf[0] == static_cast<std::uint8_t>((0 - 12345) & 0xff));
  CHECK(w.add(x, BigInt(12345)) == 0);
}

TEST_CASE("ZqBig::uniform is uniform (chi-square on q = 10 and q = 3 times 2^200)") {
  SeededRng rng(42);
  {
    const ZqBig z(BigInt(10));
    std::vector<std::uint64_t> counts(10, 0);
    for (int i = 0; i < 20000; ++i) counts[static_cast<std::size_t>(z.uniform(rng))]++;
    CHECK(test::chi_square(counts, std::vector<double>(10, 0.1)).passes());
  }
  {
    const BigInt q = BigInt(3) << 200;
    const ZqBig z(q);
    std::vector<std::uint64_t> thirds(3, 0);
    for (int i = 0; i < 6000; ++i) {
      const BigInt v = z.uniform(rng);
      REQUIRE(v < q);
      thirds[static_cast<std::size_t>(v >> 200)]++;
    }
    CHECK(test::chi_square(thirds, {1 / 3.0, 1 / 3.0, 1 / 3.0}).passes());
  }
}
