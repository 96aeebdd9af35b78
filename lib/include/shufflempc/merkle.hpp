// A Merkle tree over a batch of records (BLAKE2b-256, libsodium): what a chain's entry commits to
// when it signs the batch it admitted, and what lets a sender check, from a path of about log2 n
// hashes, that its record is in that batch, at which position, and between which neighbours.
//
//   leaf(record)    = BLAKE2b-256(0x00 | record)
//   node(l, r)      = BLAKE2b-256(0x01 | l | r)
//   root(width, n)  = BLAKE2b-256(0x02 | width (u64 LE) | n (u64 LE) | top)   (top = zero bytes when n = 0)
//
// A level of odd size passes its last node up unchanged, so a path has no sibling at such a level;
// the root binds the record width and the count, so a path checked against it fixes both. The tags
// keep a leaf from being read as a node and a node as a root.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace shufflempc::merkle {

using Hash = std::array<std::uint8_t, 32>;

[[nodiscard]] Hash leaf(std::span<const std::uint8_t> record);
[[nodiscard]] Hash node(const Hash& left, const Hash& right);
// The leaves of the records of `width` bytes held back to back in `bytes` (a whole number of
// them), hashed on up to `threads` threads.
[[nodiscard]] std::vector<Hash> leaves(std::size_t width, std::span<const std::uint8_t> bytes, unsigned threads = 1);
// The root of records of `width` bytes held back to back in `bytes`.
[[nodiscard]] Hash root(std::size_t width, std::span<const std::uint8_t> bytes, unsigned threads = 1);

// Siblings from the leaf's level up, skipping the levels where the node has none.
using Path = std::vector<Hash>;

class Tree {
 public:
  // Every level of the tree over `leaves` (about 2n hashes; n - 1 node hashes computed).
  Tree(std::size_t width, std::vector<Hash> leaves);
  [[nodiscard]] const Hash& root() const { return root_; }
  [[nodiscard]] std::size_t size() const { return levels_.front().size(); }
  [[nodiscard]] const Hash& leaf_at(std::size_t index) const { return levels_.front().at(index); }
  // The path of leaf `index` (< size()).
  [[nodiscard]] Path path(std::size_t index) const;

 private:
  std::size_t width_;
  std::vector<std::vector<Hash>> levels_;  // levels_[0]: the leaves; the last level: one node (none if empty)
  Hash root_{};
};

// The number of siblings on the path of leaf `index` of `count`.
[[nodiscard]] std::size_t path_length(std::size_t index, std::size_t count);
// Whether `path` leads leaf hash `leaf` at `index` of `count` records of `width` bytes to `root`
// (false also when the path has the wrong length or index >= count).
[[nodiscard]] bool holds(const Hash& leaf, std::size_t index, std::size_t count, std::size_t width, std::span<const Hash> path,
                         const Hash& root);

}  // namespace shufflempc::merkle
