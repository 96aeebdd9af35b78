// ristretto255 in coordinates (mixnet/detail/edwards.hpp) against libsodium's ristretto255 on
// random inputs: decoding accepts exactly libsodium's valid encodings, encoding gives libsodium's
// bytes, additions, doublings, the affine forms, the fixed-base tables and both multi-scalar
// multiplications (sizes from 0 to 3000, scalars at the edges of their range included).
#include <doctest/doctest.h>
#include <sodium.h>

#include <vector>

#include "shufflempc/mixnet/detail/edwards.hpp"
#include "shufflempc/mixnet/group.hpp"
#include "shufflempc/random.hpp"

using namespace shufflempc;
using namespace shufflempc::mixnet;

namespace {

Point random_point(Rng& rng) { return random_scalar(rng) * base_point(); }

edwards::Ext ext(const Point& p) {
  edwards::Ext e;
  REQUIRE(edwards::decode(p, e));
  return e;
}

edwards::Niels niels(const Point& p) {
  edwards::Niels n;
  REQUIRE(edwards::decode(p, n));
  return n;
}

// Scalars at the edges: 0, 1, L - 1, 2^252, and every radix-16 digit 8 or 15.
std::vector<Scalar> edge_scalars() {
  std::vector<Scalar> v = {scalar_from_u64(0), scalar_from_u64(1), -scalar_from_u64(1)};
  Scalar top;
  top.bytes[31] = 0x10;  // 2^252
  v.push_back(top);
  Scalar eights, fifteens;
  eights.bytes.fill(0x88);
  eights.bytes[31] = 0x08;
  fifteens.bytes.fill(0xff);
  fifteens.bytes[31] = 0x0f;
  v.push_back(eights);
  v.push_back(fifteens);
  for (const auto& s : v) REQUIRE(valid_scalar(s));
  return v;
}

}  // namespace

TEST_CASE("edwards: decoding accepts exactly the valid encodings, and encoding gives libsodium's bytes") {
  SeededRng rng(9496);
  for (int i = 0; i < 300; ++i) {
    const Point p = random_point(rng);
    CHECK(edwards::encode(ext(p)) == p);
    Point junk;
    rng.fill(junk.bytes);
    if (i % 2 == 0) junk.bytes[0] &= 0xfe;  // half of them non-negative, so that some are valid
    edwards::Ext e;
    CHECK(edwards::decode(junk, e) == valid_point(junk));
  }
  Point identity;
  CHECK(edwards::encode(ext(identity)) == identity);
  CHECK(edwards::is_identity(ext(identity)));
  CHECK(edwards::encode(edwards::base()) == base_point());
  // Non-canonical: p + 1 written for 1, a negative s, the top bit set.
  Point above;
  above.bytes.fill(0xff);
  above.bytes[0] = 0xee;
  above.bytes[31] = 0x7f;
  edwards::Ext e;
  CHECK_FALSE(edwards::decode(above, e));
  Point top = base_point();
  top.bytes[31] |= 0x80;
  CHECK_FALSE(edwards::decode(top, e));
}

TEST_CASE("edwards: the hash to the group maps as libsodium's crypto_core_ristretto255_from_hash") {
  SeededRng rng(2);
  for (int i = 0; i < 300; ++i) {
    std::array<std::uint8_t, 64> h;
    rng.fill(h);
    if (i < 2) h.fill(i == 0 ? 0x00 : 0xff);
    Point want;
    crypto_core_ristretto255_from_hash(want.bytes.data(), h.data());
    CHECK(edwards::encode(edwards::from_hash(h)) == want);
  }
}

TEST_CASE("edwards: additions, doublings and the affine forms agree with libsodium") {
  SeededRng rng(255);
  std::vector<edwards::Ext> projective;
  std::vector<Point> expected;
  for (int i = 0; i < 100; ++i) {
    const Point a = random_point(rng), b = random_point(rng);
    const auto sum = edwards::add(ext(a), edwards::to_cached(ext(b)));
    CHECK(edwards::encode(sum) == a + b);
    CHECK(edwards::encode(edwards::add(ext(a), niels(b))) == a + b);
    CHECK(edwards::encode(edwards::add(ext(a), edwards::negate(niels(b)))) == a - b);
    CHECK(edwards::encode(edwards::dbl(sum)) == (a + b) + (a + b));
    CHECK(edwards::encode(edwards::from_niels(niels(a))) == a);
    CHECK(edwards::is_identity(edwards::add(ext(a), edwards::negate(niels(a)))));
    CHECK_FALSE(edwards::is_identity(sum));
    projective.push_back(sum);
    expected.push_back(a + b);
  }
  const auto affine = edwards::to_niels(projective);
  for (std::size_t i = 0; i < affine.size(); ++i) CHECK(edwards::encode(edwards::from_niels(affine[i])) == expected[i]);
}

TEST_CASE("edwards: the fixed-base tables multiply as libsodium does") {
  SeededRng rng(16);
  const Point h = random_point(rng);
  const edwards::FixedBase table(ext(h));
  auto scalars = edge_scalars();
  for (int i = 0; i < 50; ++i) scalars.push_back(random_scalar(rng));
  for (const auto& s : scalars) {
    CHECK(edwards::encode(edwards::base_table().mul(s)) == mul_base(s));
    CHECK(edwards::encode(table.mul(s)) == s * h);
  }
}

TEST_CASE("edwards: both multi-scalar multiplications equal the sum of libsodium's products") {
  SeededRng rng(2010);
  for (const std::size_t n : {0, 1, 2, 7, 64, 65, 300, 3000}) {
    CAPTURE(n);
    std::vector<Scalar> s(n);
    std::vector<edwards::Niels> p(n);
    Point want;
    const auto edges = edge_scalars();
    for (std::size_t i = 0; i < n; ++i) {
      s[i] = i < edges.size() ? edges[i] : random_scalar(rng);
      const Point q = random_point(rng);
      p[i] = niels(q);
      want = want + s[i] * q;
    }
    for (const unsigned threads : {1u, 2u}) {
      CHECK(edwards::encode(edwards::msm_public(s, p, threads)) == want);
      CHECK(edwards::encode(edwards::msm_secret(s, p, threads)) == want);
    }
  }
}
