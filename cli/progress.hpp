// The studies' progress bar on stderr (cli/study.cpp, cli/study_xor_sum.cpp).
#pragma once

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <string>

namespace shufflempc::cli {

// A progress bar with the time left, redrawn at most five times a second on a terminal, and a line
// every tenth of the work otherwise (logs, CI).
class ProgressBar {
 public:
  explicit ProgressBar(std::string label = "study", std::string unit = "trials")
      : label_(std::move(label)), unit_(std::move(unit)), tty_(::isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()) {}
  void operator()(double done, double total, std::size_t trials, std::size_t all) {
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double fraction = total > 0 ? done / total : 1;
    const bool last = trials == all;
    if (tty_) {
      if (!last && now - drawn_ < std::chrono::milliseconds(200)) return;
    } else {
      const int tenth = static_cast<int>(fraction * 10);
      if (!last && tenth <= tenth_) return;
      tenth_ = tenth;
    }
    drawn_ = now;
    const int width = 30, filled = static_cast<int>(fraction * width);
    const double left = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0;
    std::cerr << (tty_ ? "\r" : "") << label_ << " [" << std::string(static_cast<std::size_t>(filled), '#')
              << std::string(static_cast<std::size_t>(width - filled), '.')
              << fmt::format("] {:3.0f}%  {}/{} {}  {:.1f} s, about {:.0f} s left ", fraction * 100, trials, all, unit_, elapsed, left)
              << (tty_ && !last ? "" : "\n") << std::flush;
  }

 private:
  std::string label_, unit_;
  bool tty_;
  std::chrono::steady_clock::time_point start_, drawn_{};
  int tenth_ = -1;
};

}  // namespace shufflempc::cli
