// GF(2^255 - 19), the field of Curve25519 and ristretto255, in five 51-bit limbs.
//
// libsodium computes in this field behind its public API, which takes and returns encoded points
// only; the verifiable mix's multi-scalar multiplications (mixnet/) and the seal's batched
// ephemeral keys (net/) need the field itself. Every routine here is branch-free and free of
// secret-dependent memory access (inversion and square roots by fixed addition chains, selection
// by masks), so it may carry secrets. Checked against libsodium on random inputs
// (tests/lib/test_field25519.cpp and, through the curve built on it, tests/mixnet/test_edwards.cpp).
//
// Bounds: every function returns limbs below 2^52 and accepts limbs below 2^54.
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace shufflempc::field25519 {

struct Fe {
  std::array<std::uint64_t, 5> v{};
};

inline constexpr std::uint64_t limb_mask = (std::uint64_t{1} << 51) - 1;

[[nodiscard]] constexpr Fe from_u64(std::uint64_t x) { return Fe{{x & limb_mask, x >> 51, 0, 0, 0}}; }
[[nodiscard]] constexpr Fe zero() { return Fe{}; }
[[nodiscard]] constexpr Fe one() { return from_u64(1); }

namespace detail {
// One pass of carries from limb 0 up; returns the carry out of limb 4.
inline std::uint64_t propagate(Fe& r) {
  std::uint64_t c = r.v[0] >> 51;
  r.v[0] &= limb_mask;
  for (std::size_t i = 1; i < 5; ++i) {
    r.v[i] += c;
    c = r.v[i] >> 51;
    r.v[i] &= limb_mask;
  }
  return c;
}
}  // namespace detail

// One pass of carries, the top carry folded back times 19: limbs below 2^51 + 2^13·19.
[[nodiscard]] inline Fe carry(const Fe& a) {
  Fe r = a;
  r.v[0] += 19 * detail::propagate(r);
  return r;
}

[[nodiscard]] inline Fe add(const Fe& a, const Fe& b) {
  Fe r;
  for (std::size_t i = 0; i < 5; ++i) r.v[i] = a.v[i] + b.v[i];
  return carry(r);
}

// a - b + 4p, limb by limb (4p's limbs exceed any input limb below 2^53): never negative.
[[nodiscard]] inline Fe sub(const Fe& a, const Fe& b) {
  constexpr std::uint64_t low = 0x1fffffffffffb4ULL, high = 0x1ffffffffffffcULL;  // 4(2^51 - 19), 4(2^51 - 1)
  Fe r;
  r.v[0] = a.v[0] + low - b.v[0];
  for (std::size_t i = 1; i < 5; ++i) r.v[i] = a.v[i] + high - b.v[i];
  return carry(r);
}

[[nodiscard]] inline Fe neg(const Fe& a) { return sub(zero(), a); }

namespace detail {
using u128 = unsigned __int128;
inline Fe reduce_wide(u128 t0, u128 t1, u128 t2, u128 t3, u128 t4) {
  Fe r;
  t1 += static_cast<std::uint64_t>(t0 >> 51);
  r.v[0] = static_cast<std::uint64_t>(t0) & limb_mask;
  t2 += static_cast<std::uint64_t>(t1 >> 51);
  r.v[1] = static_cast<std::uint64_t>(t1) & limb_mask;
  t3 += static_cast<std::uint64_t>(t2 >> 51);
  r.v[2] = static_cast<std::uint64_t>(t2) & limb_mask;
  t4 += static_cast<std::uint64_t>(t3 >> 51);
  r.v[3] = static_cast<std::uint64_t>(t3) & limb_mask;
  const std::uint64_t c = static_cast<std::uint64_t>(t4 >> 51);
  r.v[4] = static_cast<std::uint64_t>(t4) & limb_mask;
  r.v[0] += 19 * c;
  r.v[1] += r.v[0] >> 51;
  r.v[0] &= limb_mask;
  return r;
}
}  // namespace detail

[[nodiscard]] inline Fe mul(const Fe& a, const Fe& b) {
  using detail::u128;
  const auto& x = a.v;
  const auto& y = b.v;
  const std::uint64_t y1 = 19 * y[1], y2 = 19 * y[2], y3 = 19 * y[3], y4 = 19 * y[4];
  const u128 t0 = u128{x[0]} * y[0] + u128{x[1]} * y4 + u128{x[2]} * y3 + u128{x[3]} * y2 + u128{x[4]} * y1;
  const u128 t1 = u128{x[0]} * y[1] + u128{x[1]} * y[0] + u128{x[2]} * y4 + u128{x[3]} * y3 + u128{x[4]} * y2;
  const u128 t2 = u128{x[0]} * y[2] + u128{x[1]} * y[1] + u128{x[2]} * y[0] + u128{x[3]} * y4 + u128{x[4]} * y3;
  const u128 t3 = u128{x[0]} * y[3] + u128{x[1]} * y[2] + u128{x[2]} * y[1] + u128{x[3]} * y[0] + u128{x[4]} * y4;
  const u128 t4 = u128{x[0]} * y[4] + u128{x[1]} * y[3] + u128{x[2]} * y[2] + u128{x[3]} * y[1] + u128{x[4]} * y[0];
  return detail::reduce_wide(t0, t1, t2, t3, t4);
}

[[nodiscard]] inline Fe sq(const Fe& a) {
  using detail::u128;
  const auto& x = a.v;
  const std::uint64_t d0 = 2 * x[0], d1 = 2 * x[1], x3_19 = 19 * x[3], x4_19 = 19 * x[4];
  const u128 t0 = u128{x[0]} * x[0] + u128{d1} * x4_19 + u128{2 * x[2]} * x3_19;
  const u128 t1 = u128{d0} * x[1] + u128{2 * x[2]} * x4_19 + u128{x[3]} * x3_19;
  const u128 t2 = u128{d0} * x[2] + u128{x[1]} * x[1] + u128{2 * x[3]} * x4_19;
  const u128 t3 = u128{d0} * x[3] + u128{d1} * x[2] + u128{x[4]} * x4_19;
  const u128 t4 = u128{d0} * x[4] + u128{d1} * x[3] + u128{x[2]} * x[2];
  return detail::reduce_wide(t0, t1, t2, t3, t4);
}

// a squared n times.
[[nodiscard]] inline Fe sq_n(Fe a, unsigned n) {
  for (unsigned i = 0; i < n; ++i) a = sq(a);
  return a;
}

// r = a if flag, else r unchanged (flag 0 or 1; no branch on it).
inline void cmov(Fe& r, const Fe& a, std::uint64_t flag) {
  const std::uint64_t mask = 0 - flag;
  for (std::size_t i = 0; i < 5; ++i) r.v[i] ^= mask & (r.v[i] ^ a.v[i]);
}

// The 32-byte little-endian encoding read (bit 255 ignored), and the canonical encoding written.
[[nodiscard]] Fe from_bytes(const std::uint8_t* in);
void to_bytes(const Fe& a, std::uint8_t* out);
[[nodiscard]] std::array<std::uint8_t, 32> to_bytes(const Fe& a);

// 1/a (0 for a = 0), a^((p - 5)/8), and their shared chain's prefix.
[[nodiscard]] Fe invert(const Fe& a);
[[nodiscard]] Fe pow22523(const Fe& a);
// Every element of `values` (none of them 0) replaced by its inverse, with one inversion and three
// multiplications an element (Montgomery's trick).
void batch_invert(std::span<Fe> values);

// Of the canonical value: is it zero; is it "negative" (odd, as ristretto255 and Ed25519 say).
[[nodiscard]] std::uint64_t is_zero(const Fe& a);
[[nodiscard]] std::uint64_t is_negative(const Fe& a);
[[nodiscard]] std::uint64_t equal(const Fe& a, const Fe& b);
// |a|: a or -a, whichever is not negative.
[[nodiscard]] Fe abs(const Fe& a);

// sqrt(-1), the non-negative root.
[[nodiscard]] const Fe& sqrt_m1();

// SQRT_RATIO_M1 of RFC 9496 (section 4.2): was_square is 1 and r = sqrt(u/v) non-negative if u/v
// is a square; else was_square is 0 and r = sqrt(i·u/v) non-negative (0 for u = 0 or v = 0).
struct SqrtRatio {
  std::uint64_t was_square;
  Fe r;
};
[[nodiscard]] SqrtRatio sqrt_ratio_m1(const Fe& u, const Fe& v);

}  // namespace shufflempc::field25519
