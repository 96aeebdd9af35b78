// The transcript of a verifiable mix: everything a third party needs to check a run without any
// secret. Per round: the parties' ciphertexts with their proofs of plaintext knowledge
// (knowledge.hpp), every hop's output, proof of shuffle and its
// server's signature (signing.hpp), every trustee's proved decryption shares and the records they
// decrypt to. `verify_transcript` checks it all and names each hop or trustee whose proof or
// signature fails; `shufflempc verify FILE` prints that, and with `--config SESSION.json` also
// checks that the file is that session's (check_session).
//
// File format (JSON, one object): {"format": "shufflempc-verifiable-mix/8", "session": HEX,
// "hops": K, "signers": [HEX, ...] (the K servers' Ed25519 keys, hop 0 first), "rounds": [{"round":
// R, "delivery": "all-parties" | "analyzer-only", "width": W, "limbs": L, "key": {"threshold": T,
// "commitments": [HEX, ...], "shares": [HEX, ...], "analyzer": HEX (analyzer-only rounds)}, "input": HEX,
// "input_proofs": HEX, "hops": [{"output": HEX, "proof": HEX, "signature": HEX}, ...], "decryption":
// [{"trustee": I, "shares": HEX}, ...] (the servers'), "analyzer_decryption": HEX (analyzer-only
// rounds), "records": HEX}, ...]}; the binary layouts inside the hex strings are those of CiphertextBatch::to_bytes,
// KnowledgeProofs::to_bytes, ShuffleProof::to_bytes and DecryptionShares::to_bytes. A field the format does not name, nesting
// deeper than it, or a list longer than its bound is refused while the file is read, before anything
// is built from it. Earlier versions are refused with what they lack (1: hop signatures; 4: proofs
// of plaintext knowledge; 5: proofs and signatures that cover the record width; 6: records as one
// group element and one decryption proof per trustee; 7: analyzer-only rounds under a key that needs
// the servers as well as the analyzer).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/channel.hpp"
#include "shufflempc/messages.hpp"
#include "shufflempc/mixnet/decryption.hpp"
#include "shufflempc/mixnet/elgamal.hpp"
#include "shufflempc/mixnet/knowledge.hpp"
#include "shufflempc/mixnet/shuffle_proof.hpp"
#include "shufflempc/mixnet/signing.hpp"
#include "shufflempc/mixnet/threshold.hpp"

namespace shufflempc::mixnet {

inline constexpr const char* transcript_format = "shufflempc-verifiable-mix/8";
// Most hops a verifiable chain has (in process and over TCP).
inline constexpr std::size_t max_hops = 16;
// The largest transcript file read by default (Transcript::load): 1 GiB.
inline constexpr std::size_t max_transcript_bytes = std::size_t{1} << 30;

struct HopTranscript {
  CiphertextBatch output;
  ShuffleProof proof;
  Signature signature{};  // its server's, over hop_statement
};

// One hop as its server makes it, the same wherever it runs (the chain's entry, a further mix
// server, the in-process chain): `input` re-encrypted under `key` and permuted (with
// permutation_rng), the shuffle proved in `context` (with proof_rng), and hop_statement signed
// with `signer`. `tamper` (fault injection: a cheating server) alters the output after the proof
// and before the signature. `statement`, when given, receives the signed bytes (hop 0's are the
// entry's commitment to the batch it admitted).
[[nodiscard]] HopTranscript make_hop(const ProofContext& context, const Point& key, const CiphertextBatch& input, const SigningKeyPair& signer,
                                     Rng& permutation_rng, Rng& proof_rng, unsigned threads,
                                     const std::function<void(CiphertextBatch&)>& tamper = {}, std::vector<std::uint8_t>* statement = nullptr);

struct RoundTranscript {
  std::uint32_t round = 0;
  Delivery delivery = Delivery::analyzer_only;
  // Who decrypts: t of the mix servers, and in ESA mode the analyzer after them.
  RoundKey key;
  std::size_t width = 0;  // record bytes
  CiphertextBatch input;
  KnowledgeProofs input_proofs;  // one per input record: its sender's tag and proof of plaintext knowledge
  std::vector<HopTranscript> hops;
  std::vector<std::uint32_t> decrypted_by;    // the servers who decrypted, ascending
  std::vector<DecryptionShares> decryption;  // theirs, in that order
  std::optional<DecryptionShares> analyzer_decryption;  // ESA mode: the analyzer's (trustee key.analyzer_trustee())
  MessageBatch records;                      // what the decryption gave
};

struct Transcript {
  SessionId session{};
  std::size_t hops = 0;
  std::vector<SigningPublicKey> signers;  // the servers', hop 0 first (one per hop)
  std::vector<RoundTranscript> rounds;

