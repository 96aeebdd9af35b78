// Shuffled binary randomized response, exactly: report the bit with probability p = e^eps0/(e^eps0 + 1),
// else its flip (q = 1 - p). The analyzer sees the count of ones. A dataset's neighbours differ in
// one user; with c ones among the other n - 1, their count is S_c = Bin(c, p) + Bin(n - 1 - c, q),
// and the count seen is K0 = S_c + Bern(q) or K1 = S_c + Bern(p). delta(eps) is the largest
// e^eps-hockey-stick divergence, both directions, over c in [0, n - 1] (one direction over every c
// is both: see divergence()).
//
// The pmf of S_c lives on a window around its mean (its variance (n - 1) p q is the same for every
// c). From c to c + 1 one user's Bern(q) becomes a Bern(p): as generating functions
// S_{c+1}(z) = S_c(z) (q + p z) / (p + q z), so
//     s'(k) = (q s(k) + p s(k - 1) - q s'(k - 1)) / p,
// a recursion whose error in s'(k - 1) is damped by q / p = e^-eps0 each step (the filter is
// all-pass: it neither grows nor shrinks an error's energy). Each block of c starts from S_c
// computed afresh as the convolution of its two binomials.
//
// What is added to delta, so that truncation errs only on the safe side (up to floating-point
// rounding, whose size the sweep reports as the window's drift |1 - sum s|): for each window edge
// that cuts the support, Bernstein's bound on the tail beyond it (e^-50 each), and a bound on the
// error that the cut tails leave inside the window (see divergence()). At the accountant's window
// this adds about 1e-16; a test narrows the windows to see it matter.
#include "rr_exact_all.hpp"

#include <boost/math/distributions/binomial.hpp>
#include <algorithm>
#include <cmath>
#include <mutex>
#include <vector>

#include "shufflempc/parallel.hpp"

