// The one parallel loop of shufflempc: the library's hot paths (shuffle passes, party rounds) and
// the studies' trials all run through parallel_for.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace shufflempc {

// The cores of this machine (at least 1).
inline unsigned hardware_cores() {
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

// Threads for the library's own hot paths: the cores, at most 8 (beyond, memory bandwidth bounds a
// shuffle pass).
inline unsigned hardware_threads() { return std::min(hardware_cores(), 8u); }

// What a `--jobs` option means: `asked`, or every core when it is 0.
inline unsigned jobs_or_cores(unsigned asked) { return asked != 0 ? asked : hardware_cores(); }

// Runs body(i) for i in [0, count) on up to `threads` threads (the caller's included), each taking
// the next index as it frees up. After a body throws, no further index is started; the first
// exception is rethrown in the caller once every thread has stopped.
template <class F>
void parallel_for(std::size_t count, unsigned threads, F&& body) {
  if (threads <= 1 || count <= 1) {
    for (std::size_t i = 0; i < count; ++i) body(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::atomic<bool> failed{false};
  const auto worker = [&] {
    for (std::size_t i = next++; i < count && !failed; i = next++) {
      try {
        body(i);
      } catch (...) {
        if (!failed.exchange(true)) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::min<std::size_t>(threads, count); ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace shufflempc
