#include "shufflempc/net/verifiable.hpp"

#include <sodium.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string_view>

#include "shufflempc/error.hpp"
#include "shufflempc/merkle.hpp"
#include "shufflempc/mixnet/decryption.hpp"
#include "shufflempc/mixnet/server_keys.hpp"
#include "shufflempc/net/detail/link_crypto.hpp"
#include "shufflempc/net/mix_hop.hpp"
#include "shufflempc/net/sealing.hpp"
#include "shufflempc/parallel.hpp"

namespace shufflempc::net {

namespace {
mixnet::Point point_of(const VerifiableKey& k) {
  mixnet::Point p;
  p.bytes = k.key;
  return p;
}
}  // namespace

mixnet::RoundKey round_key(const SessionConfig& config, Delivery delivery) {
  mixnet::RoundKey key;
  if (config.distributed_key) {
    key.servers = config.distributed_key->outcome.key;
  } else {
    std::vector<mixnet::Point> keys;
    for (const auto& m : config.mix_chain) {
      if (!m.elgamal) throw std::invalid_argument("session config: a mix server without an ElGamal key");
      keys.push_back(point_of(*m.elgamal));
    }
    key.servers = mixnet::combined_key(keys);
  }
  if (delivery == Delivery::analyzer_only) {
    if (!config.analyzer_elgamal) throw std::invalid_argument("session config: no analyzer_elgamal_key");
    key.analyzer = point_of(*config.analyzer_elgamal);
  }
  return key;
}

mixnet::ElGamalKey server_share(const SessionConfig& config, const KeyPair& keys, std::size_t hop) {
  if (const auto& d = config.distributed_key) return mixnet::dkg_share(d->transcript, d->outcome, hop, keys.secret_key());
  return mixnet::combined_share(elgamal_key_of(keys), hop, config.mix_chain.size());
}

mixnet::SessionChain session_chain(const SessionConfig& config) {
  if (config.mix != MixKind::verifiable || config.mix_chain.empty())
    throw std::invalid_argument("the session config has no verifiable chain (its mix is " + to_string(config.mix) + " over " +
                                std::to_string(config.mix_chain.size()) + " servers)");
  mixnet::SessionChain chain{config.session, signers_of(config.mix_chain), {}};
  for (const RoundShape& shape : config.rounds) {
    mixnet::SessionChain::Round r;
    r.delivery = shape.delivery;
    if (shape.width > wire_width(0, shape.delivery)) {
      r.limbs = chain_limbs(shape.width);
      r.width = shape.record_width;
      r.key = round_key(config, shape.delivery);
    }
    chain.rounds.push_back(std::move(r));
  }
  return chain;
}

mixnet::TagKey tag_key_of(const KeyPair& party, const PublicKey& shuffler) {
  detail::StaticSecret k = detail::static_secret(party.secret_key(), shuffler);
  const mixnet::TagKey key = detail::identity_leaf(k);
  sodium_memzero(k.data(), k.size());
  return key;
}

mixnet::KnowledgeContext knowledge_context(const SessionConfig& config, std::uint32_t round, Delivery delivery) {
  return {config.session, round, round_key(config, delivery).key()};
}

Admitted admit_records(const MessageBatch& records, const mixnet::KnowledgeContext& context,
                       const std::function<mixnet::SubmitterTag(std::size_t)>& sender_tag, unsigned threads) {
  const std::size_t limbs = chain_limbs(records.width()), n = records.count();
  if (limbs == 0) throw std::invalid_argument("admit_records: records of " + std::to_string(records.width()) + " bytes are no verifiable round's");
  const std::size_t cw = limbs * mixnet::ciphertext_bytes;
  Admitted a;
  // Each record parsed: canonical points and proof (else malformed), its tag its sender's (else unproved).
  mixnet::CiphertextBatch all(limbs, n);
  mixnet::KnowledgeProofs proofs(limbs, n);
  std::vector<char> state(n, 0);  // 0 parsed, 1 malformed, 2 unproved
  parallel_for(n, threads, [&](std::size_t i) {
    const auto r = records[i];
    for (std::size_t l = 0; l < limbs; ++l) {
      auto& c = all.at(i, l);
      std::copy_n(r.data() + l * mixnet::ciphertext_bytes, mixnet::point_bytes, c.c1.bytes.begin());
      std::copy_n(r.data() + l * mixnet::ciphertext_bytes + mixnet::point_bytes, mixnet::point_bytes, c.c2.bytes.begin());
      if (!mixnet::valid_point(c.c1) || !mixnet::valid_point(c.c2)) return void(state[i] = 1);
    }
    if (!proofs.read(i, r.data() + cw)) return void(state[i] = 1);
    if (sender_tag && proofs.tag(i) != sender_tag(i)) state[i] = 2;
  });
  std::vector<std::size_t> parsed;
  for (std::size_t i = 0; i < n; ++i) {
    if (state[i] == 1) ++a.malformed;
    else if (state[i] == 2) ++a.unproved;
    else parsed.push_back(i);
  }
  // The proofs of the parsed records, in one batch.
  std::vector<std::size_t> keep_index;
  {
    const auto bad = mixnet::unproved_records(context, all.permuted(parsed), proofs.permuted(parsed), threads);
    a.unproved += bad.size();
    std::size_t b = 0;
    for (std::size_t k = 0; k < parsed.size(); ++k) {
      if (b < bad.size() && bad[b] == k) {
        ++b;
        continue;
      }
      keep_index.push_back(parsed[k]);
    }
  }
  // Exact copies of the ciphertexts: sort by content, keep the first of each run (in batch order).
  const auto bytes_of = [&](std::size_t i) { return records[i].data(); };
  std::vector<std::size_t> order = keep_index;
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    const int c = std::memcmp(bytes_of(x), bytes_of(y), cw);
    return c < 0 || (c == 0 && x < y);
  });
  std::vector<char> copy(n, 0);
  for (std::size_t k = 1; k < order.size(); ++k)
    if (std::memcmp(bytes_of(order[k]), bytes_of(order[k - 1]), cw) == 0) copy[order[k]] = 1, ++a.duplicates;
  std::vector<std::size_t> admitted;
  for (std::size_t i : keep_index)
    if (!copy[i]) admitted.push_back(i);
  a.batch = all.permuted(admitted);
  a.proofs = proofs.permuted(admitted);
  return a;
}

