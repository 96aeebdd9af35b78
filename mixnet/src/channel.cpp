#include "shufflempc/mixnet/channel.hpp"

#include <sodium.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "shufflempc/error.hpp"
#include "shufflempc/little_endian.hpp"

namespace shufflempc::mixnet {
namespace {

// Party p's tag key in this process: BLAKE2b-256 keyed with the channel's secret over p.
TagKey party_tag_key(const TagKey& secret, PartyId p) {
  TagKey k{};
  std::uint8_t id[4];
  store_le(id, static_cast<std::uint32_t>(p));
  crypto_generichash(k.data(), k.size(), id, sizeof id, secret.data(), secret.size());
  return k;
}

// The records in the order of their bytes (which are uniformly random): an order that names no sender.
ProvedBatch in_byte_order(const ProvedBatch& in) {
  const auto bytes = in.ciphertexts.to_bytes();
  const std::size_t w = in.ciphertexts.limbs() * ciphertext_bytes;
  std::vector<std::size_t> order(in.ciphertexts.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return std::memcmp(bytes.data() + a * w, bytes.data() + b * w, w) < 0; });
  return {in.ciphertexts.permuted(order), in.proofs.permuted(order)};
}

}  // namespace

std::string protocol_fit(const Protocol& protocol) {
  for (std::uint32_t r = 0; r < protocol.rounds(); ++r) {
    if (auto why = record_fit(protocol.round(r).width); !why.empty()) return "round " + std::to_string(r) + ": " + why;
  }
  return {};
}

VerifiableMixChannel::VerifiableMixChannel(std::size_t hops, Rng& rng, unsigned threads, std::size_t threshold)
    : rng_(rng), threads_(threads == 0 ? 1 : threads), secret_rng_(std::make_unique<SystemRng>()) {
  if (hops < 1 || hops > max_hops)
    throw std::invalid_argument("mix servers must be in [1, " + std::to_string(max_hops) + "], got " + std::to_string(hops));
  secret_rng_->fill(transcript_.session);
  secret_rng_->fill(tag_secret_);
  transcript_.hops = hops;
  if (threshold > hops)
    throw std::invalid_argument("the threshold must be in [1, " + std::to_string(hops) + "] (the mix servers), got " + std::to_string(threshold));
  server_key_ = deal_key(hops, threshold == 0 ? hops : threshold, *secret_rng_);
  analyzer_key_ = deal_key(1, 1, *secret_rng_).secrets[0];
  for (std::size_t h = 0; h < hops; ++h) {
    signing_.push_back(SigningKeyPair::generate(*secret_rng_));
    transcript_.signers.push_back(signing_.back().public_key());
  }
}

VerifiableMixChannel::~VerifiableMixChannel() = default;

