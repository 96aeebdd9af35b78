#include "shufflempc/mixnet/threshold.hpp"

#include <sodium.h>

#include <algorithm>
#include <stdexcept>

namespace shufflempc::mixnet {

std::string ThresholdKey::check() const {
  if (threshold < 1 || threshold > shares.size() || shares.size() > max_trustees)
    return "a threshold of " + std::to_string(threshold) + " among " + std::to_string(shares.size()) + " trustees (1 <= t <= m <= " +
           std::to_string(max_trustees) + ")";
  if (commitments.size() != threshold)
    return std::to_string(commitments.size()) + " commitments for a threshold of " + std::to_string(threshold);
  for (std::size_t i = 0; i < shares.size(); ++i) {
    // Y_i = Σ_j (i + 1)^j A_j, by Horner: ((A_{t-1} (i+1) + A_{t-2}) (i+1) + ...) + A_0.
    const Scalar z = scalar_from_u64(i + 1);
    Point y = commitments.back();
    for (std::size_t j = commitments.size() - 1; j-- > 0;) y = z * y + commitments[j];
    if (y != shares[i]) return "trustee " + std::to_string(i) + "'s public share is not on the committed polynomial";
  }
  return {};
}

DealtKey deal_key(std::size_t trustees, std::size_t threshold, Rng& rng) {
  if (trustees < 1 || trustees > max_trustees)
    throw std::invalid_argument("trustees must be in [1, " + std::to_string(max_trustees) + "], got " + std::to_string(trustees));
  if (threshold < 1 || threshold > trustees)
    throw std::invalid_argument("the threshold must be in [1, " + std::to_string(trustees) + "] (the trustees), got " + std::to_string(threshold));
  std::vector<Scalar> a(threshold);
  for (auto& s : a) s = random_scalar(rng);
  DealtKey d;
  d.key.threshold = threshold;
  for (const auto& s : a) d.key.commitments.push_back(mul_base(s));
  for (std::size_t i = 0; i < trustees; ++i) {
    const Scalar z = scalar_from_u64(i + 1);
    Scalar x = a.back();
    for (std::size_t j = a.size() - 1; j-- > 0;) x = x * z + a[j];
    ElGamalKey k;
    k.secret = x;
    k.public_key = mul_base(x);
    d.key.shares.push_back(k.public_key);
    d.secrets.push_back(k);
  }
  for (auto& s : a) sodium_memzero(s.bytes.data(), s.bytes.size());
  return d;
}

std::vector<Scalar> lagrange_at_zero(std::span<const std::uint32_t> indices) {
  std::vector<Scalar> out;
  out.reserve(indices.size());
  for (std::size_t i = 0; i < indices.size(); ++i) {
    Scalar num = scalar_from_u64(1), den = scalar_from_u64(1);
    const Scalar xi = scalar_from_u64(std::uint64_t{indices[i]} + 1);
    for (std::size_t j = 0; j < indices.size(); ++j) {
      if (j == i) continue;
      if (indices[j] == indices[i]) throw std::invalid_argument("lagrange_at_zero: trustee " + std::to_string(indices[i]) + " listed twice");
      const Scalar xj = scalar_from_u64(std::uint64_t{indices[j]} + 1);
      num = num * xj;          // Π x_j
      den = den * (xj - xi);   // Π (x_j - x_i)
    }
    Scalar inv;
    if (crypto_core_ristretto255_scalar_invert(inv.bytes.data(), den.bytes.data()) != 0) throw std::logic_error("lagrange_at_zero: zero denominator");
    out.push_back(num * inv);
  }
  return out;
}

}  // namespace shufflempc::mixnet
