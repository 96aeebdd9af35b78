// The studies' progress bar on stderr, with the time left: redrawn at most five times a second on a
// terminal, a line every tenth of the work otherwise (logs, CI). `shufflempc study` and every
// experiment draw it; a study's Progress callback can be one.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace shufflempc::study {

class ProgressBar {
 public:
  explicit ProgressBar(std::string label = "study", std::string unit = "trials");
  // `done` of `total` work (in any unit: the bar and the time left follow it), `items` of `all`
  // items finished (the count shown); the last item always draws.
  void operator()(double done, double total, std::size_t items, std::size_t all);

 private:
  std::string label_, unit_;
  bool tty_;
  std::chrono::steady_clock::time_point start_, drawn_{};
  int tenth_ = -1;
};

}  // namespace shufflempc::study
