// Helpers of the mixnet's parallel loops (not installed).
#pragma once

#include <sodium.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <span>
#include <vector>

#include "shufflempc/mixnet/group.hpp"
#include "shufflempc/parallel.hpp"

namespace shufflempc::mixnet::detail {

// Sums of per-record terms: body(i, acc) adds record i's terms into acc[0 .. sums). The records are
// cut into blocks summed on `threads` threads, then the blocks' sums are added in order.
template <class F>
std::vector<Point> parallel_sums(std::size_t count, std::size_t sums, unsigned threads, F&& body) {
  const std::size_t blocks = std::min<std::size_t>(count, std::size_t{threads} * 8);
  std::vector<std::vector<Point>> partial(blocks, std::vector<Point>(sums));
  parallel_for(blocks, threads, [&](std::size_t b) {
    for (std::size_t i = count * b / blocks; i < count * (b + 1) / blocks; ++i) body(i, std::span<Point>(partial[b]));
  });
  std::vector<Point> total(sums);
  for (const auto& p : partial)
    for (std::size_t s = 0; s < sums; ++s) total[s] = total[s] + p[s];
  return total;
}

// 128 uniform bits of the verifier's own, drawn after the proof is fixed: the weight of one
// equation in a batched check (a false equation survives the weighted sum with probability 2^-128).
inline Scalar batch_weight() {
  Scalar s;
  randombytes_buf(s.bytes.data(), 16);
  return s;
}

// The lowest index at which a check failed, noted from any thread.
class FirstFailure {
 public:
  explicit FirstFailure(std::size_t none) : none_(none), first_(none) {}
  void note(std::size_t i) {
    std::size_t cur = first_.load();
    while (i < cur && !first_.compare_exchange_weak(cur, i)) {
    }
  }
  [[nodiscard]] bool any() const { return first_.load() != none_; }
  [[nodiscard]] std::size_t index() const { return first_.load(); }

 private:
  std::size_t none_;
  std::atomic<std::size_t> first_;
};

}  // namespace shufflempc::mixnet::detail
