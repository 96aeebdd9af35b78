#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <numeric>
#include <vector>

#include "shufflempc/algebra.hpp"
#include "shufflempc/random.hpp"
#include "shufflempc/shamir.hpp"
#include "support/stats.hpp"

using namespace shufflempc;

namespace {

// Shares `secret` at degree t among n parties, then checks that every (t + 1)-subset of consecutive
// points (cyclically) and the whole set interpolate to it, and that lagrange_at reproduces a share.
template <class F>
void check_round_trip(const F& f, const shamir::Element<F>& secret, std::size_t t, std::size_t n, Rng& rng) {
  std::vector<shamir::Element<F>> shares(n);
  shamir::share(f, secret, t, rng, std::span<shamir::Element<F>>(shares));
  for (std::size_t start = 0; start < n; ++start) {
    std::vector<std::uint32_t> who;
    for (std::size_t k = 0; k <= t; ++k) who.push_back(static_cast<std::uint32_t>((start + k) % n));
    const auto l = shamir::lagrange_at_zero(f, std::span<const std::uint32_t>(who));
    shamir::Element<F> acc{};
    for (std::size_t j = 0; j < who.size(); ++j) acc = f.add(acc, f.mul(l[j], shares[who[j]]));
    CHECK(acc == secret);
    // The same t + 1 points give any other party's share.
    const std::uint32_t other = static_cast<std::uint32_t>((start + t + 1) % n);
    if (t + 1 < n) {
      const auto at = shamir::lagrange_at(f, std::span<const std::uint32_t>(who), shamir::point(f, other));
      shamir::Element<F> y{};
      for (std::size_t j = 0; j < who.size(); ++j) y = f.add(y, f.mul(at[j], shares[who[j]]));
      CHECK(y == shares[other]);
    }
  }
}

}  // namespace

TEST_CASE("shamir: any t + 1 shares give the secret back and every other share, over Z_p and big Z_p") {
  SeededRng rng(2026);
  const ZqSmall small((std::uint64_t{1} << 61) - 1);
  const ZqBig big((BigInt(1) << 127) - 1);
  for (std::size_t n : {1u, 2u, 3u, 5u, 8u})
    for (std::size_t t = 0; t < n; ++t) {
      check_round_trip(small, small.uniform(rng), t, n, rng);
      check_round_trip(big, big.uniform(rng), t, n, rng);
    }
}

TEST_CASE("shamir: share_with is the polynomial secret + c_1 z + ... evaluated at id + 1") {
  const ZqSmall f(101);
  const std::vector<std::uint64_t> coeffs = {3, 5};  // 7 + 3z + 5z^2
  std::vector<std::uint64_t> out(4);
  shamir::share_with(f, std::uint64_t{7}, std::span<const std::uint64_t>(coeffs), std::span<std::uint64_t>(out));
  for (std::uint64_t k = 0; k < out.size(); ++k) {
    const std::uint64_t z = k + 1;
    CHECK(out[k] == (7 + 3 * z + 5 * z * z) % 101);
  }
}

TEST_CASE("shamir: t shares have the same distribution whatever the secret (exact, over Z_7)") {
  // Every polynomial of degree 2 over Z_7 (49 per secret): the joint law of the shares of parties 0
  // and 1 is the same for each of the 7 secrets, uniform on Z_7^2.
  const ZqSmall f(7);
  std::map<std::uint64_t, std::map<std::pair<std::uint64_t, std::uint64_t>, int>> law;
  for (std::uint64_t secret = 0; secret < 7; ++secret)
    for (std::uint64_t c1 = 0; c1 < 7; ++c1)
      for (std::uint64_t c2 = 0; c2 < 7; ++c2) {
        const std::vector<std::uint64_t> coeffs = {c1, c2};
        std::vector<std::uint64_t> out(3);
        shamir::share_with(f, secret, std::span<const std::uint64_t>(coeffs), std::span<std::uint64_t>(out));
        ++law[secret][{out[0], out[1]}];
      }
  for (std::uint64_t secret = 0; secret < 7; ++secret) {
    CHECK(law[secret].size() == 49);
    for (const auto& [pair, count] : law[secret]) CHECK(count == 1);
  }
}

