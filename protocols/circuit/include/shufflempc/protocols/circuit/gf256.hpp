// GF(2^8) = GF(2)[x] / (x^8 + x^4 + x^3 + x + 1) on bytes (bit i is the coefficient of x^i), as a
// field that shamir.hpp shares over at the points 1, 2, ..., n (the bytes j + 1, so n <= 255). The
// many-round variant of the circuit protocol shares one bit per byte: an AND gate costs each party
// one byte to each peer per layer. Multiplication by log and antilog tables of the generator x + 1.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "shufflempc/random.hpp"

namespace shufflempc::circuit::gf256 {

// The product by shift and reduce, for building the tables (and checking them in the tests).
[[nodiscard]] constexpr std::uint8_t mul_slow(std::uint8_t a, std::uint8_t b) {
  std::uint8_t r = 0;
  for (int i = 0; i < 8; ++i) {
    if ((b >> i) & 1) r ^= a;
    const bool carry = (a & 0x80) != 0;
    a = static_cast<std::uint8_t>(a << 1);
    if (carry) a ^= 0x1b;
  }
  return r;
}

struct Tables {
  std::array<std::uint8_t, 512> exp{};  // exp[i] = g^i, doubled so exp[log a + log b] needs no reduction
  std::array<std::uint8_t, 256> log{};  // log[g^i] = i; log[0] unused
};
[[nodiscard]] constexpr Tables make_tables() {
  Tables t;
  std::uint8_t x = 1;
  for (int i = 0; i < 255; ++i) {
    t.exp[i] = x;
    t.exp[i + 255] = x;
    t.log[x] = static_cast<std::uint8_t>(i);
    x = mul_slow(x, 3);  // 3 = x + 1 generates the multiplicative group
  }
  t.exp[510] = t.exp[0];
  t.exp[511] = t.exp[1];
  return t;
}
inline constexpr Tables tables = make_tables();

[[nodiscard]] inline std::uint8_t mul(std::uint8_t a, std::uint8_t b) {
  if (a == 0 || b == 0) return 0;
  return tables.exp[tables.log[a] + tables.log[b]];
}

struct Field {
  using element = std::uint8_t;
  [[nodiscard]] std::uint8_t add(std::uint8_t a, std::uint8_t b) const { return a ^ b; }
  [[nodiscard]] std::uint8_t sub(std::uint8_t a, std::uint8_t b) const { return a ^ b; }
  [[nodiscard]] std::uint8_t mul(std::uint8_t a, std::uint8_t b) const { return gf256::mul(a, b); }
  [[nodiscard]] std::uint8_t inverse(std::uint8_t a) const {
    if (a == 0) throw std::invalid_argument("gf256: 0 has no inverse");
    return tables.exp[255 - tables.log[a]];
  }
  // The byte k names (k <= 255: party points 1..255).
  [[nodiscard]] std::uint8_t reduce(std::uint64_t k) const {
    if (k > 255) throw std::invalid_argument("gf256: the point " + std::to_string(k) + " is not a byte (at most 254 parties)");
    return static_cast<std::uint8_t>(k);
  }
  [[nodiscard]] std::uint8_t uniform(Rng& rng) const { return static_cast<std::uint8_t>(rng.uniform(256)); }
};

}  // namespace shufflempc::circuit::gf256
