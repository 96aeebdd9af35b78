#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <string>

#include "shufflempc/shuffle.hpp"
#include "support/stats.hpp"

using namespace shufflempc;

namespace {
MessageBatch numbered(std::size_t count, std::size_t width) {
  MessageBatch b(width);
  for (std::size_t i = 0; i < count; ++i) {
    auto m = b.append();
    for (std::size_t j = 0; j < width; ++j) m[j] = static_cast<std::uint8_t>((i >> (8 * (j % 4))) + j);
    store_le<std::uint32_t>(m.data(), static_cast<std::uint32_t>(i));  // width >= 4 in these tests
  }
  return b;
}
std::vector<std::string> sorted_records(const MessageBatch& b) {
  std::vector<std::string> r;
  for (std::size_t i = 0; i < b.count(); ++i) r.emplace_back(reinterpret_cast<const char*>(b[i].data()), b.width());
  std::sort(r.begin(), r.end());
  return r;
}
// Index of the permutation of {0..k-1} in lexicographic order.
std::size_t perm_index(std::vector<std::uint32_t> p) {
  std::size_t index = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    std::size_t smaller = 0;
    for (std::size_t j = i + 1; j < p.size(); ++j) smaller += p[j] < p[i] ? 1 : 0;
    std::size_t fact = 1;
    for (std::size_t f = 2; f < p.size() - i; ++f) fact *= f;
    index += smaller * fact;
  }
  return index;
}
}  // namespace

TEST_CASE("shuffle is a permutation: every message survives exactly once (both paths, many widths)") {
  SeededRng rng(31);
  for (std::size_t width : {4, 5, 8, 16, 32, 33, 64, 100}) {
    for (std::size_t count : {0, 1, 2, 3, 17, 1000, 50000}) {
      MessageBatch b = numbered(count, width);
      const auto before = sorted_records(b);
      Shuffler in_place;           // default bucket size: small batches use Fisher-Yates
      Shuffler buckets(64);        // tiny leaves force the scatter paths
      MessageBatch c = b;
      in_place.shuffle(b, rng);
      buckets.shuffle(c, rng);
      CHECK(b.width() == width);
      CHECK(sorted_records(b) == before);
      CHECK(sorted_records(c) == before);
    }
  }
}

TEST_CASE("every permutation is equally likely (chi-square over all 5! orders, every path)" * doctest::test_suite("slow")) {
  // (width, leaf bytes): in place; one scatter level (8 and 4 leaves); two scatter levels (512 leaves).
  for (auto [width, leaf] : std::vector<std::pair<std::size_t, std::size_t>>{{8, 1 << 20}, {8, 8}, {8, 16}, {64, 1}}) {
    SeededRng rng(32 + leaf);
    Shuffler shuffler(leaf);
    const std::size_t k = 5, perms = 120, trials = 120 * 500;
    std::vector<std::uint64_t> counts(perms, 0);
    MessageBatch b = numbered(k, width);
    for (std::size_t t = 0; t < trials; ++t) {
      MessageBatch c = b;
      shuffler.shuffle(c, rng);
      std::vector<std::uint32_t> order(k);
      for (std::size_t i = 0; i < k; ++i) order[i] = load_le<std::uint32_t>(c[i].data());
      counts[perm_index(order)]++;
    }
    const auto r = test::chi_square(counts, std::vector<double>(perms, 1.0 / perms));
    CHECK_MESSAGE(r.passes(), "width " << width << " leaf " << leaf << ": chi2 " << r.statistic << " on " << r.dof << " dof");
  }
}

TEST_CASE("large batches: each message lands in each position block equally often") {
  // 2^16 messages of 8 bytes (512 KiB) take the two-level scatter path by default. Track
  // where the first and the last message land, in 16 equal blocks of positions.
  SeededRng rng(33);
  Shuffler shuffler;
  const std::size_t n = 1 << 16, blocks = 16, trials = 800;
  std::vector<std::uint64_t> first(blocks, 0), last(blocks, 0);
  MessageBatch b = numbered(n, 8);
  for (std::size_t t = 0; t < trials; ++t) {
    shuffler.shuffle(b, rng);
    for (std::size_t i = 0; i < n; ++i) {
      const auto id = load_le<std::uint32_t>(b[i].data());
      if (id == 0) first[i / (n / blocks)]++;
      if (id == n - 1) last[i / (n / blocks)]++;
    }
    // Re-number so the next trial starts from the identity again.
    b = numbered(n, 8);
  }
  const std::vector<double> uniform(blocks, 1.0 / blocks);
  CHECK(test::chi_square(first, uniform).passes());
  CHECK(test::chi_square(last, uniform).passes());
}

TEST_CASE("a seeded shuffle is reproducible, different seeds give different orders") {
  MessageBatch a = numbered(100000, 8), b = a, c = a;
  SeededRng r1(1), r2(1), r3(2);
  shuffle(a, r1);
  shuffle(b, r2);
  shuffle(c, r3);
  CHECK(a == b);
  CHECK_FALSE(a == c);
}

TEST_CASE("successive shuffles with one generator are independent (no permutation is reused)") {
  for (std::size_t count : {std::size_t{50}, std::size_t{200000}}) {  // in-place and scatter paths
    SeededRng rng(34);
    Shuffler shuffler;
    const MessageBatch original = numbered(count, 8);
    MessageBatch a = original, b = original;
    shuffler.shuffle(a, rng);
    shuffler.shuffle(b, rng);
    CHECK_FALSE(a == b);  // equal with probability 1/count!
  }
}

TEST_CASE("the permutation drawn from a seed does not depend on the number of threads") {
  const MessageBatch original = numbered(300000, 8);  // 2.4 MB: the multi-threaded path
  MessageBatch one = original, four = original;
  SeededRng r1(35), r4(35);
  Shuffler(Shuffler::default_leaf_bytes, 1).shuffle(one, r1);
  Shuffler(Shuffler::default_leaf_bytes, 4).shuffle(four, r4);
  CHECK(one == four);
  CHECK(sorted_records(one) == sorted_records(original));
}