TEST_CASE("shamir: a dealing consumes one field element per coefficient, in order") {
  // The stream contract: share() draws c_1..c_d with f.uniform, so a run that shares the same
  // secrets with the same generator is reproducible whichever protocol calls it.
  const ZqSmall f((std::uint64_t{1} << 61) - 1);
  SeededRng a(5), b(5);
  std::vector<std::uint64_t> shares(4);
  shamir::share(f, std::uint64_t{9}, 3, a, std::span<std::uint64_t>(shares));
  std::vector<std::uint64_t> coeffs(3);
  for (auto& c : coeffs) c = f.uniform(b);
  std::vector<std::uint64_t> expect(4);
  shamir::share_with(f, std::uint64_t{9}, std::span<const std::uint64_t>(coeffs), std::span<std::uint64_t>(expect));
  CHECK(shares == expect);
  CHECK(a.next_u64() == b.next_u64());
}

namespace {

// Sharing at precomputed points gives exactly the shares of share() and consumes the same draws.
template <class F>
void check_same_at_points(const F& f, std::size_t degree, std::size_t n) {
  SeededRng a(degree * 100 + n), b(degree * 100 + n);
  const auto at = shamir::points(f, n);
  std::vector<shamir::Element<F>> plain(n), fast(n);
  for (int i = 0; i < 20; ++i) {
    const auto secret = f.uniform(a);
    (void)f.uniform(b);
    shamir::share(f, secret, degree, a, std::span<shamir::Element<F>>(plain));
    shamir::share(f, secret, degree, b, std::span<shamir::Element<F>>(fast), std::span<const shamir::Element<F>>(at));
    REQUIRE(plain == fast);
  }
  CHECK(a.next_u64() == b.next_u64());
}

}  // namespace

TEST_CASE("shamir: sharing at precomputed points equals sharing without them, on and off the stack") {
  const ZqSmall small((std::uint64_t{1} << 61) - 1);
  const ZqBig big((BigInt(1) << 127) - 1);
  for (const auto& [degree, n] : std::vector<std::pair<std::size_t, std::size_t>>{{1, 3}, {3, 7}, {16, 33}, {20, 41}}) {
    check_same_at_points(small, degree, n);
    check_same_at_points(big, degree, n);
  }
  // One point per share, or none.
  SeededRng rng(1);
  std::vector<std::uint64_t> out(3);
  const auto two = shamir::points(small, 2);
  CHECK_THROWS_AS(shamir::share(small, std::uint64_t{1}, 1, rng, std::span<std::uint64_t>(out), std::span<const std::uint64_t>(two)),
                  std::invalid_argument);
}

