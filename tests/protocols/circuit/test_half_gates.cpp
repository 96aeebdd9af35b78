// V3's pieces without a channel: GF(2^128) arithmetic and Shamir sharing, the half-gates garbled
// circuit against plain evaluation, and the label selection x Delta + k_0 by interpolation.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "shufflempc/protocols/circuit/gf128.hpp"
#include "shufflempc/protocols/circuit/half_gates.hpp"
#include "shufflempc/random.hpp"
#include "shufflempc/shamir.hpp"

using namespace shufflempc;
using namespace shufflempc::circuit;

TEST_CASE("gf128: a field (identity, inverses, distributivity, x^128 = x^7 + x^2 + x + 1)") {
  SeededRng rng(128);
  const Block one{1, 0};
  const Block x{2, 0};
  Block p = one;
  for (int i = 0; i < 128; ++i) p = gf128::mul(p, x);
  CHECK(p == Block{0x87, 0});
  for (int i = 0; i < 50; ++i) {
    const Block a = Block::random(rng), b = Block::random(rng), c = Block::random(rng);
    CHECK(gf128::mul(a, one) == a);
    CHECK(gf128::mul(a, b) == gf128::mul(b, a));
    CHECK(gf128::mul(a, b ^ c) == (gf128::mul(a, b) ^ gf128::mul(a, c)));
    CHECK(gf128::mul(gf128::mul(a, b), c) == gf128::mul(a, gf128::mul(b, c)));
    CHECK(gf128::mul(a, gf128::inverse(a)) == one);
  }
}

TEST_CASE("gf128: the carry-less product equals the bit-serial one (random blocks, all-ones, single bits)") {
  SeededRng rng(127);
  std::vector<Block> blocks = {{0, 0}, {1, 0}, {~0ull, ~0ull}, {0, 1ull << 63}, {1ull << 63, 0}, {0x87, 0}};
  for (int i = 0; i < 500; ++i) blocks.push_back(Block::random(rng));
  for (std::size_t i = 0; i < blocks.size(); ++i)
    for (std::size_t j = i; j < std::min(blocks.size(), i + 8); ++j) {
      REQUIRE(gf128::mul(blocks[i], blocks[j]) == gf128::mul_serial(blocks[i], blocks[j]));
#if defined(__x86_64__)
      if (__builtin_cpu_supports("pclmul")) REQUIRE(gf128::mul_clmul(blocks[i], blocks[j]) == gf128::mul_serial(blocks[i], blocks[j]));
#endif
    }
#if defined(__x86_64__)
  // gf128::mul chooses by libsodium's detection: it must see what the compiler's sees.
  CHECK((sodium_runtime_has_pclmul() != 0) == (__builtin_cpu_supports("pclmul") != 0));
#endif
}

TEST_CASE("gf128: the product of two degree-t sharings interpolates from 2t + 1 points to x Delta") {
  SeededRng rng(129);
  for (std::size_t n : {3u, 4u, 5u, 7u, 11u}) {
    const std::size_t t = (n - 1) / 2;
    std::vector<std::uint32_t> all(n);
    for (std::uint32_t j = 0; j < n; ++j) all[j] = j;
    const gf128::Field field;
    const auto l = shamir::lagrange_at_zero(field, std::span<const std::uint32_t>(all));
    for (std::uint8_t bit = 0; bit < 2; ++bit) {
      const Block delta = Block::random(rng);
      std::vector<Block> xs(n), ds(n);
      shamir::share(field, Block{bit, 0}, t, rng, std::span<Block>(xs));
      shamir::share(field, delta, t, rng, std::span<Block>(ds));
      Block acc{};
      for (std::size_t j = 0; j < n; ++j) acc ^= gf128::mul(l[j], gf128::mul(xs[j], ds[j]));
      CHECK(acc == delta.times(bit));
    }
  }
}

TEST_CASE("gf128: sharing at precomputed points equals sharing at each party's point") {
  // In GF(2^128) the points are the bit patterns of 1..n, not 1, 1 + 1, ...: points() must agree.
  const gf128::Field field;
  for (std::size_t n : {3u, 7u, 20u}) {
    const auto at = shamir::points(field, n);
    SeededRng a(n), b(n);
    for (int i = 0; i < 10; ++i) {
      const Block secret = Block::random(a);
      (void)Block::random(b);
      std::vector<Block> plain(n), fast(n);
      shamir::share(field, secret, (n - 1) / 2, a, std::span<Block>(plain));
      shamir::share(field, secret, (n - 1) / 2, b, std::span<Block>(fast), std::span<const Block>(at));
      CHECK(plain == fast);
    }
  }
}

TEST_CASE("half-gates: every gate type agrees with plain evaluation on every input, with either hash") {
  // (AES-128 garbled with each hash: test_garbling_hash.cpp.)
  SeededRng rng(130);
  // Every gate type, AND(a, a), constants and copies.
  const Circuit c = parse("7 11\n2 2 2\n1 4\n\n2 1 0 0 4 AND\n2 1 1 2 5 AND\n1 1 5 6 INV\n1 1 1 7 EQ\n2 1 7 3 8 AND\n2 1 6 4 9 XOR\n1 1 0 10 EQW\n"
                          "",
                          "t");
  for (const auto h : {GarblingHash::aes, GarblingHash::chacha20})
    for (std::uint64_t v = 0; v < 16; ++v) {
      std::vector<std::uint8_t> in(4);
      for (int i = 0; i < 4; ++i) in[i] = (v >> i) & 1;
      const auto gc = half_gates::garble(c, rng, h);
      std::vector<Block> lab(4);
      for (int i = 0; i < 4; ++i) lab[i] = gc.zero_labels[i] ^ gc.delta.times(in[i]);
      CHECK(half_gates::evaluate(c, half_gates::encode_public(gc), lab, h) == evaluate(c, in));
    }
}