MessageBatch ciphertexts_of(const MessageBatch& submissions) {
  const std::size_t limbs = chain_limbs(submissions.width());
  if (limbs == 0) throw std::invalid_argument("ciphertexts_of: records of " + std::to_string(submissions.width()) + " bytes are no verifiable round's");
  const std::size_t cw = limbs * mixnet::ciphertext_bytes;
  MessageBatch out(cw, submissions.count());
  for (std::size_t i = 0; i < submissions.count(); ++i) std::copy_n(submissions[i].data(), cw, out[i].data());
  return out;
}

std::vector<char> refusable_records(const MessageBatch& submissions, const mixnet::KnowledgeContext& context, unsigned threads) {
  std::vector<char> refusable(submissions.count(), 0);
  if (submissions.count() == 0) return refusable;
  // What the entry would admit of them (any tag), as byte strings of the ciphertexts.
  const Admitted a = admit_records(submissions, context, nullptr, threads);
  const auto kept = a.batch.to_bytes();
  const std::size_t cw = a.batch.limbs() * mixnet::ciphertext_bytes;
  std::vector<std::string_view> admitted;
  for (std::size_t i = 0; i < a.batch.size(); ++i) admitted.emplace_back(reinterpret_cast<const char*>(kept.data()) + i * cw, cw);
  std::sort(admitted.begin(), admitted.end());
  for (std::size_t k = 0; k < submissions.count(); ++k)
    refusable[k] = !std::binary_search(admitted.begin(), admitted.end(), std::string_view(reinterpret_cast<const char*>(submissions[k].data()), cw));
  return refusable;
}

