// Amplification by shuffling: the central (eps, delta) of n shuffled reports of an eps0-LDP
// randomizer, by the bounds of the literature (docs/accounting.md, which cites each paper).
//
//   erlingsson_epsilon     Erlingsson, Feldman, Mironov, Raghunathan, Talwar, Thakurta (SODA'19):
//                          eps = 12 eps0 sqrt(ln(1/delta) / n), for eps0 <= 1/2, n >= 1000, delta <= 0.01
//   blanket_epsilon        Balle, Bell, Gascon, Nissim (CRYPTO'19), the privacy blanket, for k-ary
//                          randomized response: eps = max{ sqrt(14 ln(2/delta)(e^eps0 + k - 1)/(n - 1)),
//                          27 (e^eps0 + k - 1)/(n - 1) }, valid when it is at most 1
//   fmt_closed_form        Feldman, McMillan, Talwar (FOCS'21), "Hiding among the clones", Theorem 3.1
//   fmt_numeric_epsilon    the same paper's reduction evaluated numerically: the smallest eps whose
//                          hockey-stick divergence fmt_delta is at most delta
//   blanket_exact_epsilon  the privacy blanket of k-ary randomized response (Balle et al.) without
//                          its concentration inequalities: the same divergence summed exactly over
//                          the binomial law of the blanket count; for randomized response only
//   ldp_blanket_epsilon    the blanket decomposition summed exactly, in its worst case over every
//                          eps0-LDP randomizer: that worst case is binary randomized response's
//                          (proved in docs/accounting.md), so any randomizer may use it
//
// Each returns std::nullopt outside the range where its theorem holds (the reason is in
// amplification_validity). The numeric bound is an upper bound: the binomial tails it leaves out
// are added to delta whole.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shufflempc {

// Told as the numeric searches go: evaluations of fmt_delta done (fractional: each reports its
// blocks as they finish) and the number the search expects in all (an estimate while
// fmt_local_epsilon still brackets its answer). Called from one thread at a time. At n = 10^10 one
// evaluation sums 1.5 million terms and takes minutes, so a caller may show it.
using AccountingProgress = std::function<void(double done, std::size_t total)>;

[[nodiscard]] std::optional<double> erlingsson_epsilon(std::uint64_t n, double eps0, double delta);
[[nodiscard]] std::optional<double> blanket_epsilon(std::uint64_t n, double eps0, double delta, std::uint64_t k = 2);
// The inverse: the largest eps0 whose k-ary randomized response the blanket bound certifies at
// (eps, delta); nullopt when eps > 1 or no eps0 > 0 qualifies (too few parties).
[[nodiscard]] std::optional<double> blanket_local_epsilon(std::uint64_t n, double eps, double delta, std::uint64_t k = 2);
[[nodiscard]] std::optional<double> fmt_closed_form(std::uint64_t n, double eps0, double delta);

// FMT21's bound on delta at `eps` for n users of an eps0-LDP randomizer: the e^eps-hockey-stick
// divergence between (A + D, C - A + 1 - D) and (A + 1 - D, C - A + D), C ~ Bin(n - 1, e^-eps0),
// A ~ Bin(C, 1/2), D ~ Bern(e^eps0 / (e^eps0 + 1)). Both directions are equal (the pair is a
// reflection), so one number. Exact up to the binomial tails beyond 16 standard deviations, whose
// mass is added in full. The sum runs on every core, in fixed blocks added in a fixed order: the
// same number whatever the machine.
[[nodiscard]] double fmt_delta(std::uint64_t n, double eps0, double eps);
// The smallest eps (to 1e-9 absolute, rounded up) with fmt_delta(n, eps0, eps) <= delta; eps0
// itself when shuffling does not help.
[[nodiscard]] double fmt_numeric_epsilon(std::uint64_t n, double eps0, double delta, const AccountingProgress& progress = {});
// The largest eps0 (to 1e-9, rounded down) with fmt_delta(n, eps0, eps) <= delta: the local
// randomizer a protocol may use to be (eps, delta)-DP after shuffling. At least eps.
[[nodiscard]] double fmt_local_epsilon(std::uint64_t n, double eps, double delta, const AccountingProgress& progress = {});

// The privacy blanket of k-ary randomized response (report x with probability
// e^eps0/(e^eps0 + k - 1), each other value with probability 1/(e^eps0 + k - 1)) evaluated exactly.
// Each report is a uniform value (the blanket) with probability k/(e^eps0 + k - 1), else the
// user's input. Give the analyst every input outside the blanket and whether the last user's report
// fell on the two inputs that differ, x or x' (probability w = (e^eps0 + 1)/(e^eps0 + k - 1) under
// either input): then delta is at most w times the divergence fmt_delta computes with clones
// C ~ Bin(n - 1, 2/(e^eps0 + k - 1)) instead of Bin(n - 1, e^-eps0) (docs/accounting.md has the
// derivation). A rigorous upper bound for k-ary randomized response, not for other randomizers;
// tails beyond 16 standard deviations of C are added whole, as in fmt_delta. The inverse is the
// largest eps0 (to 1e-9, rounded down) meeting (eps, delta).
[[nodiscard]] double blanket_exact_delta(std::uint64_t n, double eps0, double eps, std::uint64_t k = 2);
[[nodiscard]] double blanket_exact_epsilon(std::uint64_t n, double eps0, double delta, std::uint64_t k = 2,
                                           const AccountingProgress& progress = {});
