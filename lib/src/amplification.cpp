#include "shufflempc/amplification.hpp"

#include <boost/math/distributions/binomial.hpp>
#include <algorithm>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <vector>

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

// fmt_delta, telling `block_done(fraction)` (under a lock) as its blocks finish.
double fmt_delta_reporting(std::uint64_t n, double eps0, double eps, const std::function<void(double)>& block_done) {
  check(n, eps0, 0.5, "fmt_delta");
  if (!(eps >= 0)) throw std::invalid_argument("fmt_delta: epsilon must be at least 0");
  if (eps >= eps0) return 0;  // the divergence vanishes once e^eps >= a / (1 - a) = e^eps0
  const double a = std::exp(eps0) / (1 + std::exp(eps0));
  const double e_eps = std::exp(eps);
  const double ratio = (a - e_eps * (1 - a)) / (e_eps * a - (1 - a));
  const double q = std::exp(-eps0);
  const boost::math::binomial clones(static_cast<double>(n - 1), q);
  const double mean = static_cast<double>(n - 1) * q;
  const double sd = std::sqrt(static_cast<double>(n - 1) * q * (1 - q));
  const double lo_real = std::floor(mean - 16 * sd - 1), hi_real = std::ceil(mean + 16 * sd + 1);
  const std::uint64_t lo = lo_real <= 0 ? 0 : static_cast<std::uint64_t>(lo_real);
  const std::uint64_t hi = hi_real >= static_cast<double>(n - 1) ? n - 1 : static_cast<std::uint64_t>(hi_real);
  // The C outside [lo, hi] contribute at most their probability (a divergence is at most 1).
  double delta = 0;
  if (lo > 0) delta += boost::math::cdf(clones, static_cast<double>(lo - 1));
  if (hi < n - 1) delta += boost::math::cdf(boost::math::complement(clones, static_cast<double>(hi)));
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
  return std::min(1.0, delta);
}

}  // namespace

double fmt_delta(std::uint64_t n, double eps0, double eps) { return fmt_delta_reporting(n, eps0, eps, {}); }

namespace {

// Halvings until an interval of `width` is at most 1e-9 wide (the bisections' stopping rule).
std::size_t halvings(double width) {
  std::size_t k = 0;
  for (; width > 1e-9; width /= 2) ++k;
  return k;
}

// fmt_delta for a search, counting its evaluations for an AccountingProgress: `total` is the
// number the search expects in all.
struct Evaluations {
  const AccountingProgress& progress;
  std::size_t done = 0;
  double operator()(std::uint64_t n, double eps0, double eps, std::size_t total) {
    total = std::max(total, done + 1);
    std::function<void(double)> partly;
    if (progress) partly = [&](double fraction) { progress(static_cast<double>(done) + fraction, total); };
    const double delta = fmt_delta_reporting(n, eps0, eps, partly);
    ++done;
    if (progress) progress(static_cast<double>(done), total);
    return delta;
  }
};

}  // namespace

double fmt_numeric_epsilon(std::uint64_t n, double eps0, double delta, const AccountingProgress& progress) {
  check(n, eps0, delta, "fmt_numeric_epsilon");
  double lo = 0, hi = eps0;  // fmt_delta(hi) = 0 <= delta
  Evaluations evaluate{progress};
  const std::size_t total = 1 + halvings(hi - lo);
  if (evaluate(n, eps0, lo, total) <= delta) return 0;
  while (hi - lo > 1e-9) {
    const double mid = (lo + hi) / 2;
    (evaluate(n, eps0, mid, total) <= delta ? hi : lo) = mid;
  }
  return hi;
}

double fmt_local_epsilon(std::uint64_t n, double eps, double delta, const AccountingProgress& progress) {
  check(n, eps, delta, "fmt_local_epsilon");
  double lo = eps, hi = 2 * eps + 1;  // fmt_delta(n, lo, eps) = 0
  Evaluations evaluate{progress};
  // While bracketing: this evaluation, perhaps one more bracket, then the bisection.
  while (evaluate(n, hi, eps, evaluate.done + 2 + halvings(hi - lo)) <= delta) {
    lo = hi;
    hi *= 2;
    if (hi > 1000) return lo;
  }
  const std::size_t total = evaluate.done + halvings(hi - lo);
  while (hi - lo > 1e-9) {
    const double mid = (lo + hi) / 2;
    (evaluate(n, mid, eps, total) <= delta ? lo : hi) = mid;
  }
  return lo;
}

double rr_exact_delta(std::uint64_t n, double eps0, double eps) {
  check(n, eps0, 0.5, "rr_exact_delta");
  if (!(eps >= 0)) throw std::invalid_argument("rr_exact_delta: epsilon must be at least 0");
  if (eps >= eps0) return 0;  // the likelihood ratio is within [e^-eps0, e^eps0]
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

double rr_exact_epsilon(std::uint64_t n, double eps0, double delta) {
  check(n, eps0, delta, "rr_exact_epsilon");
  if (rr_exact_delta(n, eps0, 0) <= delta) return 0;
  double lo = 0, hi = eps0;  // delta(lo) > delta >= delta(hi) = 0
  while (hi - lo > 1e-9) {
    const double mid = (lo + hi) / 2;
    (rr_exact_delta(n, eps0, mid) <= delta ? hi : lo) = mid;
  }
  return lo;  // rounded down: still a lower bound
}

std::vector<AmplificationBound> amplification_bounds(std::uint64_t n, double eps0, double delta, std::uint64_t k,
                                                     const AccountingProgress& progress) {
  std::vector<AmplificationBound> out;
  out.push_back({"erlingsson", "Erlingsson, Feldman, Mironov, Raghunathan, Talwar, Thakurta, SODA 2019", erlingsson_epsilon(n, eps0, delta),
                 "eps0 <= 1/2, n >= 1000, delta <= 0.01"});
  out.push_back({"blanket", "Balle, Bell, Gascon, Nissim, CRYPTO 2019 (k-ary randomized response, k = " + std::to_string(k) + ")",
                 blanket_epsilon(n, eps0, delta, k), "the bound is at most 1"});
  out.push_back({"fmt-closed", "Feldman, McMillan, Talwar, FOCS 2021, closed form", fmt_closed_form(n, eps0, delta),
                 "eps0 <= ln(n / (16 ln(4/delta)))"});
  out.push_back({"fmt-numeric", "Feldman, McMillan, Talwar, FOCS 2021, numeric", fmt_numeric_epsilon(n, eps0, delta, progress),
                 "every n and eps0 (the result is eps0 itself when shuffling does not help)"});
  return out;
}

}  // namespace shufflempc
