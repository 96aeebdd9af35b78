// Privacy-loss distributions: the curve delta(eps) of a mechanism as the law of its privacy loss,
// and composition over T rounds by convolution (Koskela, Jälkö, Honkela, AISTATS 2020; Doroshenko,
// Ghazi, Kamath, Kumar, Manurangsi, "Connect the dots", PETS 2022, the method of Google's
// dp_accounting). docs/accounting.md has the derivation.
//
// A pair of distributions (P, Q) on the same outcomes has privacy loss L = ln(P(o)/Q(o)) for o ~ P,
// and delta(eps) = D_{e^eps}(P || Q) = E_P[(1 - e^(eps - L))_+] (+ the mass of P where Q is 0).
// The composition of T mechanisms whose pairs dominate theirs is dominated by the product pair,
// whose loss is the sum of independent losses: the pmfs convolve.
//
// Every step here is PESSIMISTIC, so each delta printed is an upper bound for the pair:
//   - each loss is rounded UP to the grid of width `step` (as if Q were smaller at that outcome);
//   - mass that is dropped (binomial tails, the top tail after a convolution) goes to loss +inf,
//     that is, counts in delta whole; the bottom tail is moved up to the first kept loss.
// Delta at eps is therefore at most the true delta at eps - T step, plus the mass set aside.
#pragma once

#include <cstdint>
#include <vector>

namespace shufflempc {

class PrivacyLossDistribution {
 public:
  // Losses on the grid step * (offset + i), masses pmf[i]; `infinite` the mass at +inf. The masses
  // and `infinite` sum to 1 (to rounding).
  PrivacyLossDistribution(double step, std::int64_t offset, std::vector<double> pmf, double infinite);

  // The pair (P, Q) given outcome by outcome (P(o), Q(o)); Q(o) = 0 with P(o) > 0 is loss +inf.
  // Throws std::invalid_argument for a step outside (0, 1], sizes that differ, negative masses.
  [[nodiscard]] static PrivacyLossDistribution from_pair(const std::vector<double>& p, const std::vector<double>& q, double step);

  [[nodiscard]] double step() const { return step_; }
  [[nodiscard]] std::int64_t offset() const { return offset_; }
  [[nodiscard]] const std::vector<double>& pmf() const { return pmf_; }
  [[nodiscard]] double infinite_mass() const { return infinite_; }
  [[nodiscard]] double min_loss() const { return step_ * static_cast<double>(offset_); }
  [[nodiscard]] double max_loss() const { return step_ * static_cast<double>(offset_ + static_cast<std::int64_t>(pmf_.size()) - 1); }

  // The loss of this mechanism and then the other's (same step): the pmfs convolved, top tail of
  // mass below `tail` set to +inf, bottom tail of mass below it moved up to the first kept loss.
  [[nodiscard]] PrivacyLossDistribution compose(const PrivacyLossDistribution& other, double tail = 1e-30) const;
  // T rounds of this mechanism (T >= 1), by repeated squaring.
  [[nodiscard]] PrivacyLossDistribution self_compose(std::uint64_t rounds, double tail = 1e-30) const;

  // delta(eps) = infinite + sum_i pmf[i] (1 - e^(eps - loss_i))_+, for eps >= 0.
  [[nodiscard]] double delta(double eps) const;
  // The smallest eps >= 0 (to 1e-9, rounded up) with delta(eps) <= delta; +inf when even the
  // largest finite loss leaves more than delta (the mass at +inf exceeds it).
  [[nodiscard]] double epsilon(double delta) const;

 private:
  double step_;
  std::int64_t offset_;
  std::vector<double> pmf_;
  double infinite_;
};

// The dominating pairs of the amplification bounds (amplification.hpp), as loss distributions:
//   fmt_pld            FMT21's pair for n users of any eps0-LDP randomizer (clones Bin(n - 1, e^-eps0))
//   blanket_exact_pld  the privacy blanket of k-ary randomized response: with probability
//                      (e^eps0 + 1)/(e^eps0 + k - 1) the same pair with clones Bin(n - 1, 2/(e^eps0 + k - 1)),
//                      else loss 0
//   ldp_blanket_pld    the blanket's worst case over every eps0-LDP randomizer: blanket_exact_pld with
//                      k = 2 (binary randomized response), which dominates every such randomizer's
//                      blanket at every eps (docs/accounting.md)
//   rr_pld             one report of binary randomized response, eps0-LDP: losses +eps0 and -eps0
// The clone counts beyond 16 standard deviations, and within each the counts beyond 16 standard
// deviations of Bin(c, 1/2), go to +inf. Both pairs are symmetric (a reflection swaps P and Q), so
// one direction is the curve. Throws std::invalid_argument as the amplification functions do.
[[nodiscard]] PrivacyLossDistribution fmt_pld(std::uint64_t n, double eps0, double step = 1e-4);
[[nodiscard]] PrivacyLossDistribution blanket_exact_pld(std::uint64_t n, double eps0, std::uint64_t k = 2, double step = 1e-4);
[[nodiscard]] PrivacyLossDistribution ldp_blanket_pld(std::uint64_t n, double eps0, double step = 1e-4);
[[nodiscard]] PrivacyLossDistribution rr_pld(double eps0, double step = 1e-4);

}  // namespace shufflempc
