// The cryptography of an authenticated link without its socket: the identities' proof, the
// handshake's two messages and key derivation, and the frame cipher. SecureLink (detail/link.hpp)
// drives it over TCP; a party whose bytes travel another way (a page in a browser, over a
// WebSocket) drives the same code compiled for it, so the two cannot drift apart. Nothing here
// waits for or reads a byte: each step takes what arrived and returns what to send.
//
// The handshake and the frames are described in detail/link.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/net/keys.hpp"
#include "shufflempc/net/wire.hpp"
#include "shufflempc/random.hpp"

namespace shufflempc::net::detail {

// A party's (or the analyzer's) static secret with the shuffler, X25519(own secret, peer public).
using StaticSecret = std::array<std::uint8_t, 32>;
[[nodiscard]] StaticSecret static_secret(const std::array<std::uint8_t, secret_key_bytes>& secret, const PublicKey& peer);
// P of the handshake: what proves every identity a link claims. For parties [first, first + count)
// it is BLAKE2b over the hashes of the aligned blocks [k 2^j, (k + 1) 2^j) that tile the range
// (largest first from the left; a leaf is H(K_p), a block H(left half, right half)). A client
// hashes its own secrets, O(count); the shuffler holds every block's hash from its start
// (IdentityTree), so checking any claimed range costs O(log n) hashes: a stranger's hello claiming
// a million parties costs no more than one claiming one.
using IdentityProof = std::array<std::uint8_t, 32>;
// `secrets`: K_p of parties first, first + 1, ... (the analyzer: its one secret, first 0).
[[nodiscard]] IdentityProof identity_proof(std::span<const StaticSecret> secrets, PartyId first = 0);
// The proof of one identity holding `mine` (a party, or the analyzer: id = analyzer_id).
[[nodiscard]] IdentityProof identity_proof(PartyId id, const KeyPair& mine, const PublicKey& shuffler);

// How many aligned blocks tile [first, first + count): at most 2 per bit of the ids, so at most 64.
[[nodiscard]] std::size_t identity_blocks(PartyId first, std::uint32_t count);

// The leaf of an identity in the tree below: H(K_p), a hash of the static secret that only the
// identity and the shuffler hold (also the key of the identity's submitter tags, net/verifiable.hpp).
[[nodiscard]] StaticSecret identity_leaf(const StaticSecret& k);

class IdentityTree {
 public:
  IdentityTree() = default;
  // Every party's K_p in id order: about 2n hashes, once.
  explicit IdentityTree(std::span<const StaticSecret> secrets);
  IdentityTree(IdentityTree&&) = default;
  IdentityTree& operator=(IdentityTree&& other) noexcept {
    wipe();
    levels_ = std::move(other.levels_);
    return *this;
  }
  IdentityTree(const IdentityTree&) = delete;
  IdentityTree& operator=(const IdentityTree&) = delete;
  ~IdentityTree() { wipe(); }  // the leaves' hashes prove identities: wiped like keys
  // The proof of parties [first, first + count), which must lie inside the tree's parties.
  [[nodiscard]] IdentityProof proof(PartyId first, std::uint32_t count) const;
  // Party p's leaf, H(K_p) (identity_leaf); throws std::out_of_range outside the tree's parties.
  [[nodiscard]] StaticSecret leaf(PartyId p) const;

 private:
  void wipe();
  std::vector<std::vector<StaticSecret>> levels_;  // levels_[j][k]: the hash of block [k 2^j, (k + 1) 2^j)
};

// Every party's K_p with `mine` (the shuffler's key, or the analyzer's for the verdict links), on
// every core: one X25519 (about 35 us) for each run of consecutive parties with one key (a party
// process's parties under `local`, or a host's), copied to the rest of its run. Throws
// std::invalid_argument naming a party key that is not a usable X25519 public key.
[[nodiscard]] IdentityTree parties_tree(const KeyPair& mine, std::span<const PublicKey> party_keys);

// One link's two keys and two sequence counters: seals the frames one side sends and opens the
// ones it receives (ChaCha20-Poly1305 IETF, the sequence number as nonce, one counter a direction).
class LinkCipher {
 public:
  LinkCipher() = default;
  LinkCipher(const LinkCipher&) = delete;
  LinkCipher& operator=(const LinkCipher&) = delete;
  ~LinkCipher();

