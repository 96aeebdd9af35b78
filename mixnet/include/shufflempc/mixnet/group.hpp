// The prime-order group of the verifiable mix: ristretto255 (libsodium), written additively.
//
// A Point is the canonical 32-byte encoding of a group element (all zeros: the identity); a Scalar
// is 32 bytes little-endian, reduced modulo the group order L = 2^252 + 27742317777372353535851937790883648493.
// Every operation goes through libsodium's ristretto255 API, which decodes and re-encodes its
// operands: a point received from anyone must first pass valid_point (a canonical encoding), and
// then no operation can fail. Scalar multiplications and additions are counted process-wide
// (op_counts). The proofs' sums of many products compute below this API, in detail/edwards.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "shufflempc/random.hpp"

namespace shufflempc::mixnet {

inline constexpr std::size_t point_bytes = 32;
inline constexpr std::size_t scalar_bytes = 32;

struct Point {
  std::array<std::uint8_t, point_bytes> bytes{};  // zero: the identity
  friend bool operator==(const Point&, const Point&) = default;
  friend auto operator<=>(const Point&, const Point&) = default;
};

struct Scalar {
  std::array<std::uint8_t, scalar_bytes> bytes{};  // little-endian, below the group order
  friend bool operator==(const Scalar&, const Scalar&) = default;
};

// The generator G of ristretto255 (libsodium's base point).
[[nodiscard]] const Point& base_point();
// True if `p` is a canonical encoding of a group element (the identity included).
[[nodiscard]] bool valid_point(const Point& p);
// True if `s` is below the group order.
[[nodiscard]] bool valid_scalar(const Scalar& s);

[[nodiscard]] Point operator+(const Point& a, const Point& b);
[[nodiscard]] Point operator-(const Point& a, const Point& b);
// s·P (variable base) and s·G (the fixed base).
[[nodiscard]] Point operator*(const Scalar& s, const Point& p);
[[nodiscard]] Point mul_base(const Scalar& s);

[[nodiscard]] Scalar operator+(const Scalar& a, const Scalar& b);
[[nodiscard]] Scalar operator-(const Scalar& a, const Scalar& b);
[[nodiscard]] Scalar operator*(const Scalar& a, const Scalar& b);
[[nodiscard]] Scalar operator-(const Scalar& a);
[[nodiscard]] Scalar scalar_from_u64(std::uint64_t v);
// 64 uniform bytes reduced modulo L: statistically uniform (bias below 2^-250).
[[nodiscard]] Scalar reduce_wide(std::span<const std::uint8_t, 64> wide);
[[nodiscard]] Scalar random_scalar(Rng& rng);

// Hashing to the group and to scalars, both over BLAKE2b-512 with a domain label: the independent
// generators of the proof of shuffle and the Fiat–Shamir challenges.
[[nodiscard]] Point hash_to_point(std::string_view label, std::span<const std::uint8_t> data);
[[nodiscard]] Scalar hash_to_scalar(std::string_view label, std::span<const std::uint8_t> data);
// The 64 bytes both map: BLAKE2b-512 of (label length, label, data).
[[nodiscard]] std::array<std::uint8_t, 64> wide_hash(std::string_view label, std::span<const std::uint8_t> data);

// Group operations since the process started (all threads).
struct OpCounts {
  std::uint64_t mults = 0;       // variable-base scalar multiplications
  std::uint64_t base_mults = 0;  // fixed-base scalar multiplications
  std::uint64_t adds = 0;        // additions and subtractions
  std::uint64_t hashes = 0;      // hash-to-group
  friend OpCounts operator-(const OpCounts& a, const OpCounts& b) {
    return {a.mults - b.mults, a.base_mults - b.base_mults, a.adds - b.adds, a.hashes - b.hashes};
  }
};
[[nodiscard]] OpCounts op_counts();

}  // namespace shufflempc::mixnet
