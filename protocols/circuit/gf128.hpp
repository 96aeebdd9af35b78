// GF(2^128) = GF(2)[x] / (x^128 + x^7 + x^2 + x + 1) on Blocks (bit i of the 128-bit integer hi:lo
// is the coefficient of x^i), as a field that shamir.hpp shares over at the points 1, 2, ..., n (the
// polynomials with the bits of j + 1). Bit-serial and branch-free: V3 multiplies a few hundred
// elements per party, far from the cost of garbling.
#pragma once

#include <cstdint>

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

// GF(2^128) as a field for shamir.hpp: the integer k names the polynomial with the bits of k, so
// party j's point is j + 1 as the spec of V3 states; minus is plus.
struct Field {
  using element = Block;
  [[nodiscard]] Block add(const Block& a, const Block& b) const { return a ^ b; }
  [[nodiscard]] Block sub(const Block& a, const Block& b) const { return a ^ b; }
  [[nodiscard]] Block mul(const Block& a, const Block& b) const { return gf128::mul(a, b); }
  [[nodiscard]] Block inverse(const Block& a) const { return gf128::inverse(a); }
  [[nodiscard]] Block reduce(std::uint64_t k) const { return {k, 0}; }
  [[nodiscard]] Block uniform(Rng& rng) const { return Block::random(rng); }
};

}  // namespace shufflempc::circuit::gf128
