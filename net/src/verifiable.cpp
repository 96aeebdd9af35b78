#include "shufflempc/net/verifiable.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string_view>

#include "shufflempc/error.hpp"
#include "shufflempc/merkle.hpp"
#include "shufflempc/mixnet/decryption.hpp"
#include "shufflempc/mixnet/server_keys.hpp"
#include "shufflempc/net/mix_hop.hpp"
#include "shufflempc/net/tcp.hpp"

namespace shufflempc::net {

namespace {
constexpr std::string_view elgamal_label = "shufflempc/verifiable-mix/elgamal-key/v1";

mixnet::Point point_of(const VerifiableKey& k) {
  mixnet::Point p;
  p.bytes = k.key;
  return p;
}
}  // namespace

mixnet::ElGamalKey elgamal_key_of(const KeyPair& keys) { return mixnet::derive_key(keys.secret_key(), elgamal_label); }

VerifiableKey verifiable_key_of(const KeyPair& keys, Rng& rng) {
  const auto k = elgamal_key_of(keys);
  VerifiableKey v;
  v.key = k.public_key.bytes;
  const auto proof = mixnet::prove_possession(keys.public_key(), k, rng).to_bytes();
  std::copy(proof.begin(), proof.end(), v.proof.begin());
  return v;
}

std::string check_verifiable_key(const VerifiableKey& key, const PublicKey& owner) {
  const mixnet::Point p = point_of(key);
  if (!mixnet::valid_point(p) || p == mixnet::Point{}) return "the ElGamal key is not a canonical ristretto255 point other than the identity";
  mixnet::PossessionProof proof;
  try {
    proof = mixnet::PossessionProof::from_bytes(key.proof, "the proof of possession");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  if (!mixnet::check_possession(owner, p, proof)) return "the proof of possession of the ElGamal key does not verify for its X25519 key";
  return {};
}

mixnet::ThresholdKey round_key(const SessionConfig& config, Delivery delivery) {
  if (delivery == Delivery::analyzer_only) {
    if (!config.analyzer_elgamal) throw std::invalid_argument("session config: no analyzer_elgamal_key");
    const mixnet::Point y = point_of(*config.analyzer_elgamal);
    return mixnet::ThresholdKey{1, {y}, {y}};
  }
  std::vector<mixnet::Point> keys;
  for (const auto& m : config.mix_chain) {
    if (!m.elgamal) throw std::invalid_argument("session config: a mix server without an ElGamal key");
    keys.push_back(point_of(*m.elgamal));
  }
  return mixnet::combined_key(keys);
}

mixnet::ElGamalKey server_share(const SessionConfig& config, const KeyPair& keys, std::size_t hop) {
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
      r.limbs = shape.width / mixnet::ciphertext_bytes;
      r.key = round_key(config, shape.delivery);
    }
    chain.rounds.push_back(std::move(r));
  }
  return chain;
}

std::size_t verifiable_width(std::size_t width) { return mixnet::limbs_for(width) * mixnet::ciphertext_bytes; }

Admitted admit_records(const MessageBatch& records, std::size_t limbs) {
  const std::size_t w = limbs * mixnet::ciphertext_bytes;
  if (records.width() != w) throw std::invalid_argument("admit_records: records of " + std::to_string(records.width()) + " bytes, expected " + std::to_string(w));
  Admitted a;
  // Exact copies: sort the indices by content, keep the first of each run (in batch order).
  std::vector<std::size_t> order(records.count());
  std::iota(order.begin(), order.end(), 0);
  const auto less = [&](std::size_t x, std::size_t y) {
    const int c = std::memcmp(records[x].data(), records[y].data(), w);
    return c < 0 || (c == 0 && x < y);
  };
  std::sort(order.begin(), order.end(), less);
  std::vector<char> keep(records.count(), 1);
  for (std::size_t i = 1; i < order.size(); ++i)
    if (std::memcmp(records[order[i]].data(), records[order[i - 1]].data(), w) == 0) keep[order[i]] = 0, ++a.duplicates;
  std::vector<std::uint8_t> bytes;
  bytes.reserve(records.size_bytes());
  for (std::size_t i = 0; i < records.count(); ++i) {
    if (!keep[i]) continue;
    const auto r = records[i];
    bool ok = true;
    for (std::size_t p = 0; ok && p < 2 * limbs; ++p) {
      mixnet::Point pt;
      std::copy_n(r.data() + p * mixnet::point_bytes, mixnet::point_bytes, pt.bytes.begin());
      ok = mixnet::valid_point(pt);
    }
    if (!ok) {
      ++a.malformed;
      continue;
    }
    bytes.insert(bytes.end(), r.begin(), r.end());
  }
  a.batch = mixnet::CiphertextBatch::from_bytes(limbs, bytes, "admitted records");
  return a;
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
  // The hops first: nothing is decrypted from a batch whose chain does not verify.
  // Every hop proved and signed by the server the config names for it: an entry that made hops
  // itself (it can: re-encryption needs only the public key) is caught by the signatures.
  if (auto faults = mixnet::hop_faults(config.session, r, signers_of(config.mix_chain), threads); !faults.empty()) {
    std::string all;
    for (const auto& f : faults) all += (all.empty() ? "" : "; ") + f;
    throw_error(Errc::protocol_violation, where + ": the verifiable mix does not verify: " + all);
  }
  const mixnet::CiphertextBatch& last = r.hops.back().output;
  const mixnet::ProofContext dctx{config.session, round, static_cast<std::uint32_t>(r.hops.size())};
  if (shape.delivery == Delivery::analyzer_only) {
    if (!analyzer) throw std::logic_error("open_evidence: an analyzer-only round needs the analyzer's key");
    if (!r.decryption.empty()) throw_error(Errc::protocol_violation, where + ": the evidence of an analyzer-only round carries decryption shares");
    SystemRng rng;
    r.decrypted_by = {0};
    r.decryption = {mixnet::decryption_shares(dctx, 0, elgamal_key_of(*analyzer), last, rng, threads)};
  } else {
    // Every trustee's shares proved (the key needs all of them: t = k).
    if (r.decryption.size() < r.key.threshold)
      throw_error(Errc::protocol_violation, where + ": " + std::to_string(r.decryption.size()) + " of " + std::to_string(r.key.shares.size()) +
                                                " mix servers decrypted, " + std::to_string(r.key.threshold) + " needed");
    for (std::size_t k = 0; k < r.decryption.size(); ++k) {
      const std::uint32_t trustee = r.decrypted_by[k];
      if (auto fault = mixnet::check_decryption_shares(dctx, trustee, r.key.shares[trustee], last, r.decryption[k], threads); !fault.empty())
        throw_error(Errc::protocol_violation, where + ": the verifiable mix does not verify: trustee " + std::to_string(trustee) + ": " + fault);
    }
  }
  std::size_t undecodable = 0;
  r.records = mixnet::combine_decryption(last, r.decryption, r.decrypted_by, shape.width, threads, &undecodable);
  if (discarded) *discarded = undecodable;
  return r;
}

}  // namespace shufflempc::net
