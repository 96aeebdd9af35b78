// Internal to the accountant (amplification.cpp, pld.cpp): the pair of distributions both numeric
// amplification bounds reduce to, and the binomial window their sums run over.
#pragma once

#include <boost/math/distributions/binomial.hpp>
#include <cmath>
#include <cstdint>

namespace shufflempc::detail {

// The counts of Bin(trials, p) within 16 standard deviations of the mean (one more each side),
// clamped to [0, trials]: what the sums keep. The law of the rest is mass_outside.
struct CountWindow {
  std::uint64_t lo = 0, hi = 0;
};

inline CountWindow sixteen_sd(std::uint64_t trials, double p) {
  const double t = static_cast<double>(trials), mean = t * p, sd = std::sqrt(t * p * (1 - p));
  const double lo = std::floor(mean - 16 * sd - 1), hi = std::ceil(mean + 16 * sd + 1);
  return {lo <= 0 ? 0 : static_cast<std::uint64_t>(lo), hi >= t ? trials : static_cast<std::uint64_t>(hi)};
}

// P(Bin(trials, p) outside the window), each tail from its own side (no 1 - x cancellation).
inline double mass_outside(const boost::math::binomial& law, std::uint64_t trials, CountWindow w) {
  double out = 0;
  if (w.lo > 0) out += boost::math::cdf(law, static_cast<double>(w.lo - 1));
  if (w.hi < trials) out += boost::math::cdf(boost::math::complement(law, static_cast<double>(w.hi)));
  return out;
}

// FMT21's pair: C ~ Bin(n - 1, clone) other users whose report could be either input's,
// A ~ Bin(C, 1/2) of them on the first, D ~ Bern(e^eps0/(e^eps0 + 1));
// P = (A + D, C - A + 1 - D), Q = (A + 1 - D, C - A + D). The bound is `weight` times its
// divergence (the rest of the mass has loss 0).
struct ClonePair {
  double clone = 0, weight = 1;
};

// Any eps0-LDP randomizer (Feldman, McMillan, Talwar, FOCS 2021).
inline ClonePair fmt_clones(double eps0) { return {std::exp(-eps0), 1.0}; }

// The privacy blanket of k-ary randomized response, given that the last report fell on x or x'
// (probability (e^eps0 + 1)/(e^eps0 + k - 1) under both inputs; docs/accounting.md).
inline ClonePair blanket_clones(double eps0, std::uint64_t k) {
  const double spread = std::exp(eps0) + static_cast<double>(k) - 1;
  return {2 / spread, (std::exp(eps0) + 1) / spread};
}

// The blanket's worst case over every eps0-LDP randomizer: binary randomized response's blanket,
// whose reports all fall on x or x' (weight 1; docs/accounting.md has the proof).
inline ClonePair ldp_blanket_clones(double eps0) { return blanket_clones(eps0, 2); }

}  // namespace shufflempc::detail
