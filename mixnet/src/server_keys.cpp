#include "shufflempc/mixnet/server_keys.hpp"

#include <sodium.h>

#include <stdexcept>

namespace shufflempc::mixnet {
namespace {

constexpr std::string_view possession_label = "shufflempc/mixnet/possession/v1";

Scalar invert(const Scalar& s) {
  Scalar out;
  if (crypto_core_ristretto255_scalar_invert(out.bytes.data(), s.bytes.data()) != 0) throw std::logic_error("invert: zero scalar");
  return out;
}

Scalar possession_challenge(std::span<const std::uint8_t> context, const Point& key, const Point& commitment) {
  std::vector<std::uint8_t> data(context.begin(), context.end());
  data.insert(data.end(), key.bytes.begin(), key.bytes.end());
  data.insert(data.end(), commitment.bytes.begin(), commitment.bytes.end());
  return hash_to_scalar(possession_label, data);
}

std::vector<std::uint32_t> all_indices(std::size_t servers) {
  std::vector<std::uint32_t> out(servers);
  for (std::size_t i = 0; i < servers; ++i) out[i] = static_cast<std::uint32_t>(i);
  return out;
}

}  // namespace

ElGamalKey derive_key(std::span<const std::uint8_t> secret, std::string_view label) {
  ensure_sodium();
  std::array<std::uint8_t, 64> wide{};
  crypto_generichash(wide.data(), wide.size(), reinterpret_cast<const unsigned char*>(label.data()), label.size(), secret.data(),
                     secret.size());
  ElGamalKey k;
  k.secret = reduce_wide(wide);
  sodium_memzero(wide.data(), wide.size());
  k.public_key = mul_base(k.secret);
  return k;
}

std::vector<std::uint8_t> PossessionProof::to_bytes() const {
  std::vector<std::uint8_t> out(challenge.bytes.begin(), challenge.bytes.end());
  out.insert(out.end(), response.bytes.begin(), response.bytes.end());
  return out;
}

PossessionProof PossessionProof::from_bytes(std::span<const std::uint8_t> b, const std::string& what) {
  if (b.size() != bytes) throw std::invalid_argument(what + ": a proof of possession is " + std::to_string(bytes) + " bytes, got " + std::to_string(b.size()));
  PossessionProof p;
  std::copy(b.begin(), b.begin() + scalar_bytes, p.challenge.bytes.begin());
  std::copy(b.begin() + scalar_bytes, b.end(), p.response.bytes.begin());
  if (!valid_scalar(p.challenge) || !valid_scalar(p.response)) throw std::invalid_argument(what + ": a scalar of the proof of possession is not below the group order");
  return p;
}

PossessionProof prove_possession(std::span<const std::uint8_t> context, const ElGamalKey& key, Rng& rng) {
  Scalar k = random_scalar(rng);
  PossessionProof p;
  p.challenge = possession_challenge(context, key.public_key, mul_base(k));
  p.response = k + p.challenge * key.secret;
  sodium_memzero(k.bytes.data(), k.bytes.size());
  return p;
}

bool check_possession(std::span<const std::uint8_t> context, const Point& key, const PossessionProof& proof) {
  if (!valid_point(key) || key == Point{} || !valid_scalar(proof.challenge) || !valid_scalar(proof.response)) return false;
  // s·G - c·Y is the commitment exactly when s = k + c·x.
  return possession_challenge(context, key, mul_base(proof.response) - proof.challenge * key) == proof.challenge;
}

ThresholdKey combined_key(std::span<const Point> keys) {
  const std::size_t k = keys.size();
  if (k < 1 || k > max_trustees)
    throw std::invalid_argument("combined_key: 1 to " + std::to_string(max_trustees) + " keys, got " + std::to_string(k));
  const auto indices = all_indices(k);
  const auto lambda = lagrange_at_zero(indices);
  ThresholdKey t;
  t.threshold = k;
  for (std::size_t i = 0; i < k; ++i) t.shares.push_back(invert(lambda[i]) * keys[i]);
  // f(z) = Σ_i x'_i L_i(z), L_i(z) = Π_{m≠i} (z - z_m) / (z_i - z_m), z_m = m + 1; A_j = Σ_i [z^j]L_i · Y'_i.
  t.commitments.assign(k, Point{});
  for (std::size_t i = 0; i < k; ++i) {
    std::vector<Scalar> poly{scalar_from_u64(1)};  // coefficients, lowest first
    Scalar den = scalar_from_u64(1);
    const Scalar zi = scalar_from_u64(i + 1);
    for (std::size_t m = 0; m < k; ++m) {
      if (m == i) continue;
      const Scalar zm = scalar_from_u64(m + 1);
      std::vector<Scalar> next(poly.size() + 1, Scalar{});
      for (std::size_t j = 0; j < poly.size(); ++j) {
        next[j + 1] = next[j + 1] + poly[j];
        next[j] = next[j] - zm * poly[j];
      }
      poly = std::move(next);
      den = den * (zi - zm);
    }
    const Scalar inv = invert(den);
    for (std::size_t j = 0; j < k; ++j) t.commitments[j] = t.commitments[j] + (poly[j] * inv) * t.shares[i];
  }
  return t;
}

ElGamalKey combined_share(const ElGamalKey& own, std::size_t index, std::size_t servers) {
  if (index >= servers || servers > max_trustees)
    throw std::invalid_argument("combined_share: server " + std::to_string(index) + " of " + std::to_string(servers));
  const auto indices = all_indices(servers);
  const Scalar inv = invert(lagrange_at_zero(indices)[index]);
  ElGamalKey k;
  k.secret = inv * own.secret;
  k.public_key = inv * own.public_key;
  return k;
}

}  // namespace shufflempc::mixnet
