#include "search.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>

namespace shufflempc::recursive_sum {
namespace {

constexpr int grid = 20;  // the split's resolution: shares of epsilon in twentieths

class Objective {
 public:
  Objective(std::uint64_t n, double eps, double delta, std::size_t m, RrBound bound) : n_(n), eps_(eps), delta_(delta), m_(m), bound_(bound) {}

  // The MSE bound of precisions p and shares w (twentieths of eps, summing to 20); infinite where a
  // level cannot be calibrated (too few users for the closed-form blanket).
  double operator()(const std::vector<std::uint32_t>& p, const std::vector<int>& w) {
    const double nn = static_cast<double>(n_);
    double q = 1, mse = 0;
    for (std::size_t j = 0; j < p.size(); ++j) {
      if (w[j] <= 0) return std::numeric_limits<double>::infinity();
      const bool last = j + 1 == p.size();
      const double k = last ? p[j] + 1.0 : p[j];
      const auto e0 = epsilon0(static_cast<std::uint32_t>(k), w[j]);
      if (!e0) return std::numeric_limits<double>::infinity();
      const double g = k / (std::exp(*e0) + k - 1);
      q *= p[j];
      mse += level_mse(n_, g, k) / (q * q);
      if (last) mse += nn / (4 * q * q);
    }
    return mse;
  }

