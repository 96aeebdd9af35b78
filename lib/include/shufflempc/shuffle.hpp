// A uniform random permutation of a MessageBatch, driven by the caller's Rng.
//
// Small batches: Fisher-Yates in place. Large batches: every message draws a uniform leaf bucket
// (one or two sequential scatter passes of at most 256 buckets), and each leaf, sized to stay in
// the L1 cache, gets its own Fisher-Yates. Both passes split into independent units (input chunks,
// then first-level buckets), each drawing from its own fork of the caller's Rng, and run on several
// threads when the batch is large. Because bucket choices are
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
  // Size of the leaves that get their own Fisher-Yates (about an L1 cache); batches at most this
  // large are shuffled in place directly.
  static constexpr std::size_t default_leaf_bytes = 16 * 1024;
  // The cores of this machine, at most 8.
  [[nodiscard]] static unsigned default_threads();

  // `leaf_bytes` is exposed so tests can force the scatter paths on tiny batches. `threads` bounds
  // the threads a large shuffle (1 MiB and more) may use; the permutation drawn from a given Rng
  // does not depend on it.
  explicit Shuffler(std::size_t leaf_bytes = default_leaf_bytes, unsigned threads = default_threads())
      : leaf_bytes_(leaf_bytes < 1 ? 1 : leaf_bytes), threads_(threads < 1 ? 1 : threads) {}
  void shuffle(MessageBatch& batch, Rng& rng);

 private:
  std::size_t leaf_bytes_;
  unsigned threads_;
  std::vector<std::uint8_t> scratch_;
  std::vector<std::uint8_t> bucket_;
  std::vector<std::size_t> counts_;
  std::vector<std::size_t> offset_;
  std::vector<std::size_t> cursor_;
};

// One-shot convenience (allocates its scratch for this call only).
void shuffle(MessageBatch& batch, Rng& rng);

// Fisher-Yates over `count` records of `width` bytes at `data`.
void fisher_yates(std::uint8_t* data, std::size_t count, std::size_t width, Rng& rng);

}  // namespace shufflempc
