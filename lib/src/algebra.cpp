#include "shufflempc/algebra.hpp"

// GMP in the native build; the browser's build (web/, Emscripten) has no GMP and tests on Boost's
// own integers, the same test, slower.
#ifndef __EMSCRIPTEN__
#include <boost/multiprecision/gmp.hpp>
#endif
#include <boost/multiprecision/miller_rabin.hpp>

#include <iterator>
#include <stdexcept>
#include <vector>

namespace shufflempc {

std::size_t bytes_for_modulus(const BigInt& q) {
  if (q < 2) throw std::invalid_argument("modulus q must be at least 2");
  const BigInt max = q - 1;
  const std::size_t bits = max == 0 ? 1 : boost::multiprecision::msb(max) + 1;
  return (bits + 7) / 8;
}

ZqSmall::ZqSmall(std::uint64_t q) : q_(q) {
  if (q < 2) throw std::invalid_argument("modulus q must be in [2, 2^64], got " + std::to_string(q));
  bytes_ = bytes_for_modulus(BigInt(q));
}

ZqSmall ZqSmall::two_to_64() {
  ZqSmall z;
  z.q_ = 0;
  z.bytes_ = 8;
  return z;
}

ZqSmall ZqSmall::from_big(const BigInt& q) {
  const BigInt two64 = BigInt(1) << 64;
  if (q < 2 || q > two64) throw std::invalid_argument("modulus q must be in [2, 2^64] for ZqSmall");
  if (q == two64) return two_to_64();
  return ZqSmall(static_cast<std::uint64_t>(q));
}

BigInt ZqSmall::modulus() const { return q_ == 0 ? BigInt(1) << 64 : BigInt(q_); }

std::uint64_t ZqSmall::pow(std::uint64_t a, std::uint64_t e) const {
  std::uint64_t result = reduce(1), base = reduce(a);
  while (e > 0) {
    if (e & 1u) result = mul(result, base);
    base = mul(base, base);
    e >>= 1;
  }
  return result;
}

std::uint64_t ZqSmall::inverse(std::uint64_t a) const {
  const BigInt inv = ZqBig(modulus()).inverse(BigInt(a));
  return static_cast<std::uint64_t>(inv);
}

void ZqSmall::encode_any(std::uint64_t a, std::span<std::uint8_t> out) const {
  if (out.size() < bytes_) throw std::invalid_argument("ZqSmall::encode: output too short");
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = i < 8 ? static_cast<std::uint8_t>(a >> (8 * i)) : 0;
}

std::uint64_t ZqSmall::decode_any(std::span<const std::uint8_t> in) const {
  if (in.size() < bytes_) throw std::invalid_argument("ZqSmall::decode: input too short");
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (i < 8) v |= std::uint64_t{in[i]} << (8 * i);
    else if (in[i] != 0) throw std::invalid_argument("ZqSmall::decode: value out of range");
  }
  if (q_ != 0 && v >= q_) throw std::invalid_argument("ZqSmall::decode: value out of range");
  return v;
}

ZqBig::ZqBig(BigInt q) : q_(std::move(q)) {
  bytes_ = bytes_for_modulus(q_);
  const BigInt max = q_ - 1;
  bits_ = max == 0 ? 1 : boost::multiprecision::msb(max) + 1;
}

BigInt ZqBig::reduce(const BigInt& x) const {
  BigInt r = x % q_;
  if (r < 0) r += q_;
  return r;
}

BigInt ZqBig::add(const BigInt& a, const BigInt& b) const {
  BigInt s = a + b;
  if (s >= q_) s -= q_;
  return s;
}

BigInt ZqBig::sub(const BigInt& a, const BigInt& b) const {
  BigInt s = a - b;
  if (s < 0) s += q_;
  return s;
}

BigInt ZqBig::pow(const BigInt& a, const BigInt& e) const {
  if (e < 0) throw std::invalid_argument("ZqBig::pow: negative exponent");
  return boost::multiprecision::powm(reduce(a), e, q_);
}

BigInt ZqBig::inverse(const BigInt& a) const {
  // Extended Euclid.
  BigInt r0 = q_, r1 = reduce(a), s0 = 0, s1 = 1;
  while (r1 != 0) {
    const BigInt quotient = r0 / r1;
    BigInt t = r0 - quotient * r1;
    r0 = r1;
    r1 = t;
    t = s0 - quotient * s1;
    s0 = s1;
    s1 = t;
  }
  if (r0 != 1) throw std::invalid_argument("element is not invertible modulo q");
  return reduce(s0);
}

BigInt ZqBig::uniform(Rng& rng) const {
  std::vector<std::uint8_t> buf(bytes_);
  const unsigned top_bits = static_cast<unsigned>(bits_ - 8 * (bytes_ - 1));
  const std::uint8_t top_mask = static_cast<std::uint8_t>((1u << top_bits) - 1u);
  while (true) {
    rng.fill(buf);
    buf.back() &= top_mask;
    BigInt v = decode_unchecked_le(buf);
    if (v < q_) return v;
  }
}

void ZqBig::encode(const BigInt& a, std::span<std::uint8_t> out) const {
  if (out.size() < bytes_) throw std::invalid_argument("ZqBig::encode: output too short");
  if (a < 0 || a >= q_) throw std::invalid_argument("ZqBig::encode: value out of range");
  BigInt v = a;
  for (auto& byte : out) {
    byte = static_cast<std::uint8_t>(v & 0xff);
    v >>= 8;
  }
}

BigInt ZqBig::decode(std::span<const std::uint8_t> in) const {
  BigInt v = decode_unchecked_le(in);
  if (v >= q_) throw std::invalid_argument("ZqBig::decode: value out of range");
  return v;
}

BigInt decode_unchecked_le(std::span<const std::uint8_t> in) {
  BigInt v = 0;
  boost::multiprecision::import_bits(v, in.rbegin(), in.rend(), 8, true);
  return v;
}

namespace {
// An Rng as a UniformRandomBitGenerator, for Boost's Miller-Rabin bases.
struct RngBits {
  using result_type = std::uint64_t;
  Rng* rng;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }
  result_type operator()() { return rng->next_u64(); }
};
}  // namespace

bool is_probable_prime(const BigInt& n, Rng& rng) {
  if (n < 2) return false;
  RngBits bits{&rng};
#ifdef __EMSCRIPTEN__
  return boost::multiprecision::miller_rabin_test(n, 64, bits);
#else
  // The same test on GMP's integers: 64 rounds on a 6600-bit modulus take about 3 s instead of 39
  // (bench/bench_primality.cpp).
  std::vector<std::uint8_t> bytes;
  boost::multiprecision::export_bits(n, std::back_inserter(bytes), 8);
  boost::multiprecision::mpz_int z;
  mpz_import(z.backend().data(), bytes.size(), 1, 1, 1, 0, bytes.data());  // big-endian bytes, as exported
  return boost::multiprecision::miller_rabin_test(z, 64, bits);
#endif
}

}  // namespace shufflempc
