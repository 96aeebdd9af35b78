#include "shufflempc/net/detail/chain_entry.hpp"

#include <sodium.h>

#include <algorithm>
#include <stdexcept>

#include "shufflempc/net/onion.hpp"
#include "shufflempc/net/verifiable.hpp"
#include "shufflempc/parallel.hpp"
#include "shufflempc/trace.hpp"

namespace shufflempc::net::detail {

ChainEntry::ChainEntry(const SessionConfig& config, const mixnet::ElGamalKey* share, const SigningKeyPair& signing, MixHop* hop0,
                       SessionRounds::Closed closed, Rng& rng, const Tamper& tamper, std::function<std::string(std::size_t)> hop_name,
                       std::function<mixnet::TagKey(PartyId)> tag_key)
    : config_(config), share_(share), rng_(rng), closed_(std::move(closed)), hop_name_(std::move(hop_name)), threads_(hardware_threads()) {
  trace::point("ChainEntry::ChainEntry");
  if (config_.mix_chain.size() < 2) throw std::invalid_argument("chain entry: the session has no chain of mix servers");
  if (config_.mix == MixKind::verifiable) {
    if (share_ == nullptr) throw std::invalid_argument("chain entry: a verifiable chain needs the entry's decryption share");
    start_verifiable(signing, tamper, tag_key);
  } else {
    if (hop0 == nullptr) throw std::invalid_argument("chain entry: an onion chain needs the entry's hop");
    start_onion(*hop0, tamper);
  }
}

std::string ChainEntry::round_text() const { return "round " + std::to_string(closed_.round); }

std::vector<std::string> ChainEntry::take_notes() { return std::exchange(notes_, {}); }

void ChainEntry::start_onion(MixHop& hop0, const Tamper& tamper) {
  MessageBatch batch = closed_.outcome.output ? std::move(*closed_.outcome.output) : MessageBatch(closed_.shape.width);
  closed_.outcome.output.reset();
  // The records in the order of their Merkle leaves: hop 0's signed report commits to that batch
  // (its received digest is the root), and each party link's receipt shows its records in it.
  if (tamper) tamper(closed_.round, batch);
  auto ordered = in_leaf_order(batch, threads_);
  commitment_.maker = std::make_shared<const ReceiptMaker>(ordered.batch.width(), std::move(ordered.leaves));
  submitted_ = commitment_.maker->root();
  auto first = hop0.mix(ordered.batch, config_.session, closed_.round, rng_);
  reports_.push_back(first.report);
  commitment_.signed_bytes = encode_reports(std::span(&first.report, 1));
  batch_ = std::move(first.records);
}

namespace {

// The proofs of `after` (the admitted batch as a test altered it) from those of `before`: a record
// still there keeps its proof, one the alteration made carries an empty one (which fails).
mixnet::KnowledgeProofs proofs_following(const mixnet::CiphertextBatch& before, const mixnet::KnowledgeProofs& proofs,
                                         const mixnet::CiphertextBatch& after) {
  mixnet::KnowledgeProofs out(before.limbs(), after.size());
  for (std::size_t k = 0; k < after.size(); ++k)
    for (std::size_t i = 0; i < before.size(); ++i)
      if (std::ranges::equal(after.record(k), before.record(i))) {
        out.tag(k) = proofs.tag(i);
        for (std::size_t l = 0; l < before.limbs(); ++l) out.commit(k, l) = proofs.commit(i, l), out.response(k, l) = proofs.response(i, l);
        break;
      }
  return out;
}

}  // namespace

void ChainEntry::start_verifiable(const SigningKeyPair& signing, const Tamper& tamper, const std::function<mixnet::TagKey(PartyId)>& tag_key) {
  width_ = static_cast<std::uint32_t>(closed_.shape.width);
  limbs_ = chain_limbs(width_);
  closed_.outcome.output.reset();  // no records travel: each receiver decrypts the evidence
  rt_.round = closed_.round;
  rt_.delivery = closed_.shape.delivery;
  rt_.width = closed_.shape.record_width;  // the config binds it (SessionConfig: rounds[r].record_width)
  rt_.key = round_key(config_, closed_.shape.delivery);
  // The records as their senders submitted them: record first + j of a party's slice is its j-th,
  // and must carry the tag only it and this entry can compute.
  const Submissions& src = closed_.sources;
  const MessageBatch records = src.messages.count() > 0 ? src.messages : MessageBatch(width_);
  std::vector<std::pair<PartyId, std::uint32_t>> sender(records.count(), {0, 0});
  std::vector<mixnet::TagKey> keys(src.parties.size());
  std::vector<std::size_t> slice_of(records.count(), 0);
  for (std::size_t k = 0; k < src.parties.size(); ++k) {
    const auto& slice = src.parties[k];
    if (tag_key) keys[k] = tag_key(slice.party);
    for (std::size_t j = 0; j < slice.count && slice.first + j < records.count(); ++j)
      sender[slice.first + j] = {slice.party, static_cast<std::uint32_t>(j)}, slice_of[slice.first + j] = k;
  }
  const auto sender_tag = [&](std::size_t i) {
    return mixnet::submitter_tag(keys[slice_of[i]], config_.session, closed_.round, sender[i].first, sender[i].second);
  };
  Admitted admitted = admit_records(records, knowledge_context(config_, closed_.round, rt_.delivery),
                                    tag_key ? std::function<mixnet::SubmitterTag(std::size_t)>(sender_tag) : nullptr, threads_);
  for (auto& k : keys) sodium_memzero(k.data(), k.size());
  not_admitted_ = admitted.refused();
  if (not_admitted_ > 0)
    notes_.push_back(round_text() + ": " + std::to_string(admitted.malformed) + " record(s) that are not ElGamal ciphertexts with a proof, " +
                     std::to_string(admitted.unproved) + " without a valid proof of plaintext knowledge by their sender (a re-randomized copy of another's record is one) and " +
                     std::to_string(admitted.duplicates) + " copies were not admitted to the chain");
  rt_.input = std::move(admitted.batch);
  rt_.input_proofs = std::move(admitted.proofs);
  if (tamper) {
    auto batch = MessageBatch::from_bytes(limbs_ * mixnet::ciphertext_bytes, rt_.input.to_bytes());
    tamper(closed_.round, batch);
    auto altered = mixnet::CiphertextBatch::from_bytes(limbs_, batch.bytes(), "the altered batch");
    rt_.input_proofs = proofs_following(rt_.input, rt_.input_proofs, altered);
    rt_.input = std::move(altered);
  }
  // The admitted records in the order of their Merkle leaves: hop 0's signed statement commits to
  // that batch, and each party link's receipt shows its records in it.
  auto ordered = in_leaf_order(rt_.input, threads_);
  rt_.input = std::move(ordered.batch);
  rt_.input_proofs = rt_.input_proofs.permuted(ordered.order);
  commitment_.maker = std::make_shared<const ReceiptMaker>(limbs_ * mixnet::ciphertext_bytes, std::move(ordered.leaves));
  // An empty batch crosses the chain too (its proofs are trivial), so every server stays on the
  // session's rounds; only its decryption is skipped.
  const mixnet::Point key = rt_.key.key();
  const mixnet::ProofContext ctx0{config_.session, closed_.round, 0, static_cast<std::uint32_t>(rt_.width)};
  std::vector<std::uint8_t> statement;
  rt_.hops.push_back(mixnet::make_hop(ctx0, key, rt_.input, signing, rng_, rng_, threads_, {}, &statement));
  commitment_.signed_bytes = std::move(statement);
  commitment_.signed_bytes.insert(commitment_.signed_bytes.end(), rt_.hops[0].signature.begin(), rt_.hops[0].signature.end());
}

HopAsk ChainEntry::shuffle_ask() const {
  HopAsk ask;
  ask.refusing = "the batch";
  if (config_.mix == MixKind::verifiable) {
    ask.type = FrameType::shuffle;
    ask.width = static_cast<std::uint32_t>(limbs_ * mixnet::ciphertext_bytes);
    ask.count = static_cast<std::uint32_t>(rt_.input.size());
    ask.bytes = rt_.hops.back().output.to_bytes();
    ask.payload = ask.bytes;
    return ask;
  }
  ask.type = FrameType::mix;
  ask.width = static_cast<std::uint32_t>(batch_.width());
  ask.count = static_cast<std::uint32_t>(batch_.count());
  ask.payload = batch_.bytes();
  return ask;
}

Fault ChainEntry::fault(FaultCode code, std::size_t hop, std::string text) const {
  return Fault{.code = code, .text = std::move(text), .round = closed_.round, .hop = hop};
}

std::optional<Fault> ChainEntry::take_shuffle(std::size_t hop, const FrameHeader& header, std::span<const std::uint8_t> payload) {
  const std::string at = round_text() + ": " + hop_name_(hop);
  if (config_.mix != MixKind::verifiable) {
    if (header.type != FrameType::mixed || header.round != closed_.round || payload.size() < hop_report_bytes ||
        header.width != batch_.width() - onion::layer_overhead)
      return fault(FaultCode::wrong_frame, hop, at + " answered with a frame that is not this round's mixed batch");
    reports_.push_back(decode_reports(payload.first(hop_report_bytes)).front());
    batch_ = MessageBatch::from_bytes(header.width, std::vector<std::uint8_t>(payload.begin() + hop_report_bytes, payload.end()));
    return std::nullopt;
  }
  const std::size_t n = rt_.input.size();
  if (header.type != FrameType::shuffled || header.round != closed_.round || header.width != limbs_ * mixnet::ciphertext_bytes)
    return fault(FaultCode::wrong_frame, hop, at + " answered with a frame that is not this round's shuffled batch");
  if (header.count != n)
    return fault(FaultCode::dropped_records, hop,
                 at + " returned " + std::to_string(header.count) + " records for the " + std::to_string(n) +
                     " it was sent: a hop of a verifiable mix keeps every record");
  mixnet::HopTranscript h;
  try {
    h = mixnet::decode_hop(payload, n, limbs_, hop_name_(hop) + "'s answer");
  } catch (const std::invalid_argument& e) {
    return fault(FaultCode::malformed, hop, round_text() + ": " + e.what());
  }
  if (auto why = mixnet::hop_fault({config_.session, closed_.round, static_cast<std::uint32_t>(hop), static_cast<std::uint32_t>(rt_.width)},
                                   rt_.key.key(), rt_.hops.back().output, h, config_.mix_chain[hop].signer, threads_);
      !why.empty())
    return fault(FaultCode::proof_fails, hop, at + ": " + why);
  rt_.hops.push_back(std::move(h));
  return std::nullopt;
}

bool ChainEntry::needs_decryption() const {
  // In both deliveries: an analyzer-only round's key needs the servers' shares beside the analyzer's.
  return config_.mix == MixKind::verifiable && rt_.input.size() > 0;
}

HopAsk ChainEntry::decrypt_ask() {
  // Every server decrypts; each further server checks the evidence first (mix_server.hpp).
  auto evidence = mixnet::encode_evidence(rt_);
  const mixnet::ProofContext dctx{config_.session, closed_.round, static_cast<std::uint32_t>(rt_.hops.size()), static_cast<std::uint32_t>(rt_.width)};
  rt_.decrypted_by.push_back(0);
  rt_.decryption.push_back(mixnet::decryption_shares(dctx, 0, *share_, rt_.hops.back().output, rng_, threads_));
  HopAsk ask;
  ask.type = FrameType::decrypt;
  ask.width = width_;
  ask.count = static_cast<std::uint32_t>(rt_.input.size());
  ask.bytes = std::move(evidence);
  ask.payload = ask.bytes;
  ask.refusing = "to decrypt";
  return ask;
}

std::optional<Fault> ChainEntry::take_decryption(std::size_t hop, const FrameHeader& header, std::span<const std::uint8_t> payload) {
  const std::size_t shares = rt_.input.size() * limbs_;
  const mixnet::ProofContext dctx{config_.session, closed_.round, static_cast<std::uint32_t>(rt_.hops.size()), static_cast<std::uint32_t>(rt_.width)};
  if (header.type != FrameType::decrypted || header.round != closed_.round ||
      header.count != shares + mixnet::DecryptionShares::proof_bytes / mixnet::point_bytes ||
      header.width != mixnet::point_bytes)
    return fault(FaultCode::wrong_frame, hop, round_text() + ": " + hop_name_(hop) + " answered with a frame that is not its decryption shares of this round");
  mixnet::DecryptionShares d;
  try {
    d = mixnet::DecryptionShares::from_bytes(shares, payload, hop_name_(hop) + "'s decryption shares");
  } catch (const std::invalid_argument& e) {
    return fault(FaultCode::malformed, hop, round_text() + ": " + e.what());
  }
  if (auto why = mixnet::check_decryption_shares(dctx, static_cast<std::uint32_t>(hop), rt_.key.servers.shares[hop], rt_.hops.back().output, d, threads_);
      !why.empty())
    return fault(FaultCode::proof_fails, hop, round_text() + ": " + hop_name_(hop) + "'s decryption shares do not verify: " + why);
  rt_.decrypted_by.push_back(static_cast<std::uint32_t>(hop));
  rt_.decryption.push_back(std::move(d));
  return std::nullopt;
}

std::optional<Fault> ChainEntry::finish(Result& out) {
  if (config_.mix == MixKind::verifiable) {
    // The result counts every record submitted; the evidence holds the n admitted, so each
    // receiver counts the others as discarded (as records that do not open or decrypt are).
    closed_.outcome.discarded += not_admitted_;
    out.evidence = mixnet::encode_evidence(rt_);
  } else {
    if (auto fault = verify_chain(reports_, signers_of(config_.mix_chain), config_.session, closed_.round, batch_, submitted_)) {
      fault->text = round_text() + ": the mix chain's reports do not hold: " + fault->text;
      return fault;
    }
    std::size_t refused = 0;
    for (const auto& r : reports_) {
      refused += r.not_opened + r.duplicates;
      if (r.not_opened + r.duplicates > 0)
        notes_.push_back(round_text() + ": hop " + std::to_string(r.place.hop) + " dropped " + std::to_string(r.not_opened) +
                         " record(s) that did not open and " + std::to_string(r.duplicates) + " copies");
    }
    closed_.outcome.discarded += refused;
    closed_.outcome.messages = batch_.count();
    closed_.shape.width = batch_.width();
    closed_.outcome.output = std::move(batch_);
    out.reports = encode_reports(reports_);
    out.hop_reports = std::move(reports_);
  }
  out.closed = std::move(closed_);
  out.commitment = std::move(commitment_);
  return std::nullopt;
}

}  // namespace shufflempc::net::detail
