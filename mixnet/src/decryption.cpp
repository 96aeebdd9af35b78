#include "shufflempc/mixnet/decryption.hpp"

#include <sodium.h>

#include <array>
#include <stdexcept>

#include "shufflempc/error.hpp"
#include "shufflempc/mixnet/detail/edwards.hpp"
#include "detail.hpp"

namespace shufflempc::mixnet {
namespace {

std::vector<std::uint8_t> share_prefix(const ProofContext& context, std::uint32_t trustee, const Point& public_key) {
  auto prefix = context.to_bytes();
  std::uint8_t t[4];
  store_le(t, trustee);
  prefix.insert(prefix.end(), t, t + 4);
  prefix.insert(prefix.end(), public_key.bytes.begin(), public_key.bytes.end());
  return prefix;
}

// What the weights and the challenge hash: BLAKE2b-512 of the prefix, the count, every c1, every share.
std::array<std::uint8_t, 64> share_seed(const std::vector<std::uint8_t>& prefix, std::span<const Ciphertext> all, std::span<const Point> shares) {
  std::vector<std::uint8_t> in = prefix;
  in.reserve(prefix.size() + 8 + 2 * point_bytes * all.size());
  std::uint8_t count[8];
  store_le(count, std::uint64_t{all.size()});
  in.insert(in.end(), count, count + 8);
  for (const auto& c : all) in.insert(in.end(), c.c1.bytes.begin(), c.c1.bytes.end());
  for (const auto& d : shares) in.insert(in.end(), d.bytes.begin(), d.bytes.end());
  return wide_hash("shufflempc/mixnet/decryption/seed", in);
}

// z_i: the first 16 bytes of BLAKE2b-512 over the seed and i, a 128-bit little-endian integer.
std::vector<Scalar> share_weights(const std::array<std::uint8_t, 64>& seed, std::size_t n, unsigned threads) {
  std::vector<Scalar> z(n);
  parallel_for(n, threads, [&](std::size_t i) {
    std::uint8_t in[72];
    std::copy(seed.begin(), seed.end(), in);
    store_le(in + 64, std::uint64_t{i});
    const auto h = wide_hash("shufflempc/mixnet/decryption/weight", in);
    std::copy_n(h.begin(), 16, z[i].bytes.begin());
  });
  return z;
}

Scalar share_challenge(const std::array<std::uint8_t, 64>& seed, const Point& a, const Point& b) {
  std::vector<std::uint8_t> in(seed.begin(), seed.end());
  for (const Point* p : {&a, &b}) in.insert(in.end(), p->bytes.begin(), p->bytes.end());
  return hash_to_scalar("shufflempc/mixnet/decryption/challenge", in);
}

// Σ z_i·points[i] with the points decoded; false if one does not decode.
bool weighted_sum(std::span<const Scalar> z, std::span<const Point> points, unsigned threads, Point& out) {
  std::vector<edwards::Niels> q(points.size());
  detail::FirstFailure bad(points.size());
  parallel_for(points.size(), threads, [&](std::size_t i) {
    if (!edwards::decode(points[i], q[i])) bad.note(i);
  });
  if (bad.any()) return false;
  out = edwards::encode(edwards::msm_public(z, q, threads));
  return true;
}

// |v| and its sign if the scalar v, read as an integer modulo L, is within 2^16 of 0 (v or L - v
// below 2^16): the Lagrange coefficients of the trustees 0 .. t-1 are ±binomial(t, i), which are.
struct Small {
  bool fits = false, negative = false;
  std::uint32_t magnitude = 0;
};
Small small_scalar(const Scalar& v) {
  const auto below = [](const Scalar& s) {
    for (std::size_t i = 2; i < scalar_bytes; ++i)
      if (s.bytes[i] != 0) return false;
    return true;
  };
  const auto value = [](const Scalar& s) { return static_cast<std::uint32_t>(s.bytes[0] | (s.bytes[1] << 8)); };
  if (below(v)) return {true, false, value(v)};
  if (const Scalar m = -v; below(m)) return {true, true, value(m)};
  return {};
}

// m·q for a public m < 2^16, by doubling and adding (variable time: m is public).
edwards::Ext small_multiple(std::uint32_t m, const edwards::Niels& q) {
  edwards::Ext acc = edwards::identity();
  for (int bit = 15; bit >= 0; --bit) {
    acc = edwards::dbl(acc);
    if ((m >> bit) & 1) acc = edwards::add(acc, q);
  }
  return acc;
}

std::vector<Point> c1_of(std::span<const Ciphertext> all) {
  std::vector<Point> c1(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) c1[i] = all[i].c1;
  return c1;
}

}  // namespace

Point RoundKey::key() const { return analyzer ? servers.key() + *analyzer : servers.key(); }

std::string RoundKey::check() const {
  if (auto fault = servers.check(); !fault.empty()) return "the servers' key: " + fault;
  if (analyzer && (*analyzer == Point{} || !valid_point(*analyzer))) return "the analyzer's key is not a canonical point other than the identity";
  return {};
}

CiphertextBatch strip_shares(const CiphertextBatch& batch, const DecryptionShares& shares, unsigned threads) {
  const auto all = batch.all();
  if (shares.shares.size() != all.size())
    throw std::invalid_argument("strip_shares: " + std::to_string(shares.shares.size()) + " shares for " + std::to_string(all.size()) + " ciphertexts");
  CiphertextBatch out = batch;
  detail::FirstFailure bad(batch.size());
  parallel_for(batch.size(), threads, [&](std::size_t i) {
    for (std::size_t j = 0; j < batch.limbs(); ++j) {
      edwards::Ext c2;
      edwards::Niels d;
      if (!edwards::decode(batch.at(i, j).c2, c2) || !edwards::decode(shares.shares[i * batch.limbs() + j], d)) return bad.note(i);
      out.at(i, j).c2 = edwards::encode(edwards::add(c2, edwards::negate(d)));
    }
  });
  if (bad.any()) throw std::invalid_argument("strip_shares: record " + std::to_string(bad.index()) + " holds a point that is not canonical");
  return out;
}

std::vector<std::uint8_t> DecryptionShares::to_bytes() const {
  std::vector<std::uint8_t> out;
  out.reserve(size_bytes(shares.size()));
  for (const Point& d : shares) out.insert(out.end(), d.bytes.begin(), d.bytes.end());
  for (const Point* p : {&commit_g, &commit_c}) out.insert(out.end(), p->bytes.begin(), p->bytes.end());
  out.insert(out.end(), response.bytes.begin(), response.bytes.end());
  return out;
}

DecryptionShares DecryptionShares::from_bytes(std::size_t count, std::span<const std::uint8_t> bytes, const std::string& what) {
  if (bytes.size() != size_bytes(count))
    throw std::invalid_argument(what + ": " + std::to_string(bytes.size()) + " bytes, " + std::to_string(count) + " shares and their proof have " +
                                std::to_string(size_bytes(count)));
  DecryptionShares s;
  s.shares.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    std::copy_n(bytes.data() + i * point_bytes, point_bytes, s.shares[i].bytes.begin());
    if (!valid_point(s.shares[i])) throw std::invalid_argument(what + ": share " + std::to_string(i) + " is not a canonical point");
  }
  const auto* at = bytes.data() + count * point_bytes;
  std::copy_n(at, point_bytes, s.commit_g.bytes.begin());
  std::copy_n(at + point_bytes, point_bytes, s.commit_c.bytes.begin());
  std::copy_n(at + 2 * point_bytes, scalar_bytes, s.response.bytes.begin());
  if (!valid_point(s.commit_g) || !valid_point(s.commit_c) || !valid_scalar(s.response))
    throw std::invalid_argument(what + ": the proof is not two canonical points and a scalar below the group order");
  return s;
}

