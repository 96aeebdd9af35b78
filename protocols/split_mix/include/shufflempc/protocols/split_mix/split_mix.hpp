// Split-and-mix secure summation (Ishai, Kushilevitz, Ostrovsky, Sahai, FOCS 2006), with the
// number of shares chosen by the analysis of Balle, Bell, Gascon and Nissim (docs/split-mix.md).
//
//   party i (x_i in Z_q):  y_1..y_{m-1} uniform in Z_q,  y_m = x_i - sum(y) mod q;  send y_1..y_m
//   analyzer:              S = sum of all n m messages mod q
//
// Messages are fixed width: the bytes of q, little endian. Moduli up to 2^64 take a uint64 fast
// path (ZqSmall); larger ones go through Boost.Multiprecision (ZqBig).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <variant>

#include "shufflempc/algebra.hpp"
#include "shufflempc/messages.hpp"
#include "shufflempc/random.hpp"

namespace shufflempc::split_mix {

// ---- How many shares ----

// BBGN: m = max(3, ceil((2 sigma + log2 q) / (log2 n - log2 e) + 1)), the number of messages per
// party that makes the protocol sigma-secure (views of two inputs with the same sum are within
// statistical distance 2^-sigma). Needs n >= 3 (log2 n > log2 e); throws std::invalid_argument
// naming "parties" otherwise.
[[nodiscard]] std::size_t bbgn_messages(std::uint64_t parties, double sigma, double log2_q);
// The security level the BBGN bound gives to m messages: the largest sigma with
// bbgn_messages(n, sigma, log2 q) <= m, i.e. ((m - 1)(log2 n - log2 e) - log2 q) / 2 (may be <= 0:
// no guarantee). Needs n >= 3.
[[nodiscard]] double bbgn_sigma(std::uint64_t parties, std::size_t messages, double log2_q);
// The IKOS-style count m = ceil(log2 n + sigma): the O(log n + sigma) of Ishai et al. with
// constant 1. Their constant was not retrieved; shown beside the BBGN count for scale only.
[[nodiscard]] std::size_t ikos_style_messages(std::uint64_t parties, double sigma);

// log2 of a positive big integer, accurate to double precision.
[[nodiscard]] double log2_of(const BigInt& x);

// ---- The modulus: Z_q with the fast path when q <= 2^64 ----

class Modulus {
 public:
  explicit Modulus(const BigInt& q);  // q >= 2
  [[nodiscard]] const BigInt& value() const { return q_; }
  [[nodiscard]] bool small() const { return std::holds_alternative<ZqSmall>(zq_); }
  [[nodiscard]] std::size_t width() const { return width_; }  // bytes per message
  // Whether a width()-byte little-endian message encodes an element of Z_q.
  [[nodiscard]] bool holds(std::span<const std::uint8_t> message) const;
  [[nodiscard]] double log2() const { return log2_; }

  // Appends m >= 1 additive shares of x (0 <= x < q) to `out` (width() bytes each): m - 1 uniform
  // elements and x minus their sum.
  void split(std::uint64_t x, std::size_t m, Rng& rng, MessageBatch& out) const;
  void split(const BigInt& x, std::size_t m, Rng& rng, MessageBatch& out) const;
  // The sum mod q of every message. Each message is checked to encode a value below q: a bad
  // one throws std::system_error(Errc::malformed_frame) naming its index.
  [[nodiscard]] BigInt sum(const MessageBatch& messages) const;

 private:
  BigInt q_;
  std::uint64_t q_small_ = 0;  // q when q < 2^64; 0 when q = 2^64 or q is big
  std::variant<ZqSmall, ZqBig> zq_;
  std::size_t width_ = 0;
  double log2_ = 0;
};

// ---- Configuration of one run ----

struct SumConfig {
  std::uint64_t parties = 0;
  double sigma = 40;                 // requested statistical security
  std::size_t input_bits = 32;       // inputs in [0, 2^input_bits), unless the modulus was given
  bool modulus_given = false;        // q = 2^modulus_bits given by the user: the output is mod q
  Modulus modulus{BigInt(2)};        // Z_q; modulus.value() is q
  std::size_t messages = 0;          // m in use
  std::size_t messages_bbgn = 0;     // the BBGN formula's m for (n, sigma, q)
  std::size_t messages_ikos = 0;     // the IKOS-style count, for scale
  double sigma_guaranteed = 0;       // what the BBGN bound gives to the m in use
  bool below_formula = false;        // m < messages_bbgn, accepted through the explicit flag
};

// q: 2^modulus_bits when modulus_bits > 0 (inputs are then any element of Z_q and the output is
// the sum mod q), else n 2^input_bits, which exceeds every possible sum n (2^input_bits - 1) (the
// modulus of the BBGN paper's example). messages = 0 picks the BBGN count; a smaller
// count is refused (std::invalid_argument naming "messages") unless accept_input_leakage.
[[nodiscard]] SumConfig configure_sum(std::uint64_t parties, double sigma, std::size_t input_bits,
                                      std::size_t modulus_bits, std::size_t messages, bool accept_input_leakage);

}  // namespace shufflempc::split_mix
