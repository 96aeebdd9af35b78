#pragma once
// The chain of mix servers a session's records cross, as every command and config names it
// (docs/mix-chain.md): `--mix-servers N` is the number of servers, the shuffler first (1: the one
// shuffler, no chain; 2 to max_mix_servers: a chain), `--mix KIND` what a chain carries and
// `--decryption-threshold T` how many of its servers decrypt a round delivered to every party. One
// type carries them from the command line and the Python call to the session config
// (SessionConfig::chain()), the launcher and the in-process runs; ChainSpec::make is the one way to
// make one, and the one place that checks them.
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

class ChainSpec {
 public:
  // The one shuffler: no chain.
  ChainSpec() = default;
  // Throws std::invalid_argument naming the option and the accepted range: servers (--mix-servers)
  // in [1, max_mix_servers]; a verifiable mix (--mix verifiable) needs a chain (2 or more);
  // decryption_threshold (--decryption-threshold) 0, every server, or with --mix verifiable in
  // [1, servers].
  [[nodiscard]] static ChainSpec make(std::size_t servers, MixKind kind = MixKind::decryption, std::size_t decryption_threshold = 0);
  // The servers the records cross, the shuffler included.
  [[nodiscard]] std::size_t servers() const { return servers_; }
  [[nodiscard]] MixKind kind() const { return kind_; }
  [[nodiscard]] bool verifiable() const { return kind_ == MixKind::verifiable; }
  // The servers needed to decrypt a round delivered to every party; 0: all of them (their combined
  // key, no key generation).
  [[nodiscard]] std::size_t decryption_threshold() const { return decryption_threshold_; }
  [[nodiscard]] bool chained() const { return servers_ > 1; }
  // The servers after the shuffler (hops 1 .. servers - 1), 0 without a chain.
  [[nodiscard]] std::size_t further() const { return servers_ - 1; }
  // The onion layers or verifiable hops a record crosses: 0 without a chain (the one shuffler reads it).
  [[nodiscard]] std::size_t hops() const { return chained() ? servers_ : 0; }
  // Checks that `hop` names a further server: in [1, servers - 1], else throws naming `flag`.
  void check_further(std::size_t hop, std::string_view flag) const;
  // Checks that there is a chain for `flag` to act on, else throws naming it.
  void require_chain(std::string_view flag, std::string_view what) const;
  bool operator==(const ChainSpec&) const = default;

 private:
  ChainSpec(std::size_t servers, MixKind kind, std::size_t decryption_threshold)
      : servers_(servers), kind_(kind), decryption_threshold_(decryption_threshold) {}
  std::size_t servers_ = 1;
  MixKind kind_ = MixKind::decryption;
  std::size_t decryption_threshold_ = 0;
};

// Bytes a party submits for a record of `width` bytes through a verifiable chain: one ElGamal
// ciphertext (64 bytes) a limb of 16 bytes and its proof of plaintext knowledge (a 32-byte tag, then
// 64 bytes a limb): mixnet::submission_bytes.
[[nodiscard]] std::size_t verifiable_width(std::size_t width);
// The limbs of the records of a verifiable round from their width on the wire (0: not such a width).
[[nodiscard]] std::size_t chain_limbs(std::size_t wire_width);

}  // namespace shufflempc::net
