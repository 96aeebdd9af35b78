// Long-term X25519 identities of the TCP transport and the session configuration that names them.
//
// Every party, the shuffler and the analyzer have one key pair (`shufflempc keygen`). The session
// configuration lists the public keys; a connection is accepted only if its peer proves it holds
// the secret key of the identity it claims (see docs/network.md for the handshake).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/mixnet/dkg.hpp"
#include "shufflempc/net/chain.hpp"
#include "shufflempc/net/wire.hpp"
#include "shufflempc/random.hpp"
#include "shufflempc/runtime.hpp"

namespace shufflempc::net {

class KeyPair {
 public:
  KeyPair() = default;
  KeyPair(const KeyPair&) = default;
  KeyPair& operator=(const KeyPair&) = default;
  ~KeyPair();
  // A fresh key pair from `rng` (use SystemRng for real keys).
  [[nodiscard]] static KeyPair generate(Rng& rng);
  // From a 32-byte secret key (the public key is recomputed).
  [[nodiscard]] static KeyPair from_secret(const std::array<std::uint8_t, secret_key_bytes>& secret);
  // From both halves as stored together (a key bundle), without the scalar multiplication: a
  // public key that does not belong to the secret shows when the shuffler refuses the handshake.
  [[nodiscard]] static KeyPair from_stored(const std::array<std::uint8_t, secret_key_bytes>& secret, const PublicKey& stored);
  [[nodiscard]] const PublicKey& public_key() const { return public_; }
  [[nodiscard]] const std::array<std::uint8_t, secret_key_bytes>& secret_key() const { return secret_; }
  // The same key: equal public keys and secret keys (the secrets compared in constant time).
  friend bool operator==(const KeyPair& a, const KeyPair& b);

  // Key files are JSON {"public_key": hex, "secret_key": hex}, written with mode 0600.
  void save(const std::string& path) const;
  [[nodiscard]] static KeyPair load(const std::string& path);

 private:
  PublicKey public_{};
  std::array<std::uint8_t, secret_key_bytes> secret_{};
};

[[nodiscard]] PublicKey parse_public_key(const std::string& hex, const std::string& what);

// Where each run of consecutive equal keys starts (0 first; empty for no keys): a session config
// writes a run once, and the shuffler computes one static secret for each.
[[nodiscard]] std::vector<std::size_t> key_runs(std::span<const PublicKey> keys);

using SecretKey = std::array<std::uint8_t, secret_key_bytes>;
// KeyPair::from_secret of each secret, in order, on every core: the public keys made in runs that
// share one field inversion (as the seal makes its ephemeral keys, net/sealing.hpp), which costs
// less than crypto_scalarmult_base for each. The caller wipes the secrets.
[[nodiscard]] std::vector<KeyPair> key_pairs_from(std::span<const SecretKey> secrets);

// The key pairs of parties first .. first + keys.size() - 1 in one file: what a process hosting a
// range of parties reads instead of one key file per party (at 10^6 parties, writing and removing
// a million files takes minutes). JSON {"first": F, "secret_keys": [hex, ...], "public_keys":
// [hex, ...]}, mode 0600. The public keys are stored so that a process hosting 10^5 parties does
// not recompute them (one X25519 each); a bundle without them (written before they were stored)
// still loads, its public keys recomputed. A bundle whose parties all have one key (keygen
// --parties --one-key, and `local`'s: one key per party process) is stored once, as {"first": F,
// "parties": N, "secret_key": hex, "public_key": hex}, and loads as N copies.
struct KeyBundle {
  PartyId first = 0;
  std::vector<KeyPair> keys;

  // Every party of the bundle holds the same key pair.
  [[nodiscard]] bool shares_one_key() const;
  // The one-key form of parties first .. first + parties - 1, all holding `key` (what save writes
  // for a bundle that shares_one_key()), without a copy of the key per party.
  static void save_one_key(const std::string& path, PartyId first, std::size_t parties, const KeyPair& key);

