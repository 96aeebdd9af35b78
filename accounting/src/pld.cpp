#include "shufflempc/accounting/pld.hpp"

#include <boost/math/distributions/binomial.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "clone_pair.hpp"
#include "shufflempc/parallel.hpp"

namespace shufflempc {
namespace {

void check_step(double step) {
  if (!(step > 0 && step <= 1)) throw std::invalid_argument("pld: step must be in (0, 1], got " + std::to_string(step));
}

// The grid index of a loss, rounded up (never down: the pessimistic direction).
std::int64_t index_up(double loss, double step) { return static_cast<std::int64_t>(std::ceil(loss / step)); }

// Masses on a grid [first, first + size), built outcome by outcome.
struct Grid {
  std::int64_t first = 0;
  std::vector<double> mass;
  double infinite = 0;
  void add(std::int64_t i, double m) {
    if (m <= 0) return;
    mass[static_cast<std::size_t>(i - first)] += m;
  }
};

// Trim: the bottom run of mass below `tail` moves up onto the first kept loss, the top run of mass
// below `tail` goes to +inf. Both pessimistic.
PrivacyLossDistribution trimmed(double step, std::int64_t offset, std::vector<double> pmf, double infinite, double tail) {
  std::size_t lo = 0, hi = pmf.size();
  double bottom = 0, top = 0;
  while (lo < hi && bottom + pmf[lo] < tail) bottom += pmf[lo++];
  while (hi > lo && top + pmf[hi - 1] < tail) top += pmf[--hi];
  if (lo == hi) {  // everything below the tail: all of it to +inf
    return {step, 0, std::vector<double>{}, std::min(1.0, infinite + bottom + top)};
  }
  std::vector<double> kept(pmf.begin() + static_cast<std::ptrdiff_t>(lo), pmf.begin() + static_cast<std::ptrdiff_t>(hi));
  kept.front() += bottom;
  return {step, offset + static_cast<std::int64_t>(lo), std::move(kept), infinite + top};
}

// P(Bin(m, 1/2) = j) for 0 <= j <= m, from log-gamma.
double half_pmf(std::uint64_t m, std::uint64_t j) {
  const double md = static_cast<double>(m), jd = static_cast<double>(j);
  return std::exp(std::lgamma(md + 1) - std::lgamma(jd + 1) - std::lgamma(md - jd + 1) - md * std::log(2.0));
}

// The loss law of the pair both numeric bounds reduce to (detail::ClonePair; amplification.cpp sums
// the same pair's delta). The outcome (c, j) with j = A + D has loss
// ln((a r + 1 - a)/((1 - a) r + a)), a = e^eps0/(e^eps0 + 1), r = b(j - 1)/b(j) = j/(c + 1 - j).
// Scaled by the pair's weight, the rest of the mass (1 - weight) at loss 0.
PrivacyLossDistribution clone_pld(std::uint64_t n, detail::ClonePair pair, double eps0, double step) {
  check_step(step);
  const double a = std::exp(eps0) / (1 + std::exp(eps0)), weight = pair.weight;
  const boost::math::binomial clones(static_cast<double>(n - 1), pair.clone);
  // Plain variables, not a structured binding: the lambda below captures them, which clang
  // before 16 refuses for a binding (the fuzz build uses clang).
  const detail::CountWindow window = detail::sixteen_sd(n - 1, pair.clone);
  const std::uint64_t lo = window.lo, hi = window.hi;
  const std::int64_t first = index_up(-eps0, step) - 1, last = index_up(eps0, step) + 1;
  const auto size = static_cast<std::size_t>(last - first + 1);
  double infinite = detail::mass_outside(clones, n - 1, {lo, hi});  // the clone counts left out
  // Blocks of clone counts, each onto its own grid, added in block order: the same masses on any
  // machine.
  constexpr std::uint64_t block = 64;
  const std::uint64_t blocks = (hi - lo) / block + 1;
  std::vector<Grid> grids(blocks);
  parallel_for(blocks, blocks > 1 ? hardware_cores() : 1, [&](std::size_t b) {
    Grid& g = grids[b];
    g.first = first;
    g.mass.assign(size, 0.0);
    const std::uint64_t c_first = lo + b * block, c_last = std::min(hi, c_first + block - 1);
    for (std::uint64_t c = c_first; c <= c_last; ++c) {
      const double pc = boost::math::pdf(clones, static_cast<double>(c));
      if (pc == 0) continue;
      // A within 16 standard deviations of c/2; the rest of A's law to +inf.
      const auto [a_lo, a_hi] = detail::sixteen_sd(c, 0.5);
      if (a_lo > 0 || a_hi < c) g.infinite += pc * detail::mass_outside(boost::math::binomial(static_cast<double>(c), 0.5), c, {a_lo, a_hi});
      // Outcome j gets A = j - 1 with D = 1 and A = j with D = 0, each when A is kept.
      for (std::uint64_t j = a_lo; j <= a_hi + 1; ++j) {
        const double b_prev = (j >= a_lo + 1 && j - 1 <= a_hi) ? half_pmf(c, j - 1) : 0;
        const double b_here = j <= a_hi ? half_pmf(c, j) : 0;
        const double p = pc * (a * b_prev + (1 - a) * b_here);
        if (p <= 0) continue;
        double loss;
        if (j == 0) loss = -eps0;
        else if (j == c + 1) loss = eps0;
        else {
          const double r = static_cast<double>(j) / static_cast<double>(c + 1 - j);
          loss = std::log((a * r + 1 - a) / ((1 - a) * r + a));
        }
        g.add(index_up(loss, step), weight * p);
      }
    }
  });
  std::vector<double> pmf(size, 0.0);
  for (const auto& g : grids) {
    for (std::size_t i = 0; i < size; ++i) pmf[i] += g.mass[i];
    infinite += g.infinite;
  }
  infinite *= weight;
  if (weight < 1) pmf[static_cast<std::size_t>(0 - first)] += 1 - weight;  // index_up(0) = 0
  return trimmed(step, first, std::move(pmf), std::min(1.0, infinite), 1e-30);
}

void check_amplification(std::uint64_t n, double eps0, const char* where) {
  if (n < 2) throw std::invalid_argument(std::string(where) + ": parties must be at least 2");
  if (!(eps0 > 0) || !std::isfinite(eps0)) throw std::invalid_argument(std::string(where) + ": epsilon0 must be a positive number");
}

}  // namespace

PrivacyLossDistribution::PrivacyLossDistribution(double step, std::int64_t offset, std::vector<double> pmf, double infinite)
    : step_(step), offset_(offset), pmf_(std::move(pmf)), infinite_(infinite) {
  check_step(step);
}

PrivacyLossDistribution PrivacyLossDistribution::from_pair(const std::vector<double>& p, const std::vector<double>& q, double step) {
  check_step(step);
  if (p.size() != q.size()) throw std::invalid_argument("pld: the two distributions must have the same outcomes");
  std::optional<std::int64_t> lo, hi;
  double infinite = 0;
  std::vector<std::pair<std::int64_t, double>> at;
  for (std::size_t o = 0; o < p.size(); ++o) {
    if (p[o] < 0 || q[o] < 0 || !std::isfinite(p[o]) || !std::isfinite(q[o]))
      throw std::invalid_argument("pld: masses must be finite and non-negative");
    if (p[o] == 0) continue;
    if (q[o] == 0) {
      infinite += p[o];
      continue;
    }
    const std::int64_t i = index_up(std::log(p[o] / q[o]), step);
    at.emplace_back(i, p[o]);
    lo = lo ? std::min(*lo, i) : i;
    hi = hi ? std::max(*hi, i) : i;
  }
  if (!lo) return {step, 0, {}, infinite};
  std::vector<double> pmf(static_cast<std::size_t>(*hi - *lo + 1), 0.0);
  for (const auto& [i, m] : at) pmf[static_cast<std::size_t>(i - *lo)] += m;
  return {step, *lo, std::move(pmf), infinite};
}

PrivacyLossDistribution PrivacyLossDistribution::compose(const PrivacyLossDistribution& other, double tail) const {
  if (other.step_ != step_) throw std::invalid_argument("pld: composed distributions must share their step");
  // P(L1 + L2 = +inf) = 1 - (1 - inf1)(1 - inf2).
  const double infinite = infinite_ + other.infinite_ - infinite_ * other.infinite_;
  if (pmf_.empty() || other.pmf_.empty()) return {step_, 0, {}, std::min(1.0, infinite)};
  // out[k] = sum_i a[i] b[k - i], the sum over the nonzero a[i] of the sparser side only: a
  // randomized-response loss has two masses tens of thousands of steps apart.
  const auto nonzeros = [](const std::vector<double>& v) {
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < v.size(); ++i)
      if (v[i] != 0) at.push_back(i);
    return at;
  };
  auto nz_this = nonzeros(pmf_), nz_other = nonzeros(other.pmf_);
  const bool this_sparser = nz_this.size() <= nz_other.size();
  const std::vector<double>& a = this_sparser ? pmf_ : other.pmf_;
  const std::vector<double>& b = this_sparser ? other.pmf_ : pmf_;
  const std::vector<std::size_t>& nz = this_sparser ? nz_this : nz_other;
  const std::size_t m = b.size(), size = pmf_.size() + other.pmf_.size() - 1;
  std::vector<double> out(size, 0.0);
  // Each output index summed on its own, in blocks on every core: the same on any machine.
  constexpr std::size_t block = 4096;
  const std::size_t blocks = (size + block - 1) / block;
  parallel_for(blocks, blocks > 1 ? hardware_cores() : 1, [&](std::size_t blk) {
    const std::size_t first = blk * block, last = std::min(size, first + block);
    for (std::size_t k = first; k < last; ++k) {
      // the nonzero i with k - m < i <= k
      auto it = std::lower_bound(nz.begin(), nz.end(), k >= m ? k - m + 1 : 0);
      double s = 0;
      for (; it != nz.end() && *it <= k; ++it) s += a[*it] * b[k - *it];
      out[k] = s;
    }
  });
  return trimmed(step_, offset_ + other.offset_, std::move(out), std::min(1.0, infinite), tail);
}

