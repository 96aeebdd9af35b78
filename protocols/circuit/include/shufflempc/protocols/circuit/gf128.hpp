// GF(2^128) = GF(2)[x] / (x^128 + x^7 + x^2 + x + 1) on Blocks (bit i of the 128-bit integer hi:lo
// is the coefficient of x^i), as a field that shamir.hpp shares over at the points 1, 2, ..., n (the
// polynomials with the bits of j + 1). The product is a carry-less multiplication (PCLMULQDQ, where
// the processor has it) folded twice by x^128 = x^7 + x^2 + x + 1; elsewhere bit-serial and
// branch-free. V3 multiplies a few thousand elements per AES-128.
#pragma once

#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "shufflempc/protocols/circuit/garble.hpp"

namespace shufflempc::circuit::gf128 {

// The product bit by bit: the reference, and the fallback.
[[nodiscard]] inline Block mul_serial(Block a, const Block& b) {
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

#if defined(__x86_64__)
// The product by carry-less multiplication: three 64 x 64 products (and a fourth for the middle),
// then the 256-bit result folded by 0x87 = x^7 + x^2 + x + 1 twice, high word first.
[[nodiscard]] __attribute__((target("pclmul,sse2"))) inline Block mul_clmul(const Block& a, const Block& b) {
  const auto word = [](__m128i v, int high) {
    return static_cast<std::uint64_t>(_mm_cvtsi128_si64(high ? _mm_unpackhi_epi64(v, v) : v));
  };
  const __m128i x = _mm_set_epi64x(static_cast<long long>(a.hi), static_cast<long long>(a.lo));
  const __m128i y = _mm_set_epi64x(static_cast<long long>(b.hi), static_cast<long long>(b.lo));
  const __m128i low = _mm_clmulepi64_si128(x, y, 0x00);   // a.lo b.lo
  const __m128i high = _mm_clmulepi64_si128(x, y, 0x11);  // a.hi b.hi
  const __m128i mid = _mm_xor_si128(_mm_clmulepi64_si128(x, y, 0x01), _mm_clmulepi64_si128(x, y, 0x10));
  std::uint64_t p0 = word(low, 0), p1 = word(low, 1) ^ word(mid, 0), p2 = word(high, 0) ^ word(mid, 1), p3 = word(high, 1);
  const __m128i poly = _mm_set_epi64x(0, 0x87);
  __m128i t = _mm_clmulepi64_si128(_mm_set_epi64x(0, static_cast<long long>(p3)), poly, 0x00);  // x^192 p3 -> x^64 p3 0x87
  p1 ^= word(t, 0);
  p2 ^= word(t, 1);
  t = _mm_clmulepi64_si128(_mm_set_epi64x(0, static_cast<long long>(p2)), poly, 0x00);  // x^128 p2 -> p2 0x87
  p0 ^= word(t, 0);
  p1 ^= word(t, 1);
  return {p0, p1};
}
#endif

[[nodiscard]] inline Block mul(const Block& a, const Block& b) {
#if defined(__x86_64__)
  // libsodium's own detection (ensure_sodium runs its sodium_init first): __builtin_cpu_supports
  // would link libgcc's CPU-model constructor, a dozen CPUID instructions at every process start,
  // each a trap to the hypervisor on a virtual machine.
  static const bool clmul = (ensure_sodium(), sodium_runtime_has_pclmul() != 0);
  if (clmul) return mul_clmul(a, b);
#endif
  return mul_serial(a, b);
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
