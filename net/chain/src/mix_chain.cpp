#include "shufflempc/net/mix_chain.hpp"

#include <stdexcept>
#include <string>

#include "shufflempc/error.hpp"
#include "shufflempc/net/sealing.hpp"

namespace shufflempc::net {

InProcessMixChain::InProcessMixChain(std::size_t hops, Rng& rng) : rng_(rng) {
  if (hops < 1 || hops > onion::max_hops)
    throw std::invalid_argument("mix servers must be in [1, " + std::to_string(onion::max_hops) + "], got " + std::to_string(hops));
  SystemRng keys;
  keys.fill(session_);
  analyzer_ = KeyPair::generate(keys);
  hops_.reserve(hops);
  for (std::uint32_t i = 0; i < hops; ++i) {
    const KeyPair layer = KeyPair::generate(keys);
    const SigningKeyPair signing = SigningKeyPair::generate(keys);
    layer_keys_.push_back(layer.public_key());
    signers_.push_back(signing.public_key());
    hops_.emplace_back(i, layer, signing);
  }
}

RoundOutcome InProcessMixChain::exchange(const RoundRules& spec, Submissions local) {
  auto round_rng = rng_.split();  // a fresh permutation for every hop of every round
  const std::size_t width = spec.shape.width, k = hops_.size();
  if (width == 0) return complete_round(spec, std::move(local), *round_rng, shuffler_);  // nothing to carry
  const Delivery delivery = spec.shape.delivery;
  // The parties' side: every message in its onion, the slices unchanged.
  Submissions wrapped;
  wrapped.parties = std::move(local.parties);
  wrapped.messages = onion::wrap(local.messages.bytes(), width, delivery, analyzer_.public_key(), layer_keys_, session_, spec.round);
  RoundRules wire = spec;
  wire.shape.width = onion::record_width(width, delivery, k, 0);
  // The entry: the round's checks (width, counts, parties, minimum), then the chain.
  RoundOutcome out = complete_round(wire, std::move(wrapped), *round_rng, shuffler_);
  MessageBatch batch = out.output ? std::move(*out.output) : MessageBatch(wire.shape.width);
  const BatchDigest submitted = batch_digest(batch);
  std::vector<HopReport> reports;
  std::size_t refused = 0;
  for (auto& hop : hops_) {
    auto mixed = hop.mix(batch, session_, spec.round, *round_rng);
    refused += mixed.report.not_opened + mixed.report.duplicates;
    reports.push_back(mixed.report);
    batch = std::move(mixed.records);
  }
  if (auto fault = verify_chain(reports, signers_, session_, spec.round, batch, submitted))
    throw_error(Errc::protocol_violation, "round " + std::to_string(spec.round) + ": the mix chain's reports do not hold: " + fault->text);
  reports_.push_back(std::move(reports));
  if (delivery == Delivery::analyzer_only) {
    auto opened = sealing::open(batch.bytes(), width, analyzer_);
    refused += opened.discarded;
    batch = std::move(opened.messages);
  }
  out.messages = batch.count();
  out.discarded += refused;
  out.output = std::move(batch);
  return out;
}

MixChainRun run_over_mix_chain(const Protocol& protocol, std::span<const Value> inputs, Rng& rng, std::size_t hops,
                               const RunOptions& options) {
  InProcessMixChain channel(hops, rng);
  MixChainRun run{run_all_parties(protocol, channel, inputs, rng, options), {}};
  run.reports = channel.reports();
  return run;
}

}  // namespace shufflempc::net
