// XOR-sum: user i holds a pair (j_i, b_i), a bucket j in [0, buckets) and a bit b, and the analyzer
// estimates XS = sum over buckets j of the XOR of the bits in bucket j (docs/xor-sum.md).
//
// The lectures' lower bound says that every robust ONE-round shuffle protocol for XS has error
// Omega(sqrt n): its run can be paused after the secret half of the users and replayed with chosen
// second halves. These are the one-round protocols the attack (shufflempc/attacks/xor_sum.hpp)
// runs against, each with its best analyzer and a knob that trades error for privacy:
//
//   xor-sum-exact      P0  m shares (j, s_1..s_m), XOR s = b: the exact endpoint (error 0, the
//                          bucket parities in the clear, no privacy)
//   xor-sum-rr         P1  one message (j, b XOR Bern(p)); the analyzer debiases each bucket's
//                          parity for the number c of messages in it: q_c = (1 - (1 - 2p)^c) / 2
//   xor-sum-noise-ids  P2  (j if b = 1) and, with probability r, a noise id uniform over the
//                          buckets; bucket parities debiased with q = (1 - (1 - 2r/B)^N) / 2
//
// The error knob is alpha, the RMSE in units of sqrt(n) in the replay setting (half the users in
// buckets 0..n/2-1 and the other half in the same buckets, two messages per bucket), or the raw
// probability (flip, noise-rate). Every message has a fixed width and every user sends the same
// number of messages whatever its input (P2 sends an empty slot as the id 0xffffffff), and every
// analyzer refuses an id outside [0, buckets) or a share byte other than 0 and 1.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "shufflempc/input_spec.hpp"
#include "shufflempc/mechanism.hpp"

namespace shufflempc::xor_sum {

struct Item {
  std::uint32_t bucket = 0;
  bool bit = false;
  friend bool operator==(const Item&, const Item&) = default;
};

inline constexpr std::uint32_t max_buckets = 1u << 24;
inline constexpr std::uint32_t no_bucket = 0xffffffffu;  // P2's empty slot

// {"bucket": j, "bit": b} or [j, b]; std::invalid_argument naming the party and the range.
[[nodiscard]] Item parse_item(PartyId id, const Value& v, std::uint32_t buckets);
[[nodiscard]] Value item_value(const Item& x);
// Simulated inputs (--random-inputs forms, shufflempc/input_spec.hpp): uniform[:P] (bucket uniform,
// bit 1 with probability P, default 1/2), constant:B (every bit B, buckets uniform), buckets:K[:P]
// (the first K buckets only).
[[nodiscard]] const std::vector<InputForm>& item_forms();
struct ItemSampler {
  std::uint32_t buckets = 1;
  double p = 0.5;
  [[nodiscard]] Item operator()(Rng& rng) const;
};
[[nodiscard]] ItemSampler item_sampler(std::string_view spec, std::uint32_t buckets);
// The exact XS.
[[nodiscard]] std::int64_t exact_xor_sum(std::span<const Item> xs, std::uint32_t buckets);

// ---- calibration (docs/xor-sum.md derives each) ----
// P1: q(1-q)/(1-2q)^2 = 2 alpha^2 with q = 2p(1-p), i.e. p = (1 - (1 + 8 alpha^2)^(-1/4)) / 2.
[[nodiscard]] double rr_flip_for_alpha(double alpha);
// The probability that c messages' bits, each flipped with probability p, have the wrong XOR.
[[nodiscard]] double parity_flip(double p, std::uint64_t c);
// P2: the probability q that the noise of `parties` users flips a bucket's parity, and the rate r
// with q(1-q)/(1-2q)^2 = alpha^2 (std::invalid_argument naming alpha when r would exceed 1).
[[nodiscard]] double noise_parity_flip(double rate, std::uint64_t parties, std::uint32_t buckets);
[[nodiscard]] double noise_rate_for_alpha(double alpha, std::uint64_t parties, std::uint32_t buckets);

// What a set of messages encodes: per bucket, the XOR of its bits (P0, P1) or the parity of its
// ids (P2). For the attack this is what the frozen half G holds, so recovering more than its
// agreement with the secret is impossible (the ceiling).
using Parities = std::vector<std::uint8_t>;

// The input side the three mechanisms share (D names its `buckets`).
template <class D>
struct ItemInputs {
  using Input = Item;
  using Output = double;
  [[nodiscard]] Item parse_input(PartyId id, const Value& v) const { return parse_item(id, v, self().buckets); }
  [[nodiscard]] Item random_input(std::string_view spec, Rng& rng) const { return item_sampler(spec, self().buckets)(rng); }
  [[nodiscard]] ItemSampler input_sampler(std::string_view spec) const { return item_sampler(spec, self().buckets); }
  [[nodiscard]] Value input_value(const Item& x) const { return item_value(x); }
  [[nodiscard]] std::int64_t truth(std::span<const Item> xs) const { return exact_xor_sum(xs, self().buckets); }

