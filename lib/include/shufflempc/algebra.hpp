// Arithmetic in Z_q.
//   ZqSmall: any modulus 2 <= q <= 2^64, elements are uint64_t, 128-bit intermediate products.
//   ZqBig:   any modulus q >= 2 (2^256 and beyond), elements are Boost.Multiprecision cpp_int.
// Both encode elements as fixed-width little-endian byte strings (bytes() of them), so that an
// element fits a fixed-width message.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include <boost/multiprecision/cpp_int.hpp>

#include "shufflempc/little_endian.hpp"
#include "shufflempc/random.hpp"

namespace shufflempc {

using BigInt = boost::multiprecision::cpp_int;

class ZqSmall {
 public:
  using element = std::uint64_t;
  // 2 <= q <= 2^64 - 1; use two_to_64() for q = 2^64.
  explicit ZqSmall(std::uint64_t q);
  [[nodiscard]] static ZqSmall two_to_64();
  // From a BigInt in [2, 2^64].
  [[nodiscard]] static ZqSmall from_big(const BigInt& q);

  [[nodiscard]] BigInt modulus() const;
  [[nodiscard]] bool is_two_to_64() const { return q_ == 0; }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }

  [[nodiscard]] std::uint64_t reduce(std::uint64_t x) const { return q_ == 0 ? x : x % q_; }
  [[nodiscard]] std::uint64_t add(std::uint64_t a, std::uint64_t b) const {
    if (q_ == 0) return a + b;
    const std::uint64_t s = a + b;
    return (s < a || s >= q_) ? s - q_ : s;
  }
  [[nodiscard]] std::uint64_t sub(std::uint64_t a, std::uint64_t b) const {
    if (q_ == 0) return a - b;
    return a >= b ? a - b : a + (q_ - b);
  }
  [[nodiscard]] std::uint64_t neg(std::uint64_t a) const { return sub(0, a); }
  [[nodiscard]] std::uint64_t mul(std::uint64_t a, std::uint64_t b) const {
    const unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
    if (q_ == 0) return static_cast<std::uint64_t>(p);
    if (q_ == mersenne61) return reduce_mersenne61(p);
    return static_cast<std::uint64_t>(p % q_);  // a 128-bit division (__umodti3), about 25 ns
  }
  // Σ a_i·b_i mod q for reduced a_i, b_i. Modulo 2^61 - 1 and 2^64 the products are summed in 128
  // bits and reduced once every 32 terms (the inner products of mpc2 and of Shamir sharing).
  [[nodiscard]] std::uint64_t sum_of_products(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b) const {
    const std::size_t n = std::min(a.size(), b.size());
    if (q_ == 0) {
      std::uint64_t s = 0;
      for (std::size_t i = 0; i < n; ++i) s += a[i] * b[i];
      return s;
    }
    if (q_ == mersenne61) {
      unsigned __int128 acc = 0;  // below 2^61 + 32·2^122 < 2^128 between reductions
      if (n <= 32) {              // one reduction: a Shamir polynomial, a round's few products
        for (std::size_t i = 0; i < n; ++i) acc += static_cast<unsigned __int128>(a[i]) * b[i];
        return reduce_mersenne61(acc);
      }
      for (std::size_t i = 0; i < n; ++i) {
        acc += static_cast<unsigned __int128>(a[i]) * b[i];
        if (i % 32 == 31) acc = reduce_mersenne61(acc);
      }
      return reduce_mersenne61(acc);
    }
    std::uint64_t s = 0;
    for (std::size_t i = 0; i < n; ++i) s = add(s, mul(a[i], b[i]));
    return s;
  }
  // out[i] = s[i] + Σ_j c[i·d + j]·x[j] for every i, d = x.size(): the values at one point (powers
  // x = (z, z^2, ..., z^d)) of a block of polynomials with constant terms s and coefficients c, for
  // Shamir sharing of many values. Modulo 2^61 - 1 each value is reduced once (d < 32).
  void evaluate_block(std::span<const std::uint64_t> s, std::span<const std::uint64_t> c, std::span<const std::uint64_t> x,
                      std::span<std::uint64_t> out) const {
    const std::size_t d = x.size(), m = std::min(s.size(), out.size());
    if (q_ == mersenne61 && d < 32) {
      for (std::size_t i = 0; i < m; ++i) {
        unsigned __int128 acc = s[i];
        for (std::size_t j = 0; j < d; ++j) acc += static_cast<unsigned __int128>(c[i * d + j]) * x[j];
        out[i] = reduce_mersenne61(acc);
      }
      return;
    }
    for (std::size_t i = 0; i < m; ++i) out[i] = add(s[i], sum_of_products(c.subspan(i * d, d), x));
  }
  [[nodiscard]] std::uint64_t pow(std::uint64_t a, std::uint64_t e) const;
  // Inverse of a unit; throws std::invalid_argument when gcd(a, q) != 1.
  [[nodiscard]] std::uint64_t inverse(std::uint64_t a) const;
  [[nodiscard]] std::uint64_t uniform(Rng& rng) const {
    if (q_ == 0) return rng.next_u64();
    if (q_ == mersenne61) {  // 61 uniform bits below 2^61 - 1: one word a draw, redrawn with probability 2^-61
      for (;;)
        if (const std::uint64_t x = rng.next_u64() >> 3; x != mersenne61) return x;
    }
    return rng.uniform(q_);
  }

