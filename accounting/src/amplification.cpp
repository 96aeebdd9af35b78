#include "shufflempc/accounting/amplification.hpp"

#include <boost/math/distributions/binomial.hpp>
#include <algorithm>
#include <cmath>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <vector>

#include "clone_pair.hpp"
#include "rr_exact_all.hpp"
#include "shufflempc/parallel.hpp"

namespace shufflempc {
namespace {

void check(std::uint64_t n, double eps0, double delta, const char* where) {
  if (n < 2) throw std::invalid_argument(std::string(where) + ": parties must be at least 2");
  if (!(eps0 > 0) || !std::isfinite(eps0)) throw std::invalid_argument(std::string(where) + ": epsilon0 must be a positive number");
  if (!(delta > 0 && delta < 1)) throw std::invalid_argument(std::string(where) + ": delta must be in (0, 1)");
}

// P(Bin(c, 1/2) <= j), 0 below the support and 1 above it.
double half_cdf(std::uint64_t c, std::int64_t j) {
  if (j < 0) return 0;
  if (static_cast<std::uint64_t>(j) >= c) return 1;
  return boost::math::cdf(boost::math::binomial(static_cast<double>(c), 0.5), static_cast<double>(j));
}

// D_{e^eps}(P || Q) given C = c: P(k) = a b(k) + (1-a) b(k-1), Q(k) = a b(k-1) + (1-a) b(k) with
// b the pmf of Bin(c, 1/2) and a = e^eps0/(1+e^eps0). P(k)/Q(k) falls as r = k/(c+1-k) rises, and
// P(k) > e^eps Q(k) exactly when r < R = (a - e^eps (1-a)) / (e^eps a - (1-a)), that is when
// k < R (c+1)/(1+R): the divergence is the difference of two CDFs at the last such k.
double divergence_given(std::uint64_t c, double a, double e_eps, double ratio) {
  const double kappa = ratio * static_cast<double>(c + 1) / (1 + ratio);
  const auto m = static_cast<std::int64_t>(std::ceil(kappa)) - 1;  // largest k strictly below kappa
  if (m < 0) return 0;
  const double b_m = half_cdf(c, m), b_m1 = half_cdf(c, m - 1);
  const double p = a * b_m + (1 - a) * b_m1;
  const double q = a * b_m1 + (1 - a) * b_m;
  return std::max(0.0, p - e_eps * q);
}

}  // namespace

std::optional<double> erlingsson_epsilon(std::uint64_t n, double eps0, double delta) {
  check(n, eps0, delta, "erlingsson_epsilon");
  if (eps0 > 0.5 || n < 1000 || delta > 0.01) return std::nullopt;
  return 12 * eps0 * std::sqrt(std::log(1 / delta) / static_cast<double>(n));
}

std::optional<double> blanket_epsilon(std::uint64_t n, double eps0, double delta, std::uint64_t k) {
  check(n, eps0, delta, "blanket_epsilon");
  if (k < 2) throw std::invalid_argument("blanket_epsilon: k must be at least 2");
  const double spread = std::exp(eps0) + static_cast<double>(k) - 1;
  const double m = static_cast<double>(n - 1);
  const double eps = std::max(std::sqrt(14 * std::log(2 / delta) * spread / m), 27 * spread / m);
  if (eps > 1) return std::nullopt;
  return eps;
}

std::optional<double> blanket_local_epsilon(std::uint64_t n, double eps, double delta, std::uint64_t k) {
  check(n, eps, delta, "blanket_local_epsilon");
  if (k < 2) throw std::invalid_argument("blanket_local_epsilon: k must be at least 2");
  if (eps > 1) return std::nullopt;
  const double m = static_cast<double>(n - 1);
  // Both terms of the max grow with e^eps0 + k - 1: the largest spread either allows.
  const double spread = std::min(m * eps * eps / (14 * std::log(2 / delta)), m * eps / 27);
  const double e_eps0 = spread - static_cast<double>(k) + 1;
  if (!(e_eps0 > 1)) return std::nullopt;
  return std::log(e_eps0);
}

std::optional<double> fmt_closed_form(std::uint64_t n, double eps0, double delta) {
  check(n, eps0, delta, "fmt_closed_form");
  const double nn = static_cast<double>(n);
  if (eps0 > std::log(nn / (16 * std::log(4 / delta)))) return std::nullopt;
  const double a = 8 * std::sqrt(std::exp(eps0) * std::log(4 / delta) / nn);
  const double c = 8 * std::exp(eps0) / nn;
  const double e = std::log1p(a + c);
  return std::log1p((1 - std::exp(-eps0)) / (1 + std::exp(-eps0 - e)) * (a + c));
}

namespace {

// The weighted divergence of the pair both numeric bounds reduce to (detail::ClonePair), telling
// `block_done(fraction)` (under a lock) as its blocks finish.
double clone_delta_reporting(std::uint64_t n, detail::ClonePair pair, double eps0, double eps, const std::function<void(double)>& block_done) {
  if (eps >= eps0) return 0;  // the divergence vanishes once e^eps >= a / (1 - a) = e^eps0
  const double a = std::exp(eps0) / (1 + std::exp(eps0));
  const double e_eps = std::exp(eps);
  const double ratio = (a - e_eps * (1 - a)) / (e_eps * a - (1 - a));
  const boost::math::binomial clones(static_cast<double>(n - 1), pair.clone);
  // Plain variables, not a structured binding: the lambda below captures them, which clang
  // before 16 refuses for a binding (the fuzz build uses clang).
  const detail::CountWindow window = detail::sixteen_sd(n - 1, pair.clone);
  const std::uint64_t lo = window.lo, hi = window.hi;
  // The C outside [lo, hi] contribute at most their probability (a divergence is at most 1).
  double delta = detail::mass_outside(clones, n - 1, {lo, hi});
  // Blocks of a fixed size, summed on every core, then added in block order: the number does not
  // depend on the machine. Each term is a few incomplete beta functions; at n = 10^10 there are
  // about 1.5 million.
  constexpr std::uint64_t block = 4096;
  const std::uint64_t blocks = (hi - lo) / block + 1;
  std::vector<double> partial(blocks, 0.0);
  std::mutex m;
  std::size_t finished = 0;
  parallel_for(blocks, blocks > 1 ? hardware_cores() : 1, [&](std::size_t b) {
    const std::uint64_t first = lo + b * block, last = std::min(hi, first + block - 1);
    double sum = 0;
    for (std::uint64_t c = first; c <= last; ++c) {
      const double pc = boost::math::pdf(clones, static_cast<double>(c));
      if (pc == 0) continue;
      sum += pc * divergence_given(c, a, e_eps, ratio);
    }
    partial[b] = sum;
    if (block_done) {
      const std::lock_guard lock(m);
      block_done(static_cast<double>(++finished) / static_cast<double>(blocks));
    }
  });
  for (const double x : partial) delta += x;
  return pair.weight * std::min(1.0, delta);
}

// A numeric bound's delta(n, eps0, eps), telling its blocks as they finish.
using DeltaFunction = std::function<double(std::uint64_t, double, double, const std::function<void(double)>&)>;

double fmt_delta_reporting(std::uint64_t n, double eps0, double eps, const std::function<void(double)>& block_done) {
  check(n, eps0, 0.5, "fmt_delta");
  if (!(eps >= 0)) throw std::invalid_argument("fmt_delta: epsilon must be at least 0");
  return clone_delta_reporting(n, detail::fmt_clones(eps0), eps0, eps, block_done);
}

// Given that the last user's report falls on x or x' (probability `weight`, the same under both
// inputs), the blanket reports of the others that fall there are C ~ Bin(n - 1, 2/(e^eps0 + k - 1)),
// each on x or x' with probability 1/2; given that it falls elsewhere, it has the same law under
// both inputs. Joint convexity of the divergence bounds delta by weight times the conditional one
// (detail::blanket_clones).
double blanket_delta_reporting(std::uint64_t n, double eps0, double eps, std::uint64_t k, const std::function<void(double)>& block_done) {
  check(n, eps0, 0.5, "blanket_exact_delta");
  if (!(eps >= 0)) throw std::invalid_argument("blanket_exact_delta: epsilon must be at least 0");
  if (k < 2) throw std::invalid_argument("blanket_exact_delta: k must be at least 2");
  return clone_delta_reporting(n, detail::blanket_clones(eps0, k), eps0, eps, block_done);
}

}  // namespace

double fmt_delta(std::uint64_t n, double eps0, double eps) { return fmt_delta_reporting(n, eps0, eps, {}); }

double blanket_exact_delta(std::uint64_t n, double eps0, double eps, std::uint64_t k) {
  return blanket_delta_reporting(n, eps0, eps, k, {});
}

namespace {

// A numeric bound's delta for a search, counting its evaluations for an AccountingProgress:
// `total` is the number the search expects in all.
struct Evaluations {
  const AccountingProgress& progress;
  DeltaFunction delta_of;
  std::size_t done = 0;
  double operator()(std::uint64_t n, double eps0, double eps, std::size_t total) {
    total = std::max(total, done + 1);
    std::function<void(double)> partly;
    if (progress) partly = [&](double fraction) { progress(static_cast<double>(done) + fraction, total); };
    const double delta = delta_of(n, eps0, eps, partly);
    ++done;
    if (progress) progress(static_cast<double>(done), total);
    return delta;
  }
  // The search is over: the last report is done == total, whatever was expected.
  void finish() const {
    if (progress) progress(static_cast<double>(done), done);
  }
};

// The boundary between `met` (delta at most the target there) and `unmet` (above it), to 1e-9:
// the met end of a bracket no wider. Regula falsi on g = ln(delta / target) with the Illinois
// modification (Dowell and Jarratt, BIT 1971): the end that stays put has its g halved, so both
// ends close in, superlinearly, in about a third of the evaluations of bisection. Each new point
// keeps 0.4e-9 from both ends, so one evaluation can close a bracket that is nearly closed; a
// bisection step is taken whenever the interval failed to halve over the last three steps.
// `delta_at(x)` evaluates; `g_met` is g at `met`, when known without an evaluation. Both ends
// of the closed bracket are returned: an upper bound's search keeps `met`, a lower bound's `unmet`.
struct Bracket {
  double met = 0, unmet = 0;
};
Bracket close_bracket(double met, double unmet, double target, const std::function<double(double)>& delta_at, std::optional<double> g_met,
                      std::optional<double> g_unmet) {
  const auto g = [&](double x) { return std::log(std::max(delta_at(x), 1e-300)) - std::log(target); };
  double ga = g_met ? *g_met : g(met), gb = g_unmet ? *g_unmet : g(unmet);
  int last = 0;  // +1 when met moved last, -1 when unmet did
  std::vector<double> widths;
  while (std::fabs(unmet - met) > 1e-9) {
    const double lo = std::min(met, unmet), hi = std::max(met, unmet), width = hi - lo;
    double x = met - ga * (unmet - met) / (gb - ga);
    if (!std::isfinite(x) || (widths.size() >= 3 && width > widths[widths.size() - 3] / 2)) x = (lo + hi) / 2;
    widths.push_back(width);
    x = std::clamp(x, lo + 0.4e-9, hi - 0.4e-9);
    const double gx = g(x);
    if (gx <= 0) {
      met = x;
      ga = gx;
      if (last == 1) gb /= 2;
      last = 1;
    } else {
      unmet = x;
      gb = gx;
      if (last == -1) ga /= 2;
      last = -1;
    }
  }
  return {met, unmet};
}

double threshold(double met, double unmet, double target, const std::function<double(double)>& delta_at, std::optional<double> g_met,
                 std::optional<double> g_unmet) {
  return close_bracket(met, unmet, target, delta_at, g_met, g_unmet).met;
}

// The smallest eps (to 1e-9, rounded up) whose delta is at most `delta`.
double numeric_epsilon(std::uint64_t n, double eps0, double delta, Evaluations& evaluate) {
  constexpr std::size_t expected = 12;  // evaluations a search usually takes; told while it runs
  const double at_zero = evaluate(n, eps0, 0, expected);
  if (at_zero <= delta) {
    evaluate.finish();
    return 0;
  }
  // delta(eps0) = 0 <= delta: the met end, without an evaluation.
  const double eps = threshold(eps0, 0, delta, [&](double x) { return evaluate(n, eps0, x, expected); },
                               std::log(1e-300) - std::log(delta), std::log(at_zero) - std::log(delta));
  evaluate.finish();
  return eps;
}

// The largest eps0 (to 1e-9, rounded down) whose delta at eps is at most `delta`. The search
// starts from eps (where delta is 0) and doubles 2 eps + 1 until it fails; or, given `met` (an eps0
// known to meet it) and `first_step`, from `met` by steps that double.
double numeric_local_epsilon(std::uint64_t n, double eps, double delta, Evaluations& evaluate, std::optional<double> met = {},
                             std::optional<double> first_step = {}) {
  constexpr std::size_t expected = 14;
  double lo = met.value_or(eps), step = first_step.value_or(0), hi = first_step ? lo + step : 2 * eps + 1;
  double at_lo = 0, at_hi = 0;
  while ((at_hi = evaluate(n, hi, eps, expected)) <= delta) {
    lo = hi;
    at_lo = at_hi;
    step *= 2;
    hi = first_step ? lo + step : 2 * hi;
    if (hi > 1000) {
      evaluate.finish();
      return lo;
    }
  }
  const double eps0 = threshold(lo, hi, delta, [&](double x) { return evaluate(n, x, eps, expected); },
                                std::log(std::max(at_lo, 1e-300)) - std::log(delta), std::log(at_hi) - std::log(delta));
  evaluate.finish();
  return eps0;
}

DeltaFunction blanket_of(std::uint64_t k) {
  return [k](std::uint64_t n, double eps0, double eps, const std::function<void(double)>& done) {
    return blanket_delta_reporting(n, eps0, eps, k, done);
  };
}

// The worst case over every eps0-LDP randomizer: one pair (detail::ldp_blanket_clones) for its
// delta, its searches and its PLD alike.
double ldp_blanket_reporting(std::uint64_t n, double eps0, double eps, const std::function<void(double)>& block_done) {
  check(n, eps0, 0.5, "ldp_blanket_delta");
  if (!(eps >= 0)) throw std::invalid_argument("ldp_blanket_delta: epsilon must be at least 0");
  return clone_delta_reporting(n, detail::ldp_blanket_clones(eps0), eps0, eps, block_done);
}

}  // namespace

double fmt_numeric_epsilon(std::uint64_t n, double eps0, double delta, const AccountingProgress& progress) {
  check(n, eps0, delta, "fmt_numeric_epsilon");
  Evaluations evaluate{progress, fmt_delta_reporting};
  return numeric_epsilon(n, eps0, delta, evaluate);
}

double fmt_local_epsilon(std::uint64_t n, double eps, double delta, const AccountingProgress& progress) {
  check(n, eps, delta, "fmt_local_epsilon");
  Evaluations evaluate{progress, fmt_delta_reporting};
  return numeric_local_epsilon(n, eps, delta, evaluate);
}

double blanket_exact_epsilon(std::uint64_t n, double eps0, double delta, std::uint64_t k, const AccountingProgress& progress) {
  check(n, eps0, delta, "blanket_exact_epsilon");
  if (k < 2) throw std::invalid_argument("blanket_exact_epsilon: k must be at least 2");
  Evaluations evaluate{progress, blanket_of(k)};
  return numeric_epsilon(n, eps0, delta, evaluate);
}

double blanket_exact_local_epsilon(std::uint64_t n, double eps, double delta, std::uint64_t k, const AccountingProgress& progress) {
  check(n, eps, delta, "blanket_exact_local_epsilon");
  if (k < 2) throw std::invalid_argument("blanket_exact_local_epsilon: k must be at least 2");
  Evaluations evaluate{progress, blanket_of(k)};
  return numeric_local_epsilon(n, eps, delta, evaluate);
}

// The worst case of the blanket over every eps0-LDP randomizer is binary randomized response's
// (amplification.hpp; the proof is in docs/accounting.md).
double ldp_blanket_delta(std::uint64_t n, double eps0, double eps) { return ldp_blanket_reporting(n, eps0, eps, {}); }

double ldp_blanket_epsilon(std::uint64_t n, double eps0, double delta, const AccountingProgress& progress) {
  check(n, eps0, delta, "ldp_blanket_epsilon");
  Evaluations evaluate{progress, ldp_blanket_reporting};
  return numeric_epsilon(n, eps0, delta, evaluate);
}

double ldp_blanket_local_epsilon(std::uint64_t n, double eps, double delta, const AccountingProgress& progress) {
  check(n, eps, delta, "ldp_blanket_local_epsilon");
  Evaluations evaluate{progress, ldp_blanket_reporting};
  return numeric_local_epsilon(n, eps, delta, evaluate);
}

namespace {

// Bennett's bound in closed form: E[e^{-M r}; M >= 1] = (1 - gamma + gamma e^{-r})^m - (1 - gamma)^m.
double bennett_reporting(std::uint64_t n, double eps0, double eps, std::uint64_t k, const std::function<void(double)>&) {
  check(n, eps0, 0.5, "bennett_delta");
  if (k < 2) throw std::invalid_argument("bennett_delta: k must be at least 2");
  if (!(eps >= 0)) throw std::invalid_argument("bennett_delta: epsilon must be at least 0");
  if (eps >= eps0) return 0;
  const double kk = static_cast<double>(k), m = static_cast<double>(n - 1);
  const double gamma = kk / (std::exp(eps0) + kk - 1), a = std::expm1(eps);
  const double b = gamma * (1 - std::exp(eps)) + (1 - gamma) * kk;
  const double c = gamma * (2 - gamma) * a * a + (1 - gamma) * (1 - gamma) * kk * (std::exp(2 * eps) + 1);
  if (!(b > 0) || !(c > 0) || !(a > 0)) return 1;  // outside the bound's derivation: nothing certified
  const double alpha = c / (b * b), beta = a * b / c;
  const double phi = (1 + beta) * std::log1p(beta) - beta;
  const double rate = alpha * std::max(phi, 0.0);
  const double with_zero = std::exp(m * std::log1p(-gamma * -std::expm1(-rate)));
  const double zero = gamma < 1 ? std::exp(m * std::log1p(-gamma)) : 0.0;
  const double delta = b / (gamma * m * std::log1p(beta)) * std::max(with_zero - zero, 0.0);
  return std::min(delta, 1.0);
}

}  // namespace

double bennett_delta(std::uint64_t n, double eps0, double eps, std::uint64_t k) { return bennett_reporting(n, eps0, eps, k, {}); }

double bennett_local_epsilon(std::uint64_t n, double eps, double delta, std::uint64_t k) {
  check(n, eps, delta, "bennett_local_epsilon");
  if (k < 2) throw std::invalid_argument("bennett_local_epsilon: k must be at least 2");
  const AccountingProgress none;
  Evaluations evaluate{none, [k](std::uint64_t n, double eps0, double e, const std::function<void(double)>& done) {
                         return bennett_reporting(n, eps0, e, k, done);
                       }};
  return numeric_local_epsilon(n, eps, delta, evaluate);
}

namespace {

void check_exact_all(std::uint64_t n, double eps0, double delta, const char* where) {
  check(n, eps0, delta, where);
  if (n > rr_exact_all_max_parties)
    throw std::invalid_argument(std::string(where) + ": parties = " + std::to_string(n) + " is out of range: must be at most " +
                                std::to_string(rr_exact_all_max_parties) + " (the sum over every dataset takes minutes beyond)");
}

double rr_exact_all_reporting(std::uint64_t n, double eps0, double eps, const std::function<void(double)>& block_done) {
  check_exact_all(n, eps0, 0.5, "rr_exact_all_delta");
  if (!(eps >= 0)) throw std::invalid_argument("rr_exact_all_delta: epsilon must be at least 0");
  if (eps >= eps0) return 0;  // every likelihood ratio of randomized response is within [e^-eps0, e^eps0]
  return detail::rr_exact_all_sweep(n, eps0, eps, block_done).delta;
}

}  // namespace

double rr_exact_all_delta(std::uint64_t n, double eps0, double eps) { return rr_exact_all_reporting(n, eps0, eps, {}); }

ExactAllWorstCase rr_exact_all_worst_case(std::uint64_t n, double eps0, double eps) {
  check_exact_all(n, eps0, 0.5, "rr_exact_all_worst_case");
  if (!(eps >= 0)) throw std::invalid_argument("rr_exact_all_worst_case: epsilon must be at least 0");
  const auto found = detail::rr_exact_all_sweep(n, eps0, eps, {});
  return {found.delta, found.worst_ones, found.drift};
}

double rr_exact_all_epsilon(std::uint64_t n, double eps0, double delta, const AccountingProgress& progress) {
  check_exact_all(n, eps0, delta, "rr_exact_all_epsilon");
  Evaluations evaluate{progress, rr_exact_all_reporting};
  // The answer lies between two that cost no sweep: the all-zero dataset's exact epsilon (its unmet
  // end: one dataset already exceeds delta there) and ldp-blanket's (met: that bound holds for
  // binary randomized response). The search closes that bracket, usually narrow.
  const double unmet = rr_exact_epsilon(n, eps0, delta), met = ldp_blanket_epsilon(n, eps0, delta);
  if (unmet <= 0 || met <= unmet) return numeric_epsilon(n, eps0, delta, evaluate);
  constexpr std::size_t expected = 8;
  const double eps = threshold(met, unmet, delta, [&](double x) { return evaluate(n, eps0, x, expected); }, std::nullopt, std::nullopt);
  evaluate.finish();
  return eps;
}

double rr_exact_all_local_epsilon(std::uint64_t n, double eps, double delta, const AccountingProgress& progress) {
  check_exact_all(n, eps, delta, "rr_exact_all_local_epsilon");
  // The ldp-blanket bound holds for binary randomized response, so its eps0 meets (eps, delta) under
  // the exact value too: the search starts there (a few cheap evaluations instead of many sweeps).
  const double met = ldp_blanket_local_epsilon(n, eps, delta);
  Evaluations evaluate{progress, rr_exact_all_reporting};
  return numeric_local_epsilon(n, eps, delta, evaluate, met, 0.25);
}

namespace {

// k-ary randomized response, k >= 3: every user holds x; the neighbour moves the last one to x'.
// With I = N_x, J = N_x' the counts of the two values, the likelihood ratio of the histogram is
// L = 1 + ((e^eps0 - 1) J - (1 - e^-eps0) I) / n (the other values' counts have the same
// conditional law under both datasets). Under the all-x dataset J ~ Bin(n, r), r = 1/(e^eps0 + k - 1),
// and I | J = j ~ Bin(n - j, pi), pi = e^eps0 r / (1 - r). Both directions of the divergence are
// expectations of (L - e^eps)_+ and (1 - e^eps L)_+ under that law: for each j a binomial tail and
// a partial mean (E[I; I <= m] = (n - j) pi P(Bin(n - j - 1, pi) <= m - 1)) at the one cutoff in I.
// The j beyond 16 standard deviations are left out, which only lowers the sum: still a lower bound.
double kary_rr_exact_delta(std::uint64_t n, double eps0, double eps, std::uint64_t k) {
  const double nd = static_cast<double>(n);
  const double r = 1 / (std::exp(eps0) + static_cast<double>(k) - 1);
  const double pi = std::exp(eps0) * r / (1 - r);
  const double alpha = std::expm1(eps0), beta = -std::expm1(-eps0), e_eps = std::exp(eps);
  const boost::math::binomial others(nd, r);
  const auto [lo, hi] = detail::sixteen_sd(n, r);
  // P(Bin(m, pi) <= j) and P(Bin(m, pi) >= j), 0 or 1 outside the support.
  const auto at_most = [pi](std::uint64_t m, double j) {
    if (j < 0) return 0.0;
    if (j >= static_cast<double>(m)) return 1.0;
    return boost::math::cdf(boost::math::binomial(static_cast<double>(m), pi), j);
  };
  const auto at_least = [pi](std::uint64_t m, double j) {
    if (j <= 0) return 1.0;
    if (j > static_cast<double>(m)) return 0.0;
    return boost::math::cdf(boost::math::complement(boost::math::binomial(static_cast<double>(m), pi), j - 1));
  };
  double up = 0, down = 0;
  for (std::uint64_t j = lo; j <= hi; ++j) {
    const double pj = boost::math::pdf(others, static_cast<double>(j));
    if (pj == 0) continue;
    const std::uint64_t m = n - j;  // I ~ Bin(m, pi)
    const double md = static_cast<double>(m), jd = static_cast<double>(j);
    // L > e^eps exactly when I < t = (n (1 - e^eps) + alpha j) / beta.
    const double t = (nd * (1 - e_eps) + alpha * jd) / beta;
    const double last = std::ceil(t) - 1;  // the greatest I below t
    if (last >= 0) {
      const double c = 1 + alpha * jd / nd - e_eps;
      const double mean_part = m == 0 ? 0 : md * pi * at_most(m - 1, last - 1);
      up += pj * std::max(0.0, c * at_most(m, last) - beta / nd * mean_part);
    }
    // e^eps L < 1 exactly when I > s = (n (1 - e^-eps) + alpha j) / beta.
    const double s_cut = (nd * (1 - 1 / e_eps) + alpha * jd) / beta;
    const double first = std::floor(s_cut) + 1;  // the least I above s
    if (first <= md) {
      const double d = 1 - e_eps - e_eps * alpha * jd / nd;
      const double mean_part = m == 0 ? 0 : md * pi * at_least(m - 1, first - 1);
      down += pj * std::max(0.0, d * at_least(m, first) + e_eps * beta / nd * mean_part);
    }
  }
  return std::clamp(std::max(up, down), 0.0, 1.0);
}

}  // namespace

double rr_exact_delta(std::uint64_t n, double eps0, double eps, std::uint64_t k) {
  check(n, eps0, 0.5, "rr_exact_delta");
  if (!(eps >= 0)) throw std::invalid_argument("rr_exact_delta: epsilon must be at least 0");
  if (k < 2) throw std::invalid_argument("rr_exact_delta: k must be at least 2");
  if (eps >= eps0) return 0;  // the likelihood ratio is within [e^-eps0, e^eps0]
  if (k > 2) return kary_rr_exact_delta(n, eps0, eps, k);
  const double q = 1 / (std::exp(eps0) + 1), p = 1 - q, e_eps = std::exp(eps);
  // K0(k) = q b(k-1) + p b(k) and K1(k) = p b(k-1) + q b(k), b the pmf of B ~ Bin(n - 1, q). With
  // r = b(k-1)/b(k) = (k/(n-k)) (1-q)/q rising in k, K1/K0 = (p r + q)/(q r + p) rises with it.
  const boost::math::binomial b(static_cast<double>(n - 1), q);
  const double nd = static_cast<double>(n);
  const auto at_least = [&](std::int64_t j) {  // P(B >= j)
    if (j <= 0) return 1.0;
    if (static_cast<std::uint64_t>(j) > n - 1) return 0.0;
    return boost::math::cdf(boost::math::complement(b, static_cast<double>(j - 1)));
  };
  const auto at_most = [&](std::int64_t j) {  // P(B <= j)
    if (j < 0) return 0.0;
    if (static_cast<std::uint64_t>(j) >= n - 1) return 1.0;
    return boost::math::cdf(b, static_cast<double>(j));
  };
  // K1 > e^eps K0 exactly when r > R = (e^eps p - q)/(p - e^eps q), i.e. when k > kappa.
  const double big_r = (e_eps * p - q) / (p - e_eps * q);
  const double kappa = big_r * nd * q / ((1 - q) + big_r * q);
  const auto first = static_cast<std::int64_t>(std::floor(kappa)) + 1;  // the least k above kappa
  const double upper = (p * at_least(first - 1) + q * at_least(first)) - e_eps * (q * at_least(first - 1) + p * at_least(first));
  // K0 > e^eps K1 exactly when r < 1/R, i.e. when k < kappa' (the ratio falls as r rises).
  const double kappa2 = (1 / big_r) * nd * q / ((1 - q) + q / big_r);
  const auto last = static_cast<std::int64_t>(std::ceil(kappa2)) - 1;  // the greatest k below kappa'
  const double lower = (q * at_most(last - 1) + p * at_most(last)) - e_eps * (p * at_most(last - 1) + q * at_most(last));
  return std::clamp(std::max(upper, lower), 0.0, 1.0);
}

double rr_exact_epsilon(std::uint64_t n, double eps0, double delta, std::uint64_t k) {
  check(n, eps0, delta, "rr_exact_epsilon");
  const double at_zero = rr_exact_delta(n, eps0, 0, k);
  if (at_zero <= delta) return 0;
  // delta(0) > delta >= delta(eps0) = 0. The same regula falsi as the upper bounds' searches, but
  // the unmet end is kept: rounded down, still a lower bound.
  return close_bracket(eps0, 0, delta, [&](double x) { return rr_exact_delta(n, eps0, x, k); }, std::log(1e-300) - std::log(delta),
                       std::log(at_zero) - std::log(delta))
      .unmet;
}

std::vector<AmplificationBound> amplification_bounds(std::uint64_t n, double eps0, double delta, std::uint64_t k,
                                                     const AccountingProgress& progress) {
  // Searches of about the same number of evaluations (two, or three when k > 2 gives the blanket
  // of k-ary randomized response apart from the worst case over all randomizers): each is told as
  // its share of the whole.
  const std::size_t searches = k > 2 ? 3 : (n <= rr_exact_all_max_parties ? 3 : 2);
  const auto part = [&progress, searches](std::size_t which) -> AccountingProgress {
    if (!progress) return {};
    return [&progress, which, searches](double done, std::size_t total) {
      progress(static_cast<double>(which * total) + done, searches * total);
    };
  };
  std::vector<AmplificationBound> out;
  out.push_back({"erlingsson", "Erlingsson, Feldman, Mironov, Raghunathan, Talwar, Thakurta, SODA 2019", erlingsson_epsilon(n, eps0, delta),
                 "eps0 <= 1/2, n >= 1000, delta <= 0.01"});
  out.push_back({"blanket", "Balle, Bell, Gascon, Nissim, CRYPTO 2019 (k-ary randomized response, k = " + std::to_string(k) + ")",
                 blanket_epsilon(n, eps0, delta, k), "the bound is at most 1"});
  out.push_back({"fmt-closed", "Feldman, McMillan, Talwar, FOCS 2021, closed form", fmt_closed_form(n, eps0, delta),
                 "eps0 <= ln(n / (16 ln(4/delta)))"});
  out.push_back({"fmt-numeric", "Feldman, McMillan, Talwar, FOCS 2021, numeric", fmt_numeric_epsilon(n, eps0, delta, part(0)),
                 "every eps0-LDP randomizer, every n and eps0 (the result is eps0 itself when shuffling does not help)"});
  const double exact = blanket_exact_epsilon(n, eps0, delta, k, part(1));
  out.push_back({"blanket-exact",
                 "Balle, Bell, Gascon, Nissim, CRYPTO 2019, the blanket decomposition summed exactly (k-ary randomized response, k = " +
                     std::to_string(k) + ")",
                 exact, "k-ary randomized response, every n and eps0"});
  // With k = 2 the two are one computation (the worst case is binary randomized response).
  out.push_back({"ldp-blanket",
                 "Balle, Bell, Gascon, Nissim, CRYPTO 2019, the blanket decomposition summed exactly, in its worst case over every "
                 "eps0-LDP randomizer (binary randomized response's; docs/accounting.md)",
                 k > 2 ? ldp_blanket_epsilon(n, eps0, delta, part(2)) : exact, "every eps0-LDP randomizer, every n and eps0"});
  if (k == 2 && n <= rr_exact_all_max_parties)
    out.push_back({"rr-exact-all", "the exact value for shuffled binary randomized response: the largest divergence over every dataset",
                   rr_exact_all_epsilon(n, eps0, delta, part(searches - 1)), "binary randomized response only (k = 2); not a bound but its value"});
  else
    out.push_back({"rr-exact-all", "the exact value for shuffled binary randomized response: the largest divergence over every dataset",
                   std::nullopt,
                   k != 2 ? "binary randomized response only (k = 2)"
                          : "at most " + std::to_string(rr_exact_all_max_parties) + " parties (the sum over every dataset takes minutes beyond)"});
  return out;
}

}  // namespace shufflempc
