#include "shufflempc/accounting/privacy.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

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

DeltaReport symmetric_noise_delta(std::span<const long double> log_pmf, std::uint64_t sensitivity, double eps, long double log_tail) {
  check(eps, "symmetric_noise_delta");
  if (log_pmf.size() % 2 == 0) throw std::invalid_argument("symmetric_noise_delta: the window must have an odd size");
  if (sensitivity < 1) throw std::invalid_argument("symmetric_noise_delta: sensitivity must be at least 1");
  const auto size = static_cast<std::int64_t>(log_pmf.size());
  const auto lp = [&](std::int64_t i) { return i < 0 || i >= size ? neg_inf : log_pmf[static_cast<std::size_t>(i)]; };
  const ld e = eps;
  ld worst = 0;
  for (std::uint64_t s = 1; s <= sensitivity; ++s) {
    const auto shift = static_cast<std::int64_t>(s);
    ld sum = 0;
    for (std::int64_t i = 0; i < size + shift; ++i) {
      const ld t = log_positive_part(lp(i), lp(i - shift), e);
      if (t != neg_inf) sum += std::exp(t);
    }
    worst = std::max(worst, sum);
  }
  if (log_tail != neg_inf) worst += std::exp(log_tail);
  return {worst > 0 ? std::log(worst) : neg_inf};
}

DeltaReport discrete_laplace_delta(double scale_epsilon, double eps, std::uint64_t sensitivity) {
  check(eps, "discrete_laplace_delta");
  check(scale_epsilon, "discrete_laplace_delta (scale)");
  if (sensitivity < 1) throw std::invalid_argument("discrete_laplace_delta: sensitivity must be at least 1");
  // P(k) = c a^|k|. The privacy loss log P(k)/P(k - s) is s lambda for k <= 0, falls by 2 lambda a
  // step for 0 < k < s and is -s lambda from k = s on, so the positive terms are k <= 0 (when
  // s lambda > eps) and 0 < k < (s - eps/lambda)/2; the largest shift s = sensitivity is the worst.
  const ld lambda = scale_epsilon, a = std::exp(-lambda), c = (1 - a) / (1 + a), e = eps;
  const ld s = static_cast<ld>(sensitivity);
  ld sum = 0;
  if (s * lambda > e) sum += -std::expm1(e - s * lambda) * c / (1 - a);
  for (std::uint64_t k = 1; k < sensitivity; ++k) {
    const ld kk = static_cast<ld>(k);
    if (s - 2 * kk <= e / lambda) break;
    sum += c * (std::pow(a, kk) - std::exp(e) * std::pow(a, s - kk));
  }
  return {sum > 0 ? std::log(sum) : neg_inf};
}

double calibrate_discrete_laplace(double eps, double delta, std::uint64_t sensitivity) {
  check(eps, "calibrate_discrete_laplace");
  if (!(delta >= 0 && delta < 1)) throw std::invalid_argument("calibrate_discrete_laplace: delta must be in [0, 1)");
  if (sensitivity < 1) throw std::invalid_argument("calibrate_discrete_laplace: sensitivity must be at least 1");
  const double pure = eps / static_cast<double>(sensitivity);
  if (delta == 0) return pure;
  const ld target = std::log(static_cast<ld>(delta));
  const auto ok = [&](double lambda) { return discrete_laplace_delta(lambda, eps, sensitivity).log_delta <= target; };
  double lo = pure, hi = 2 * pure;
  while (ok(hi)) {
    lo = hi;
    hi *= 2;
  }
  while (hi / lo > 1 + 1e-9) {
    const double mid = (lo + hi) / 2;
    (ok(mid) ? lo : hi) = mid;
  }
  return lo;
}

DeltaReport polya_difference_delta(double shape, double scale_epsilon, double eps, std::uint64_t sensitivity) {
  check(eps, "polya_difference_delta");
  check(scale_epsilon, "polya_difference_delta (scale)");
  if (!(shape > 0 && shape <= 1)) throw std::invalid_argument("polya_difference_delta: shape must be in (0, 1]");
  // X, Y ~ Polya(r, a) independent, P(k) = Gamma(k + r)/(k! Gamma(r)) a^k (1 - a)^r. For r <= 1,
  // P(k + 1)/P(k) = a (k + r)/(k + 1) <= a, so P(X > K) <= P(K) a/(1 - a). Truncate X and Y at
  // K; the pairs left out carry at most twice that, added to delta whole.
  const ld r = shape;
  const ld log_a = -static_cast<ld>(scale_epsilon), log_1ma = std::log(-std::expm1(log_a)), lg_r = std::lgamma(r);
  const auto log_nb = [&](std::int64_t k) {
    const ld kk = static_cast<ld>(k);
    return std::lgamma(kk + r) - std::lgamma(kk + 1) - lg_r + kk * log_a + r * log_1ma;
  };
  constexpr std::int64_t max_k = 30000;
  const ld log_ratio_tail = log_a - log_1ma + std::log(2.0L);
  std::int64_t k_max = 1;
  while (log_nb(k_max) + log_ratio_tail > -92) {  // e^-92 < 1e-40
    if (++k_max > max_k)
      throw std::invalid_argument("polya_difference_delta: the noise is too wide to sum exactly (scale epsilon " +
                                  std::to_string(scale_epsilon) + "; at least about 3e-3 is supported)");
  }
  std::vector<double> nb(static_cast<std::size_t>(k_max) + 1);
  for (std::int64_t k = 0; k <= k_max; ++k) nb[static_cast<std::size_t>(k)] = static_cast<double>(std::exp(log_nb(k)));
  // P(D = d) = sum_j P(X = j + d) P(Y = j) for d >= 0; symmetric.
  std::vector<long double> log_pmf(2 * static_cast<std::size_t>(k_max) + 1);
  for (std::int64_t d = 0; d <= k_max; ++d) {
    long double sum = 0;
    for (std::int64_t j = 0; j + d <= k_max; ++j) sum += static_cast<long double>(nb[static_cast<std::size_t>(j + d)]) * nb[static_cast<std::size_t>(j)];
    const ld l = sum > 0 ? std::log(sum) : neg_inf;
    log_pmf[static_cast<std::size_t>(k_max + d)] = l;
    log_pmf[static_cast<std::size_t>(k_max - d)] = l;
  }
  return symmetric_noise_delta(log_pmf, sensitivity, eps, log_nb(k_max) + log_ratio_tail);
}

double randomized_response_flip(double eps) {
  check(eps, "randomized_response_flip");
  return 1.0 / (1.0 + std::exp(eps));
}

double randomized_response_epsilon(double flip) {
  if (!(flip >= 0 && flip <= 0.5)) throw std::invalid_argument("randomized_response_epsilon: the flip probability must be in [0, 1/2]");
  if (flip == 0) return std::numeric_limits<double>::infinity();
  return std::log1p(-flip) - std::log(flip);
}

}  // namespace shufflempc
