#include "shufflempc/trace.hpp"

#include <atomic>
#include <mutex>
#include <optional>
#include <stdexcept>

namespace shufflempc::trace {

namespace {
std::atomic<bool> trace_on{false};
std::mutex trace_mutex;  // guards trace_points and the switch between recorders
std::optional<std::vector<const char*>> trace_points;  // while a Recorder is alive
}  // namespace

void point(const char* where) noexcept {
  if (!trace_on.load(std::memory_order_relaxed)) return;
  try {
    std::lock_guard lock(trace_mutex);
    if (trace_points) trace_points->push_back(where);
  } catch (...) {  // a trace never fails the traced code (an allocation that fails loses the point)
  }
}

Recorder::Recorder() {
  std::lock_guard lock(trace_mutex);
  if (trace_points) throw std::logic_error("trace::Recorder: another recorder is alive");
  trace_points.emplace();
  trace_on.store(true, std::memory_order_relaxed);
}

Recorder::~Recorder() {
  std::lock_guard lock(trace_mutex);
  trace_on.store(false, std::memory_order_relaxed);
  trace_points.reset();
}

std::vector<std::string> Recorder::points() const {
  std::lock_guard lock(trace_mutex);
  return std::vector<std::string>(trace_points->begin(), trace_points->end());
}

}  // namespace shufflempc::trace
