// The exact value of shuffled binary randomized response over every dataset (rr_exact_all_*): seconds
// per evaluation of delta(eps) (a sweep over every count of ones, on every core), per search of eps
// (rr_exact_all_epsilon) and per search of eps0 (rr_exact_all_local_epsilon, what
// counting-rr-amplified runs once), against, in the same run, one evaluation of the ldp-blanket
// bound at the same point and its eps and eps0: what the exact value costs and what it buys.
//
//   build/bin/bench/bench_rr_exact_all [LARGEST_N=1000000] [EPS0=4] [EPS=1] [DELTA=1e-6]
//
// n runs over 10^4, 10^5, ... up to LARGEST_N. Progress goes to stderr, the table to stdout.
#include <fmt/format.h>

#include <cstdlib>
#include <iostream>

#include "shufflempc/accounting/amplification.hpp"
#include "timing.hpp"

using namespace shufflempc;
using bench::seconds_of;

int main(int argc, char** argv) {
  const double largest = argc > 1 ? std::strtod(argv[1], nullptr) : 1e6;
  const double eps0 = argc > 2 ? std::strtod(argv[2], nullptr) : 4.0;
  const double eps = argc > 3 ? std::strtod(argv[3], nullptr) : 1.0;
  const double delta = argc > 4 ? std::strtod(argv[4], nullptr) : 1e-6;
  std::cout << fmt::format("eps0 = {} (the eps search), eps = {} (the eps0 search), delta = {}\n", eps0, eps, delta);
  std::cout << fmt::format("{:>8} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>12} {:>12}\n", "n", "exact s/ev", "bound s/ev", "exact eps",
                           "bound eps", "exact s", "exact eps0", "bound eps0", "eps0 s");
  for (double n = 1e4; n <= largest * 1.0001; n *= 10) {
    const auto parties = static_cast<std::uint64_t>(n);
    std::cerr << fmt::format("bench_rr_exact_all: n = {:.0e} ...", n) << std::endl;
    double exact_eps = 0, bound_eps = 0, exact_eps0 = 0, bound_eps0 = 0;
    bound_eps = ldp_blanket_epsilon(parties, eps0, delta);
    // One evaluation where a search spends its time: at its answer.
    const double bound_one = seconds_of([&] { (void)ldp_blanket_delta(parties, eps0, bound_eps); });
    const double exact_one = seconds_of([&] { (void)rr_exact_all_delta(parties, eps0, bound_eps); });
    const auto told = [&](const char* what) {
      return [what](double done, std::size_t total) {
        if (done == static_cast<double>(static_cast<std::size_t>(done)))
          std::cerr << fmt::format("bench_rr_exact_all:   {} {:.0f} of {} evaluations", what, done, total) << std::endl;
      };
    };
    const double search = seconds_of([&] { exact_eps = rr_exact_all_epsilon(parties, eps0, delta, told("eps")); });
    bound_eps0 = ldp_blanket_local_epsilon(parties, eps, delta);
    const double inverse = seconds_of([&] { exact_eps0 = rr_exact_all_local_epsilon(parties, eps, delta, told("eps0")); });
    std::cout << fmt::format("{:>8.0e} {:>11.4f} {:>11.4f} {:>11.6f} {:>11.6f} {:>11.2f} {:>11.4f} {:>12.4f} {:>12.2f}\n", n, exact_one,
                             bound_one, exact_eps, bound_eps, search, exact_eps0, bound_eps0, inverse);
  }
  return 0;
}