PrivacyLossDistribution PrivacyLossDistribution::self_compose(std::uint64_t rounds, double tail) const {
  if (rounds == 0) throw std::invalid_argument("pld: rounds must be at least 1");
  std::optional<PrivacyLossDistribution> result;
  PrivacyLossDistribution power = *this;
  for (std::uint64_t t = rounds;;) {
    if (t & 1) result = result ? result->compose(power, tail) : power;
    t >>= 1;
    if (t == 0) break;
    power = power.compose(power, tail);
  }
  return *result;
}

double PrivacyLossDistribution::delta(double eps) const {
  if (!(eps >= 0)) throw std::invalid_argument("pld: epsilon must be at least 0");
  double d = infinite_;
  for (std::size_t i = 0; i < pmf_.size(); ++i) {
    const double loss = step_ * static_cast<double>(offset_ + static_cast<std::int64_t>(i));
    if (loss > eps) d += pmf_[i] * -std::expm1(eps - loss);
  }
  return std::min(1.0, d);
}

double PrivacyLossDistribution::epsilon(double delta) const {
  if (!(delta > 0 && delta < 1)) throw std::invalid_argument("pld: delta must be in (0, 1)");
  if (infinite_ > delta) return std::numeric_limits<double>::infinity();
  if (this->delta(0) <= delta) return 0;
  double lo = 0, hi = std::max(0.0, max_loss());  // delta(hi) = infinite <= delta
  while (hi - lo > 1e-9) {
    const double mid = (lo + hi) / 2;
    (this->delta(mid) <= delta ? hi : lo) = mid;
  }
  return hi;
}

PrivacyLossDistribution fmt_pld(std::uint64_t n, double eps0, double step) {
  check_amplification(n, eps0, "fmt_pld");
  return clone_pld(n, detail::fmt_clones(eps0), eps0, step);
}

PrivacyLossDistribution blanket_exact_pld(std::uint64_t n, double eps0, std::uint64_t k, double step) {
  check_amplification(n, eps0, "blanket_exact_pld");
  if (k < 2) throw std::invalid_argument("blanket_exact_pld: k must be at least 2");
  return clone_pld(n, detail::blanket_clones(eps0, k), eps0, step);
}

PrivacyLossDistribution ldp_blanket_pld(std::uint64_t n, double eps0, double step) {
  check_amplification(n, eps0, "ldp_blanket_pld");
  return clone_pld(n, detail::ldp_blanket_clones(eps0), eps0, step);
}

PrivacyLossDistribution rr_pld(double eps0, double step) {
  if (!(eps0 > 0) || !std::isfinite(eps0)) throw std::invalid_argument("rr_pld: epsilon0 must be a positive number");
  const double p = std::exp(eps0) / (1 + std::exp(eps0));
  return PrivacyLossDistribution::from_pair({p, 1 - p}, {1 - p, p}, step);
}

}  // namespace shufflempc