namespace shufflempc::detail {
namespace {

// The half-width t at which Bernstein's inequality for a sum of independent Bernoullis of total
// variance v, P(S - mean >= t) <= exp(-t^2 / (2 (v + t / 3))), gives e^-x.
double half_width(double variance, double x) { return x / 3 + std::sqrt(x * x / 9 + 2 * x * variance); }

// The counts of a sum of Bernoullis kept, [lo, hi] within [0, top], and the bound on the mass cut.
struct Window {
  std::int64_t lo = 0, hi = 0;
  double cut = 0;
};

Window window_of(double mean, double variance, std::int64_t top, double x) {
  const double t = half_width(variance, x), lo = std::ceil(mean - t), hi = std::floor(mean + t);
  Window w;
  w.lo = lo <= 0 ? 0 : static_cast<std::int64_t>(lo);
  w.hi = hi >= static_cast<double>(top) ? top : static_cast<std::int64_t>(hi);
  w.cut = (w.lo > 0 ? std::exp(-x) : 0.0) + (w.hi < top ? std::exp(-x) : 0.0);
  return w;
}

// Bin(trials, p) on its window: the window and the pmf over it.
struct Piece {
  Window w;
  std::vector<double> pmf;
};

Piece binomial_piece(std::uint64_t trials, double p, double x) {
  Piece b;
  if (trials == 0) {
    b.pmf = {1.0};
    return b;
  }
  const double t = static_cast<double>(trials);
  b.w = window_of(t * p, t * p * (1 - p), static_cast<std::int64_t>(trials), x);
  const boost::math::binomial law(t, p);
  for (std::int64_t k = b.w.lo; k <= b.w.hi; ++k) b.pmf.push_back(boost::math::pdf(law, static_cast<double>(k)));
  return b;
}

// The pmf of S_c on a window, as the sweep carries it.
struct Counts {
  Window w;
  std::vector<double> s;  // s[i] = P(S_c = w.lo + i)
  double at(std::int64_t k) const { return k < w.lo || k > w.hi ? 0.0 : s[static_cast<std::size_t>(k - w.lo)]; }
};

struct Law {
  std::uint64_t n = 0;
  double p = 0, q = 0, variance = 0, tail_exponent = 50;
  double mean(std::uint64_t c) const { return static_cast<double>(c) * p + static_cast<double>(n - 1 - c) * q; }
  Window window(std::uint64_t c) const { return window_of(mean(c), variance, static_cast<std::int64_t>(n - 1), tail_exponent); }
};

// S_c afresh: Bin(c, p) convolved with Bin(n - 1 - c, q), kept on S_c's window. What the two
// binomials' windows leave out is missing from it: `error_l2` is set to a bound on that mass.
Counts fresh(const Law& law, std::uint64_t c, double& error_l2) {
  const Piece ones = binomial_piece(c, law.p, law.tail_exponent), zeros = binomial_piece(law.n - 1 - c, law.q, law.tail_exponent);
  error_l2 = ones.w.cut + zeros.w.cut;
  Counts out;
  out.w = law.window(c);
  out.s.assign(static_cast<std::size_t>(out.w.hi - out.w.lo + 1), 0.0);
  for (std::size_t a = 0; a < ones.pmf.size(); ++a)
    for (std::size_t b = 0; b < zeros.pmf.size(); ++b) {
      const std::int64_t k = ones.w.lo + static_cast<std::int64_t>(a) + zeros.w.lo + static_cast<std::int64_t>(b);
      if (k >= out.w.lo && k <= out.w.hi) out.s[static_cast<std::size_t>(k - out.w.lo)] += ones.pmf[a] * zeros.pmf[b];
    }
  return out;
}

// S_c to S_{c+1}: the recursion of the file's comment, run from the old window's lowest count (the
// filter is causal: nothing of S_c below it reaches S_{c+1} below it, so starting there with 0 is
// exact) to the new window's highest, then kept on the new window. With r = q/p it reads
// s'(k) = a(k) - r s'(k - 1), a(k) = r s(k) + s(k - 1); two steps at a time,
// s'(k) = (a(k) - r a(k - 1)) + r^2 s'(k - 2), two independent chains, so the processor is not
// waiting on one multiply-add after another. Each kept value is clamped at 0 (a probability:
// clamping only moves it towards the truth).
void step(const Law& law, std::uint64_t c, const Counts& from, Counts& to, std::vector<double>& scratch) {
  to.w = law.window(c + 1);
  const std::int64_t lo = from.w.lo, hi = to.w.hi;
  const auto size = static_cast<std::size_t>(hi - lo + 1);
  const double r = law.q / law.p, r2 = r * r;
  scratch.assign(size, 0.0);  // a(k) for k = lo .. hi
  for (std::int64_t k = lo; k <= hi; ++k) scratch[static_cast<std::size_t>(k - lo)] = r * from.at(k) + from.at(k - 1);
  to.s.assign(static_cast<std::size_t>(to.w.hi - to.w.lo + 1), 0.0);
  const auto keep = [&](std::int64_t k, double v) {
    if (k >= to.w.lo) to.s[static_cast<std::size_t>(k - to.w.lo)] = std::max(v, 0.0);
  };
  double even = scratch[0], odd = size > 1 ? scratch[1] - r * scratch[0] : 0.0;  // s'(lo), s'(lo + 1)
  keep(lo, even);
  if (size > 1) keep(lo + 1, odd);
  for (std::size_t i = 2; i + 1 < size; i += 2) {
    even = (scratch[i] - r * scratch[i - 1]) + r2 * even;
    odd = (scratch[i + 1] - r * scratch[i]) + r2 * odd;
    keep(lo + static_cast<std::int64_t>(i), even);
    keep(lo + static_cast<std::int64_t>(i) + 1, odd);
  }
  if (size > 2 && size % 2 == 1) keep(hi, (scratch[size - 1] - r * scratch[size - 2]) + r2 * even);
}

// The divergence D(K1 || K0) of K0 = S_c + Bern(q) and K1 = S_c + Bern(p) over the window, with
// what the window leaves out added: the mass beyond it (w.cut) and the window's own error. Of the
// error, `error_l2` bounds the Euclidean norm: the filter keeps it, dropping counts outside a
// window cannot raise it, and each step adds at most the mass its window cut; so the error's sum is
// at most sqrt(width) times it. A divergence grows by at most the mass moved, hence the additions.
// The reverse direction needs no sum of its own: relabelling the bits maps c to n - 1 - c and K1,
// K0 to n - K0, n - K1, so D(K0 || K1) at c is D(K1 || K0) at n - 1 - c, which the sweep visits.
struct Divergence {
  double value = 0, added = 0, drift = 0;
};

Divergence divergence(const Law& law, const Counts& s, double e_eps, double error_l2) {
  Divergence d;
  double sum[4] = {0, 0, 0, 0}, up[4] = {0, 0, 0, 0};  // four accumulators: independent additions
  const std::size_t size = s.s.size();
  const double* v = s.s.data();
  // k = lo + i for i = 0 .. size: s(k) = v[i] (0 at i = size), s(k - 1) = v[i - 1] (0 at i = 0).
  const auto term = [&](double now, double before) {
    const double k0 = law.p * now + law.q * before, k1 = law.q * now + law.p * before;
    return std::max(0.0, k1 - e_eps * k0);
  };
  up[0] += term(v[0], 0.0);
  std::size_t i = 1;
  for (; i + 3 < size; i += 4)
    for (std::size_t j = 0; j < 4; ++j) {
      up[j] += term(v[i + j], v[i + j - 1]);
      sum[j] += v[i + j];
    }
  for (; i < size; ++i) {
    up[0] += term(v[i], v[i - 1]);
    sum[0] += v[i];
  }
  up[0] += term(0.0, v[size - 1]);
  const double total = v[0] + (sum[0] + sum[1]) + (sum[2] + sum[3]);
  d.drift = std::fabs(1 - total);
  d.added = s.w.cut + std::sqrt(static_cast<double>(size)) * error_l2;
  d.value = (up[0] + up[1]) + (up[2] + up[3]) + d.added;
  return d;
}

}  // namespace

ExactAllDelta rr_exact_all_sweep(std::uint64_t n, double eps0, double eps, const std::function<void(double)>& block_done,
                                 std::uint64_t block, double tail_exponent) {
  Law law;
  law.n = n;
  law.tail_exponent = tail_exponent;
  law.q = 1 / (std::exp(eps0) + 1);
  law.p = 1 - law.q;
  law.variance = static_cast<double>(n - 1) * law.p * law.q;
  const double e_eps = std::exp(eps);
  const std::uint64_t blocks = (n + block - 1) / block;
  std::vector<ExactAllDelta> found(blocks);
  std::mutex m;
  std::size_t finished = 0;
  parallel_for(blocks, blocks > 1 ? hardware_cores() : 1, [&](std::size_t b) {
    const std::uint64_t first = b * block, last = std::min(n - 1, first + block - 1);
    ExactAllDelta& best = found[b];
    best.delta = -1;
    double error_l2 = 0;
    Counts s = fresh(law, first, error_l2), next;
    std::vector<double> scratch;
    for (std::uint64_t c = first;; ++c) {
      const Divergence d = divergence(law, s, e_eps, error_l2);
      best.drift = std::max(best.drift, d.drift);
      if (d.value > best.delta) best = {d.value, d.added, c, best.drift};
      if (c == last) break;
      error_l2 += s.w.cut;
      step(law, c, s, next, scratch);
      std::swap(s, next);
    }
    if (block_done) {
      const std::lock_guard lock(m);
      block_done(static_cast<double>(++finished) / static_cast<double>(blocks));
    }
  });
  // The first block with the largest delta: the same answer whatever order the blocks ran in.
  ExactAllDelta out = found.front();
  double drift = 0;
  for (const auto& f : found) {
    drift = std::max(drift, f.drift);
    if (f.delta > out.delta) out = f;
  }
  out.drift = drift;
  out.delta = std::clamp(out.delta, 0.0, 1.0);
  return out;
}

}  // namespace shufflempc::detail