  // k = BLAKE2b-512("shufflempc-link-v2" | shared | transcript): the client sends under k[0..32),
  // the server under k[32..64).
  void derive(bool client, std::span<const std::uint8_t> shared, std::span<const std::uint8_t> transcript);

  // Writes a frame's prefix (sequence number, encrypted header, its tag) at `out`
  // (frame_prefix_bytes) and returns the sequence number it used.
  std::uint64_t seal_prefix(const FrameHeader& header, std::uint8_t* out);
  // Encrypts `payload_length` bytes at `body` in place and writes their tag after them.
  void seal_payload(std::uint64_t seq, std::uint8_t* body, std::size_t payload_length) const;
  // A whole frame: prefix, payload, tag.
  [[nodiscard]] std::vector<std::uint8_t> seal(const FrameHeader& header, std::span<const std::uint8_t> payload);

  // Checks the sequence number of a received prefix and opens its header in place, then decodes it
  // against `session` and `limits`. Throws std::system_error: replayed_frame, unauthenticated,
  // and decode_header's malformed_frame, oversized_frame, wrong_session.
  [[nodiscard]] FrameHeader open_prefix(std::uint8_t* prefix, const SessionId& session, const Limits& limits);
  // Opens the payload of the frame whose prefix was opened last (`payload_length` bytes and their
  // tag at `body`) in place; the frame is then received. Throws unauthenticated.
  void open_payload(std::uint8_t* body, std::size_t payload_length);

  [[nodiscard]] std::uint64_t next_send_sequence() const { return send_seq_; }
  void set_send_sequence(std::uint64_t seq) { send_seq_ = seq; }

 private:
  std::array<std::uint8_t, 32> send_key_{};
  std::array<std::uint8_t, 32> recv_key_{};
  std::uint64_t send_seq_ = 0;
  std::uint64_t recv_seq_ = 0;
};

// The client's side of the handshake, in two steps: hello() is sent; the server's reply goes to
// finish(), which derives the link's keys and returns the confirm frame to send. The server's
// confirm frame then opens with the cipher.
class ClientHandshake {
 public:
  // For the parties first .. first + count - 1 (or the analyzer, or the chain's entry), whose
  // static secrets give `proof`, with the session's server key `server`.
  ClientHandshake(const SessionId& session, const ConfigDigest& config, PartyId first, std::uint32_t count,
                  const IdentityProof& proof, const PublicKey& server, Rng& rng);
  ClientHandshake(const ClientHandshake&) = delete;
  ClientHandshake& operator=(const ClientHandshake&) = delete;
  ~ClientHandshake();

  [[nodiscard]] std::span<const std::uint8_t> hello() const { return std::span(transcript_).first(hello_bytes); }
  // Checks the reply (magic, version, session: malformed_frame or wrong_session, naming a mix
  // server when the hello is the chain entry's), derives the keys into `cipher` and returns the
  // sealed confirm frame.
  [[nodiscard]] std::vector<std::uint8_t> finish(std::span<const std::uint8_t> reply, LinkCipher& cipher);

 private:
  SessionId session_{};
  PartyId first_ = 0;
  IdentityProof proof_{};
  PublicKey server_{};
  KeyPair ephemeral_;
  std::array<std::uint8_t, hello_bytes + hello_reply_bytes> transcript_{};
};

// The server's side: from the client's hello, its key `mine` and the claimed identities' `proof`,
// derives the keys into `cipher` and returns the reply to send. The client's confirm frame then
// opens with the cipher, and the server answers with its own.
[[nodiscard]] std::array<std::uint8_t, hello_reply_bytes> server_handshake(const Hello& hello, const KeyPair& mine,
                                                                            const IdentityProof& proof, Rng& rng, LinkCipher& cipher);

}  // namespace shufflempc::net::detail