 private:
  [[nodiscard]] const D& self() const { return static_cast<const D&>(*this); }
};

// P0: the exact endpoint.
struct ExactMechanism : ItemInputs<ExactMechanism> {
  std::uint32_t buckets = 1;
  std::uint32_t shares = 2;
  static constexpr std::size_t width = 5;  // u32 bucket (LE), one share byte
  [[nodiscard]] RoundShape shape() const { return RoundShape::exactly(width, Delivery::analyzer_only, shares); }
  void encode(const Item& x, Rng& rng, MessageBatch& out) const;
  // A bucket outside [0, buckets) or a bit byte other than 0 or 1 is discarded and counted.
  [[nodiscard]] bool valid(std::span<const std::uint8_t> m) const { return load_le<std::uint32_t>(m.data()) < buckets && m[4] <= 1; }
  [[nodiscard]] double analyze(const MessageBatch& shuffled, const RoundOutcome& outcome, Rng& rng) const;
  [[nodiscard]] Parities parities(const MessageBatch& messages) const;
  [[nodiscard]] Value describe() const;
};

// P1: randomized response on the bit, the bucket in the clear. The shuffle hides a party's bit
// among the other reports of its bucket only, so describe() gives the central epsilon at `delta`
// for a bucket of parties / buckets parties by the tightest bound valid for any eps0-LDP
// randomizer (ldp_blanket_epsilon, shufflempc/accounting/amplification.hpp), when that is at least 2.
struct RrMechanism : ItemInputs<RrMechanism> {
  std::uint32_t buckets = 1;
  double flip = 0;    // p
  double alpha = 0;   // what p was calibrated for (0: p given)
  std::uint64_t parties = 0;  // guaranteed submitters (for the central epsilon; 0: not reported)
  double delta = 1e-6;        // the delta the central epsilon is reported at
  static constexpr std::size_t width = 5;
  [[nodiscard]] RoundShape shape() const { return RoundShape::exactly(width, Delivery::analyzer_only, 1); }
  void encode(const Item& x, Rng& rng, MessageBatch& out) const;
  // Unbiased: sum over occupied buckets of (o_j - q_c) / (1 - 2 q_c), c the bucket's messages.
  // A bucket outside [0, buckets) or a bit byte other than 0 or 1 is discarded and counted.
  [[nodiscard]] bool valid(std::span<const std::uint8_t> m) const { return load_le<std::uint32_t>(m.data()) < buckets && m[4] <= 1; }
  [[nodiscard]] double analyze(const MessageBatch& shuffled, const RoundOutcome& outcome, Rng& rng) const;
  [[nodiscard]] Parities parities(const MessageBatch& messages) const;
  [[nodiscard]] Value describe() const;
};

// P2: ids of the one bits plus noise ids.
struct NoiseIdsMechanism : ItemInputs<NoiseIdsMechanism> {
  std::uint32_t buckets = 1;
  std::uint64_t parties = 0;  // what the rate was calibrated for (the analyzer uses the submitters)
  double rate = 0;            // r
  double alpha = 0;           // 0: r given
  static constexpr std::size_t width = 4;
  [[nodiscard]] RoundShape shape() const { return RoundShape::exactly(width, Delivery::analyzer_only, 2); }
  void encode(const Item& x, Rng& rng, MessageBatch& out) const;
  // Unbiased: sum over all buckets of (o_j - q) / (1 - 2q), q for the parties that submitted.
  // A bucket outside [0, buckets) (other than the empty slot) is discarded and counted.
  [[nodiscard]] bool valid(std::span<const std::uint8_t> m) const {
    const auto j = load_le<std::uint32_t>(m.data());
    return j == no_bucket || j < buckets;
  }
  [[nodiscard]] double analyze(const MessageBatch& shuffled, const RoundOutcome& outcome, Rng& rng) const;
  [[nodiscard]] Parities parities(const MessageBatch& messages) const;
  [[nodiscard]] Value describe() const;
};

static_assert(Mechanism<ExactMechanism> && Mechanism<RrMechanism> && Mechanism<NoiseIdsMechanism>);

}  // namespace shufflempc::xor_sum
