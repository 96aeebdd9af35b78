#include "shufflempc/field25519.hpp"

#include <vector>

#include "shufflempc/little_endian.hpp"

namespace shufflempc::field25519 {
namespace {

// The fully reduced limbs (below 2^51 each, the value below p).
Fe canonical(const Fe& a) {
  Fe r = carry(carry(a));  // limbs below 2^51, v[0] below 2^51 + 19·2
  r = carry(r);
  // q = 1 if r >= p: r + 19 carries out of bit 255 exactly then.
  std::uint64_t q = (r.v[0] + 19) >> 51;
  for (std::size_t i = 1; i < 5; ++i) q = (r.v[i] + q) >> 51;
  r.v[0] += 19 * q;
  (void)detail::propagate(r);  // the carry out of bit 255 dropped: r - p when q = 1
  return r;
}

// z^(2^250 - 1), and z^11 on the side: the common prefix of invert and pow22523.
Fe pow_2_250_minus_1(const Fe& z, Fe& z11) {
  const Fe z2 = sq(z);
  const Fe z9 = mul(sq_n(z2, 2), z);
  z11 = mul(z9, z2);
  const Fe z_5_0 = mul(sq(z11), z9);                // 2^5 - 1
  const Fe z_10_0 = mul(sq_n(z_5_0, 5), z_5_0);     // 2^10 - 1
  const Fe z_20_0 = mul(sq_n(z_10_0, 10), z_10_0);  // 2^20 - 1
  const Fe z_40_0 = mul(sq_n(z_20_0, 20), z_20_0);  // 2^40 - 1
  const Fe z_50_0 = mul(sq_n(z_40_0, 10), z_10_0);  // 2^50 - 1
  const Fe z_100_0 = mul(sq_n(z_50_0, 50), z_50_0);
  const Fe z_200_0 = mul(sq_n(z_100_0, 100), z_100_0);
  return mul(sq_n(z_200_0, 50), z_50_0);  // 2^250 - 1
}

Fe make_sqrt_m1() {
  // 2 is not a square mod p, so 2^((p - 1)/4) squares to -1; (p - 1)/4 = 2^253 - 5 = 8·(2^250 - 1) + 3.
  const Fe two = from_u64(2);
  Fe unused;
  const Fe root = mul(sq_n(pow_2_250_minus_1(two, unused), 3), mul(sq(two), two));
  Fe r = root;
  cmov(r, neg(root), is_negative(root));
  return r;
}

}  // namespace

Fe from_bytes(const std::uint8_t* in) {
  const std::uint64_t w0 = load_le<std::uint64_t>(in), w1 = load_le<std::uint64_t>(in + 8), w2 = load_le<std::uint64_t>(in + 16),
                      w3 = load_le<std::uint64_t>(in + 24);
  Fe r;
  r.v[0] = w0 & limb_mask;
  r.v[1] = ((w0 >> 51) | (w1 << 13)) & limb_mask;
  r.v[2] = ((w1 >> 38) | (w2 << 26)) & limb_mask;
  r.v[3] = ((w2 >> 25) | (w3 << 39)) & limb_mask;
  r.v[4] = (w3 >> 12) & limb_mask;
  return r;
}

void to_bytes(const Fe& a, std::uint8_t* out) {
  const Fe c = canonical(a);
  store_le<std::uint64_t>(out, c.v[0] | (c.v[1] << 51));
  store_le<std::uint64_t>(out + 8, (c.v[1] >> 13) | (c.v[2] << 38));
  store_le<std::uint64_t>(out + 16, (c.v[2] >> 26) | (c.v[3] << 25));
  store_le<std::uint64_t>(out + 24, (c.v[3] >> 39) | (c.v[4] << 12));
}

std::array<std::uint8_t, 32> to_bytes(const Fe& a) {
  std::array<std::uint8_t, 32> out;
  to_bytes(a, out.data());
  return out;
}

Fe invert(const Fe& a) {
  Fe z11;
  const Fe t = pow_2_250_minus_1(a, z11);
  return mul(sq_n(t, 5), z11);  // 2^255 - 32 + 11 = p - 2
}

void batch_invert(std::span<Fe> values) {
  const std::size_t n = values.size();
  if (n == 0) return;
  std::vector<Fe> prefix(n);  // prefix[i] = values[0] ··· values[i]
  prefix[0] = values[0];
  for (std::size_t i = 1; i < n; ++i) prefix[i] = mul(prefix[i - 1], values[i]);
  Fe inv = invert(prefix[n - 1]);  // 1 / the product of them all
  for (std::size_t i = n; i-- > 0;) {
    const Fe value = values[i];
    values[i] = i == 0 ? inv : mul(inv, prefix[i - 1]);
    inv = mul(inv, value);  // now 1 / the product of the first i
  }
}

Fe pow22523(const Fe& a) {
  Fe z11;
  const Fe t = pow_2_250_minus_1(a, z11);
  return mul(sq_n(t, 2), a);  // 2^252 - 4 + 1 = (p - 5)/8
}

std::uint64_t is_zero(const Fe& a) {
  const Fe c = canonical(a);
  const std::uint64_t any = c.v[0] | c.v[1] | c.v[2] | c.v[3] | c.v[4];
  return 1 ^ ((any | (0 - any)) >> 63);
}

std::uint64_t is_negative(const Fe& a) { return canonical(a).v[0] & 1; }

std::uint64_t equal(const Fe& a, const Fe& b) { return is_zero(sub(a, b)); }

Fe abs(const Fe& a) {
  Fe r = a;
  cmov(r, neg(a), is_negative(a));
  return r;
}

const Fe& sqrt_m1() {
  static const Fe root = make_sqrt_m1();
  return root;
}

SqrtRatio sqrt_ratio_m1(const Fe& u, const Fe& v) {
  const Fe v3 = mul(sq(v), v);
  const Fe v7 = mul(sq(v3), v);
  Fe r = mul(mul(u, v3), pow22523(mul(u, v7)));
  const Fe check = mul(v, sq(r));
  const Fe u_neg = neg(u);
  const std::uint64_t correct = equal(check, u), flipped = equal(check, u_neg), flipped_i = equal(check, mul(u_neg, sqrt_m1()));
  cmov(r, mul(sqrt_m1(), r), flipped | flipped_i);
  return {correct | flipped, abs(r)};
}

}  // namespace shufflempc::field25519
