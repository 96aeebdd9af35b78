// What a session's config implies for its rounds on the wire: each round's width at the entry (with
// the seal, the onion of a chain of mix servers or a verifiable chain's ElGamal records), the check
// that a config declares the shapes its protocol does, how many parties one link may carry, and
// whether the analyzer takes the parties' verdicts. The shuffler, the mix servers, the client
// channel and the command line all read a config through these.
#pragma once

#include <cstddef>
#include <vector>

#include "shufflempc/channel.hpp"
#include "shufflempc/net/keys.hpp"
#include "shufflempc/runtime.hpp"

namespace shufflempc::net {

// The protocol's round shapes with their wire widths (the messages are opaque to the shuffler;
// sealed to the analyzer in ESA mode): what a session config's `rounds` must hold.
// With a chain (`hops`: ChainSpec::hops(), SessionConfig::chain()), the width is the onion's at the
// entry (net/onion.hpp), or with a verifiable chain its ElGamal records' (net/verifiable.hpp; a
// round whose records do not fit is refused with std::invalid_argument saying why).
[[nodiscard]] std::vector<RoundShape> wire_rounds(const Protocol& protocol, std::size_t hops = 0, MixKind kind = MixKind::decryption);
// Throws std::invalid_argument naming the first round whose shape in `config` is not the one
// `protocol` declares (a config written for other parameters or by another version, or edited):
// every party and the analyzer check this before they connect.
void check_rounds(const SessionConfig& config, const Protocol& protocol);
// A round's shape with its wire width (at the entry of a chain of `hops` servers; 0: no chain).
[[nodiscard]] RoundShape wire_shape(const RoundShape& shape, std::size_t hops = 0, MixKind kind = MixKind::decryption);
// How many consecutive parties one link may carry: as many as fit the session's largest frame
// (max_frame_bytes) in the round that asks most of each party (of the config's rounds).
[[nodiscard]] std::size_t link_capacity(const SessionConfig& config);

// Whether the session's analyzer takes the parties' verdicts on their receipts (docs/mix-chain.md,
// "Receipts and complaints"): it has analyzer-only rounds and a mix chain.
[[nodiscard]] bool takes_verdicts(const SessionConfig& config);

}  // namespace shufflempc::net
