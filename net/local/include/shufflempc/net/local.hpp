// A session whose every process runs on this machine: the one place that makes its keys and its
// configuration. run_over_loopback, `shufflempc local` and the transport tests all start here.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "shufflempc/net/keys.hpp"
#include "shufflempc/net/mix_hop.hpp"
#include "shufflempc/net/tcp.hpp"

namespace shufflempc::net {

// File names inside a session directory (`local --keep-dir`, `party --key-dir`).
[[nodiscard]] std::string party_key_file(const std::string& dir, PartyId id);
// The key bundle of parties first .. last inside a session directory (KeyBundle).
[[nodiscard]] std::string party_key_bundle_file(const std::string& dir, PartyId first, PartyId last);
inline constexpr const char* shuffler_key_file = "shuffler.key";
inline constexpr const char* analyzer_key_file = "analyzer.key";
inline constexpr const char* session_config_file = "session.json";
// The key file of further mix server `hop` (1 .. k-1) inside a session directory.
[[nodiscard]] std::string mix_server_key_file(const std::string& dir, std::size_t hop);

struct LocalDeployment {
  SessionConfig config;
  KeyPair shuffler;
  KeyPair analyzer;
  std::vector<KeyPair> parties;  // index = party id
  std::vector<KeyPair> further_server_keys;  // the further servers of the chain, hop 1 first (none without a chain)

  // A fresh session id and key pairs for the shuffler, the analyzer and `parties` parties, drawn
  // from `rng` (a SystemRng for anything real; tests may pass a SeededRng). `base` supplies the
  // protocol, its parameters, min_parties, the deadline and the frame limit; its keys, session id
  // and party count are replaced. `servers` > 1: a chain of that many mix servers, the shuffler first
  // (config.mix_chain; base.rounds must be the onion's widths, wire_rounds(protocol, servers)). With
  // base.mix verifiable (servers > 1), every server's and the analyzer's ElGamal key is published with
  // its proof of possession (base.rounds: wire_rounds(protocol, chain, MixKind::verifiable)).
  // parties_per_key > 1: one key pair for each block of that many parties (parties 0 .. k-1 the
  // first), as `local` gives each party process one key for the parties it hosts.
  [[nodiscard]] static LocalDeployment create(std::size_t parties, Rng& rng, SessionConfig base = {}, std::size_t servers = 1,
                                              std::size_t parties_per_key = 1);

  // Every party (ids 0..n-1) and the analyzer, ready for a TcpChannel hosting all of them.
  [[nodiscard]] std::vector<Identity> all_identities() const;
  // Writes shuffler.key, analyzer.key, mix-server-<hop>.key (mode 0600), session.json and the
  // parties' keys into `dir`: party-<id>.key each, or with parties_per_bundle > 0 one bundle
  // parties-<first>-<last>.keys per that many parties (the ranges `local` gives its processes).
  void save(const std::string& dir, std::size_t parties_per_bundle = 0) const;
};

}  // namespace shufflempc::net