  [[nodiscard]] std::string to_json() const;
  // Throws std::invalid_argument naming the field that does not parse, or the first field, nesting
  // or list length the format does not allow (checked as the text is read, before it is built).
  [[nodiscard]] static Transcript from_json(const std::string& text);
  void save(const std::filesystem::path& file) const;
  // Refuses (std::invalid_argument) a file larger than `max_bytes` before reading it.
  [[nodiscard]] static Transcript load(const std::filesystem::path& file, std::size_t max_bytes = max_transcript_bytes);
};

struct Verdict {
  std::size_t rounds = 0, records = 0, knowledge_proofs = 0, hop_proofs = 0, decryption_proofs = 0;  // what was checked
  std::vector<std::string> faults;  // one line each: "round R hop H: ..." or "round R trustee T: ..."
  [[nodiscard]] bool ok() const { return faults.empty(); }
};
// One hop as it travels, in a further server's shuffled frame and in each hop of the evidence: its
// output batch (CiphertextBatch::to_bytes), its proof (ShuffleProof::to_bytes), its server's
// signature (64 bytes); hop_bytes(N, L) bytes for N records of L limbs.
[[nodiscard]] std::size_t hop_bytes(std::size_t records, std::size_t limbs);
void append_hop(std::vector<std::uint8_t>& out, const HopTranscript& hop);
// Throws std::invalid_argument naming `what` (and the part: output, proof) on a size other than
// hop_bytes or a point or scalar that is not canonical.
[[nodiscard]] HopTranscript decode_hop(std::span<const std::uint8_t> bytes, std::size_t records, std::size_t limbs, const std::string& what);

// One round's evidence as a networked chain carries it to the receivers in a result frame, in binary:
// u64 N | u32 hops | the input batch | its proofs of plaintext knowledge | per hop: append_hop | u32 D | per trustee
// that decrypted: u32 index, its shares. The key and the records are not in it (the receiver holds
// the key from the session config and computes the records).
[[nodiscard]] std::vector<std::uint8_t> encode_evidence(const RoundTranscript& round);
// The round back, with `round`, `delivery`, `width` and `key` filled from the arguments. Throws
// std::invalid_argument naming what does not parse: a size, a count above `max_records` or the
// hops, a point or scalar that is not canonical, a trustee out of range or listed twice.
[[nodiscard]] RoundTranscript decode_evidence(std::span<const std::uint8_t> bytes, std::uint32_t round, Delivery delivery, std::size_t width,
                                              const RoundKey& key, std::size_t hops, std::size_t max_records);

// "" if the proof of shuffle of hop `context.hop`, which took `input`, holds under `key` and the hop
// is signed by `signer`; otherwise the first that fails ("the proof of shuffle does not verify:
// ...", "its server's signature does not verify ...").
[[nodiscard]] std::string hop_fault(const ProofContext& context, const Point& key, const CiphertextBatch& input, const HopTranscript& hop,
                                    const SigningPublicKey& signer, unsigned threads);
// One line per hop of `round` that fails hop_fault ("hop H: ..."), each checked against its own
// input and signed by signers[H] (one key per hop, or every hop is named); hop `skip` (the
// checker's own) is not checked. Empty if every hop holds.
[[nodiscard]] std::vector<std::string> hop_faults(const SessionId& session, const RoundTranscript& round, std::span<const SigningPublicKey> signers,
                                                  unsigned threads, std::optional<std::uint32_t> skip = std::nullopt);

// Checks the key (the trustees' public shares on the committed polynomial), every input record's
// proof of plaintext knowledge (under the round's key, naming how many fail), every hop's signature
// by the transcript's signer of that hop and its proof of shuffle (each against its own input: a
// later hop is checked even if an earlier one cheated), that at least the threshold of distinct
// servers decrypted (none needed for an empty batch) and, in an analyzer-only round, the analyzer
// too (and in no other round), each one's decryption proof, and that the records are what the
// proved shares decrypt to.
// The transcript checks only that it agrees with itself: its session id, signers and keys are its
// own word. check_session ties it to a session (below).
[[nodiscard]] Verdict verify_transcript(const Transcript& t, unsigned threads);

// What a session config fixes about its verifiable chain, as check_session compares it.
struct SessionChain {
  SessionId session{};
  std::vector<SigningPublicKey> signers;  // the chain's servers, hop 0 first
  struct Round {
    Delivery delivery = Delivery::analyzer_only;
    std::size_t limbs = 0;  // 0: the round carries no records (it does not cross the chain)
    std::size_t width = 0;  // the bytes its records decode to (the session config's record_width)
    RoundKey key;           // what its records are encrypted under
  };
  std::vector<Round> rounds;  // every round of the session, in order
};
// One line per way `t` is not a transcript of `chain`'s session: another session id, another
// number of hops or other signers, a round the session does not have, listed twice or out of
// order, a round that crossed the chain missing, or a round's delivery, record width or key other
// than the session's. Empty if it is that session's (verify_transcript then checks its proofs).
[[nodiscard]] std::vector<std::string> check_session(const Transcript& t, const SessionChain& chain);

}  // namespace shufflempc::mixnet
