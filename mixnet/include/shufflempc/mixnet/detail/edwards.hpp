// ristretto255 below libsodium's public API: points of the Edwards curve in extended coordinates,
// the ristretto255 encoding (RFC 9496), and the multi-scalar multiplications of the proofs.
//
// libsodium exposes ristretto255 only as encoded points: every addition decodes both operands and
// encodes the sum (an inverse square root each), so a sum of N products costs N full
// multiplications there. Here a point is decoded once, kept in coordinates, and a sum of N products
// is one multi-scalar multiplication:
//   - msm_public: Pippenger's bucket method with signed windows, variable time, for public scalars
//     (the verifier's checks);
//   - FixedBase::mul and msm_secret: a comb over a precomputed table (fixed bases) and Straus's
//     interleaved windows (any bases), both reading their tables by masked selection and running
//     the same operations whatever the scalar (the prover's secret nonces and witnesses).
// The field is shufflempc/field25519.hpp. Every routine is checked against libsodium's ristretto255
// on random inputs (tests/mixnet/test_edwards.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "shufflempc/field25519.hpp"
#include "shufflempc/mixnet/group.hpp"

namespace shufflempc::mixnet::edwards {

using field25519::Fe;

// (X : Y : Z : T) with x = X/Z, y = Y/Z, x·y = T/Z.
struct Ext {
  Fe X, Y, Z, T;
};
// An affine point as (y + x, y - x, 2d·x·y): the addend of a mixed addition (7 multiplications).
struct Niels {
  Fe ypx, ymx, xy2d;
};
// A projective addend (Y + X, Y - X, 2Z, 2d·T) (8 multiplications).
struct Cached {
  Fe ypx, ymx, z2, t2d;
};

[[nodiscard]] Ext identity();
[[nodiscard]] Ext add(const Ext& p, const Cached& q);
[[nodiscard]] Ext add(const Ext& p, const Niels& q);
[[nodiscard]] Ext dbl(const Ext& p);
[[nodiscard]] Cached to_cached(const Ext& p);
[[nodiscard]] Niels negate(const Niels& q);
// To affine form, one field inversion for all (Montgomery's trick); variable time in the count only.
[[nodiscard]] std::vector<Niels> to_niels(std::span<const Ext> points);
[[nodiscard]] Ext from_niels(const Niels& q);

// The ristretto255 encoding. decode is false for anything but a canonical encoding of a group
// element; encode gives the canonical one. Equal group elements may have different coordinates:
// compare encodings, or test a difference with is_identity.
[[nodiscard]] bool decode(const Point& in, Ext& out);
[[nodiscard]] bool decode(const Point& in, Niels& out);
[[nodiscard]] Point encode(const Ext& p);
[[nodiscard]] bool is_identity(const Ext& p);
// RFC 9496's hash to the group of 64 uniform bytes (libsodium's crypto_core_ristretto255_from_hash).
[[nodiscard]] Ext from_hash(std::span<const std::uint8_t, 64> hash);
// ristretto255's generator.
[[nodiscard]] const Ext& base();

// Σ scalars[i]·points[i]. msm_public runs in time that depends on the scalars: public ones only.
[[nodiscard]] Ext msm_public(std::span<const Scalar> scalars, std::span<const Niels> points, unsigned threads);
[[nodiscard]] Ext msm_secret(std::span<const Scalar> scalars, std::span<const Niels> points, unsigned threads);

// s·B for a base fixed in advance: 64 rows of 8 multiples (61 KB), 64 mixed additions a product.
class FixedBase {
 public:
  explicit FixedBase(const Ext& base);
  [[nodiscard]] Ext mul(const Scalar& s) const;

 private:
  std::vector<Niels> table_;  // row k, entry j - 1: j·16^k·B
};
// The table of ristretto255's generator, made once.
[[nodiscard]] const FixedBase& base_table();

}  // namespace shufflempc::mixnet::edwards
