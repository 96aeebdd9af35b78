#include "shufflempc/merkle.hpp"

#include <sodium.h>

#include <stdexcept>

#include "shufflempc/little_endian.hpp"
#include "shufflempc/parallel.hpp"
#include "shufflempc/random.hpp"

namespace shufflempc::merkle {

namespace {

Hash tagged(std::uint8_t tag, std::span<const std::uint8_t> a, std::span<const std::uint8_t> b = {}) {
  crypto_generichash_state st;
  crypto_generichash_init(&st, nullptr, 0, 32);
  crypto_generichash_update(&st, &tag, 1);
  crypto_generichash_update(&st, a.data(), a.size());
  if (!b.empty()) crypto_generichash_update(&st, b.data(), b.size());
  Hash h{};
  crypto_generichash_final(&st, h.data(), h.size());
  return h;
}

Hash seal(std::size_t width, std::size_t count, const Hash& top) {
  std::array<std::uint8_t, 16 + 32> bytes{};
  store_le<std::uint64_t>(bytes.data(), width);
  store_le<std::uint64_t>(bytes.data() + 8, count);
  if (count > 0) std::copy(top.begin(), top.end(), bytes.begin() + 16);
  return tagged(2, bytes);
}

}  // namespace

Hash leaf(std::span<const std::uint8_t> record) {
  ensure_sodium();
  return tagged(0, record);
}

Hash node(const Hash& left, const Hash& right) { return tagged(1, left, right); }

std::vector<Hash> leaves(std::size_t width, std::span<const std::uint8_t> bytes, unsigned threads) {
  ensure_sodium();
  if (width == 0) throw std::invalid_argument("merkle::leaves: records of 0 bytes");
  if (bytes.size() % width != 0) throw std::invalid_argument("merkle::leaves: the bytes are not a whole number of records");
  const std::size_t n = bytes.size() / width;
  std::vector<Hash> out(n);
  constexpr std::size_t chunk = 4096;
  parallel_for((n + chunk - 1) / chunk, threads, [&](std::size_t c) {
    for (std::size_t i = c * chunk; i < std::min(n, (c + 1) * chunk); ++i) out[i] = tagged(0, bytes.subspan(i * width, width));
  });
  return out;
}

Hash root(std::size_t width, std::span<const std::uint8_t> bytes, unsigned threads) {
  if (width == 0) return seal(0, 0, {});
  return Tree(width, leaves(width, bytes, threads)).root();
}

Tree::Tree(std::size_t width, std::vector<Hash> leaves) : width_(width) {
  levels_.push_back(std::move(leaves));
  while (levels_.back().size() > 1) {
    const auto& below = levels_.back();
    std::vector<Hash> up((below.size() + 1) / 2);
    for (std::size_t i = 0; i + 1 < below.size(); i += 2) up[i / 2] = node(below[i], below[i + 1]);
    if (below.size() % 2 == 1) up.back() = below.back();
    levels_.push_back(std::move(up));
  }
  root_ = seal(width_, size(), size() == 0 ? Hash{} : levels_.back().front());
}

Path Tree::path(std::size_t index) const {
  if (index >= size()) throw std::out_of_range("merkle::Tree::path: leaf " + std::to_string(index) + " of " + std::to_string(size()));
  Path p;
  for (std::size_t level = 0; level + 1 < levels_.size(); ++level, index /= 2) {
    const std::size_t sibling = index ^ 1;
    if (sibling < levels_[level].size()) p.push_back(levels_[level][sibling]);
  }
  return p;
}

std::size_t path_length(std::size_t index, std::size_t count) {
  std::size_t length = 0;
  for (; count > 1; count = (count + 1) / 2, index /= 2)
    if ((index ^ 1) < count) ++length;
  return length;
}

bool holds(const Hash& leaf, std::size_t index, std::size_t count, std::size_t width, std::span<const Hash> path, const Hash& root) {
  if (index >= count || path.size() != path_length(index, count)) return false;
  Hash h = leaf;
  std::size_t next = 0;
  for (std::size_t level = count; level > 1; level = (level + 1) / 2, index /= 2) {
    if ((index ^ 1) >= level) continue;  // the last node of an odd level goes up unchanged
    h = index % 2 == 0 ? node(h, path[next]) : node(path[next], h);
    ++next;
  }
  const Hash expected = seal(width, count, h);
  return sodium_memcmp(expected.data(), root.data(), root.size()) == 0;
}

}  // namespace shufflempc::merkle
