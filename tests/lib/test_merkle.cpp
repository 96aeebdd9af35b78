#include <doctest/doctest.h>

#include <stdexcept>
#include <vector>

#include "shufflempc/merkle.hpp"

using namespace shufflempc;

namespace {
std::vector<std::uint8_t> records(std::size_t n, std::size_t width) {
  std::vector<std::uint8_t> b(n * width);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::uint8_t>(i * 7 + i / width);
  return b;
}
}  // namespace

TEST_CASE("merkle: every leaf's path leads to the root for every size up to 40, and no other leaf, index, count or width does") {
  const std::size_t width = 5;
  for (std::size_t n = 1; n <= 40; ++n) {
    CAPTURE(n);
    const auto bytes = records(n, width);
    const merkle::Tree tree(width, merkle::leaves(width, bytes, 2));
    CHECK(tree.root() == merkle::root(width, bytes));
    for (std::size_t i = 0; i < n; ++i) {
      const auto path = tree.path(i);
      CHECK(path.size() == merkle::path_length(i, n));
      const auto leaf = merkle::leaf(std::span(bytes).subspan(i * width, width));
      CHECK(merkle::holds(leaf, i, n, width, path, tree.root()));
      if (n > 1) {
        CHECK_FALSE(merkle::holds(merkle::leaf(std::span(bytes).subspan(((i + 1) % n) * width, width)), i, n, width, path, tree.root()));
        CHECK_FALSE(merkle::holds(leaf, (i + 1) % n, n, width, path, tree.root()));
      }
      CHECK_FALSE(merkle::holds(leaf, i, n + 1, width, path, tree.root()));
      CHECK_FALSE(merkle::holds(leaf, i, n, width + 1, path, tree.root()));
      CHECK_FALSE(merkle::holds(leaf, n, n, width, path, tree.root()));
      if (!path.empty()) {
        auto bent = path;
        bent.back()[0] ^= 1;
        CHECK_FALSE(merkle::holds(leaf, i, n, width, bent, tree.root()));
      }
    }
  }
}

TEST_CASE("merkle: the root binds the width, the count and every record, and an empty batch has a root of its own") {
  const auto bytes = records(6, 4);
  const auto r = merkle::root(4, bytes);
  auto changed = bytes;
  changed[13] ^= 0x80;
  CHECK(merkle::root(4, changed) != r);
  CHECK(merkle::root(4, std::span(bytes).first(20)) != r);
  CHECK(merkle::root(8, bytes) != r);  // the same bytes read as 3 records of 8
  CHECK(merkle::root(4, {}) != merkle::root(8, {}));
  CHECK(merkle::Tree(4, {}).root() == merkle::root(4, {}));
  CHECK_THROWS_AS((void)merkle::leaves(4, std::span(bytes).first(5)), std::invalid_argument);
  CHECK_THROWS_AS((void)merkle::Tree(4, merkle::leaves(4, bytes)).path(6), std::out_of_range);
}