  // Inline for an 8-byte span (every element of a field below 2^64, 10^5 of them per vector input).
  void encode(std::uint64_t a, std::span<std::uint8_t> out) const {
    if (out.size() != 8) return encode_any(a, out);
    store_le(out.data(), a);
  }
  // Throws std::invalid_argument if the bytes encode a value >= q.
  [[nodiscard]] std::uint64_t decode(std::span<const std::uint8_t> in) const {
    if (in.size() != 8) return decode_any(in);
    const auto v = load_le<std::uint64_t>(in.data());
    if (q_ != 0 && v >= q_) return decode_any(in);  // throws
    return v;
  }

 private:
  void encode_any(std::uint64_t a, std::span<std::uint8_t> out) const;
  [[nodiscard]] std::uint64_t decode_any(std::span<const std::uint8_t> in) const;
  // 2^61 - 1, the default prime of mpc2 and the Shamir tests: a product reduces by shifts and adds
  // (2^61 = 1 mod q) instead of a 128-bit division. Exact for any 64-bit operands, reduced or not.
  static constexpr std::uint64_t mersenne61 = (std::uint64_t{1} << 61) - 1;
  [[nodiscard]] static std::uint64_t reduce_mersenne61(unsigned __int128 p) {
    const std::uint64_t r = (static_cast<std::uint64_t>(p) & mersenne61) + (static_cast<std::uint64_t>(p >> 61) & mersenne61) +
                            static_cast<std::uint64_t>(p >> 122);  // < 2^63
    const std::uint64_t s = (r & mersenne61) + (r >> 61);          // <= 2^61 + 2
    return s >= mersenne61 ? s - mersenne61 : s;
  }

  ZqSmall() = default;
  std::uint64_t q_ = 0;  // 0 encodes 2^64
  std::size_t bytes_ = 8;
};

class ZqBig {
 public:
  using element = BigInt;
  explicit ZqBig(BigInt q);  // q >= 2
  [[nodiscard]] const BigInt& modulus() const { return q_; }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }
  [[nodiscard]] std::size_t bits() const { return bits_; }

  [[nodiscard]] BigInt reduce(const BigInt& x) const;
  [[nodiscard]] BigInt add(const BigInt& a, const BigInt& b) const;
  [[nodiscard]] BigInt sub(const BigInt& a, const BigInt& b) const;
  [[nodiscard]] BigInt neg(const BigInt& a) const { return sub(BigInt(0), a); }
  [[nodiscard]] BigInt mul(const BigInt& a, const BigInt& b) const { return (a * b) % q_; }
  [[nodiscard]] BigInt pow(const BigInt& a, const BigInt& e) const;
  [[nodiscard]] BigInt inverse(const BigInt& a) const;
  // Uniform in [0, q): rejection sampling on bits() random bits.
  [[nodiscard]] BigInt uniform(Rng& rng) const;

  void encode(const BigInt& a, std::span<std::uint8_t> out) const;
  [[nodiscard]] BigInt decode(std::span<const std::uint8_t> in) const;

 private:
  BigInt q_;
  std::size_t bits_ = 0;
  std::size_t bytes_ = 0;
};

// Little-endian bytes to an integer, no range check.
[[nodiscard]] BigInt decode_unchecked_le(std::span<const std::uint8_t> in);
// Smallest number of bytes that holds every value in [0, q).
[[nodiscard]] std::size_t bytes_for_modulus(const BigInt& q);
// Boost.Multiprecision's miller_rabin_test with 64 rounds, its bases drawn from `rng` (error below
// 4^-64 for composites; n < 2 is not prime).
[[nodiscard]] bool is_probable_prime(const BigInt& n, Rng& rng);

}  // namespace shufflempc
