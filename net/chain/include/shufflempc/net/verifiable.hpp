// A verifiable chain of mix servers over TCP (docs/verifiable-shuffle.md): the keys every process
// derives, the records the entry admits, and what a receiver does with a round's evidence.
//
// Keys. Every mix server and the analyzer derive an ElGamal key from their X25519 key file
// (mixnet::derive_key) and publish it in the session config with a proof of possession bound to
// their X25519 key. A round delivered to every party (MPC mode) is encrypted under the servers'
// combined key (mixnet::combined_key: every server is needed to decrypt), or under the t-of-k key
// they made together when the config carries one (SessionConfig::distributed_key, net/dkg.hpp); a
// round delivered to the analyzer only (ESA mode) under that key plus the analyzer's
// (mixnet::RoundKey): the servers decrypt first, and only the analyzer can open what they leave.
//
// A round. The parties encrypt each record (ElGamal of a point that carries it), prove that they
// know its plaintext under a tag only they and the entry can compute (mixnet/knowledge.hpp), and
// submit it as on any link; the entry (the shuffler) admits the records whose tags are their
// senders' and whose proofs hold, re-encrypts, permutes and proves (hop 0),
// sends the batch to each further server in turn (FrameType::shuffle / shuffled), checking each
// proof as it arrives; it then sends the round's evidence to every server (decrypt / decrypted),
// each of which checks every other hop's proof before it returns its proved decryption shares. The result frame carries the evidence (mixnet::encode_evidence) and no
// records: each receiver checks every proof itself and decrypts (open_evidence).
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>

#include "shufflempc/mixnet/transcript.hpp"
#include "shufflempc/net/keys.hpp"

namespace shufflempc::net {

// The key a round's records are encrypted under, as the transcript names it: the servers'
// distributed key if the config has one, else their combined key; in an analyzer-only round with
// the analyzer's key beside it.
[[nodiscard]] mixnet::RoundKey round_key(const SessionConfig& config, Delivery delivery);
// Server `hop`'s decryption key for a round of `config`: its share of the distributed
// key (recomputed from the key generation's transcript with its key file; std::invalid_argument if
// it does not open), or of the combined key.
[[nodiscard]] mixnet::ElGamalKey server_share(const SessionConfig& config, const KeyPair& keys, std::size_t hop);

// What `config` fixes about its verifiable chain, for mixnet::check_session (`shufflempc verify
// --config`): its session id, its servers' signing keys, and for every round its delivery, its
// records' limbs (0 for a round that does not cross the chain, as the shuffler decides) and the key
// they are encrypted under. Throws std::invalid_argument if the config has no verifiable chain.
[[nodiscard]] mixnet::SessionChain session_chain(const SessionConfig& config);

// The key of party `party`'s submitter tags with the shuffler: the leaf of its identity (H(K_p),
// detail/link.hpp), which only the party and the shuffler hold.
[[nodiscard]] mixnet::TagKey tag_key_of(const KeyPair& party, const PublicKey& shuffler);

// A closed round's records as the entry admits them into the chain, each dropped and counted if it
// is not canonical points and a canonical proof (malformed), if its tag is not the one its sender
// must carry (`sender_tag(i)` for record i; no function: any tag) or its proof of plaintext
// knowledge fails (unproved: a re-randomized copy of another sender's record is one), or if its
// ciphertexts are an exact copy of an earlier admitted record's (duplicates). The proofs are checked
// in one batch (mixnet::unproved_records) on `threads` threads.
struct Admitted {
  mixnet::CiphertextBatch batch;
  mixnet::KnowledgeProofs proofs;
  std::size_t malformed = 0, unproved = 0, duplicates = 0;
  [[nodiscard]] std::size_t refused() const { return malformed + unproved + duplicates; }
};
[[nodiscard]] Admitted admit_records(const MessageBatch& records, const mixnet::KnowledgeContext& context,
                                     const std::function<mixnet::SubmitterTag(std::size_t)>& sender_tag, unsigned threads);
// A verifiable round's submitted records without their proofs: what the entry commits to and a
// sender's receipt covers. Throws std::invalid_argument if the width is no submitted record's.
[[nodiscard]] MessageBatch ciphertexts_of(const MessageBatch& submissions);
// For each of `submissions` (a sender's own), whether the entry may refuse it: it is not canonical
// points and proof, or its proof of plaintext knowledge does not hold (under whatever tag it carries).
[[nodiscard]] std::vector<char> refusable_records(const MessageBatch& submissions, const mixnet::KnowledgeContext& context, unsigned threads);
// The context the proofs of round `round` of `config` are bound to.
[[nodiscard]] mixnet::KnowledgeContext knowledge_context(const SessionConfig& config, std::uint32_t round, Delivery delivery);

// The records of round `round` from its evidence, after every hop's proof of shuffle and every
// server's decryption proof has been checked against `config`'s keys. In an analyzer-only round
// `analyzer` (the analyzer's key file) then opens what the servers' shares leave, adding its proved
// shares to the transcript. The
// round's transcript (records included) is returned. `own` (if any) are the ciphertexts this
// process submitted (without their proofs): each must be in the batch the entry admitted (an entry
// that replaced records to isolate another sender's is caught by the senders it left out), checked
// first; then every admitted record's proof of plaintext knowledge (an entry that added a
// re-randomized copy of a record cannot prove it). Throws
// std::system_error: malformed_frame if the evidence does not parse (or holds more than
// `max_records`), protocol_violation naming each hop or trustee whose proof fails, or the number of
// own records missing. A record that does not decrypt to one of the round's width (a sender
// encrypted something outside it) is dropped and counted in `discarded`, as a sealed record that
// does not open is.
[[nodiscard]] mixnet::RoundTranscript open_evidence(const SessionConfig& config, std::uint32_t round, const RoundShape& shape,
                                                    std::span<const std::uint8_t> evidence, const KeyPair* analyzer,
                                                    std::size_t max_records, unsigned threads, const MessageBatch* own = nullptr,
                                                    std::size_t* discarded = nullptr);

}  // namespace shufflempc::net
