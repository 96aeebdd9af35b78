// GF(2^128) = GF(2)[x] / (x^128 + x^7 + x^2 + x + 1) on Blocks (bit i of the 128-bit integer hi:lo
// is the coefficient of x^i), and Shamir sharing over it at the points 1, 2, ..., n (the
// polynomials with the bits of j + 1). Bit-serial and branch-free: V3 multiplies a few hundred
// elements per party, far from the cost of garbling.
#pragma once

#include <span>
#include <vector>

#include "circuit/garble.hpp"

namespace shufflempc::circuit::gf128 {

[[nodiscard]] inline Block mul(Block a, const Block& b) {
  Block r{};
  for (int i = 0; i < 128; ++i) {
    const auto bit = static_cast<std::uint8_t>(((i < 64 ? b.lo >> i : b.hi >> (i - 64))) & 1);
    r ^= a.times(bit);
    const std::uint64_t carry = a.hi >> 63;
    a.hi = (a.hi << 1) | (a.lo >> 63);
    a.lo = (a.lo << 1) ^ (0x87 & (0 - carry));
  }
  return r;
}

// a^(2^128 - 2) = a^-1 for a != 0 (0 for 0).
[[nodiscard]] inline Block inverse(const Block& a) {
  Block result{1, 0};
  Block power = a;  // a^(2^i)
  for (int i = 1; i < 128; ++i) {
    power = mul(power, power);
    result = mul(result, power);
  }
  return result;
}

[[nodiscard]] inline Block point(std::uint32_t party) { return {std::uint64_t{party} + 1, 0}; }

// Shares of `secret` on a random polynomial of degree `t`, one per party 0..n-1.
[[nodiscard]] inline std::vector<Block> share(const Block& secret, std::size_t t, std::size_t n, Rng& rng) {
  std::vector<Block> coef(t + 1);
  coef[0] = secret;
  for (std::size_t i = 1; i <= t; ++i) coef[i] = Block::random(rng);
  std::vector<Block> out(n);
  for (std::uint32_t j = 0; j < n; ++j) {
    const Block x = point(j);
    Block y{};
    for (std::size_t i = t + 1; i-- > 0;) y = mul(y, x) ^ coef[i];  // Horner
    out[j] = y;
  }
  return out;
}

// Lagrange coefficients at 0 for the points of `parties` (in characteristic 2, minus is plus).
[[nodiscard]] inline std::vector<Block> lagrange_at_zero(std::span<const std::uint32_t> parties) {
  std::vector<Block> l(parties.size());
  for (std::size_t i = 0; i < parties.size(); ++i) {
    Block num{1, 0}, den{1, 0};
    for (std::size_t k = 0; k < parties.size(); ++k) {
      if (k == i) continue;
      num = mul(num, point(parties[k]));
      den = mul(den, point(parties[k]) ^ point(parties[i]));
    }
    l[i] = mul(num, inverse(den));
  }
  return l;
}

}  // namespace shufflempc::circuit::gf128
