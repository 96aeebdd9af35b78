#include "shufflempc/mixnet/decryption.hpp"

#include <sodium.h>

#include <stdexcept>

#include "shufflempc/error.hpp"
#include "shufflempc/mixnet/detail/edwards.hpp"
#include "detail.hpp"

namespace shufflempc::mixnet {
namespace {

Scalar share_challenge(const std::vector<std::uint8_t>& prefix, std::size_t index, const Point& c1, const Point& d, const Point& a,
                       const Point& b) {
  std::vector<std::uint8_t> in = prefix;
  std::uint8_t idx[8];
  store_le(idx, std::uint64_t{index});
  in.insert(in.end(), idx, idx + 8);
  for (const Point* p : {&c1, &d, &a, &b}) in.insert(in.end(), p->bytes.begin(), p->bytes.end());
  return hash_to_scalar("shufflempc/mixnet/decryption", in);
}

std::vector<std::uint8_t> share_prefix(const ProofContext& context, std::uint32_t trustee, const Point& public_key) {
  auto prefix = context.to_bytes();
  std::uint8_t t[4];
  store_le(t, trustee);
  prefix.insert(prefix.end(), t, t + 4);
  prefix.insert(prefix.end(), public_key.bytes.begin(), public_key.bytes.end());
  return prefix;
}

}  // namespace

std::vector<std::uint8_t> DecryptionShares::to_bytes() const {
  std::vector<std::uint8_t> out;
  out.reserve(shares.size() * bytes_per_share);
  for (std::size_t i = 0; i < shares.size(); ++i) {
    for (const Point* p : {&shares[i], &commit_g[i], &commit_c1[i]}) out.insert(out.end(), p->bytes.begin(), p->bytes.end());
    out.insert(out.end(), response[i].bytes.begin(), response[i].bytes.end());
  }
  return out;
}

DecryptionShares DecryptionShares::from_bytes(std::size_t count, std::span<const std::uint8_t> bytes, const std::string& what) {
  if (bytes.size() != count * bytes_per_share)
    throw std::invalid_argument(what + ": " + std::to_string(bytes.size()) + " bytes, " + std::to_string(count) + " proved shares have " +
                                std::to_string(count * bytes_per_share));
  DecryptionShares s;
  s.shares.resize(count);
  s.commit_g.resize(count);
  s.commit_c1.resize(count);
  s.response.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    const auto* at = bytes.data() + i * bytes_per_share;
    std::copy_n(at, 32, s.shares[i].bytes.begin());
    std::copy_n(at + 32, 32, s.commit_g[i].bytes.begin());
    std::copy_n(at + 64, 32, s.commit_c1[i].bytes.begin());
    std::copy_n(at + 96, 32, s.response[i].bytes.begin());
    if (!valid_point(s.shares[i]) || !valid_point(s.commit_g[i]) || !valid_point(s.commit_c1[i]) || !valid_scalar(s.response[i]))
      throw std::invalid_argument(what + ": share " + std::to_string(i) + " is not three canonical points and a scalar below the group order");
  }
  return s;
}

DecryptionShares decryption_shares(const ProofContext& context, std::uint32_t trustee, const ElGamalKey& key, const CiphertextBatch& batch,
                                   Rng& rng, unsigned threads) {
  const auto all = batch.all();
  const auto prefix = share_prefix(context, trustee, key.public_key);
  DecryptionShares s;
  s.shares.resize(all.size());
  s.commit_g.resize(all.size());
  s.commit_c1.resize(all.size());
  s.response.resize(all.size());
  std::vector<Scalar> w(all.size());
  for (auto& x : w) x = random_scalar(rng);
  parallel_for(all.size(), threads, [&](std::size_t i) {
    s.shares[i] = key.secret * all[i].c1;
    s.commit_g[i] = mul_base(w[i]);
    s.commit_c1[i] = w[i] * all[i].c1;
    const Scalar e = share_challenge(prefix, i, all[i].c1, s.shares[i], s.commit_g[i], s.commit_c1[i]);
    s.response[i] = w[i] + e * key.secret;
    sodium_memzero(w[i].bytes.data(), scalar_bytes);
  });
  return s;
}

