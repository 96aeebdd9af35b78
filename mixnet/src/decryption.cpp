#include "shufflempc/mixnet/decryption.hpp"

#include <stdexcept>

#include "shufflempc/error.hpp"
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
    out.insert(out.end(), shares[i].bytes.begin(), shares[i].bytes.end());
    out.insert(out.end(), challenge[i].bytes.begin(), challenge[i].bytes.end());
    out.insert(out.end(), response[i].bytes.begin(), response[i].bytes.end());
  }
  return out;
}

DecryptionShares DecryptionShares::from_bytes(std::size_t count, std::span<const std::uint8_t> bytes, const std::string& what) {
  if (bytes.size() != count * 96)
    throw std::invalid_argument(what + ": " + std::to_string(bytes.size()) + " bytes, " + std::to_string(count) + " proved shares have " +
                                std::to_string(count * 96));
  DecryptionShares s;
  s.shares.resize(count);
  s.challenge.resize(count);
  s.response.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    const auto* at = bytes.data() + i * 96;
    std::copy_n(at, 32, s.shares[i].bytes.begin());
    std::copy_n(at + 32, 32, s.challenge[i].bytes.begin());
    std::copy_n(at + 64, 32, s.response[i].bytes.begin());
    if (!valid_point(s.shares[i]) || !valid_scalar(s.challenge[i]) || !valid_scalar(s.response[i]))
      throw std::invalid_argument(what + ": share " + std::to_string(i) + " is not a canonical point with scalars below the group order");
  }
  return s;
}

DecryptionShares decryption_shares(const ProofContext& context, std::uint32_t trustee, const ElGamalKey& key, const CiphertextBatch& batch,
                                   Rng& rng, unsigned threads) {
  const auto all = batch.all();
  const auto prefix = share_prefix(context, trustee, key.public_key);
  DecryptionShares s;
  s.shares.resize(all.size());
  s.challenge.resize(all.size());
  s.response.resize(all.size());
  std::vector<Scalar> w(all.size());
  for (auto& x : w) x = random_scalar(rng);
  parallel_for(all.size(), threads, [&](std::size_t i) {
    s.shares[i] = key.secret * all[i].c1;
    s.challenge[i] = share_challenge(prefix, i, all[i].c1, s.shares[i], mul_base(w[i]), w[i] * all[i].c1);
    s.response[i] = w[i] + s.challenge[i] * key.secret;
  });
  return s;
}

std::string check_decryption_shares(const ProofContext& context, std::uint32_t trustee, const Point& public_key, const CiphertextBatch& batch,
                                    const DecryptionShares& s, unsigned threads) {
  const auto all = batch.all();
  if (s.shares.size() != all.size() || s.challenge.size() != all.size() || s.response.size() != all.size())
    return std::to_string(s.shares.size()) + " shares for " + std::to_string(all.size()) + " limb ciphertexts";
  const auto prefix = share_prefix(context, trustee, public_key);
  detail::FirstFailure bad(all.size());
  parallel_for(all.size(), threads, [&](std::size_t i) {
    const Point a = mul_base(s.response[i]) - s.challenge[i] * public_key;
    const Point b = s.response[i] * all[i].c1 - s.challenge[i] * s.shares[i];
    if (share_challenge(prefix, i, all[i].c1, s.shares[i], a, b) != s.challenge[i]) bad.note(i);
  });
  if (bad.any()) {
    const std::size_t i = bad.index();
    return "the share of record " + std::to_string(i / batch.limbs()) + " limb " + std::to_string(i % batch.limbs()) +
           " is not proved (Chaum–Pedersen)";
  }
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
