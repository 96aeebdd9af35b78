// The studies' progress bar (study/progress.hpp) off a terminal, as in a log or CI: one line per
// tenth of the work at most, the last one always, with the counts and the time left.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <sstream>

#include "shufflempc/study/progress.hpp"

using namespace shufflempc;

namespace {

// What the bar writes to stderr while `draw` runs (std::cerr redirected).
template <class Draw>
std::string captured(Draw draw) {
  std::ostringstream out;
  auto* old = std::cerr.rdbuf(out.rdbuf());
  draw();
  std::cerr.rdbuf(old);
  return out.str();
}

std::size_t lines_of(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

}  // namespace

TEST_CASE("study progress bar: off a terminal, at most a line per tenth of the work, the last with every count") {
  if (::isatty(STDERR_FILENO) != 0) return;  // the bar redraws in place on a terminal; ctest's stderr is not one
  const std::string text = captured([] {
    study::ProgressBar bar("demo", "trials");
    for (std::size_t i = 1; i <= 1000; ++i) bar(static_cast<double>(i), 1000.0, i, 1000);
  });
  CHECK(lines_of(text) >= 10);
  CHECK(lines_of(text) <= 11);
  CHECK(text.find("demo [") == 0);
  const auto last = text.substr(text.rfind("demo ["));
  CHECK(last.find("100%  1000/1000 trials") != std::string::npos);
  CHECK(last.find("##############################]") != std::string::npos);  // full: 30 marks
  CHECK(last.find("s left") != std::string::npos);
}

TEST_CASE("study progress bar: the work's unit drives the bar, the items only the count, and one item draws once") {
  if (::isatty(STDERR_FILENO) != 0) return;
  const std::string text = captured([] {
    study::ProgressBar bar("cells", "cells");
    bar(90.0, 100.0, 1, 2);  // 90% of the work in the first of two cells
    bar(100.0, 100.0, 2, 2);
  });
  REQUIRE(lines_of(text) == 2);
  CHECK(text.find(" 90%  1/2 cells") != std::string::npos);
  CHECK(text.find("100%  2/2 cells") != std::string::npos);
  const std::string one = captured([] {
    study::ProgressBar bar("one", "trials");
    bar(1.0, 1.0, 1, 1);
  });
  CHECK(lines_of(one) == 1);
}
