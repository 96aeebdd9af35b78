// A server's log with a rate limit per kind of line: a flood of connections that each earn a line
// (refused hellos, handshake time-outs) costs the log a few lines a second and one count of the
// rest, not a line each. Used by the shuffler and the mix server; one io thread calls it.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <string>

namespace shufflempc::net::detail {

class RateLimitedLog {
 public:
  RateLimitedLog() = default;
  RateLimitedLog(std::function<void(const std::string&)> sink, std::size_t lines_per_second)
      : sink_(std::move(sink)), per_second_(lines_per_second) {}

  // Every line, unlimited.
  void operator()(const std::string& line) const {
    if (sink_) sink_(line);
  }
  // At most lines_per_second lines of kind `kind` per second; the others are counted and announced
  // once the next second begins.
  void limited(const std::string& kind, const std::string& line) {
    Window& w = windows_[kind];
    const auto now = std::chrono::steady_clock::now();
    if (now - w.start >= std::chrono::seconds(1)) {
      if (w.suppressed > 0) (*this)(std::to_string(w.suppressed) + " more lines like '" + kind + "' suppressed in the last second");
      w = {now, 0, 0};
    }
    if (w.lines++ < per_second_) (*this)(line);
    else ++w.suppressed;
  }

 private:
  struct Window {
    std::chrono::steady_clock::time_point start{};
    std::size_t lines = 0;
    std::size_t suppressed = 0;
  };
  std::function<void(const std::string&)> sink_;
  std::size_t per_second_ = 20;
  std::map<std::string, Window> windows_;
};

}  // namespace shufflempc::net::detail
