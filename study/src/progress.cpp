#include "shufflempc/study/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <iostream>

namespace shufflempc::study {

ProgressBar::ProgressBar(std::string label, std::string unit)
    : label_(std::move(label)), unit_(std::move(unit)), tty_(::isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()) {}

void ProgressBar::operator()(double done, double total, std::size_t items, std::size_t all) {
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double fraction = total > 0 ? done / total : 1;
  const bool last = items == all;
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
            << fmt::format("] {:3.0f}%  {}/{} {}  {:.1f} s, about {:.0f} s left ", fraction * 100, items, all, unit_, elapsed, left)
            << (tty_ && !last ? "" : "\n") << std::flush;
}

}  // namespace shufflempc::study
