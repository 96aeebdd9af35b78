// A t-of-m sharing of an ElGamal key among the trustees who decrypt the mixed batch: Shamir's
// sharing over Z_L (CACM 1979) with Feldman's public commitments (FOCS 1987), so that anyone can
// check that the trustees' public shares belong to one key, and any t of the m trustees decrypt.
//
// The polynomial f(z) = a_0 + a_1 z + ... + a_{t-1} z^{t-1} is drawn by a dealer; trustee i
// (0-based) holds x_i = f(i + 1) and publishes Y_i = x_i·G; the commitments are A_j = a_j·G and the
// key is Y = A_0 = f(0)·G. With t = m every trustee is needed (no coalition of fewer can decrypt);
// with t < m the batch is still decrypted when m - t trustees are gone, and any t can decrypt
// anything. (The in-process channel deals the key itself; a networked chain's servers make it with
// Pedersen's distributed key generation, mixnet/dkg.hpp, which has the same public output.)
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/mixnet/elgamal.hpp"

namespace shufflempc::mixnet {

inline constexpr std::size_t max_trustees = 64;

struct ThresholdKey {
  std::size_t threshold = 1;
  std::vector<Point> commitments;  // A_0 .. A_{t-1}; the key is A_0
  std::vector<Point> shares;       // Y_0 .. Y_{m-1}

  [[nodiscard]] const Point& key() const { return commitments.at(0); }
  // "" if 1 <= t <= m <= max_trustees and every Y_i = Σ_j (i + 1)^j A_j; otherwise what fails.
  [[nodiscard]] std::string check() const;
  friend bool operator==(const ThresholdKey&, const ThresholdKey&) = default;
};

struct DealtKey {
  ThresholdKey key;
  std::vector<ElGamalKey> secrets;  // trustee i's x_i and Y_i
};
// A fresh key shared t-of-m. Throws std::invalid_argument unless 1 <= t <= m <= max_trustees.
[[nodiscard]] DealtKey deal_key(std::size_t trustees, std::size_t threshold, Rng& rng);

// The Lagrange coefficients at 0 for the trustees `indices` (0-based, distinct; evaluation points
// index + 1): Σ λ_i f(i + 1) = f(0) for any polynomial of degree below indices.size().
[[nodiscard]] std::vector<Scalar> lagrange_at_zero(std::span<const std::uint32_t> indices);

}  // namespace shufflempc::mixnet