std::string check_decryption_shares(const ProofContext& context, std::uint32_t trustee, const Point& public_key, const CiphertextBatch& batch,
                                    const DecryptionShares& s, unsigned threads) {
  const auto all = batch.all();
  const std::size_t n = all.size();
  if (s.shares.size() != n || s.commit_g.size() != n || s.commit_c1.size() != n || s.response.size() != n)
    return std::to_string(s.shares.size()) + " shares for " + std::to_string(n) + " limb ciphertexts";
  const auto prefix = share_prefix(context, trustee, public_key);
  const auto named = [&](std::size_t i) {
    return "the share of record " + std::to_string(i / batch.limbs()) + " limb " + std::to_string(i % batch.limbs()) + " is not proved (Chaum–Pedersen)";
  };
  // Σ_i β_i (s_i·G - A_i - e_i·Y) + γ_i (s_i·c1_i - B_i - e_i·d_i): per limb the terms A, B, c1, d,
  // then G and Y.
  std::vector<Scalar> k(4 * n + 2);
  std::vector<edwards::Niels> q(k.size());
  std::vector<Scalar> beta_s(n), beta_e(n);
  detail::FirstFailure not_point(n);
  parallel_for(n, threads, [&](std::size_t i) {
    const Scalar e = share_challenge(prefix, i, all[i].c1, s.shares[i], s.commit_g[i], s.commit_c1[i]);
    const Scalar beta = detail::batch_weight(), gamma = detail::batch_weight();
    k[4 * i] = -beta;
    k[4 * i + 1] = -gamma;
    k[4 * i + 2] = gamma * s.response[i];
    k[4 * i + 3] = -(gamma * e);
    beta_s[i] = beta * s.response[i];
    beta_e[i] = beta * e;
    if (!edwards::decode(s.commit_g[i], q[4 * i]) || !edwards::decode(s.commit_c1[i], q[4 * i + 1]) ||
        !edwards::decode(all[i].c1, q[4 * i + 2]) || !edwards::decode(s.shares[i], q[4 * i + 3]))
      not_point.note(i);
  });
  if (not_point.any()) return named(not_point.index()) + ": not a canonical point";
  Scalar g, y;
  for (std::size_t i = 0; i < n; ++i) {
    g = g + beta_s[i];
    y = y - beta_e[i];
  }
  k[4 * n] = g;
  k[4 * n + 1] = y;
  if (!edwards::decode(base_point(), q[4 * n]) || !edwards::decode(public_key, q[4 * n + 1])) return "the trustee's key is not a canonical point";
  if (edwards::is_identity(edwards::msm_public(k, q, threads))) return {};
  // Name the first limb whose proof fails, one by one with libsodium's operations.
  detail::FirstFailure bad(n);
  parallel_for(n, threads, [&](std::size_t i) {
    const Scalar e = share_challenge(prefix, i, all[i].c1, s.shares[i], s.commit_g[i], s.commit_c1[i]);
    if (mul_base(s.response[i]) != s.commit_g[i] + e * public_key || s.response[i] * all[i].c1 != s.commit_c1[i] + e * s.shares[i]) bad.note(i);
  });
  return bad.any() ? named(bad.index()) : "the batched check fails (and, with probability 2^-128 only, no single proof)";
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
  MessageBatch out(width, batch.size());
  detail::FirstFailure bad(batch.size());
  std::vector<char> decoded(batch.size(), 1);
  parallel_for(batch.size(), threads, [&](std::size_t i) {
    std::vector<std::uint16_t> m(limbs);
    for (std::size_t j = 0; j < limbs; ++j) {
      Point p = batch.at(i, j).c2;
      for (std::size_t k = 0; k < shares.size(); ++k) {
        const Point& d = shares[k].shares[i * limbs + j];
        p = p - (lambda[k] == one ? d : lambda[k] * d);
      }
      const auto v = limb_log(p);
      if (!v) return bad.note(i), void(decoded[i] = 0);
      m[j] = *v;
    }
    if (width % 2 == 1 && m.back() > 0xff) return bad.note(i), void(decoded[i] = 0);
    from_limbs(m, out[i]);
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