TEST_CASE("shamir: sums of products reduced lazily equal term-by-term sums, and sharing by power tables equals Horner's rule") {
  SeededRng rng(61);
  // 2^61 - 1 (lazy reduction every 32 terms), 2^64 (wrapping) and another prime (term by term), with
  // vectors of the largest elements so that the 128-bit sums come closest to overflowing.
  for (const ZqSmall f : {ZqSmall((std::uint64_t{1} << 61) - 1), ZqSmall::two_to_64(), ZqSmall(1'000'000'007)}) {
    const std::uint64_t top = f.is_two_to_64() ? ~std::uint64_t{0} : f.sub(0, 1);
    for (const std::size_t n : {0, 1, 31, 32, 33, 1000}) {
      std::vector<std::uint64_t> a(n), b(n), big(n, top);
      for (auto& x : a) x = f.uniform(rng);
      for (auto& x : b) x = f.uniform(rng);
      for (const auto* pair : {&a, &big}) {
        const auto& x = *pair;
        const auto& y = pair == &a ? b : big;
        std::uint64_t want = 0;
        for (std::size_t i = 0; i < n; ++i) want = f.add(want, f.mul(x[i], y[i]));
        CHECK(f.sum_of_products(x, y) == want);
      }
    }
  }
  const ZqSmall f((std::uint64_t{1} << 61) - 1);
  for (const std::size_t n : {3, 7, 20}) {
    const auto at = shamir::points(f, n);
    for (const std::size_t degree : {std::size_t{0}, std::size_t{1}, (n - 1) / 2, n - 1}) {
      const auto table = shamir::power_table(f, std::span<const std::uint64_t>(at), degree);
      for (int trial = 0; trial < 20; ++trial) {
        const std::uint64_t secret = f.uniform(rng);
        std::vector<std::uint64_t> horner(n), powers(n);
        SeededRng r1(static_cast<std::uint64_t>(trial)), r2(static_cast<std::uint64_t>(trial));
        shamir::share(f, secret, degree, r1, std::span<std::uint64_t>(horner), std::span<const std::uint64_t>(at));
        shamir::share_by_powers(f, secret, degree, r2, std::span<const std::uint64_t>(table), std::span<std::uint64_t>(powers));
        CHECK(horner == powers);
      }
    }
  }
}

// Many values dealt at once against one call per value: the same draws, so the same shares.
template <class F>
void check_share_many(const F& f, std::size_t n, std::size_t degree, std::size_t count, std::uint64_t seed) {
  using E = typename F::element;
  CAPTURE(n);
  CAPTURE(degree);
  CAPTURE(count);
  const auto at = shamir::points(f, n);
  const auto table = shamir::power_table(f, std::span<const E>(at), degree);
  SeededRng values(seed);
  std::vector<E> secrets(count);
  for (auto& x : secrets) x = f.uniform(values);
  SeededRng r1(seed + 1), r2(seed + 1);
  std::vector<E> many(n * count), one(n);
  shamir::share_many_by_powers(f, std::span<const E>(secrets), degree, r1, std::span<const E>(table), std::span<E>(many));
  bool same = true;
  for (std::size_t i = 0; i < count; ++i) {
    shamir::share_by_powers(f, secrets[i], degree, r2, std::span<const E>(table), std::span<E>(one));
    for (std::size_t k = 0; k < n; ++k) same = same && many[k * count + i] == one[k];
  }
  CHECK(same);
  CHECK(r1.next_u64() == r2.next_u64());  // and the generators are left at the same place
}

TEST_CASE("shamir: many values dealt at once get the shares one call per value gives, across blocks, degrees and fields") {
  const ZqSmall m61((std::uint64_t{1} << 61) - 1), other(1'000'000'007), two64 = ZqSmall::two_to_64();
  const ZqBig big((BigInt(1) << 255) - 19);
  std::uint64_t seed = 100;
  for (const std::size_t count : {1, 255, 256, 257, 700}) {
    for (const std::size_t n : {3, 7}) {
      for (const std::size_t degree : {std::size_t{1}, (n - 1) / 2, n - 1}) {
        check_share_many(m61, n, degree, count, ++seed);
        check_share_many(other, n, degree, count, ++seed);
        check_share_many(two64, n, degree, count, ++seed);
      }
    }
  }
  // Degrees at and past the one-reduction limit modulo 2^61 - 1 (31 products).
  for (const std::size_t degree : {30, 31, 32, 40}) check_share_many(m61, 41, degree, 300, ++seed);
  check_share_many(big, 5, 2, 300, ++seed);
  const auto at = shamir::points(m61, 3);
  const auto table = shamir::power_table(m61, std::span<const std::uint64_t>(at), 1);
  std::vector<std::uint64_t> secrets(4), out(11);
  SeededRng rng(1);
  CHECK_THROWS_AS(shamir::share_many_by_powers(m61, std::span<const std::uint64_t>(secrets), 1, rng, std::span<const std::uint64_t>(table),
                                               std::span<std::uint64_t>(out)),
                  std::invalid_argument);
}

TEST_CASE("shamir: modulo 2^61 - 1 a uniform element is below q, and its eight top-bit classes are equally likely") {
  const ZqSmall f((std::uint64_t{1} << 61) - 1);
  SeededRng rng(8);
  constexpr std::uint64_t draws = 80'000;
  std::vector<std::uint64_t> by_top(8, 0);
  for (std::uint64_t i = 0; i < draws; ++i) {
    const std::uint64_t x = f.uniform(rng);
    REQUIRE(x < (std::uint64_t{1} << 61) - 1);
    ++by_top[x >> 58];
  }
  const auto test = shufflempc::test::chi_square(by_top, std::vector<double>(8, 1.0 / 8));
  CHECK(test.passes());
}