DecryptionShares decryption_shares(const ProofContext& context, std::uint32_t trustee, const ElGamalKey& key, const CiphertextBatch& batch,
                                   Rng& rng, unsigned threads) {
  const auto all = batch.all();
  DecryptionShares s;
  s.shares.resize(all.size());
  parallel_for(all.size(), threads, [&](std::size_t i) { s.shares[i] = key.secret * all[i].c1; });
  const auto seed = share_seed(share_prefix(context, trustee, key.public_key), all, s.shares);
  Point c;
  if (!weighted_sum(share_weights(seed, all.size(), threads), c1_of(all), threads, c))
    throw std::invalid_argument("decryption_shares: the batch holds a point that is not canonical");
  Scalar w = random_scalar(rng);
  s.commit_g = mul_base(w);
  s.commit_c = w * c;
  s.response = w + share_challenge(seed, s.commit_g, s.commit_c) * key.secret;
  sodium_memzero(w.bytes.data(), scalar_bytes);
  return s;
}

std::string check_decryption_shares(const ProofContext& context, std::uint32_t trustee, const Point& public_key, const CiphertextBatch& batch,
                                    const DecryptionShares& s, unsigned threads) {
  const auto all = batch.all();
  if (s.shares.size() != all.size()) return std::to_string(s.shares.size()) + " shares for " + std::to_string(all.size()) + " limb ciphertexts";
  const auto seed = share_seed(share_prefix(context, trustee, public_key), all, s.shares);
  const auto z = share_weights(seed, all.size(), threads);
  Point c, d;
  if (!weighted_sum(z, c1_of(all), threads, c) || !weighted_sum(z, s.shares, threads, d)) return "a ciphertext or a share is not a canonical point";
  const Scalar e = share_challenge(seed, s.commit_g, s.commit_c);
  if (mul_base(s.response) != s.commit_g + e * public_key || s.response * c != s.commit_c + e * d)
    return "the shares are not proved (Chaum–Pedersen over their weighted sum: a share is not the trustee's key times its c1, or the proof is not for these shares)";
  return {};
}

