#include "shufflempc/net/round_shapes.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "shufflempc/mixnet/elgamal.hpp"
#include "shufflempc/net/chain.hpp"  // verifiable_width
#include "shufflempc/net/onion.hpp"
#include "shufflempc/net/sealing.hpp"

namespace shufflempc::net {

RoundShape wire_shape(const RoundShape& shape, std::size_t hops, MixKind kind) {
  RoundShape wire = shape;
  if (hops == 0 || shape.width == 0) wire.width = wire_width(shape.width, shape.delivery);
  else if (kind == MixKind::verifiable) wire.width = verifiable_width(shape.width), wire.record_width = shape.width;
  else wire.width = onion::record_width(shape.width, shape.delivery, hops, 0);
  return wire;
}

std::vector<RoundShape> wire_rounds(const Protocol& protocol, std::size_t hops, MixKind kind) {
  std::vector<RoundShape> plan;
  for (std::uint32_t r = 0; r < protocol.rounds(); ++r) {
    if (kind == MixKind::verifiable && hops > 0)
      if (auto why = mixnet::record_fit(protocol.round(r).width); !why.empty())
        throw std::invalid_argument("round " + std::to_string(r) + ": " + why + "; use --mix decryption");
    plan.push_back(wire_shape(protocol.round(r), hops, kind));
  }
  return plan;
}

void check_rounds(const SessionConfig& config, const Protocol& protocol) {
  const auto describe = [](const RoundShape& r) {
    return "width " + std::to_string(r.width) + (r.record_width ? " (records of " + std::to_string(r.record_width) + " bytes)" : "") + " " +
           to_string(r.delivery) + ", " + std::to_string(r.min_messages) + ".." + std::to_string(r.max_messages) + " messages per party";
  };
  const auto declared = wire_rounds(protocol, config.chain().hops(), config.mix);
  const auto mismatch = [&](const std::string& what) {
    throw std::invalid_argument("session config: " + what + " (the config was written for other parameters or by another version: "
                                "write it again with shufflempc session)");
  };
  if (config.rounds.size() != declared.size())
    mismatch("it declares " + std::to_string(config.rounds.size()) + " round(s), the protocol " + config.protocol + " here has " +
             std::to_string(declared.size()));
  for (std::size_t r = 0; r < declared.size(); ++r) {
    const RoundShape &a = config.rounds[r], &b = declared[r];
    if (a != b)
      mismatch("rounds[" + std::to_string(r) + "] is " + describe(a) + ", but the protocol " + config.protocol + " here declares " +
               describe(b));
  }
}

bool takes_verdicts(const SessionConfig& config) {
  return !config.mix_chain.empty() &&
         std::any_of(config.rounds.begin(), config.rounds.end(), [](const RoundShape& r) { return r.delivery == Delivery::analyzer_only; });
}

std::size_t link_capacity(const SessionConfig& config) {
  const Limits limits = config.limits();
  std::uint64_t per_party = 0, messages = 1;
  for (const auto& r : config.rounds) {
    per_party = std::max<std::uint64_t>(per_party, std::uint64_t{r.width} * r.max_messages);
    messages = std::max<std::uint64_t>(messages, r.max_messages);
  }
  per_party += 4;  // its count in the submit frame
  const std::uint64_t by_bytes = limits.max_payload / per_party;
  const std::uint64_t by_count = limits.max_count / messages;
  return static_cast<std::size_t>(std::max<std::uint64_t>(1, std::min(by_bytes, by_count)));
}

}  // namespace shufflempc::net
