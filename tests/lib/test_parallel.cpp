// The one parallel loop (lib/parallel.hpp).
#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "shufflempc/parallel.hpp"

using namespace shufflempc;

TEST_CASE("parallel_for: every index exactly once, on one thread or many") {
  for (unsigned threads : {0u, 1u, 2u, 7u}) {
    std::vector<std::atomic<int>> seen(1000);
    parallel_for(seen.size(), threads, [&](std::size_t i) { ++seen[i]; });
    for (const auto& s : seen) CHECK(s == 1);
  }
  int calls = 0;
  parallel_for(0, 4, [&](std::size_t) { ++calls; });
  CHECK(calls == 0);
  CHECK(jobs_or_cores(3) == 3);
  CHECK(jobs_or_cores(0) == hardware_cores());
  CHECK(hardware_threads() <= 8);
}

TEST_CASE("parallel_for: the first exception reaches the caller and no index starts after it") {
  for (unsigned threads : {1u, 2u, 4u}) {
    std::atomic<std::size_t> started{0};
    CHECK_THROWS_WITH_AS(parallel_for(10000000, threads,
                                      [&](std::size_t i) {
                                        ++started;
                                        if (i == 10) throw std::runtime_error("index 10");
                                      }),
                         "index 10", std::runtime_error);
    CHECK(started < 10000000);  // at most the indices already taken by other threads ran
  }
}