mixnet::RoundTranscript open_evidence(const SessionConfig& config, std::uint32_t round, const RoundShape& shape,
                                      std::span<const std::uint8_t> evidence, const KeyPair* analyzer, std::size_t max_records,
                                      unsigned threads, const MessageBatch* own, std::size_t* discarded) {
  const std::string where = "round " + std::to_string(round);
  mixnet::RoundTranscript r;
  try {
    r = mixnet::decode_evidence(evidence, round, shape.delivery, shape.width, round_key(config, shape.delivery), config.mix_chain.size(),
                                max_records);
  } catch (const std::invalid_argument& e) {
    throw_error(Errc::malformed_frame, e.what());
  }
  if (own && own->count() > 0) {
    const auto input = r.input.to_bytes();
    const std::size_t w = own->width();
    std::vector<std::string_view> admitted;
    for (std::size_t i = 0; i < r.input.size(); ++i) admitted.emplace_back(reinterpret_cast<const char*>(input.data()) + i * w, w);
    std::sort(admitted.begin(), admitted.end());
    std::size_t missing = 0;
    for (std::size_t i = 0; i < own->count(); ++i)
      missing += !std::binary_search(admitted.begin(), admitted.end(), std::string_view(reinterpret_cast<const char*>((*own)[i].data()), w));
    if (missing > 0)
      throw_error(Errc::protocol_violation, where + ": " + std::to_string(missing) + " of the " + std::to_string(own->count()) +
                                                " records submitted from this process are not in the batch the entry admitted to the chain");
  }
  {
    // The entry commits to its batch in the order of the records' Merkle leaves (net/receipts.hpp):
    // strictly ascending, so no record is in it twice.
    const auto leaves = merkle::leaves(std::max<std::size_t>(1, r.input.limbs() * mixnet::ciphertext_bytes), r.input.to_bytes(), threads);
    for (std::size_t i = 1; i < leaves.size(); ++i)
      if (!(leaves[i - 1] < leaves[i]))
        throw_error(Errc::protocol_violation, where + ": the batch the chain's entry (the shuffler) committed to " +
                                                  (leaves[i - 1] == leaves[i] ? "holds a record twice" : "is not in the order of its records' Merkle leaves") +
                                                  " (records " + std::to_string(i - 1) + " and " + std::to_string(i) + ")");
  }
  // Every admitted record proved by its sender: an entry (or anyone) that added a re-randomized copy
  // of a record to learn its plaintext twice cannot prove it.
  if (auto fault = mixnet::check_knowledge(knowledge_context(config, round, shape.delivery), r.input, r.input_proofs, threads); !fault.empty())
    throw_error(Errc::protocol_violation, where + ": the batch the chain's entry (the shuffler) admitted is not the senders': " + fault);
  // The hops first: nothing is decrypted from a batch whose chain does not verify.
  // Every hop proved and signed by the server the config names for it: an entry that made hops
  // itself (it can: re-encryption needs only the public key) is caught by the signatures.
  if (auto faults = mixnet::hop_faults(config.session, r, signers_of(config.mix_chain), threads); !faults.empty()) {
    std::string all;
    for (const auto& f : faults) all += (all.empty() ? "" : "; ") + f;
    throw_error(Errc::protocol_violation, where + ": the verifiable mix does not verify: " + all);
  }
  const mixnet::CiphertextBatch* last = &r.hops.back().output;
  const mixnet::ProofContext dctx{config.session, round, static_cast<std::uint32_t>(r.hops.size()), static_cast<std::uint32_t>(r.width)};
  // The servers' shares, each proved (t of them; none of an empty batch, which no server decrypts).
  const mixnet::ThresholdKey& servers = r.key.servers;
  const std::size_t needed = r.input.size() == 0 ? 0 : servers.threshold;
  if (r.decryption.size() < needed)
    throw_error(Errc::protocol_violation, where + ": " + std::to_string(r.decryption.size()) + " of " + std::to_string(servers.shares.size()) +
                                              " mix servers decrypted, " + std::to_string(needed) + " needed");
  for (std::size_t k = 0; k < r.decryption.size(); ++k) {
    const std::uint32_t trustee = r.decrypted_by[k];
    if (auto fault = mixnet::check_decryption_shares(dctx, trustee, servers.shares[trustee], *last, r.decryption[k], threads); !fault.empty())
      throw_error(Errc::protocol_violation, where + ": the verifiable mix does not verify: trustee " + std::to_string(trustee) + ": " + fault);
  }
  // In an analyzer-only round, the analyzer opens what the servers' shares leave, adding its proved
  // shares to the transcript.
  mixnet::CiphertextBatch left;
  if (shape.delivery == Delivery::analyzer_only) {
    if (!analyzer) throw std::logic_error("open_evidence: an analyzer-only round needs the analyzer's key");
    SystemRng rng;
    r.analyzer_decryption = mixnet::decryption_shares(dctx, r.key.analyzer_trustee(), elgamal_key_of(*analyzer), *last, rng, threads);
    left = mixnet::strip_shares(*last, *r.analyzer_decryption, threads);
    last = &left;
  }
  std::size_t undecodable = 0;
  r.records = mixnet::combine_decryption(*last, r.decryption, r.decrypted_by, shape.width, threads, &undecodable);
  if (discarded) *discarded = undecodable;
  return r;
}

}  // namespace shufflempc::net
