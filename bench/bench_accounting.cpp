// The numeric FMT21 accountant: seconds per evaluation of delta(eps) (fmt_delta, summed on every
// core) and per whole search (fmt_numeric_epsilon, about a dozen evaluations) as n grows, against, in
// the same run, the closed-form bound of the same paper (fmt_closed_form) for the same setting: what
// the tighter epsilon costs.
//
//   build/bin/bench/bench_accounting [LARGEST_N=100000000] [EPS0=1] [DELTA=1e-6]
//
// Searches run up to LARGEST_N and 10^8; above, only one evaluation is timed (a search is ~31 of them).
// Progress goes to stderr, the table to stdout.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <algorithm>
#include <iostream>

#include "shufflempc/accounting/amplification.hpp"

using namespace shufflempc;
using Clock = std::chrono::steady_clock;

namespace {
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
}  // namespace

int main(int argc, char** argv) {
  const double largest = argc > 1 ? std::strtod(argv[1], nullptr) : 1e8;
  const double eps0 = argc > 2 ? std::strtod(argv[2], nullptr) : 1.0;
  const double delta = argc > 3 ? std::strtod(argv[3], nullptr) : 1e-6;
  std::cout << fmt::format("eps0 = {}, delta = {}\n", eps0, delta);
  std::cout << fmt::format("{:>8} {:>10} {:>12} {:>12} {:>12} {:>14} {:>12}\n", "n", "terms", "s / eval", "s / search", "numeric eps",
                           "closed-form eps", "closed s");
  for (double n = 1e4; n <= largest * 1.0001; n *= 10) {
    const auto parties = static_cast<std::uint64_t>(n);
    const double q = std::exp(-eps0);
    const double terms = std::min(n, 32 * std::sqrt(n * q * (1 - q)) + 3);
    std::cerr << fmt::format("bench_accounting: n = {:.0e}, about {:.0f} terms per evaluation ...", n, terms) << std::endl;
    auto t0 = Clock::now();
    const auto closed = fmt_closed_form(parties, eps0, delta);
    const double closed_s = seconds_since(t0);
    // One evaluation where a search spends its time: near its answer, about a seventh of the
    // closed form here (the cutoffs then sit near the middle of Bin(c, 1/2), the dearest place).
    t0 = Clock::now();
    (void)fmt_delta(parties, eps0, closed ? *closed / 7 : eps0 / 2);
    const double one = seconds_since(t0);
    std::string search = "-", numeric = "-";
    if (n <= 1e8 * 1.0001) {
      t0 = Clock::now();
      std::size_t told = 0;
      const double eps = fmt_numeric_epsilon(parties, eps0, delta, [&](double done, std::size_t total) {
        const auto whole = static_cast<std::size_t>(done);
        if (whole > told && whole % 10 == 0) std::cerr << fmt::format("bench_accounting:   {} of {} evaluations", whole, total) << std::endl;
        told = std::max(told, whole);
      });
      search = fmt::format("{:.3f}", seconds_since(t0));
      numeric = fmt::format("{:.6f}", eps);
    }
    std::cout << fmt::format("{:>8.0e} {:>10.0f} {:>12.4f} {:>12} {:>12} {:>14} {:>12.2e}\n", n, terms, one, search, numeric,
                             closed ? fmt::format("{:.6f}", *closed) : std::string("n/a"), closed_s);
  }
  return 0;
}
