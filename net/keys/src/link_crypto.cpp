#include "shufflempc/net/detail/link_crypto.hpp"

#include <sodium.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <string_view>
#include <string>

#include "shufflempc/error.hpp"
#include "shufflempc/messages.hpp"
#include "shufflempc/parallel.hpp"

namespace shufflempc::net::detail {

namespace {

constexpr char kdf_label[] = "shufflempc-link-v2";
constexpr char proof_label[] = "shufflempc-identities-v2";

using Nonce = std::array<std::uint8_t, crypto_aead_chacha20poly1305_IETF_NPUBBYTES>;

Nonce nonce(std::uint64_t seq, std::uint32_t part) {
  Nonce n{};
  store_le<std::uint64_t>(n.data(), seq);
  store_le<std::uint32_t>(n.data() + 8, part);
  return n;
}

void dh(std::uint8_t* out, const std::uint8_t* secret, const PublicKey& pub) {
  if (crypto_scalarmult(out, secret, pub.data()) != 0)
    throw_error(Errc::unauthenticated, "handshake: degenerate public key");
}

}  // namespace

StaticSecret static_secret(const std::array<std::uint8_t, secret_key_bytes>& secret, const PublicKey& peer) {
  StaticSecret k{};
  dh(k.data(), secret.data(), peer);
  return k;
}

namespace {

using Hash = StaticSecret;
constexpr char leaf_label[] = "shufflempc-identity-leaf";
constexpr char block_label[] = "shufflempc-identity-block";

// BLAKE2b-256 of a label and the parts, in order.
Hash labelled_hash(std::string_view label, std::initializer_list<std::span<const std::uint8_t>> parts) {
  Hash h{};
  crypto_generichash_state st;
  crypto_generichash_init(&st, nullptr, 0, h.size());
  crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(label.data()), label.size());
  for (const auto& part : parts) crypto_generichash_update(&st, part.data(), part.size());
  crypto_generichash_final(&st, h.data(), h.size());
  sodium_memzero(&st, sizeof st);
  return h;
}

Hash leaf_hash(const StaticSecret& k) { return labelled_hash(leaf_label, {k}); }
Hash block_hash(const Hash& left, const Hash& right) { return labelled_hash(block_label, {left, right}); }

// Calls f(level, index) for the aligned blocks that tile [first, first + count), left to right.
template <class F>
void for_each_block(std::uint64_t first, std::uint64_t count, F&& f) {
  std::uint64_t at = first;
  const std::uint64_t end = first + count;
  while (at < end) {
    unsigned level = 0;
    while (level < 32 && at % (std::uint64_t{2} << level) == 0 && at + (std::uint64_t{2} << level) <= end) ++level;
    f(level, at >> level);
    at += std::uint64_t{1} << level;
  }
}

// The hash of block [k 2^level, (k + 1) 2^level) from the leaves at `leaves` (its first party's).
Hash subtree_hash(const StaticSecret* leaves, unsigned level) {
  if (level == 0) return leaf_hash(*leaves);
  const std::size_t half = std::size_t{1} << (level - 1);
  return block_hash(subtree_hash(leaves, level - 1), subtree_hash(leaves + half, level - 1));
}

IdentityProof proof_of(PartyId first, std::uint32_t count, const std::vector<Hash>& blocks) {
  IdentityProof p{};
  crypto_generichash_state st;
  crypto_generichash_init(&st, nullptr, 0, p.size());
  crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(proof_label), sizeof proof_label - 1);
  std::array<std::uint8_t, 8> range{};
  store_le<std::uint32_t>(range.data(), first);
  store_le<std::uint32_t>(range.data() + 4, count);
  crypto_generichash_update(&st, range.data(), range.size());
  for (const auto& b : blocks) crypto_generichash_update(&st, b.data(), b.size());
  crypto_generichash_final(&st, p.data(), p.size());
  sodium_memzero(&st, sizeof st);
  return p;
}

}  // namespace

