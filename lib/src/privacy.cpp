#include "shufflempc/privacy.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace shufflempc {
namespace {

using ld = long double;
constexpr ld neg_inf = -std::numeric_limits<ld>::infinity();

ld log_add(ld a, ld b) {
  if (a == neg_inf) return b;
  if (b == neg_inf) return a;
  if (a < b) std::swap(a, b);
  return a + std::log1p(std::exp(b - a));
}

struct LogBinomial {
  std::uint64_t n;
  ld log_p, log_q, log_n_fact;
  LogBinomial(std::uint64_t n_, double p) : n(n_) {
    log_p = std::log(static_cast<ld>(p));
    log_q = std::log1p(-static_cast<ld>(p));
    log_n_fact = std::lgamma(static_cast<ld>(n) + 1);
  }
  // log P(k); -inf outside [0, n]
  ld operator()(std::int64_t k) const {
    if (k < 0 || static_cast<std::uint64_t>(k) > n) return neg_inf;
    const ld kk = static_cast<ld>(k);
    const ld rest = static_cast<ld>(n - static_cast<std::uint64_t>(k));
    return log_n_fact - std::lgamma(kk + 1) - std::lgamma(rest + 1) + kk * log_p + rest * log_q;
  }
};

// log [a - e^eps b]_+ for logs la, lb; -inf when non-positive.
ld log_positive_part(ld la, ld lb, ld eps) {
  if (la == neg_inf) return neg_inf;
  if (lb == neg_inf) return la;
  const ld d = lb + eps - la;  // log(e^eps b / a)
  if (d >= 0) return neg_inf;
  return la + std::log(-std::expm1(d));
}

void check(double eps, const char* where) {
  if (!(eps > 0) || !std::isfinite(eps))
    throw std::invalid_argument(std::string(where) + ": epsilon must be a positive number");
}

}  // namespace

double DeltaReport::delta() const { return static_cast<double>(std::exp(log_delta)); }
double DeltaReport::log10_delta() const { return static_cast<double>(log_delta / std::log(10.0L)); }

DeltaReport binomial_noise_delta(std::uint64_t n, double p, double eps) {
  check(eps, "binomial_noise_delta");
  if (!(p > 0 && p < 1)) throw std::invalid_argument("binomial_noise_delta: p must be in (0, 1)");
  if (n == 0) return {0.0L};
  const LogBinomial lp(n, p);
  const ld e = eps;
  // Ratio P(k)/P(k-1) = (n-k+1) p / (k (1-p)) decreases in k.
  // Sum 1: terms [P(k) - e^eps P(k-1)]_+ are positive exactly on a prefix of k = 0, 1, ...
  ld sum1 = neg_inf;
  for (std::int64_t k = 0; k <= static_cast<std::int64_t>(n) + 1; ++k) {
    const ld t = log_positive_part(lp(k), lp(k - 1), e);
    if (t == neg_inf && k > 0) break;
    sum1 = log_add(sum1, t);
  }
  // Sum 2: terms [P(k-1) - e^eps P(k)]_+ are positive exactly on a suffix; walk it upwards from
  // its start. Past the start every P(j)/P(j-1) < e^-eps, so the rest of the sum is at most
  // P(k-1) / (1 - e^-eps): stop once that is below 1e-40 of the sum.
  // Start: smallest k with (n-k+1)p / (k(1-p)) < e^-eps  <=>  k > (n+1)p / (p + (1-p)e^-eps).
  const ld start_real = (static_cast<ld>(n) + 1) * p / (p + (1 - static_cast<ld>(p)) * std::exp(-e));
  std::int64_t k = static_cast<std::int64_t>(std::floor(start_real));
  if (k < 1) k = 1;
  // Step back a little in case of rounding; non-positive terms contribute nothing.
  k = std::max<std::int64_t>(1, k - 2);
  ld sum2 = neg_inf;
  const ld tail_factor = -std::log(-std::expm1(-e));  // log 1/(1 - e^-eps)
  for (; k <= static_cast<std::int64_t>(n) + 1; ++k) {
    const ld prev = lp(k - 1);
    sum2 = log_add(sum2, log_positive_part(prev, lp(k), e));
    if (sum2 != neg_inf && prev + tail_factor < sum2 - 92) break;  // e^-92 < 1e-40
  }
  return {std::max(sum1, sum2)};
}

double lecture_noise_rate(std::uint64_t n, double eps, double delta) {
  return 48.0 * std::log(2.0 / delta) / (eps * eps * static_cast<double>(n));
}

double calibrate_binomial_p(std::uint64_t n, double eps, double delta) {
  check(eps, "calibrate_binomial_p");
  if (!(delta > 0 && delta < 1)) throw std::invalid_argument("calibrate_binomial_p: delta must be in (0, 1)");
  const ld target = std::log(static_cast<ld>(delta));
  const auto ok = [&](double p) { return binomial_noise_delta(n, p, eps).log_delta <= target; };
  double hi = 0.5;
  if (!ok(hi))
    throw std::invalid_argument("no noise rate p <= 1/2 makes " + std::to_string(n) +
                                " parties (epsilon, delta)-DP: use more parties or a larger epsilon or delta");
  double lo = std::min(hi, 1.0 / (static_cast<double>(n) * 1e6));
  if (ok(lo)) return lo;
  // Bisect in log space: lo fails, hi meets.
  while (hi / lo > 1 + 1e-6) {
    const double mid = std::sqrt(lo * hi);
    (ok(mid) ? hi : lo) = mid;
  }
  return hi;
}

double randomized_response_flip(double eps) {
  check(eps, "randomized_response_flip");
  return 1.0 / (1.0 + std::exp(eps));
}

}  // namespace shufflempc
