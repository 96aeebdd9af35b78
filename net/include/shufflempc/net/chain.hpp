#pragma once
// The chain of mix servers a session's records cross, as every command and config names it
// (docs/mix-chain.md): `--mix-servers N` is the number of servers, the shuffler first (1: the one
// shuffler, no chain; 2 to max_mix_servers: a chain), and `--mix KIND` what a chain carries. One
// type carries it from the command line to the session config (SessionConfig::chain()), the
// launcher and the in-process runs, and one function checks it.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "shufflempc/mixnet/transcript.hpp"  // mixnet::max_hops

namespace shufflempc::net {

// Most servers a chain may have: the verifiable mix's cap, the onion's too (net/onion.hpp).
inline constexpr std::size_t max_mix_servers = mixnet::max_hops;

// What a chain of mix servers carries (docs/mix-chain.md, docs/verifiable-shuffle.md): onion records
// that each server peels and signs for (decryption), or ElGamal records that each server
// re-encrypts, permutes and proves it did (verifiable).
enum class MixKind : std::uint8_t { decryption, verifiable };
[[nodiscard]] std::string to_string(MixKind kind);
// "decryption" or "verifiable"; anything else throws std::invalid_argument naming --mix.
[[nodiscard]] MixKind parse_mix_kind(std::string_view text);

struct ChainSpec {
  std::size_t servers = 1;  // the shuffler included
  MixKind kind = MixKind::decryption;

  // Throws std::invalid_argument naming --mix-servers (or --mix) and the accepted range: servers in
  // [1, max_mix_servers], and a verifiable mix needs a chain (2 or more).
  static ChainSpec make(std::size_t servers, MixKind kind = MixKind::decryption);
  [[nodiscard]] bool chained() const { return servers > 1; }
  // The servers after the shuffler (hops 1 .. servers - 1), 0 without a chain.
  [[nodiscard]] std::size_t further() const { return servers - 1; }
  // The onion layers or verifiable hops a record crosses: 0 without a chain (the one shuffler reads it).
  [[nodiscard]] std::size_t hops() const { return chained() ? servers : 0; }
  // Checks that `hop` names a further server: in [1, servers - 1], else throws naming `flag`.
  void check_further(std::size_t hop, std::string_view flag) const;
  // Checks that there is a chain for `flag` to act on, else throws naming it.
  void require_chain(std::string_view flag, std::string_view what) const;
};

}  // namespace shufflempc::net
