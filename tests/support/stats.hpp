// Statistical helpers for tests. Every bound is a quantile at false-failure probability `alpha`
// (default 1e-10 per check, so a correct implementation fails a check with probability < 1e-9
// even when a test makes several).
#pragma once

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

namespace shufflempc::test {

inline constexpr double alpha = 1e-10;

// Upper critical value of chi-square with `dof` degrees of freedom at tail probability `a`.
inline double chi2_critical(double dof, double a = alpha) {
  boost::math::chi_squared d(dof);
  return boost::math::quantile(boost::math::complement(d, a));
}
inline double chi2_lower(double dof, double a = alpha) {
  boost::math::chi_squared d(dof);
  return boost::math::quantile(d, a);
}

// Pearson's statistic of observed counts against expected probabilities. Cells whose expected count
// is below 5 are merged into a single cell so that the chi-square approximation holds.
struct ChiSquare {
  double statistic = 0;
  double dof = 0;
  [[nodiscard]] bool passes(double a = alpha) const { return statistic <= chi2_critical(dof, a); }
};
inline ChiSquare chi_square(const std::vector<std::uint64_t>& observed, const std::vector<double>& probabilities) {
  if (observed.size() != probabilities.size()) throw std::invalid_argument("chi_square: size mismatch");
  double total = 0;
  for (auto o : observed) total += static_cast<double>(o);
  ChiSquare r;
  double merged_obs = 0, merged_exp = 0;
  std::size_t cells = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    const double e = probabilities[i] * total;
    if (e < 5) {
      merged_obs += static_cast<double>(observed[i]);
      merged_exp += e;
      continue;
    }
    const double diff = static_cast<double>(observed[i]) - e;
    r.statistic += diff * diff / e;
    ++cells;
  }
  if (merged_exp > 0) {
    const double diff = merged_obs - merged_exp;
    r.statistic += diff * diff / std::max(merged_exp, 1e-300);
    ++cells;
  }
  r.dof = static_cast<double>(cells) - 1;
  return r;
}

// Two-sided acceptance interval for a Binomial(n, p) count at total tail probability `a`.
struct Interval {
  double lo, hi;
  [[nodiscard]] bool contains(double x) const { return x >= lo && x <= hi; }
};
inline Interval binomial_interval(std::uint64_t n, double p, double a = alpha) {
  boost::math::binomial d(static_cast<double>(n), p);
  using namespace boost::math::policies;
  return {std::floor(boost::math::quantile(d, a / 2)), std::ceil(boost::math::quantile(boost::math::complement(d, a / 2)))};
}

// z such that P(|N(0,1)| > z) = a.
inline double normal_z(double a = alpha) {
  boost::math::normal d;
  return boost::math::quantile(boost::math::complement(d, a / 2));
}

// T trials of N(0, sigma^2) errors: T mse / sigma^2 is chi-square with T degrees of freedom, so
// rmse / sigma lies within these bounds except with probability 1e-9 (5e-10 a side).
inline std::pair<double, double> rmse_ratio_bounds(std::size_t trials) {
  const boost::math::chi_squared chi(static_cast<double>(trials));
  const auto t = static_cast<double>(trials);
  return {std::sqrt(boost::math::quantile(chi, 5e-10) / t), std::sqrt(boost::math::quantile(boost::math::complement(chi, 5e-10)) / t)};
}

}  // namespace shufflempc::test