IdentityProof identity_proof(std::span<const StaticSecret> secrets, PartyId first) {
  std::vector<Hash> blocks;
  for_each_block(first, secrets.size(), [&](unsigned level, std::uint64_t k) {
    blocks.push_back(subtree_hash(secrets.data() + ((k << level) - first), level));
  });
  const auto p = proof_of(first, static_cast<std::uint32_t>(secrets.size()), blocks);
  sodium_memzero(blocks.data(), blocks.size() * sizeof(Hash));
  return p;
}

std::size_t identity_blocks(PartyId first, std::uint32_t count) {
  std::size_t blocks = 0;
  for_each_block(first, count, [&](unsigned, std::uint64_t) { ++blocks; });
  return blocks;
}

IdentityTree::IdentityTree(std::span<const StaticSecret> secrets) {
  levels_.emplace_back(secrets.size());
  for (std::size_t i = 0; i < secrets.size(); ++i) levels_[0][i] = leaf_hash(secrets[i]);
  while (levels_.back().size() >= 2) {
    const auto& below = levels_.back();
    std::vector<Hash> next(below.size() / 2);
    for (std::size_t k = 0; k < next.size(); ++k) next[k] = block_hash(below[2 * k], below[2 * k + 1]);
    levels_.push_back(std::move(next));
  }
}

void IdentityTree::wipe() {
  for (auto& level : levels_) sodium_memzero(level.data(), level.size() * sizeof(Hash));
  levels_.clear();
}

StaticSecret identity_leaf(const StaticSecret& k) { return leaf_hash(k); }

StaticSecret IdentityTree::leaf(PartyId p) const {
  if (levels_.empty() || p >= levels_[0].size()) throw std::out_of_range("identity tree: a party outside the session's parties");
  return levels_[0][p];
}

IdentityProof IdentityTree::proof(PartyId first, std::uint32_t count) const {
  if (levels_.empty() || std::uint64_t{first} + count > levels_[0].size())
    throw std::out_of_range("identity tree: a range outside the session's parties");
  std::vector<Hash> blocks;
  for_each_block(first, count, [&](unsigned level, std::uint64_t k) { blocks.push_back(levels_[level][k]); });
  return proof_of(first, count, blocks);
}

IdentityTree parties_tree(const KeyPair& mine, std::span<const PublicKey> party_keys) {
  std::vector<StaticSecret> statics(party_keys.size());
  // Wiped however this ends (a bad key throws from the loop).
  struct Wipe {
    std::vector<StaticSecret>& v;
    ~Wipe() { sodium_memzero(v.data(), v.size() * sizeof(StaticSecret)); }
  } wipe{statics};
  const std::vector<std::size_t> runs = key_runs(party_keys);
  parallel_for(runs.size(), hardware_cores(), [&](std::size_t r) {
    const std::size_t p = runs[r];
    try {
      statics[p] = static_secret(mine.secret_key(), party_keys[p]);
    } catch (const std::system_error&) {
      throw std::invalid_argument("party_keys[" + std::to_string(p) + "] is not a usable X25519 public key");
    }
    const std::size_t end = r + 1 < runs.size() ? runs[r + 1] : party_keys.size();
    std::fill(statics.begin() + static_cast<std::ptrdiff_t>(p) + 1, statics.begin() + static_cast<std::ptrdiff_t>(end), statics[p]);
  });
  return IdentityTree(statics);
}

IdentityProof identity_proof(PartyId id, const KeyPair& mine, const PublicKey& shuffler) {
  StaticSecret k = static_secret(mine.secret_key(), shuffler);
  const IdentityProof proof = identity_proof(std::span(&k, 1), id == analyzer_id ? 0 : id);  // the analyzer's proof starts at 0
  sodium_memzero(k.data(), k.size());
  return proof;
}

LinkCipher::~LinkCipher() {
  sodium_memzero(send_key_.data(), send_key_.size());
  sodium_memzero(recv_key_.data(), recv_key_.size());
}

