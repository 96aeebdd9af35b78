#include "shufflempc/mixnet/knowledge.hpp"

#include <sodium.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "shufflempc/little_endian.hpp"
#include "shufflempc/mixnet/detail/edwards.hpp"
#include "detail.hpp"

namespace shufflempc::mixnet {
namespace {

constexpr char tag_label[] = "shufflempc/verifiable-mix/submitter-tag/v1";
constexpr char challenge_label[] = "shufflempc/mixnet/plaintext-knowledge";

// The challenge of record i: the context (session, round le32, key), the tag, the record's
// ciphertexts (c1 || c2 each) and its commitments.
Scalar challenge(const std::vector<std::uint8_t>& prefix, const SubmitterTag& tag, std::span<const Ciphertext> record,
                 const KnowledgeProofs& proofs, std::size_t i) {
  std::vector<std::uint8_t> in;
  in.reserve(prefix.size() + tag_bytes + record.size() * (ciphertext_bytes + point_bytes));
  in.insert(in.end(), prefix.begin(), prefix.end());
  in.insert(in.end(), tag.begin(), tag.end());
  for (const auto& c : record) {
    in.insert(in.end(), c.c1.bytes.begin(), c.c1.bytes.end());
    in.insert(in.end(), c.c2.bytes.begin(), c.c2.bytes.end());
  }
  for (std::size_t l = 0; l < proofs.limbs(); ++l) in.insert(in.end(), proofs.commit(i, l).bytes.begin(), proofs.commit(i, l).bytes.end());
  return hash_to_scalar(challenge_label, in);
}

std::vector<std::uint8_t> prefix_of(const KnowledgeContext& c) {
  std::vector<std::uint8_t> p(c.session.begin(), c.session.end());
  std::uint8_t r[4];
  store_le(r, c.round);
  p.insert(p.end(), r, r + 4);
  p.insert(p.end(), c.key.bytes.begin(), c.key.bytes.end());
  return p;
}

}  // namespace

SubmitterTag submitter_tag(const TagKey& key, const SessionId& session, std::uint32_t round, PartyId party, std::uint64_t index) {
  SubmitterTag t{};
  crypto_generichash_state st;
  crypto_generichash_init(&st, key.data(), key.size(), t.size());
  crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(tag_label), sizeof tag_label - 1);
  crypto_generichash_update(&st, session.data(), session.size());
  std::uint8_t ri[16];
  store_le(ri, round);
  store_le(ri + 4, static_cast<std::uint32_t>(party));
  store_le(ri + 8, index);
  crypto_generichash_update(&st, ri, sizeof ri);
  crypto_generichash_final(&st, t.data(), t.size());
  sodium_memzero(&st, sizeof st);
  return t;
}

void KnowledgeProofs::write(std::size_t i, std::uint8_t* out) const {
  std::memcpy(out, tags_[i].data(), tag_bytes);
  out += tag_bytes;
  for (std::size_t l = 0; l < limbs_; ++l, out += point_bytes) std::memcpy(out, commit(i, l).bytes.data(), point_bytes);
  for (std::size_t l = 0; l < limbs_; ++l, out += scalar_bytes) std::memcpy(out, response(i, l).bytes.data(), scalar_bytes);
}

bool KnowledgeProofs::read(std::size_t i, const std::uint8_t* in) {
  std::vector<Point> a(limbs_);
  std::vector<Scalar> z(limbs_);
  const std::uint8_t* at = in + tag_bytes;
  for (std::size_t l = 0; l < limbs_; ++l, at += point_bytes) {
    std::memcpy(a[l].bytes.data(), at, point_bytes);
    if (!valid_point(a[l])) return false;
  }
  for (std::size_t l = 0; l < limbs_; ++l, at += scalar_bytes) {
    std::memcpy(z[l].bytes.data(), at, scalar_bytes);
    if (!valid_scalar(z[l])) return false;
  }
  std::memcpy(tags_[i].data(), in, tag_bytes);
  for (std::size_t l = 0; l < limbs_; ++l) commit(i, l) = a[l], response(i, l) = z[l];
  return true;
}