[[nodiscard]] double blanket_exact_local_epsilon(std::uint64_t n, double eps, double delta, std::uint64_t k = 2,
                                                 const AccountingProgress& progress = {});

// The privacy blanket for ANY eps0-LDP randomizer R. Each report is drawn from the blanket
// omega(y) = min_x R(x)(y) / gamma with probability gamma = sum_y min_x R(x)(y), else from a part
// that depends on the input; Balle et al.'s decomposition bounds delta by the divergence between
// the blanket reports of the others plus the last user's report under x and under x'. Summed
// exactly, that divergence is E[(xi_1 + ... + xi_n)_+] / n for n i.i.d. copies of one scalar law xi
// fixed by R (docs/accounting.md), and among all eps0-LDP randomizers xi is largest in the convex
// order for binary randomized response (gamma = 2/(e^eps0 + 1)). So the worst case over every
// randomizer is blanket_exact_delta(n, eps0, eps, 2): a rigorous upper bound for every
// eps0-LDP randomizer, attained by binary randomized response. The inverse is the largest eps0 (to
// 1e-9, rounded down) meeting (eps, delta).
[[nodiscard]] double ldp_blanket_delta(std::uint64_t n, double eps0, double eps);
[[nodiscard]] double ldp_blanket_epsilon(std::uint64_t n, double eps0, double delta, const AccountingProgress& progress = {});
[[nodiscard]] double ldp_blanket_local_epsilon(std::uint64_t n, double eps, double delta, const AccountingProgress& progress = {});

// The privacy blanket of k-ary randomized response bounded with Bennett's inequality instead of
// summed exactly: Balle, Bell, Gascon, Nissim (CRYPTO'19), evaluated as the authors' published code
// does (BennettExact), which their sum protocols ("Private summation in the multi-message shuffle
// model", CCS'20) calibrate with. With gamma = k/(e^eps0 + k - 1), a = e^eps - 1, the privacy loss's
// largest value b = gamma (1 - e^eps) + (1 - gamma) k and its second moment c = gamma (2 - gamma) a^2
// + (1 - gamma)^2 k (e^2eps + 1), alpha = c/b^2, beta = a b/c, phi(u) = (1 + u) ln(1 + u) - u:
//   delta = b / (gamma m ln(1 + beta)) E[e^{-M alpha phi(beta)}; M >= 1],  M ~ Bin(m, gamma),
// with m = n - 1 (the blanket is the other users'; the authors' code passes n), in closed form by
// the binomial's generating function. 0 where eps >= eps0. It bounds the blanket of k-ary randomized
// response itself, not the clone pair blanket_exact_delta reduces it to, so with many values (k of
// about 10 and more at n = 10^4) it certifies a larger eps0 than blanket-exact; ldp-blanket beats
// both at the sums' settings (docs/accounting.md).
[[nodiscard]] double bennett_delta(std::uint64_t n, double eps0, double eps, std::uint64_t k = 2);
[[nodiscard]] double bennett_local_epsilon(std::uint64_t n, double eps, double delta, std::uint64_t k = 2);

// The local epsilon of k-ary randomized response whose n shuffled reports are (eps, delta)-DP, by a
// named bound, for every protocol built on randomized response (shuffled_rr, the survey's sums):
//   fmt, blanket, blanket-exact, ldp-blanket, rr-exact-all (k = 2 only), bennett, and tightest:
//   for k = 2 (up to rr_exact_all_max_parties users) the exact value, otherwise the largest eps0 of
//   fmt, blanket-exact, ldp-blanket and bennett (the closed-form blanket is never larger than bennett).
enum class RrBound { fmt, blanket, blanket_exact, ldp_blanket, rr_exact_all, bennett, tightest };
// "fmt", "blanket", "blanket-exact", "ldp-blanket", "rr-exact-all", "bennett", "tightest"; anything
// else: std::invalid_argument listing them.
[[nodiscard]] RrBound rr_bound_of(std::string_view name);
[[nodiscard]] std::string rr_bound_name(RrBound bound);    // the short name above
[[nodiscard]] std::string rr_bound_source(RrBound bound);  // the paper and how it is evaluated
struct RrCalibration {
  RrBound used = RrBound::fmt;  // the bound eps0 comes from (tightest resolved)
  double epsilon0 = 0;
  double gamma = 1;             // the probability of a uniform report, k/(e^eps0 + k - 1)
  double achieved_delta = 0;    // the bound's delta at (eps0, eps); 0 for blanket (a closed form)
};
// std::invalid_argument naming the parameter when the bound cannot apply (blanket with too few
// users, rr-exact-all with k > 2 or too many users).
[[nodiscard]] RrCalibration calibrate_randomized_response(std::uint64_t n, std::uint64_t k, double eps, double delta, RrBound bound);