MessageBatch combine_decryption(const CiphertextBatch& batch, std::span<const DecryptionShares> shares, std::span<const std::uint32_t> trustees,
                                std::size_t width, unsigned threads, std::size_t* undecodable) {
  const std::size_t limbs = batch.limbs();
  if (limbs != limbs_for(width)) throw std::invalid_argument("combine_decryption: records of " + std::to_string(limbs) + " limbs, width " + std::to_string(width));
  if (shares.size() != trustees.size()) throw std::invalid_argument("combine_decryption: one trustee index per trustee's shares");
  for (const auto& t : shares)
    if (t.shares.size() != batch.all().size()) throw std::invalid_argument("combine_decryption: a trustee's shares do not cover the batch");
  const std::vector<Scalar> lambda = lagrange_at_zero(trustees);
  const Scalar one = scalar_from_u64(1);
  const bool plain = shares.size() == 1 && lambda[0] == one;  // one trustee, as in ESA mode: M = c2 - d
  std::vector<Scalar> minus_lambda(lambda.size());
  std::vector<Small> small(lambda.size());
  bool all_small = true;
  for (std::size_t k = 0; k < lambda.size(); ++k) {
    minus_lambda[k] = -lambda[k];
    small[k] = small_scalar(minus_lambda[k]);
    all_small = all_small && small[k].fits;
  }
  MessageBatch out(width, batch.size());
  detail::FirstFailure bad(batch.size());
  std::vector<char> decoded(batch.size(), 1);
  parallel_for(batch.size(), threads, [&](std::size_t i) {
    std::vector<Point> m(limbs);
    std::vector<edwards::Niels> d(shares.size());
    for (std::size_t j = 0; j < limbs; ++j) {
      const std::size_t at = i * limbs + j;
      if (plain) {
        m[j] = batch.at(i, j).c2 - shares[0].shares[at];
        continue;
      }
      edwards::Ext c2;
      bool ok = edwards::decode(batch.at(i, j).c2, c2);
      for (std::size_t k = 0; k < shares.size(); ++k) ok = edwards::decode(shares[k].shares[at], d[k]) && ok;
      if (!ok) return bad.note(i), void(decoded[i] = 0);  // not canonical: refused before, never here
      if (all_small) {  // the trustees 0 .. t-1, as when every server of the chain decrypts: a few additions a share
        edwards::Ext acc = c2;
        for (std::size_t k = 0; k < shares.size(); ++k)
          acc = edwards::add(acc, edwards::to_cached(small_multiple(small[k].magnitude, small[k].negative ? edwards::negate(d[k]) : d[k])));
        m[j] = edwards::encode(acc);
      } else {
        m[j] = edwards::encode(edwards::add(edwards::msm_secret(minus_lambda, d, 1), edwards::to_cached(c2)));
      }
    }
    if (!extract_record(m, out[i])) return bad.note(i), void(decoded[i] = 0);
  });
  if (undecodable) {  // drop them, in order, and count them
    MessageBatch kept(width);
    for (std::size_t i = 0; i < out.count(); ++i)
      if (decoded[i]) kept.push_back(out[i]);
    *undecodable = out.count() - kept.count();
    return kept;
  }
  if (bad.any())
    throw_error(Errc::protocol_violation, "record " + std::to_string(bad.index()) + " does not decrypt to a record of " + std::to_string(width) + " bytes");
  return out;
}

}  // namespace shufflempc::mixnet