std::vector<std::uint8_t> KnowledgeProofs::to_bytes() const {
  std::vector<std::uint8_t> out(size() * record_bytes(limbs_));
  for (std::size_t i = 0; i < size(); ++i) write(i, out.data() + i * record_bytes(limbs_));
  return out;
}

KnowledgeProofs KnowledgeProofs::from_bytes(std::size_t records, std::size_t limbs, std::span<const std::uint8_t> bytes, const std::string& what) {
  const std::size_t each = record_bytes(limbs);
  if (bytes.size() != records * each)
    throw std::invalid_argument(what + ": " + std::to_string(bytes.size()) + " bytes, the proofs of " + std::to_string(records) + " records of " +
                                std::to_string(limbs) + " limbs have " + std::to_string(records * each));
  KnowledgeProofs p(limbs, records);
  for (std::size_t i = 0; i < records; ++i)
    if (!p.read(i, bytes.data() + i * each))
      throw std::invalid_argument(what + ": the proof of record " + std::to_string(i) + " has a commitment or response that is not canonical");
  return p;
}

KnowledgeProofs KnowledgeProofs::permuted(std::span<const std::size_t> order) const {
  KnowledgeProofs p(limbs_, order.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    p.tags_[k] = tags_[order[k]];
    std::copy_n(commit_.begin() + static_cast<std::ptrdiff_t>(order[k] * limbs_), limbs_, p.commit_.begin() + static_cast<std::ptrdiff_t>(k * limbs_));
    std::copy_n(response_.begin() + static_cast<std::ptrdiff_t>(order[k] * limbs_), limbs_, p.response_.begin() + static_cast<std::ptrdiff_t>(k * limbs_));
  }
  return p;
}

ProvedBatch encrypt_and_prove(const MessageBatch& messages, const KnowledgeContext& context, std::span<const SubmitterTag> tags, Rng& rng,
                              unsigned threads) {
  if (auto why = record_fit(messages.width()); !why.empty()) throw std::invalid_argument(why);
  if (tags.size() != messages.count())
    throw std::invalid_argument("encrypt_and_prove: " + std::to_string(tags.size()) + " tags for " + std::to_string(messages.count()) + " records");
  const std::size_t limbs = limbs_for(messages.width());
  ProvedBatch out{CiphertextBatch(limbs, messages.count()), KnowledgeProofs(limbs, messages.count())};
  // Drawn in order from `rng`: every record's embedding (its padding), then both secrets of every
  // limb, the encryption's r and the proof's a.
  std::vector<Point> m = embed_records(messages, rng);
  std::vector<Scalar> secrets(2 * out.ciphertexts.all().size());
  for (auto& s : secrets) s = random_scalar(rng);
  const auto prefix = prefix_of(context);
  parallel_for(messages.count(), threads, [&](std::size_t i) {
    out.proofs.tag(i) = tags[i];
    for (std::size_t l = 0; l < limbs; ++l) {
      const Scalar& r = secrets[2 * (i * limbs + l)];
      out.ciphertexts.at(i, l) = encrypt_point(m[i * limbs + l], context.key, r);
      sodium_memzero(m[i * limbs + l].bytes.data(), point_bytes);
      out.proofs.commit(i, l) = mul_base(secrets[2 * (i * limbs + l) + 1]);
    }
    const Scalar e = challenge(prefix, tags[i], out.ciphertexts.record(i), out.proofs, i);
    for (std::size_t l = 0; l < limbs; ++l) {
      Scalar& r = secrets[2 * (i * limbs + l)];
      Scalar& a = secrets[2 * (i * limbs + l) + 1];
      out.proofs.response(i, l) = a + e * r;
      sodium_memzero(r.bytes.data(), scalar_bytes);
      sodium_memzero(a.bytes.data(), scalar_bytes);
    }
  });
  return out;
}

