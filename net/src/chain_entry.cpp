#include "shufflempc/net/detail/chain_entry.hpp"

#include <stdexcept>

#include "shufflempc/net/onion.hpp"
#include "shufflempc/net/verifiable.hpp"
#include "shufflempc/parallel.hpp"

namespace shufflempc::net::detail {

ChainEntry::ChainEntry(const SessionConfig& config, const KeyPair& keys, const SigningKeyPair& signing, MixHop* hop0,
                       SessionRounds::Closed closed, Rng& rng, const Tamper& tamper, std::function<std::string(std::size_t)> hop_name)
    : config_(config), keys_(keys), rng_(rng), closed_(std::move(closed)), hop_name_(std::move(hop_name)), threads_(hardware_threads()) {
  if (config_.mix_chain.size() < 2) throw std::invalid_argument("chain entry: the session has no chain of mix servers");
  if (config_.mix == MixKind::verifiable) {
    start_verifiable(signing, tamper);
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

void ChainEntry::start_verifiable(const SigningKeyPair& signing, const Tamper& tamper) {
  width_ = static_cast<std::uint32_t>(closed_.shape.width);
  limbs_ = width_ / mixnet::ciphertext_bytes;
  MessageBatch records = closed_.outcome.output ? std::move(*closed_.outcome.output) : MessageBatch(width_);
  closed_.outcome.output.reset();  // no records travel: each receiver decrypts the evidence
  Admitted admitted = admit_records(records, limbs_);
  not_admitted_ = admitted.malformed + admitted.duplicates;
  if (not_admitted_ > 0)
    notes_.push_back(round_text() + ": " + std::to_string(admitted.malformed) + " record(s) that are not ElGamal ciphertexts and " +
                     std::to_string(admitted.duplicates) + " copies were not admitted to the chain");
  rt_.round = closed_.round;
  rt_.delivery = closed_.shape.delivery;
  rt_.width = 2 * limbs_;
  rt_.key = round_key(config_, closed_.shape.delivery);
  rt_.input = std::move(admitted.batch);
  if (tamper) {
    auto batch = MessageBatch::from_bytes(width_, rt_.input.to_bytes());
    tamper(closed_.round, batch);
    rt_.input = mixnet::CiphertextBatch::from_bytes(limbs_, batch.bytes(), "the altered batch");
  }
  // The admitted records in the order of their Merkle leaves: hop 0's signed statement commits to
  // that batch, and each party link's receipt shows its records in it.
  auto ordered = in_leaf_order(rt_.input, threads_);
  rt_.input = std::move(ordered.batch);
  commitment_.maker = std::make_shared<const ReceiptMaker>(width_, std::move(ordered.leaves));
  // An empty batch crosses the chain too (its proofs are trivial), so every server stays on the
  // session's rounds; only its decryption is skipped.
  const mixnet::Point key = rt_.key.key();
  auto mixed = mixnet::reencrypt_shuffle(rt_.input, key, rng_, threads_);
  const mixnet::ProofContext ctx0{config_.session, closed_.round, 0};
  auto proof = mixnet::prove_shuffle(ctx0, key, rt_.input, mixed.output, mixed.witness, rng_, threads_);
  const auto statement = mixnet::hop_statement(ctx0, key, rt_.input, mixed.output, proof);
  rt_.hops.push_back({std::move(mixed.output), std::move(proof), signing.sign(statement)});
  commitment_.signed_bytes = statement;
  commitment_.signed_bytes.insert(commitment_.signed_bytes.end(), rt_.hops[0].signature.begin(), rt_.hops[0].signature.end());
}

HopAsk ChainEntry::shuffle_ask() const {
  HopAsk ask;
  ask.refusing = "the batch";
  if (config_.mix == MixKind::verifiable) {
    ask.type = FrameType::shuffle;
    ask.width = width_;
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

std::optional<std::string> ChainEntry::take_shuffle(std::size_t hop, const FrameHeader& header, std::span<const std::uint8_t> payload) {
  const std::string at = round_text() + ": " + hop_name_(hop);
  if (config_.mix != MixKind::verifiable) {
    if (header.type != FrameType::mixed || header.round != closed_.round || payload.size() < hop_report_bytes ||
        header.width != batch_.width() - onion::layer_overhead)
      return at + " answered with a frame that is not this round's mixed batch";
    reports_.push_back(decode_reports(payload.first(hop_report_bytes)).front());
    batch_ = MessageBatch::from_bytes(header.width, std::vector<std::uint8_t>(payload.begin() + hop_report_bytes, payload.end()));
    return std::nullopt;
  }
  const std::size_t n = rt_.input.size();
  if (header.type != FrameType::shuffled || header.round != closed_.round || header.width != width_)
    return at + " answered with a frame that is not this round's shuffled batch";
  if (header.count != n)
    return at + " returned " + std::to_string(header.count) + " records for the " + std::to_string(n) +
           " it was sent: a hop of a verifiable mix keeps every record";
  mixnet::HopTranscript h;
  try {
    h = mixnet::decode_hop(payload, n, limbs_, hop_name_(hop) + "'s answer");
  } catch (const std::invalid_argument& e) {
    return round_text() + ": " + e.what();
  }
  if (auto fault = mixnet::hop_fault({config_.session, closed_.round, static_cast<std::uint32_t>(hop)}, rt_.key.key(), rt_.hops.back().output,
                                     h, config_.mix_chain[hop].signer, threads_);
      !fault.empty())
    return at + ": " + fault;
  rt_.hops.push_back(std::move(h));
  return std::nullopt;
}

bool ChainEntry::needs_decryption() const {
  return config_.mix == MixKind::verifiable && rt_.delivery == Delivery::all_parties && rt_.input.size() > 0;
}

HopAsk ChainEntry::decrypt_ask() {
  // Every server decrypts; each further server checks the evidence first (mix_server.hpp).
  auto evidence = mixnet::encode_evidence(rt_);
  const mixnet::ProofContext dctx{config_.session, closed_.round, static_cast<std::uint32_t>(rt_.hops.size())};
  rt_.decrypted_by.push_back(0);
  rt_.decryption.push_back(mixnet::decryption_shares(dctx, 0, server_share(config_, keys_, 0), rt_.hops.back().output, rng_, threads_));
  HopAsk ask;
  ask.type = FrameType::decrypt;
  ask.width = width_;
  ask.count = static_cast<std::uint32_t>(rt_.input.size());
  ask.bytes = std::move(evidence);
  ask.payload = ask.bytes;
  ask.refusing = "to decrypt";
  return ask;
}

std::optional<std::string> ChainEntry::take_decryption(std::size_t hop, const FrameHeader& header, std::span<const std::uint8_t> payload) {
  const std::size_t shares = rt_.input.size() * limbs_;
  const mixnet::ProofContext dctx{config_.session, closed_.round, static_cast<std::uint32_t>(rt_.hops.size())};
  if (header.type != FrameType::decrypted || header.round != closed_.round || header.count != shares ||
      header.width != mixnet::DecryptionShares::bytes_per_share)
    return round_text() + ": " + hop_name_(hop) + " answered with a frame that is not its decryption shares of this round";
  mixnet::DecryptionShares d;
  try {
    d = mixnet::DecryptionShares::from_bytes(shares, payload, hop_name_(hop) + "'s decryption shares");
  } catch (const std::invalid_argument& e) {
    return round_text() + ": " + e.what();
  }
  if (auto fault = mixnet::check_decryption_shares(dctx, static_cast<std::uint32_t>(hop), rt_.key.shares[hop], rt_.hops.back().output, d, threads_);
      !fault.empty())
    return round_text() + ": " + hop_name_(hop) + "'s decryption shares do not verify: " + fault;
  rt_.decrypted_by.push_back(static_cast<std::uint32_t>(hop));
  rt_.decryption.push_back(std::move(d));
  return std::nullopt;
}

std::optional<std::string> ChainEntry::finish(Result& out) {
  if (config_.mix == MixKind::verifiable) {
    // The result counts every record submitted; the evidence holds the n admitted, so each
    // receiver counts the others as discarded (as records that do not open or decrypt are).
    closed_.outcome.discarded += not_admitted_;
    out.evidence = mixnet::encode_evidence(rt_);
  } else {
    if (auto fault = verify_chain(reports_, signers_of(config_.mix_chain), config_.session, closed_.round, batch_, submitted_))
      return round_text() + ": the mix chain's reports do not hold: " + *fault;
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
