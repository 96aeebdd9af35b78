#include "shufflempc/net/mix_hop.hpp"

#include <sodium.h>

#include <algorithm>
#include <stdexcept>
#include <type_traits>

#include "shufflempc/error.hpp"
#include "shufflempc/merkle.hpp"
#include "shufflempc/parallel.hpp"
#include "shufflempc/trace.hpp"
#include <string_view>

namespace shufflempc::net {

static_assert(std::is_same_v<SigningPublicKey, mixnet::SigningPublicKey>);

namespace {

void put_u64(std::vector<std::uint8_t>& out, std::uint64_t v) {
  out.resize(out.size() + 8);
  store_le(out.data() + out.size() - 8, v);
}

std::string hop_name(std::size_t hop) { return "hop " + std::to_string(hop); }

}  // namespace

SigningKeyPair signing_key_of(const KeyPair& keys) { return SigningKeyPair::derive(keys.secret_key(), "shufflempc/mix-server-signing-key/v1"); }

BatchDigest batch_digest(const MessageBatch& batch) { return batch_digest(batch.width(), batch.bytes()); }

BatchDigest batch_digest(std::size_t width, std::span<const std::uint8_t> bytes) {
  return width == 0 ? merkle::root(0, {}) : merkle::root(width, bytes, hardware_threads());
}

std::vector<std::uint8_t> HopReport::signed_bytes() const {
  constexpr std::string_view label = "shufflempc/mix-hop-report/v1";
  std::vector<std::uint8_t> out;
  out.reserve(label.size() + 16 + 6 * 8 + 64);
  for (const char c : label) out.push_back(static_cast<std::uint8_t>(c));
  out.insert(out.end(), place.session.begin(), place.session.end());
  put_u64(out, place.round);
  put_u64(out, place.hop);
  put_u64(out, records_in);
  put_u64(out, records_out);
  put_u64(out, not_opened);
  put_u64(out, duplicates);
  out.insert(out.end(), received.begin(), received.end());
  out.insert(out.end(), sent.begin(), sent.end());
  return out;
}

std::vector<std::uint8_t> encode_reports(std::span<const HopReport> reports) {
  std::vector<std::uint8_t> out(reports.size() * hop_report_bytes);
  std::uint8_t* p = out.data();
  for (const HopReport& r : reports) {
    p = std::copy(r.place.session.begin(), r.place.session.end(), p);
    store_le<std::uint32_t>(p, r.place.round), p += 4;
    store_le<std::uint32_t>(p, r.place.hop), p += 4;
    for (const std::uint64_t v : {r.records_in, r.records_out, r.not_opened, r.duplicates}) store_le<std::uint64_t>(p, v), p += 8;
    p = std::copy(r.received.begin(), r.received.end(), p);
    p = std::copy(r.sent.begin(), r.sent.end(), p);
    p = std::copy(r.signature.begin(), r.signature.end(), p);
  }
  return out;
}

std::vector<HopReport> decode_reports(std::span<const std::uint8_t> bytes) {
  if (bytes.size() % hop_report_bytes != 0)
    throw_error(Errc::malformed_frame, "hop reports: " + std::to_string(bytes.size()) + " bytes is not a whole number of " +
                                           std::to_string(hop_report_bytes) + "-byte reports");
  std::vector<HopReport> out(bytes.size() / hop_report_bytes);
  const std::uint8_t* p = bytes.data();
  for (HopReport& r : out) {
    std::copy(p, p + r.place.session.size(), r.place.session.begin()), p += r.place.session.size();
    r.place.round = load_le<std::uint32_t>(p), p += 4;
    r.place.hop = load_le<std::uint32_t>(p), p += 4;
    for (std::uint64_t* v : {&r.records_in, &r.records_out, &r.not_opened, &r.duplicates}) *v = load_le<std::uint64_t>(p), p += 8;
    std::copy(p, p + 32, r.received.begin()), p += 32;
    std::copy(p, p + 32, r.sent.begin()), p += 32;
    std::copy(p, p + 64, r.signature.begin()), p += 64;
  }
  return out;
}

std::vector<SigningPublicKey> signers_of(std::span<const MixServerKeys> chain) {
  std::vector<SigningPublicKey> out;
  for (const auto& m : chain) out.push_back(m.signer);
  return out;
}

MixHop::MixHop(std::uint32_t hop, KeyPair layer_keys, SigningKeyPair signing_keys)
    : hop_(hop), layer_keys_(std::move(layer_keys)), signing_keys_(std::move(signing_keys)) {
  if (hop >= onion::max_hops) throw std::invalid_argument("mix hop: a chain has at most " + std::to_string(onion::max_hops) + " hops");
}

MixHop::Mixed MixHop::mix(const MessageBatch& batch, const SessionId& session, std::uint32_t round, Rng& rng) {
  trace::point("MixHop::mix");
  Mixed m;
  m.report.place = {session, round, hop_};
  m.report.records_in = batch.count();
  m.report.received = batch_digest(batch);
  auto peeled = onion::peel(batch, layer_keys_, m.report.place);
  shuffler_.shuffle(peeled.records, rng);
  m.records = std::move(peeled.records);
  m.report.records_out = m.records.count();
  m.report.not_opened = peeled.not_opened;
  m.report.duplicates = peeled.duplicates;
  m.report.sent = batch_digest(m.records);
  m.report.signature = signing_keys_.sign(m.report.signed_bytes());
  return m;
}

std::optional<Fault> verify_chain(std::span<const HopReport> reports, std::span<const SigningPublicKey> hops, const SessionId& session,
                                  std::uint32_t round, const MessageBatch& delivered, const std::optional<BatchDigest>& submitted) {
  trace::point("verify_chain");
  ensure_sodium();
  const auto fault = [round](FaultCode code, std::size_t hop, std::string text) {
    return Fault{.code = code, .text = std::move(text), .round = round, .hop = hop};
  };
  if (reports.size() != hops.size())
    return Fault{.code = FaultCode::missing_reports,
                 .text = "the chain has " + std::to_string(hops.size()) + " hops but " + std::to_string(reports.size()) + " reports arrived",
                 .round = round};
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const HopReport& r = reports[i];
    if (r.place.session != session || r.place.round != round || r.place.hop != i)
      return fault(FaultCode::wrong_place, i, hop_name(i) + "'s report is for another session, round or hop");
    if (!mixnet::signature_holds(r.signature, r.signed_bytes(), hops[i]))
      return fault(FaultCode::bad_signature, i, hop_name(i) + "'s signature does not verify");
    if (r.records_out + r.not_opened + r.duplicates != r.records_in)
      return fault(FaultCode::counts_mismatch, i,
                   hop_name(i) + " signed counts that do not add up (" + std::to_string(r.records_in) + " in, " + std::to_string(r.records_out) +
                       " out, " + std::to_string(r.not_opened) + " not opened, " + std::to_string(r.duplicates) + " copies)");
    if (i == 0 && submitted && r.received != *submitted)
      return fault(FaultCode::input_mismatch, 0, hop_name(0) + " signed that it received another batch than was submitted");
    if (i > 0 && r.received != reports[i - 1].sent)
      return fault(FaultCode::input_mismatch, i, hop_name(i) + " signed that it received another batch than " + hop_name(i - 1) + " signed that it sent");
  }
  if (!reports.empty() && reports.back().sent != batch_digest(delivered))
    return fault(FaultCode::output_mismatch, reports.size() - 1, hop_name(reports.size() - 1) + " signed that it sent another batch than the one delivered");
  return std::nullopt;
}

}  // namespace shufflempc::net