void LinkCipher::derive(bool client, std::span<const std::uint8_t> shared, std::span<const std::uint8_t> transcript) {
  std::array<std::uint8_t, 64> okm{};
  crypto_generichash_state st;
  crypto_generichash_init(&st, nullptr, 0, okm.size());
  crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(kdf_label), sizeof kdf_label - 1);
  crypto_generichash_update(&st, shared.data(), shared.size());
  crypto_generichash_update(&st, transcript.data(), transcript.size());
  crypto_generichash_final(&st, okm.data(), okm.size());
  auto& c2s = client ? send_key_ : recv_key_;
  auto& s2c = client ? recv_key_ : send_key_;
  std::memcpy(c2s.data(), okm.data(), 32);
  std::memcpy(s2c.data(), okm.data() + 32, 32);
  sodium_memzero(okm.data(), okm.size());
  sodium_memzero(&st, sizeof st);
}

std::uint64_t LinkCipher::seal_prefix(const FrameHeader& header, std::uint8_t* out) {
  const std::uint64_t seq = send_seq_++;
  store_le<std::uint64_t>(out, seq);
  const auto hb = encode_header(header);
  std::copy(hb.begin(), hb.end(), out + sequence_bytes);
  const auto n = nonce(seq, 0);
  crypto_aead_chacha20poly1305_ietf_encrypt_detached(out + sequence_bytes, out + sequence_bytes + frame_header_bytes, nullptr,
                                                     out + sequence_bytes, frame_header_bytes, nullptr, 0, nullptr, n.data(),
                                                     send_key_.data());
  return seq;
}

void LinkCipher::seal_payload(std::uint64_t seq, std::uint8_t* body, std::size_t payload_length) const {
  const auto n = nonce(seq, 1);
  crypto_aead_chacha20poly1305_ietf_encrypt_detached(body, body + payload_length, nullptr, body, payload_length, nullptr, 0, nullptr,
                                                     n.data(), send_key_.data());
}

std::vector<std::uint8_t> LinkCipher::seal(const FrameHeader& header, std::span<const std::uint8_t> payload) {
  std::vector<std::uint8_t> buf(frame_prefix_bytes + payload.size() + aead_tag_bytes);
  FrameHeader h = header;
  h.payload_length = static_cast<std::uint32_t>(payload.size());
  const std::uint64_t seq = seal_prefix(h, buf.data());
  if (!payload.empty()) std::memcpy(buf.data() + frame_prefix_bytes, payload.data(), payload.size());
  seal_payload(seq, buf.data() + frame_prefix_bytes, payload.size());
  return buf;
}

FrameHeader LinkCipher::open_prefix(std::uint8_t* prefix, const SessionId& session, const Limits& limits) {
  const auto seq = load_le<std::uint64_t>(prefix);
  if (seq < recv_seq_)
    throw_error(Errc::replayed_frame, "frame sequence number " + std::to_string(seq) + " was already used (replay)");
  if (seq > recv_seq_)
    throw_error(Errc::replayed_frame, "frame sequence number " + std::to_string(seq) + " skips ahead of " +
                                          std::to_string(recv_seq_) + " (reordered or injected)");
  std::uint8_t* hdr = prefix + sequence_bytes;
  const auto n = nonce(seq, 0);
  if (crypto_aead_chacha20poly1305_ietf_decrypt_detached(hdr, nullptr, hdr, frame_header_bytes, hdr + frame_header_bytes,
                                                         nullptr, 0, n.data(), recv_key_.data()) != 0)
    throw_error(Errc::unauthenticated, "frame header failed authentication (wrong key, corrupted or forged frame)");
  return decode_header(std::span<const std::uint8_t>(hdr, frame_header_bytes), session, limits);
}

void LinkCipher::open_payload(std::uint8_t* body, std::size_t payload_length) {
  const auto n = nonce(recv_seq_, 1);
  if (crypto_aead_chacha20poly1305_ietf_decrypt_detached(body, nullptr, body, payload_length, body + payload_length, nullptr, 0,
                                                         n.data(), recv_key_.data()) != 0)
    throw_error(Errc::unauthenticated, "frame payload failed authentication (corrupted or forged frame)");
  ++recv_seq_;
}