std::vector<std::size_t> unproved_records(const KnowledgeContext& context, const CiphertextBatch& batch, const KnowledgeProofs& proofs,
                                          unsigned threads) {
  const std::size_t n = batch.size(), limbs = batch.limbs();
  if (proofs.size() != n || (n > 0 && proofs.limbs() != limbs))
    throw std::invalid_argument("unproved_records: " + std::to_string(proofs.size()) + " proofs of " + std::to_string(proofs.limbs()) +
                                " limbs for " + std::to_string(n) + " records of " + std::to_string(limbs));
  if (n == 0) return {};
  const auto prefix = prefix_of(context);
  // Σ_{i,l} w_il (z_il·G - A_il - e_i·c1_il): per limb the terms A and c1, then G.
  const std::size_t terms = n * limbs;
  std::vector<Scalar> k(2 * terms + 1), wz(terms);
  std::vector<edwards::Niels> q(k.size());
  detail::FirstFailure not_point(n);
  parallel_for(n, threads, [&](std::size_t i) {
    const Scalar e = challenge(prefix, proofs.tag(i), batch.record(i), proofs, i);
    for (std::size_t l = 0; l < limbs; ++l) {
      const std::size_t t = i * limbs + l;
      const Scalar w = detail::batch_weight();
      k[2 * t] = -w;
      k[2 * t + 1] = -(w * e);
      wz[t] = w * proofs.response(i, l);
      if (!edwards::decode(proofs.commit(i, l), q[2 * t]) || !edwards::decode(batch.at(i, l).c1, q[2 * t + 1])) not_point.note(i);
    }
  });
  if (!not_point.any()) {
    Scalar g;
    for (const auto& x : wz) g = g + x;
    k[2 * terms] = g;
    (void)edwards::decode(base_point(), q[2 * terms]);
    if (edwards::is_identity(edwards::msm_public(k, q, threads))) return {};
  }
  // One by one, with libsodium's operations.
  std::vector<char> bad(n, 0);
  parallel_for(n, threads, [&](std::size_t i) {
    const Scalar e = challenge(prefix, proofs.tag(i), batch.record(i), proofs, i);
    for (std::size_t l = 0; l < limbs && !bad[i]; ++l) {
      const Point& c1 = batch.at(i, l).c1;
      if (!valid_point(c1) || !valid_point(proofs.commit(i, l)) || mul_base(proofs.response(i, l)) != proofs.commit(i, l) + e * c1) bad[i] = 1;
    }
  });
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < n; ++i)
    if (bad[i]) out.push_back(i);
  return out;
}

std::string check_knowledge(const KnowledgeContext& context, const CiphertextBatch& batch, const KnowledgeProofs& proofs, unsigned threads) {
  if (proofs.size() != batch.size()) return std::to_string(proofs.size()) + " proofs of plaintext knowledge for " + std::to_string(batch.size()) + " records";
  const auto bad = unproved_records(context, batch, proofs, threads);
  if (bad.empty()) return {};
  return std::to_string(bad.size()) + " of the " + std::to_string(batch.size()) + " submitted records carry no valid proof of plaintext knowledge (the first: record " +
         std::to_string(bad.front()) + ")";
}

std::size_t submission_limbs(std::size_t bytes) {
  const std::size_t per_limb = ciphertext_bytes + point_bytes + scalar_bytes;
  if (bytes < tag_bytes + per_limb || (bytes - tag_bytes) % per_limb != 0) return 0;
  return (bytes - tag_bytes) / per_limb;
}

MessageBatch to_submissions(const ProvedBatch& proved) {
  const std::size_t limbs = proved.ciphertexts.limbs(), w = submission_bytes(limbs), cw = limbs * ciphertext_bytes;
  const auto ct = proved.ciphertexts.to_bytes();
  std::vector<std::uint8_t> bytes(proved.ciphertexts.size() * w);
  for (std::size_t i = 0; i < proved.ciphertexts.size(); ++i) {
    std::memcpy(bytes.data() + i * w, ct.data() + i * cw, cw);
    proved.proofs.write(i, bytes.data() + i * w + cw);
  }
  return MessageBatch::from_bytes(w, bytes);
}

}  // namespace shufflempc::mixnet