RoundOutcome VerifiableMixChannel::exchange(const RoundRules& spec, Submissions local) {
  auto round_rng = rng_.split();  // the round's permutations
  const std::size_t width = spec.shape.width;
  if (width == 0) return complete_round(spec, std::move(local), *round_rng);  // nothing to carry
  if (auto why = record_fit(width); !why.empty()) throw std::invalid_argument("round " + std::to_string(spec.round) + ": " + why);
  const std::string where = "round " + std::to_string(spec.round) + ": ";

  RoundTranscript rt;
  rt.round = spec.round;
  rt.delivery = spec.shape.delivery;
  rt.width = width;
  rt.key.servers = server_key_.key;
  if (rt.delivery == Delivery::analyzer_only) rt.key.analyzer = analyzer_key_.public_key;
  const Point key = rt.key.key();

  // Each party's records encrypted and proved under its own tags; the entry's checks (width,
  // counts, parties, minimum, the proofs), then the admitted records in an order that names no sender.
  const KnowledgeContext kctx{transcript_.session, spec.round, key};
  std::vector<SubmitterTag> tags(local.messages.count());
  for (const auto& slice : local.parties) {
    const TagKey k = party_tag_key(tag_secret_, slice.party);
    for (std::size_t j = 0; j < slice.count && slice.first + j < tags.size(); ++j) tags[slice.first + j] = submitter_tag(k, transcript_.session, spec.round, slice.party, j);
  }
  const MessageBatch plain = local.messages.count() > 0 ? local.messages : MessageBatch(width);
  ProvedBatch proved = encrypt_and_prove(plain, kctx, tags, *secret_rng_, threads_);
  RoundOutcome out = complete_round(spec, std::move(local), *round_rng);
  if (auto fault = check_knowledge(kctx, proved.ciphertexts, proved.proofs, threads_); !fault.empty())
    throw_error(Errc::protocol_violation, where + "the chain's entry: " + fault);
  proved = in_byte_order(proved);
  rt.input = std::move(proved.ciphertexts);
  rt.input_proofs = std::move(proved.proofs);

  // The hops: each checks the proof of the hop before it, then shuffles and proves.
  const CiphertextBatch* in = &rt.input;
  for (std::uint32_t h = 0; h < transcript_.hops; ++h) {
    const ProofContext ctx{transcript_.session, spec.round, h, static_cast<std::uint32_t>(width)};
    HopTranscript hop = make_hop(ctx, key, *in, signing_[h], *round_rng, *secret_rng_, threads_, [&](CiphertextBatch& out) {
      if (fault_) fault_(spec.round, h, out);
    });
    if (auto fault = hop_fault(ctx, key, *in, hop, transcript_.signers[h], threads_); !fault.empty())
      throw_error(Errc::protocol_violation, where + "mix server " + std::to_string(h) + ": " + fault);
    rt.hops.push_back(std::move(hop));
    in = &rt.hops.back().output;
  }

  // The servers' proved shares (t of them), then in ESA mode the analyzer's; the receiver checks
  // them before it decrypts.
  const ProofContext dctx{transcript_.session, spec.round, static_cast<std::uint32_t>(transcript_.hops), static_cast<std::uint32_t>(width)};
  for (std::uint32_t k = 0; k < server_key_.secrets.size(); ++k) {
    if (std::find(absent_.begin(), absent_.end(), k) != absent_.end()) continue;
    rt.decrypted_by.push_back(k);
    rt.decryption.push_back(decryption_shares(dctx, k, server_key_.secrets[k], *in, *secret_rng_, threads_));
    if (auto fault = check_decryption_shares(dctx, k, rt.key.servers.shares[k], *in, rt.decryption.back(), threads_); !fault.empty())
      throw_error(Errc::protocol_violation, where + "trustee " + std::to_string(k) + ": " + fault);
  }
  if (rt.decrypted_by.size() < rt.key.servers.threshold)
    throw_error(Errc::protocol_violation, where + std::to_string(rt.decrypted_by.size()) + " of " + std::to_string(rt.key.servers.shares.size()) +
                                              " mix servers are there to decrypt, " + std::to_string(rt.key.servers.threshold) + " needed");
  CiphertextBatch left;
  if (rt.key.analyzer) {
    rt.analyzer_decryption = decryption_shares(dctx, rt.key.analyzer_trustee(), analyzer_key_, *in, *secret_rng_, threads_);
    left = strip_shares(*in, *rt.analyzer_decryption, threads_);
    in = &left;
  }
  rt.records = combine_decryption(*in, rt.decryption, rt.decrypted_by, width, threads_);
  out.messages = rt.records.count();
  out.output = rt.records;
  transcript_.rounds.push_back(std::move(rt));
  return out;
}

VerifiableMixRun run_over_verifiable_mix(const Protocol& protocol, std::span<const Value> inputs, Rng& rng, std::size_t hops,
                                         const RunOptions& options, std::size_t threshold) {
  if (auto why = protocol_fit(protocol); !why.empty()) throw std::invalid_argument(why);
  VerifiableMixChannel channel(hops, rng, hardware_threads(), threshold);
  VerifiableMixRun run{run_all_parties(protocol, channel, inputs, rng, options), {}};
  run.transcript = channel.transcript();
  return run;
}

}  // namespace shufflempc::mixnet