  [[nodiscard]] PartyId last() const { return first + static_cast<PartyId>(keys.size()) - 1; }
  // The key of party `id`; throws std::invalid_argument when the bundle does not hold it.
  [[nodiscard]] const KeyPair& of(PartyId id) const;
  void save(const std::string& path) const;
  // Throws std::invalid_argument naming the file: not private, not a bundle, an empty or
  // malformed key list.
  [[nodiscard]] static KeyBundle load(const std::string& path);
};

// An Ed25519 public key: what a mix server signs its round reports with (net/mix_hop.hpp).
using SigningPublicKey = std::array<std::uint8_t, 32>;

// An ElGamal public key (ristretto255) for a verifiable chain, derived from its owner's X25519 key
// file (verifiable_key_of, below), with a Schnorr proof of possession bound to the owner's X25519 key.
struct VerifiableKey {
  std::array<std::uint8_t, 32> key{};
  std::array<std::uint8_t, 64> proof{};
  bool operator==(const VerifiableKey&) const = default;
};

// One server of a chain of mix servers: its X25519 key (its onion layer and its links), its
// Ed25519 signing key and, for a verifiable chain, its ElGamal key. `shufflempc keygen --mix-server`
// prints KEY:SIGNING_KEY, with --verifiable KEY:SIGNING_KEY:ELGAMAL_KEY:PROOF.
struct MixServerKeys {
  PublicKey key{};
  SigningPublicKey signer{};
  std::optional<VerifiableKey> elgamal;
  bool operator==(const MixServerKeys&) const = default;
};
// "KEY:SIGNING_KEY" (64 + 1 + 64 hex digits), or with ":ELGAMAL_KEY:PROOF" (64 and 128 more) ->
// the keys (the proof is not checked here: SessionConfig::from_json does); throws
// std::invalid_argument naming `what`.
[[nodiscard]] MixServerKeys parse_mix_server_keys(const std::string& text, const std::string& what);
[[nodiscard]] std::string to_string(const MixServerKeys& keys);
// "ELGAMAL_KEY:PROOF" -> the key; throws std::invalid_argument naming `what`.
[[nodiscard]] VerifiableKey parse_verifiable_key(const std::string& text, const std::string& what);
[[nodiscard]] std::string to_string(const VerifiableKey& key);

// The ElGamal key of an X25519 key file (a verifiable chain's server or analyzer), and its public form
// with a proof of possession.
[[nodiscard]] mixnet::ElGamalKey elgamal_key_of(const KeyPair& keys);
[[nodiscard]] VerifiableKey verifiable_key_of(const KeyPair& keys, Rng& rng);
// "" if `key` is a canonical non-identity point with a proof of possession bound to `owner`;
// otherwise what is wrong.
[[nodiscard]] std::string check_verifiable_key(const VerifiableKey& key, const PublicKey& owner);

// The most parties one session names (a config's `parties`, a one-key bundle's, session --party-keys).
inline constexpr std::size_t max_session_parties = 100'000'000;

// What every process of a session reads: the protocol, its parameters, its rounds' wire shapes, who
// takes part, the keys, the round deadline and the minimum number of parties per round.
struct SessionConfig {
  SessionId session{};
  std::string protocol;
  std::map<std::string, std::string> params;
  std::size_t parties = 0;
  std::size_t min_parties = 0;  // 0: every party must submit in every round
  // A collection window (a session of one round; docs/network.md, "Durable collection"): the round
  // closes at `close_at` (the wall clock, milliseconds since the Unix epoch), or once `close_count`
  // parties have submitted, whichever comes first (either may be absent, not both: then the round
  // closes as any round does). Until then it neither goes idle nor reaches its limit: parties
  // arrive over hours, submit and leave. It still closes early once every party has submitted or
  // left, and outputs nothing if fewer than min_parties submitted.
  std::optional<std::int64_t> close_at;
  std::size_t close_count = 0;
  std::chrono::milliseconds deadline{30'000};
  std::string shuffler_address = "127.0.0.1:0";  // host:port the parties connect to (port 0: given at run time)
  PublicKey shuffler_key{};
  // The shuffler's Ed25519 signing key (signing_key_of its key file): what its admission receipts
  // are checked against (a shuffler with a state directory gives them; net/store.hpp). With a
  // chain it is mix_chain[0].signer. Absent in a config written without it: no receipts then.
  std::optional<SigningPublicKey> shuffler_signer;
  PublicKey analyzer_key{};
  // Index = party id. Consecutive parties may share a key: whoever holds it may speak for any of
  // them (a host running them in one process, as `local` gives each party process one key). In
  // JSON such a run is {"key": KEY, "parties": N}, one party's key a string.
  std::vector<PublicKey> party_keys;
  std::uint32_t max_frame_bytes = 256u << 20;
  // BLAKE2b-256 (hex) of the content each file-reading parameter reads (ProtocolInfo params'
  // reads_file: an mpc2 @FILE program, a circuit), by parameter name: in the digest, so that two
  // hosts with different files under the same name never join one session.
  std::map<std::string, std::string> file_digests;
  // The wire shape of every round (wire_rounds() of the protocol, written by `shufflempc session`):
  // what the shuffler enforces. It never builds the protocol, so it never reads the protocol's
  // parameters or files; every party and the analyzer check that their protocol declares exactly
  // these shapes (check_rounds()) before they connect.
  std::vector<RoundShape> rounds;
  // The chain of mix servers the records cross, in order (docs/mix-chain.md): empty, the one
  // shuffler reads every record; otherwise 2 to max_mix_servers servers, the first being the
  // shuffler (the entry: its key is shuffler_key), every record wrapped in one onion layer per
  // server, and each round's `rounds` width the onion's width at the entry.
  std::vector<MixServerKeys> mix_chain;
  // What the chain carries. Verifiable: every server of mix_chain has its ElGamal key, the analyzer
  // has analyzer_elgamal, each with its proof of possession (checked by from_json), and each
  // round's width is its ElGamal records' (wire_shape).
  MixKind mix = MixKind::decryption;
  std::optional<VerifiableKey> analyzer_elgamal;
  // A verifiable chain's t-of-k key made by its servers (net/dkg.hpp; `session
  // --decryption-threshold`), for the rounds delivered to every party: the key generation's
  // transcript, and the qualified dealers and key from_json recomputed from it (its setup must be
  // this session's chain). Absent: those rounds use the servers' combined key (t = k).
  struct DistributedKey {
    mixnet::DkgTranscript transcript;
    mixnet::DkgOutcome outcome;
  };
  std::shared_ptr<const DistributedKey> distributed_key;

  // Throws std::invalid_argument naming the offending field.
  [[nodiscard]] static SessionConfig from_json(const Value& json);
  [[nodiscard]] Value to_json() const;
  [[nodiscard]] static SessionConfig load(const std::string& path);
  void save(const std::string& path) const;
  [[nodiscard]] Limits limits() const;
  // The longest a round may stay open, from its opening: twice the deadline, plus round_work_allowance
  // for each party of the session. A round stays open only while it moves (a new link, a batch, a
  // link saying its parties are still preparing theirs: docs/network.md, "Deadlines"); this bounds
  // how long parties that keep saying so can hold it. Every process computes it from the config
  // alone: the clients wait this long (plus 5 s) for a round's result.
  [[nodiscard]] std::chrono::milliseconds round_limit() const;
  // Whether round 0 is a collection window, and how long it has still to run at `now` (0 when it
  // has closed or the session has no close_at): what a client and the launcher add to a round's wait.
  [[nodiscard]] bool windowed() const { return close_at.has_value() || close_count > 0; }
  [[nodiscard]] std::chrono::milliseconds window_left(std::chrono::system_clock::time_point now = std::chrono::system_clock::now()) const;
  // The chain as the commands name it: mix_chain's size (1 when empty), mix, and the distributed
  // key's threshold (0 without one). Throws std::invalid_argument as ChainSpec::make does.
  [[nodiscard]] ChainSpec chain() const;
  // BLAKE2b-256 of every field but shuffler_address (which each host may spell its own way), sent
  // in the hello: a process holding a different protocol, parameter, party list or key is refused.
  [[nodiscard]] ConfigDigest digest() const;
};

// Each party's share of a round's limit (SessionConfig::round_limit): several times what sealing
// and opening a party's records costs on one busy core of a small machine (about 0.15 ms for
// counting's two), so that only a party that holds a round on purpose reaches it.
inline constexpr std::chrono::microseconds round_work_allowance{1000};

// Most rounds a session config may declare.
inline constexpr std::size_t max_session_rounds = 1 << 16;

// "host:port" -> (host, port); throws std::invalid_argument naming `what`.
[[nodiscard]] std::pair<std::string, std::uint16_t> split_address(const std::string& address, const std::string& what);

}  // namespace shufflempc::net
