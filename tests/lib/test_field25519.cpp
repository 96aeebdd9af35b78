// GF(2^255 - 19) against Boost.Multiprecision's exact arithmetic on random inputs: products,
// squares, sums, differences, inverses, the canonical encoding (inputs above p included) and the
// square roots of ratios.
#include <doctest/doctest.h>

#include <array>
#include <boost/multiprecision/cpp_int.hpp>
#include <vector>

#include "shufflempc/field25519.hpp"
#include "shufflempc/random.hpp"

using namespace shufflempc;
using boost::multiprecision::cpp_int;
namespace f = shufflempc::field25519;

namespace {

const cpp_int& prime() {
  static const cpp_int p = (cpp_int(1) << 255) - 19;
  return p;
}

cpp_int value(const std::array<std::uint8_t, 32>& b) {
  cpp_int v = 0;
  for (std::size_t i = 32; i-- > 0;) v = (v << 8) | b[i];
  return v;
}

cpp_int value(const f::Fe& a) { return value(f::to_bytes(a)); }

cpp_int powm(cpp_int b, cpp_int e) {
  cpp_int r = 1;
  b %= prime();
  while (e > 0) {
    if ((e & 1) != 0) r = r * b % prime();
    b = b * b % prime();
    e >>= 1;
  }
  return r;
}

}  // namespace

TEST_CASE("field25519: arithmetic, encodings and inverses agree with exact integers mod 2^255 - 19") {
  SeededRng rng(25519);
  for (int trial = 0; trial < 400; ++trial) {
    std::array<std::uint8_t, 32> ab, bb;
    rng.fill(ab);
    rng.fill(bb);
    ab[31] &= 0x7f;
    bb[31] &= 0x7f;
    if (trial < 4) {  // p - 1, p, p + 1, p + 2: the encodings at and above p
      ab.fill(0xff);
      ab[0] = static_cast<std::uint8_t>(0xec + trial);
      ab[31] = 0x7f;
    }
    const f::Fe a = f::from_bytes(ab.data()), b = f::from_bytes(bb.data());
    const cpp_int x = value(ab) % prime(), y = value(bb) % prime();
    CAPTURE(trial);
    CHECK(value(a) == x);  // canonical: bytes at or above p come out reduced
    CHECK(value(f::mul(a, b)) == x * y % prime());
    CHECK(value(f::sq(a)) == x * x % prime());
    CHECK(value(f::add(a, b)) == (x + y) % prime());
    CHECK(value(f::sub(a, b)) == (x + prime() - y) % prime());
    CHECK(value(f::invert(a)) == (x == 0 ? cpp_int(0) : powm(x, prime() - 2)));
    CHECK(f::is_negative(a) == static_cast<std::uint64_t>(x & 1));
    // sqrt_ratio_m1(a, b): r² b = a when a/b is a square, i·a otherwise; r is even.
    const auto [square, r] = f::sqrt_ratio_m1(a, b);
    const cpp_int rv = value(r);
    CHECK((rv & 1) == 0);
    if (x != 0 && y != 0) {
      const bool is_square = powm(x * powm(y, prime() - 2), (prime() - 1) / 2) == 1;
      CHECK(square == (is_square ? 1u : 0u));
      const cpp_int want = is_square ? x : x * value(f::sqrt_m1()) % prime();
      CHECK(rv * rv % prime() * y % prime() == want);
    }
  }
  CHECK(value(f::sq(f::sqrt_m1())) == prime() - 1);
  // Many inverses at once (Montgomery's trick) are the inverses one by one, for 0, 1 and 33 elements.
  for (const std::size_t n : {0, 1, 33}) {
    std::vector<f::Fe> many(n), alone(n);
    for (std::size_t i = 0; i < n; ++i) {
      std::array<std::uint8_t, 32> b;
      rng.fill(b);
      b[31] &= 0x7f;
      b[0] |= 1;  // not 0
      many[i] = f::from_bytes(b.data());
      alone[i] = f::invert(many[i]);
    }
    f::batch_invert(many);
    for (std::size_t i = 0; i < n; ++i) CHECK(value(many[i]) == value(alone[i]));
  }
}
