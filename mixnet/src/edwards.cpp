#include "shufflempc/mixnet/detail/edwards.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "shufflempc/little_endian.hpp"
#include "shufflempc/parallel.hpp"

namespace shufflempc::mixnet::edwards {
namespace f = field25519;

namespace {

struct Constants {
  Fe d, d2, invsqrt_a_minus_d, one_minus_d_sq, d_minus_one_sq, sqrt_ad_minus_one;
};

const Constants& constants() {
  static const Constants c = [] {
    Constants k;
    k.d = f::neg(f::mul(f::from_u64(121665), f::invert(f::from_u64(121666))));  // -121665/121666
    k.d2 = f::add(k.d, k.d);
    k.invsqrt_a_minus_d = f::sqrt_ratio_m1(f::one(), f::sub(f::neg(f::one()), k.d)).r;  // 1/sqrt(-1 - d), non-negative
    k.one_minus_d_sq = f::sub(f::one(), f::sq(k.d));
    k.d_minus_one_sq = f::sq(f::sub(k.d, f::one()));
    // sqrt(a·d - 1) = sqrt(-d - 1): RFC 9496 takes the negative (odd) root.
    k.sqrt_ad_minus_one = f::neg(f::sqrt_ratio_m1(f::sub(f::neg(k.d), f::one()), f::one()).r);
    return k;
  }();
  return c;
}

void cmov(Niels& r, const Niels& a, std::uint64_t flag) {
  f::cmov(r.ypx, a.ypx, flag);
  f::cmov(r.ymx, a.ymx, flag);
  f::cmov(r.xy2d, a.xy2d, flag);
}

void cmov(Cached& r, const Cached& a, std::uint64_t flag) {
  f::cmov(r.ypx, a.ypx, flag);
  f::cmov(r.ymx, a.ymx, flag);
  f::cmov(r.z2, a.z2, flag);
  f::cmov(r.t2d, a.t2d, flag);
}

std::uint64_t equal_small(std::uint64_t a, std::uint64_t b) { return ((a ^ b) - 1) >> 63; }

// The 64 signed radix-16 digits of a scalar below 2^253, each in [-8, 8], by arithmetic alone.
std::array<std::int8_t, 64> radix16(const Scalar& s) {
  std::array<std::int8_t, 64> e;
  for (std::size_t i = 0; i < 32; ++i) {
    e[2 * i] = static_cast<std::int8_t>(s.bytes[i] & 15);
    e[2 * i + 1] = static_cast<std::int8_t>(s.bytes[i] >> 4);
  }
  std::int8_t carry = 0;
  for (std::size_t i = 0; i < 63; ++i) {
    e[i] = static_cast<std::int8_t>(e[i] + carry);
    carry = static_cast<std::int8_t>((e[i] + 8) >> 4);
    e[i] = static_cast<std::int8_t>(e[i] - carry * 16);
  }
  e[63] = static_cast<std::int8_t>(e[63] + carry);
  return e;
}

// The entry |digit| of a row of multiples 1..8 (the identity for 0), negated if the digit is:
// every entry is read whatever the digit.
template <class Entry>
Entry select(const Entry* row, const Entry& identity_entry, std::int8_t digit) {
  const auto u = static_cast<std::uint64_t>(static_cast<std::int64_t>(digit));
  const std::uint64_t negative = u >> 63;
  const std::uint64_t magnitude = (u ^ (0 - negative)) + negative;
  Entry t = identity_entry;
  for (std::uint64_t j = 1; j <= 8; ++j) cmov(t, row[j - 1], equal_small(magnitude, j));
  Entry minus = t;
  std::swap(minus.ypx, minus.ymx);
  if constexpr (std::is_same_v<Entry, Niels>) {
    minus.xy2d = f::neg(t.xy2d);
  } else {
    minus.t2d = f::neg(t.t2d);
  }
  cmov(t, minus, negative);
  return t;
}

const Niels& niels_identity() {
  static const Niels n{f::one(), f::one(), f::zero()};
  return n;
}

const Cached& cached_identity() {
  static const Cached c{f::one(), f::one(), f::from_u64(2), f::zero()};
  return c;
}

// Bits [at, at + width) of a scalar (width at most 32).
std::uint64_t bits(const std::array<std::uint64_t, 4>& w, unsigned at, unsigned width) {
  const unsigned limb = at / 64, shift = at % 64;
  if (limb >= 4) return 0;
  std::uint64_t v = w[limb] >> shift;
  if (shift + width > 64 && limb + 1 < 4) v |= w[limb + 1] << (64 - shift);
  return v & ((std::uint64_t{1} << width) - 1);
}

// RFC 9496's MAP (Elligator 2 for ristretto255) of one field element.
Ext elligator(const Fe& t) {
  const Constants& k = constants();
  const Fe r = f::mul(f::sqrt_m1(), f::sq(t));
  const Fe u = f::mul(f::add(r, f::one()), k.one_minus_d_sq);
  const Fe v = f::mul(f::sub(f::neg(f::one()), f::mul(r, k.d)), f::add(r, k.d));
  auto [was_square, s] = f::sqrt_ratio_m1(u, v);
  const Fe s_prime = f::neg(f::abs(f::mul(s, t)));
  f::cmov(s, s_prime, 1 ^ was_square);
  Fe c = r;
  f::cmov(c, f::neg(f::one()), was_square);
  const Fe big_n = f::sub(f::mul(f::mul(c, f::sub(r, f::one())), k.d_minus_one_sq), v);
  const Fe w0 = f::mul(f::add(s, s), v), w1 = f::mul(big_n, k.sqrt_ad_minus_one);
  const Fe ss = f::sq(s);
  const Fe w2 = f::sub(f::one(), ss), w3 = f::add(f::one(), ss);
  return {f::mul(w0, w3), f::mul(w2, w1), f::mul(w1, w3), f::mul(w0, w2)};
}

}  // namespace

Ext from_hash(std::span<const std::uint8_t, 64> hash) {
  return add(elligator(f::from_bytes(hash.data())), to_cached(elligator(f::from_bytes(hash.data() + 32))));
}

Ext identity() { return {f::zero(), f::one(), f::one(), f::zero()}; }

Ext add(const Ext& p, const Cached& q) {
  const Fe a = f::mul(f::sub(p.Y, p.X), q.ymx), b = f::mul(f::add(p.Y, p.X), q.ypx);
  const Fe c = f::mul(p.T, q.t2d), d = f::mul(p.Z, q.z2);
  const Fe e = f::sub(b, a), ff = f::sub(d, c), g = f::add(d, c), h = f::add(b, a);
  return {f::mul(e, ff), f::mul(g, h), f::mul(ff, g), f::mul(e, h)};
}

Ext add(const Ext& p, const Niels& q) {
  const Fe a = f::mul(f::sub(p.Y, p.X), q.ymx), b = f::mul(f::add(p.Y, p.X), q.ypx);
  const Fe c = f::mul(p.T, q.xy2d), d = f::add(p.Z, p.Z);
  const Fe e = f::sub(b, a), ff = f::sub(d, c), g = f::add(d, c), h = f::add(b, a);
  return {f::mul(e, ff), f::mul(g, h), f::mul(ff, g), f::mul(e, h)};
}

Ext dbl(const Ext& p) {
  const Fe a = f::sq(p.X), b = f::sq(p.Y), zz = f::sq(p.Z);
  const Fe c = f::add(zz, zz);
  const Fe h = f::add(a, b), e = f::sub(h, f::sq(f::add(p.X, p.Y))), g = f::sub(a, b), ff = f::add(c, g);
  return {f::mul(e, ff), f::mul(g, h), f::mul(ff, g), f::mul(e, h)};
}

Cached to_cached(const Ext& p) { return {f::add(p.Y, p.X), f::sub(p.Y, p.X), f::add(p.Z, p.Z), f::mul(p.T, constants().d2)}; }

Niels negate(const Niels& q) { return {q.ymx, q.ypx, f::neg(q.xy2d)}; }

std::vector<Niels> to_niels(std::span<const Ext> points) {
  const std::size_t n = points.size();
  std::vector<Niels> out(n);
  std::vector<Fe> z_inv(n);
  for (std::size_t i = 0; i < n; ++i) z_inv[i] = points[i].Z;
  f::batch_invert(z_inv);
  for (std::size_t i = 0; i < n; ++i) {
    const Fe x = f::mul(points[i].X, z_inv[i]), y = f::mul(points[i].Y, z_inv[i]);
    out[i] = {f::add(y, x), f::sub(y, x), f::mul(f::mul(x, y), constants().d2)};
  }
  return out;
}

Ext from_niels(const Niels& q) {
  // y = (ypx + ymx)/2, x = (ypx - ymx)/2: scale by 2 instead (Z = 2).
  const Fe x2 = f::sub(q.ypx, q.ymx), y2 = f::add(q.ypx, q.ymx);
  return {f::add(x2, x2), f::add(y2, y2), f::from_u64(4), f::mul(x2, y2)};
}

bool decode(const Point& in, Ext& out) {
  const Fe s = f::from_bytes(in.bytes.data());
  if (f::to_bytes(s) != in.bytes || f::is_negative(s)) return false;
  const Fe ss = f::sq(s);
  const Fe u1 = f::sub(f::one(), ss), u2 = f::add(f::one(), ss);
  const Fe u2_sq = f::sq(u2);
  const Fe v = f::sub(f::neg(f::mul(constants().d, f::sq(u1))), u2_sq);
  const auto [was_square, invsqrt] = f::sqrt_ratio_m1(f::one(), f::mul(v, u2_sq));
  const Fe den_x = f::mul(invsqrt, u2);
  const Fe den_y = f::mul(f::mul(invsqrt, den_x), v);
  const Fe x = f::abs(f::mul(f::add(s, s), den_x));
  const Fe y = f::mul(u1, den_y);
  const Fe t = f::mul(x, y);
  if (was_square == 0 || f::is_negative(t) != 0 || f::is_zero(y) != 0) return false;
  out = {x, y, f::one(), t};
  return true;
}

bool decode(const Point& in, Niels& out) {
  Ext p;
  if (!decode(in, p)) return false;
  out = {f::add(p.Y, p.X), f::sub(p.Y, p.X), f::mul(p.T, constants().d2)};  // Z = 1
  return true;
}

Point encode(const Ext& p) {
  const Fe u1 = f::mul(f::add(p.Z, p.Y), f::sub(p.Z, p.Y));
  const Fe u2 = f::mul(p.X, p.Y);
  const Fe invsqrt = f::sqrt_ratio_m1(f::one(), f::mul(u1, f::sq(u2))).r;
  const Fe den1 = f::mul(invsqrt, u1), den2 = f::mul(invsqrt, u2);
  const Fe z_inv = f::mul(f::mul(den1, den2), p.T);
  const Fe ix = f::mul(p.X, f::sqrt_m1()), iy = f::mul(p.Y, f::sqrt_m1());
  const Fe enchanted = f::mul(den1, constants().invsqrt_a_minus_d);
  const std::uint64_t rotate = f::is_negative(f::mul(p.T, z_inv));
  Fe x = p.X, y = p.Y, den_inv = den2;
  f::cmov(x, iy, rotate);
  f::cmov(y, ix, rotate);
  f::cmov(den_inv, enchanted, rotate);
  f::cmov(y, f::neg(y), f::is_negative(f::mul(x, z_inv)));
  Point out;
  f::to_bytes(f::abs(f::mul(den_inv, f::sub(p.Z, y))), out.bytes.data());
  return out;
}

bool is_identity(const Ext& p) { return (f::is_zero(p.X) | f::is_zero(p.Y)) != 0; }

const Ext& base() {
  static const Ext g = [] {
    Ext p;
    if (!decode(base_point(), p)) throw std::logic_error("ristretto255: the generator does not decode");
    return p;
  }();
  return g;
}

Ext msm_public(std::span<const Scalar> scalars, std::span<const Niels> points, unsigned threads) {
  if (scalars.size() != points.size()) throw std::invalid_argument("msm: as many scalars as points");
  const std::size_t n = scalars.size();
  if (n == 0) return identity();
  // Windows of c bits, signed digits in [-2^(c-1), 2^(c-1)]: per window n additions into 2^(c-1)
  // buckets and 2^c to sum them. c near log2(n) - 2 balances the two; scalars below 2^253 leave
  // the top window room for the last carry.
  const unsigned c = std::clamp<unsigned>(std::bit_width(n) > 3 ? static_cast<unsigned>(std::bit_width(n)) - 3 : 1, 4, 15);
  const unsigned windows = 253 / c + 1;
  std::vector<std::int16_t> digits(n * windows);
  parallel_for(n, threads, [&](std::size_t i) {
    std::array<std::uint64_t, 4> w;
    for (std::size_t k = 0; k < 4; ++k) w[k] = load_le<std::uint64_t>(scalars[i].bytes.data() + 8 * k);
    std::int64_t carry = 0;
    for (unsigned k = 0; k < windows; ++k) {
      std::int64_t v = static_cast<std::int64_t>(bits(w, k * c, c)) + carry;
      carry = v > (std::int64_t{1} << (c - 1)) ? 1 : 0;
      v -= carry << c;
      digits[i * windows + k] = static_cast<std::int16_t>(v);
    }
  });
  std::vector<Ext> sums(windows);
  parallel_for(windows, threads, [&](std::size_t k) {
    std::vector<Ext> bucket(std::size_t{1} << (c - 1), identity());
    for (std::size_t i = 0; i < n; ++i) {
      const int d = digits[i * windows + k];
      if (d > 0) bucket[static_cast<std::size_t>(d - 1)] = add(bucket[static_cast<std::size_t>(d - 1)], points[i]);
      else if (d < 0) bucket[static_cast<std::size_t>(-d - 1)] = add(bucket[static_cast<std::size_t>(-d - 1)], negate(points[i]));
    }
    // Σ j·bucket[j - 1] as running sums from the top.
    Ext running = identity(), total = identity();
    for (std::size_t j = bucket.size(); j-- > 0;) {
      running = add(running, to_cached(bucket[j]));
      total = add(total, to_cached(running));
    }
    sums[k] = total;
  });
  Ext acc = sums[windows - 1];
  for (std::size_t k = windows - 1; k-- > 0;) {
    for (unsigned b = 0; b < c; ++b) acc = dbl(acc);
    acc = add(acc, to_cached(sums[k]));
  }
  return acc;
}

Ext msm_secret(std::span<const Scalar> scalars, std::span<const Niels> points, unsigned threads) {
  if (scalars.size() != points.size()) throw std::invalid_argument("msm: as many scalars as points");
  const std::size_t n = scalars.size();
  constexpr std::size_t block = 64;  // points sharing one accumulator and its doublings
  const std::size_t blocks = (n + block - 1) / block;
  std::vector<Ext> partial(blocks);
  parallel_for(blocks, threads, [&](std::size_t b) {
    const std::size_t first = b * block, count = std::min(block, n - first);
    std::vector<Cached> table(count * 8);
    std::vector<std::array<std::int8_t, 64>> digits(count);
    for (std::size_t i = 0; i < count; ++i) {
      const Ext p = from_niels(points[first + i]);
      Ext m = p;
      table[i * 8] = to_cached(p);
      for (std::size_t j = 1; j < 8; ++j) {
        m = add(m, points[first + i]);
        table[i * 8 + j] = to_cached(m);
      }
      digits[i] = radix16(scalars[first + i]);
    }
    Ext acc = identity();
    for (std::size_t k = 64; k-- > 0;) {
      if (k != 63)
        for (int d = 0; d < 4; ++d) acc = dbl(acc);
      for (std::size_t i = 0; i < count; ++i) acc = add(acc, select(&table[i * 8], cached_identity(), digits[i][k]));
    }
    partial[b] = acc;
    std::fill(digits.begin(), digits.end(), std::array<std::int8_t, 64>{});
  });
  Ext total = identity();
  for (const auto& p : partial) total = add(total, to_cached(p));
  return total;
}

FixedBase::FixedBase(const Ext& b) {
  std::vector<Ext> rows(64 * 8);
  Ext p = b;  // 16^k·B
  for (std::size_t k = 0; k < 64; ++k) {
    const Cached pc = to_cached(p);
    rows[k * 8] = p;
    for (std::size_t j = 1; j < 8; ++j) rows[k * 8 + j] = add(rows[k * 8 + j - 1], pc);
    p = dbl(rows[k * 8 + 7]);  // 16·16^k·B
  }
  table_ = to_niels(rows);
}

Ext FixedBase::mul(const Scalar& s) const {
  auto e = radix16(s);
  Ext acc = identity();
  for (std::size_t k = 0; k < 64; ++k) acc = add(acc, select(&table_[k * 8], niels_identity(), e[k]));
  e.fill(0);
  return acc;
}

const FixedBase& base_table() {
  static const FixedBase t(base());
  return t;
}

}  // namespace shufflempc::mixnet::edwards
