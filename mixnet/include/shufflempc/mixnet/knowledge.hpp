// Proofs of plaintext knowledge for the records submitted to a verifiable mix.
//
// A record is L limb ciphertexts (c1_l, c2_l) = (r_l·G, M_l + r_l·Y) (elgamal.hpp). Its sender
// proves that it knows every r_l, and so its plaintext, with a Schnorr proof (Schnorr, J. Cryptology
// 1991; non-interactive by Fiat–Shamir, as Helios and Verificatum bind their submissions): commitments
// A_l = a_l·G, one challenge e = H(session, round, Y, tag, the ciphertexts, the commitments) for the
// record, responses z_l = a_l + e·r_l, checked as z_l·G = A_l + e·c1_l. Someone who re-randomizes
// another sender's record (c1 + s·G, c2 + s·Y) knows s but not r: it cannot prove the copy, so the
// copy is refused, and the plaintext it would have duplicated stays counted once.
//
// The tag binds the proof to its sender without naming it: 32 bytes that only the sender and the
// entry can compute (submitter_tag, a keyed hash of the session, the round, the sender and the
// record's index among its records, under a key the two share), different for every record of a sender,
// so a transcript that publishes the tags links no two records and names no party, while the entry
// refuses a record whose tag is not its sender's: a proof copied with its record under another
// sender's identity fails there, and under a new tag it does not verify.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/messages.hpp"
#include "shufflempc/mixnet/elgamal.hpp"
#include "shufflempc/random.hpp"
#include "shufflempc/channel.hpp"

namespace shufflempc::mixnet {

inline constexpr std::size_t tag_bytes = 32;
using SubmitterTag = std::array<std::uint8_t, tag_bytes>;
// The key a sender and the entry share for the tags of its records.
using TagKey = std::array<std::uint8_t, 32>;

// The tag of party `party`'s `index`-th record (0-based, in the order it submits them) of `round`:
// BLAKE2b-256 keyed with `key` over a label, the session, the round, the party and the index
// (little-endian). The party is in it so that two parties holding one key (a host's) tag apart.
[[nodiscard]] SubmitterTag submitter_tag(const TagKey& key, const SessionId& session, std::uint32_t round, PartyId party, std::uint64_t index);

// What every challenge is bound to: the session, the round and the key the records are encrypted under.
struct KnowledgeContext {
  SessionId session{};
  std::uint32_t round = 0;
  Point key;
};

// The proofs of N records of L limbs: per record its tag, L commitments and L responses.
class KnowledgeProofs {
 public:
  KnowledgeProofs() = default;
  KnowledgeProofs(std::size_t limbs, std::size_t records)
      : limbs_(limbs), tags_(records), commit_(limbs * records), response_(limbs * records) {}
  [[nodiscard]] std::size_t limbs() const { return limbs_; }
  [[nodiscard]] std::size_t size() const { return tags_.size(); }
  [[nodiscard]] SubmitterTag& tag(std::size_t i) { return tags_[i]; }
  [[nodiscard]] const SubmitterTag& tag(std::size_t i) const { return tags_[i]; }
  [[nodiscard]] Point& commit(std::size_t i, std::size_t l) { return commit_[i * limbs_ + l]; }
  [[nodiscard]] const Point& commit(std::size_t i, std::size_t l) const { return commit_[i * limbs_ + l]; }
  [[nodiscard]] Scalar& response(std::size_t i, std::size_t l) { return response_[i * limbs_ + l]; }
  [[nodiscard]] const Scalar& response(std::size_t i, std::size_t l) const { return response_[i * limbs_ + l]; }

  // Bytes of one record's proof: tag, then A_1..A_L, then z_1..z_L.
  [[nodiscard]] static constexpr std::size_t record_bytes(std::size_t limbs) { return tag_bytes + limbs * (point_bytes + scalar_bytes); }
  // Record i's proof in that layout, written to `out` (record_bytes(limbs()) bytes).
  void write(std::size_t i, std::uint8_t* out) const;
  // Reads record i's proof from `in`; false if a commitment is not a canonical point or a response
  // not a scalar below the group order (record i is then left as it was).
  bool read(std::size_t i, const std::uint8_t* in);
  // Every record's proof, record after record.
  [[nodiscard]] std::vector<std::uint8_t> to_bytes() const;
  // Throws std::invalid_argument naming `what` if the size is not that of `records` proofs of `limbs`
  // limbs, or a record's commitment or response is not canonical.
  [[nodiscard]] static KnowledgeProofs from_bytes(std::size_t records, std::size_t limbs, std::span<const std::uint8_t> bytes, const std::string& what);
  // A new set with record order[k] of this one at k.
  [[nodiscard]] KnowledgeProofs permuted(std::span<const std::size_t> order) const;
  friend bool operator==(const KnowledgeProofs&, const KnowledgeProofs&) = default;

 private:
  std::size_t limbs_ = 0;
  std::vector<SubmitterTag> tags_;
  std::vector<Point> commit_;
  std::vector<Scalar> response_;
};

struct ProvedBatch {
  CiphertextBatch ciphertexts;
  KnowledgeProofs proofs;
};

// Encrypts every message under `context.key` (as encrypt_batch) and proves each record with the tag
// tags[i]. Throws std::invalid_argument if the width does not fit or the tags are not one a message.
[[nodiscard]] ProvedBatch encrypt_and_prove(const MessageBatch& messages, const KnowledgeContext& context, std::span<const SubmitterTag> tags,
                                            Rng& rng, unsigned threads);

// The records whose proofs fail, ascending (empty if every proof holds). All equations are weighted by
// 128 random bits of the verifier's own and summed in one multi-scalar multiplication (a batch with a
// false proof passes with probability at most 2^-128); only a failing batch is checked record by record.
[[nodiscard]] std::vector<std::size_t> unproved_records(const KnowledgeContext& context, const CiphertextBatch& batch,
                                                        const KnowledgeProofs& proofs, unsigned threads);
// "" if every record's proof holds; otherwise how many fail and the first of them.
[[nodiscard]] std::string check_knowledge(const KnowledgeContext& context, const CiphertextBatch& batch, const KnowledgeProofs& proofs,
                                          unsigned threads);

// A submission on the wire: each record's ciphertexts (CiphertextBatch layout) followed by its proof.
[[nodiscard]] constexpr std::size_t submission_bytes(std::size_t limbs) { return limbs * ciphertext_bytes + KnowledgeProofs::record_bytes(limbs); }
// The limbs of a submitted record of `bytes` bytes, or 0 if no record has that size.
[[nodiscard]] std::size_t submission_limbs(std::size_t bytes);
[[nodiscard]] MessageBatch to_submissions(const ProvedBatch& proved);

}  // namespace shufflempc::mixnet
