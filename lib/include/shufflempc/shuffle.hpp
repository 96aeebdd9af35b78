// A uniform random permutation of a MessageBatch, driven by the caller's Rng.
//
// Small batches: Fisher-Yates in place. Large batches (more than `cache_bytes`): every message
// draws a uniform bucket, messages are scattered into buckets in one sequential pass, and each
// bucket (sized to stay in cache) gets its own Fisher-Yates. Because bucket choices are
// independent and uniform, and each bucket is then uniformly permuted, the result is a uniform
// permutation (Sanders, "Random permutations on distributed, external and hierarchical memory",
// IPL 1998). The scatter replaces one cache miss per message with sequential streams.
// No allocation per message: one scratch buffer, reused across calls by a Shuffler.
#pragma once

#include <cstdint>
#include <vector>

#include "shufflempc/messages.hpp"
#include "shufflempc/random.hpp"

namespace shufflempc {

class Shuffler {
 public:
  // Bucket size the scatter aims for; batches at most this large are shuffled in place.
  static constexpr std::size_t default_cache_bytes = 256 * 1024;

  // `cache_bytes` is exposed so tests can force the bucket path on tiny batches.
  explicit Shuffler(std::size_t cache_bytes = default_cache_bytes) : cache_bytes_(cache_bytes < 1 ? 1 : cache_bytes) {}
  void shuffle(MessageBatch& batch, Rng& rng);

 private:
  std::size_t cache_bytes_;
  std::vector<std::uint8_t> scratch_;
  std::vector<std::uint16_t> bucket_;
  std::vector<std::size_t> offset_;
  std::vector<std::size_t> cursor_;
};

// One-shot convenience (allocates its scratch for this call only).
void shuffle(MessageBatch& batch, Rng& rng);

// Fisher-Yates over `count` records of `width` bytes at `data`.
void fisher_yates(std::uint8_t* data, std::size_t count, std::size_t width, Rng& rng);

}  // namespace shufflempc