 private:
  // A level's score: the bound's eps0 at its share. What does not depend on k is computed once per
  // share (fmt, ldp-blanket; blanket-exact at k = 3 and the exact value at k = 2 stand for the
  // others, k-dependent and costly, so the search is a guide there and the chosen levels are then
  // calibrated in full); Bennett's and the closed-form blanket cost nothing and are computed per k.
  // tightest is scored by the largest of fmt, ldp-blanket and bennett: a lower bound on its eps0.
  std::optional<double> epsilon0(std::uint32_t k, int share) {
    const double eps = eps_ * share / grid, delta = delta_ / static_cast<double>(m_);
    const bool per_k = bound_ == RrBound::bennett || bound_ == RrBound::blanket;
    auto it = per_share_.find(per_k ? std::make_pair(k, share) : std::make_pair(0u, share));
    if (it == per_share_.end()) {
      std::optional<double> e0;
      try {
        switch (bound_) {
          case RrBound::tightest: e0 = std::max(fmt_local_epsilon(n_, eps, delta), ldp_blanket_local_epsilon(n_, eps, delta)); break;
          case RrBound::rr_exact_all: e0 = calibrate_randomized_response(n_, 2, eps, delta, bound_).epsilon0; break;
          case RrBound::bennett:
          case RrBound::blanket: e0 = calibrate_randomized_response(n_, k, eps, delta, bound_).epsilon0; break;
          default: e0 = calibrate_randomized_response(n_, 3, eps, delta, bound_).epsilon0; break;
        }
      } catch (const std::invalid_argument&) {
        // The bound does not apply here: no score.
      }
      it = per_share_.emplace(per_k ? std::make_pair(k, share) : std::make_pair(0u, share), e0).first;
    }
    if (bound_ != RrBound::tightest || !it->second) return it->second;
    const auto key = std::make_pair(k, share);
    auto b = bennett_.find(key);
    if (b == bennett_.end()) b = bennett_.emplace(key, bennett_local_epsilon(n_, eps, delta, k)).first;
    return std::max(*it->second, b->second);
  }
  std::uint64_t n_;
  double eps_, delta_;
  std::size_t m_;
  RrBound bound_;
  std::map<std::pair<std::uint32_t, int>, std::optional<double>> per_share_;
  std::map<std::pair<std::uint32_t, int>, double> bennett_;
};

// The integer in [lo, hi] minimising f, for f unimodal (ties go left).
template <class F>
std::int64_t ternary(std::int64_t lo, std::int64_t hi, F&& f) {
  while (hi - lo > 2) {
    const std::int64_t a = lo + (hi - lo) / 3, b = hi - (hi - lo) / 3;
    if (f(a) <= f(b)) hi = b - 1;
    else lo = a + 1;
  }
  std::int64_t best = lo;
  for (std::int64_t x = lo + 1; x <= hi; ++x)
    if (f(x) < f(best)) best = x;
  return best;
}

// Every way to write `grid` as m positive shares, in order (m = 2: 19; m = 3: 171; m = 4: 969).
void compositions(std::size_t m, int left, std::vector<int>& prefix, const std::function<void(const std::vector<int>&)>& visit) {
  if (prefix.size() + 1 == m) {
    prefix.push_back(left);
    visit(prefix);
    prefix.pop_back();
    return;
  }
  for (int s = 1; s <= left - static_cast<int>(m - prefix.size() - 1); ++s) {
    prefix.push_back(s);
    compositions(m, left - s, prefix, visit);
    prefix.pop_back();
  }
}

// The precisions minimising the bound for one split: coordinate descent from `start`, each precision
// by a ternary search over the integers, until a sweep changes nothing; with two levels, every p_1
// up to its cap is tried with the best p_2 for it.
std::pair<std::vector<std::uint32_t>, double> best_precisions(Objective& objective, const std::vector<std::uint32_t>& start, const std::vector<int>& w,
                                                              std::uint64_t parties) {
  const std::size_t m = start.size();
  const auto cap = [&](std::uint32_t current) {
    // Beyond 64 times a good value or n the bound only grows (the lying probability approaches 1);
    // 65535 is the largest precision a message carries.
    return std::min<std::int64_t>({max_precision, std::max<std::int64_t>(64, 64 * std::int64_t{current}),
                                   static_cast<std::int64_t>(std::max<std::uint64_t>(parties, 2))});
  };
  std::vector<std::uint32_t> p = start;
  double best = objective(p, w);
  const auto improve = [&](std::size_t j) {
    auto trial = p;
    const std::int64_t lo = m == 1 ? 1 : 2;
    const auto at = ternary(lo, cap(p[j]), [&](std::int64_t x) {
      trial[j] = static_cast<std::uint32_t>(x);
      return objective(trial, w);
    });
    trial[j] = static_cast<std::uint32_t>(at);
    if (const double v = objective(trial, w); v < best) {
      best = v;
      p = trial;
      return true;
    }
    return false;
  };
  if (m == 2) {
    const std::int64_t top = std::min<std::int64_t>(cap(p[0]), 4096);
    for (std::int64_t p1 = 2; p1 <= top; ++p1) {
      std::vector<std::uint32_t> trial{static_cast<std::uint32_t>(p1), p[1]};
      const auto at = ternary(2, cap(p[1]), [&](std::int64_t x) {
        trial[1] = static_cast<std::uint32_t>(x);
        return objective(trial, w);
      });
      trial[1] = static_cast<std::uint32_t>(at);
      if (const double v = objective(trial, w); v < best) {
        best = v;
        p = trial;
      }
    }
  }
  for (int sweep = 0; sweep < 16; ++sweep) {
    bool changed = false;
    for (std::size_t j = 0; j < m; ++j) changed = improve(j) || changed;
    if (!changed) break;
  }
  return {p, best};
}

}  // namespace

std::vector<Level> search_levels(std::uint64_t parties, double epsilon, double delta, std::size_t messages, RrBound bound) {
  Objective objective(parties, epsilon, delta, messages, bound);
  const std::vector<std::uint32_t> generic = generic_precisions(parties, epsilon, delta, messages);
  std::vector<std::uint32_t> p = generic;
  std::vector<int> w;
  double best = std::numeric_limits<double>::infinity();
  const auto consider = [&](const std::vector<int>& shares) {
    auto [q, v] = best_precisions(objective, generic, shares, parties);
    if (v < best) {
      best = v;
      p = std::move(q);
      w = shares;
    }
  };
  if (messages <= 3) {
    std::vector<int> prefix;
    compositions(messages, grid, prefix, consider);
  } else {
    // Beyond three levels the compositions are too many: equal shares, then each level's share by
    // a ternary search with the others scaled to make up the rest.
    std::vector<int> equal(messages, grid / static_cast<int>(messages));
    equal.back() += grid - equal.back() * static_cast<int>(messages);
    consider(equal);
    for (std::size_t j = 0; j < messages && !w.empty(); ++j) {
      const auto shares = [&](std::int64_t share) {
        std::vector<int> out = w;
        const int rest_before = grid - w[j], rest = grid - static_cast<int>(share);
        int given = 0;
        for (std::size_t i = 0; i < messages; ++i) {
          if (i == j) continue;
          out[i] = std::max(1, static_cast<int>(std::lround(static_cast<double>(w[i]) * rest / rest_before)));
          given += out[i];
        }
        out[j] = static_cast<int>(share);
        out[j + 1 == messages ? messages - 2 : messages - 1] += rest - given;
        return out;
      };
      consider(shares(ternary(1, grid - static_cast<std::int64_t>(messages) + 1, [&](std::int64_t s) { return objective(p, shares(s)); })));
    }
  }
  if (w.empty()) throw std::invalid_argument("parties = " + std::to_string(parties) + " is too few: no precisions can be calibrated with this bound");
  std::vector<double> split(messages);
  for (std::size_t j = 0; j < messages; ++j) split[j] = static_cast<double>(w[j]) / grid;
  return make_levels(parties, epsilon, delta, p, split, bound);
}

}  // namespace shufflempc::recursive_sum