ClientHandshake::ClientHandshake(const SessionId& session, const ConfigDigest& config, PartyId first, std::uint32_t count,
                                 const IdentityProof& proof, const PublicKey& server, Rng& rng)
    : session_(session), first_(first), proof_(proof), server_(server), ephemeral_(KeyPair::generate(rng)) {
  Hello hello;
  hello.session = session;
  hello.first = first;
  hello.count = count;
  hello.ephemeral_key = ephemeral_.public_key();
  hello.config = config;
  const auto hb = encode_hello(hello);
  std::copy(hb.begin(), hb.end(), transcript_.begin());
}

ClientHandshake::~ClientHandshake() { sodium_memzero(proof_.data(), proof_.size()); }

std::vector<std::uint8_t> ClientHandshake::finish(std::span<const std::uint8_t> reply, LinkCipher& cipher) {
  if (reply.size() != hello_reply_bytes) throw_error(Errc::malformed_frame, "handshake: a reply of the wrong size");
  std::copy(reply.begin(), reply.end(), transcript_.begin() + hello_bytes);
  const bool entry = first_ == entry_id;
  if (load_le<std::uint32_t>(reply.data()) != hello_magic || load_le<std::uint16_t>(reply.data() + 4) != wire_version)
    throw_error(Errc::malformed_frame, entry ? "handshake: the peer is not a shufflempc mix server of this version"
                                             : "handshake: the peer is not a shufflempc shuffler of this version");
  if (!std::equal(session_.begin(), session_.end(), reply.data() + 8))
    throw_error(Errc::wrong_session, entry ? "handshake: the mix server answered for another session"
                                           : "handshake: the shuffler answered for another session");
  PublicKey server_eph{};
  std::copy(reply.data() + 8 + session_id_bytes, reply.data() + hello_reply_bytes, server_eph.begin());

  std::array<std::uint8_t, 3 * 32> shared{};
  dh(shared.data(), ephemeral_.secret_key().data(), server_eph);
  dh(shared.data() + 32, ephemeral_.secret_key().data(), server_);
  std::copy(proof_.begin(), proof_.end(), shared.begin() + 64);
  cipher.derive(true, shared, transcript_);
  sodium_memzero(shared.data(), shared.size());
  FrameHeader confirm;
  confirm.type = FrameType::confirm;
  confirm.session = session_;
  return cipher.seal(confirm, {});
}

std::array<std::uint8_t, hello_reply_bytes> server_handshake(const Hello& hello, const KeyPair& mine, const IdentityProof& proof,
                                                             Rng& rng, LinkCipher& cipher) {
  const KeyPair eph = KeyPair::generate(rng);
  std::array<std::uint8_t, hello_bytes + hello_reply_bytes> transcript{};
  const auto hb = encode_hello(hello);
  std::copy(hb.begin(), hb.end(), transcript.begin());
  std::uint8_t* reply = transcript.data() + hello_bytes;
  store_le<std::uint32_t>(reply, hello_magic);
  store_le<std::uint16_t>(reply + 4, wire_version);
  store_le<std::uint16_t>(reply + 6, 0);
  std::copy(hello.session.begin(), hello.session.end(), reply + 8);
  std::copy(eph.public_key().begin(), eph.public_key().end(), reply + 8 + session_id_bytes);

  std::array<std::uint8_t, 3 * 32> shared{};
  dh(shared.data(), eph.secret_key().data(), hello.ephemeral_key);
  dh(shared.data() + 32, mine.secret_key().data(), hello.ephemeral_key);
  std::copy(proof.begin(), proof.end(), shared.begin() + 64);
  cipher.derive(false, shared, transcript);
  sodium_memzero(shared.data(), shared.size());
  std::array<std::uint8_t, hello_reply_bytes> out{};
  std::copy(reply, reply + hello_reply_bytes, out.begin());
  return out;
}

}  // namespace shufflempc::net::detail