// How far from the truth the bounds above can be: the exact (eps, delta) of one mechanism on one
// pair of neighbouring datasets. Binary randomized response with flip probability q = 1/(e^eps0 + 1)
// is eps0-LDP; shuffled, its output is the count of ones. On the all-zero dataset the count is
// K0 ~ Bin(n, q); with one user's bit set it is K1 ~ Bin(n - 1, q) + Bern(1 - q). rr_exact_delta is
// the larger of the two e^eps-hockey-stick divergences between K0 and K1, in closed form (each is a
// difference of binomial tails at the one point where the likelihood ratio crosses e^eps; O(1)
// per call at any n). rr_exact_epsilon is the smallest eps (to 1e-9, rounded down) with
// rr_exact_delta <= delta: a LOWER bound on the central epsilon of shuffled binary randomized
// response, so every upper bound valid for all eps0-LDP randomizers (erlingsson, fmt-closed,
// fmt-numeric; blanket with k = 2) is at least this.
//
// With k > 2 the mechanism is k-ary randomized response (report the input with probability
// e^eps0/(e^eps0 + k - 1), each other value with probability 1/(e^eps0 + k - 1)), the dataset has
// every user on one value x and its neighbour moves one user to x': the histogram's likelihood ratio
// depends on the two counts N_x and N_x' only, and the divergence is a sum over N_x' of binomial
// tails and partial means at one cutoff in N_x (O(sd) terms). Every valid upper bound for k-ary
// randomized response (blanket_exact_epsilon with the same k among them) is at least this.
[[nodiscard]] double rr_exact_delta(std::uint64_t n, double eps0, double eps, std::uint64_t k = 2);
[[nodiscard]] double rr_exact_epsilon(std::uint64_t n, double eps0, double delta, std::uint64_t k = 2);

// Not a bound but the value: the exact (eps, delta) of shuffled BINARY randomized response over
// every pair of neighbouring datasets. A dataset is described by c, the number of ones among the
// n - 1 users other than the one that differs, and the analyzer's view is the count of ones, so
// rr_exact_all_delta is the largest e^eps-hockey-stick divergence, both directions, between the
// counts with that user on 0 and on 1, over every c in [0, n - 1]. Each c's count is summed over a
// window of its support; what the window leaves out (a Bernstein bound for each cut tail, e^-50,
// and a bound on the error the cut tails leave inside the window) is added to delta, so truncation
// errs only on the safe side (about 1e-16; rounding aside). Cost: about 6 n w multiply-adds for a
// window of w counts (w grows as sqrt(n p q)), on every core. The
// inverses are to 1e-9 like the bounds': eps rounded up, eps0 rounded down. For k-ary randomized
// response with k > 2 there is no such value here (docs/accounting.md says why).
// Defined for 2 <= n <= rr_exact_all_max_parties (beyond, one evaluation takes minutes).
inline constexpr std::uint64_t rr_exact_all_max_parties = 2'000'000;
[[nodiscard]] double rr_exact_all_delta(std::uint64_t n, double eps0, double eps);
// Where the maximum is attained: c (as the divergence of the user on 1 from the user on 0; the
// reverse direction at c is this one at n - 1 - c), and the sweep's largest rounding drift.
struct ExactAllWorstCase {
  double delta = 0;
  std::uint64_t ones = 0;  // c
  double drift = 0;        // the largest |1 - sum| of a window's pmf
};
[[nodiscard]] ExactAllWorstCase rr_exact_all_worst_case(std::uint64_t n, double eps0, double eps);
[[nodiscard]] double rr_exact_all_epsilon(std::uint64_t n, double eps0, double delta, const AccountingProgress& progress = {});
[[nodiscard]] double rr_exact_all_local_epsilon(std::uint64_t n, double eps, double delta, const AccountingProgress& progress = {});

// Every bound above for one setting, with the reason a bound does not apply.
struct AmplificationBound {
  std::string name;      // "erlingsson", "blanket", "fmt-closed", "fmt-numeric", "blanket-exact", "ldp-blanket",
                         // "rr-exact-all" (an exact value, for binary randomized response only)
  std::string source;    // the paper
  std::optional<double> epsilon;
  std::string validity;  // when it holds; why not, if epsilon is empty
};
[[nodiscard]] std::vector<AmplificationBound> amplification_bounds(std::uint64_t n, double eps0, double delta, std::uint64_t k = 2,
                                                                   const AccountingProgress& progress = {});

}  // namespace shufflempc
