// The transcript of a verifiable mix: everything a third party needs to check a run without any
// secret. Per round: the parties' ciphertexts, every hop's output and proof of shuffle, every
// trustee's proved decryption shares and the records they decrypt to. `verify_transcript` checks
// it all and names each hop or trustee whose proof fails; `shufflempc verify FILE` prints that.
//
// File format (JSON, one object): {"format": "shufflempc-verifiable-mix/1", "session": HEX,
// "hops": K, "rounds": [{"round": R, "delivery": "all-parties" | "analyzer-only", "width": W,
// "limbs": L, "key": {"threshold": T, "commitments": [HEX, ...], "shares": [HEX, ...]},
// "input": HEX, "hops": [{"output": HEX, "proof": HEX}, ...], "decryption": [{"trustee": I,
// "shares": HEX}, ...], "records": HEX}, ...]}; the binary layouts inside the hex strings are those
// of CiphertextBatch::to_bytes, ShuffleProof::to_bytes and DecryptionShares::to_bytes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/channel.hpp"
#include "shufflempc/messages.hpp"
#include "shufflempc/mixnet/decryption.hpp"
#include "shufflempc/mixnet/elgamal.hpp"
#include "shufflempc/mixnet/shuffle_proof.hpp"
#include "shufflempc/mixnet/threshold.hpp"

namespace shufflempc::mixnet {

inline constexpr const char* transcript_format = "shufflempc-verifiable-mix/1";

struct HopTranscript {
  CiphertextBatch output;
  ShuffleProof proof;
};

struct RoundTranscript {
  std::uint32_t round = 0;
  Delivery delivery = Delivery::analyzer_only;
  // Who decrypts: the mix servers (MPC mode, t of them) or the analyzer (ESA mode).
  ThresholdKey key;
  std::size_t width = 0;  // record bytes
  CiphertextBatch input;
  std::vector<HopTranscript> hops;
  std::vector<std::uint32_t> decrypted_by;    // the trustees who decrypted, ascending
  std::vector<DecryptionShares> decryption;  // theirs, in that order
  MessageBatch records;                      // what the decryption gave
};

struct Transcript {
  SessionId session{};
  std::size_t hops = 0;
  std::vector<RoundTranscript> rounds;

  [[nodiscard]] std::string to_json() const;
  // Throws std::invalid_argument naming the field that does not parse.
  [[nodiscard]] static Transcript from_json(const std::string& text);
  void save(const std::filesystem::path& file) const;
  [[nodiscard]] static Transcript load(const std::filesystem::path& file);
};

struct Verdict {
  std::size_t rounds = 0, records = 0, hop_proofs = 0, decryption_proofs = 0;  // what was checked
  std::vector<std::string> faults;  // one line each: "round R hop H: ..." or "round R trustee T: ..."
  [[nodiscard]] bool ok() const { return faults.empty(); }
};
// One round's evidence as a networked chain carries it to the receivers in a result frame, in binary:
// u64 N | u32 hops | the input batch | per hop: its output batch, its proof | u32 D | per trustee
// that decrypted: u32 index, its shares. The key and the records are not in it (the receiver holds
// the key from the session config and computes the records).
[[nodiscard]] std::vector<std::uint8_t> encode_evidence(const RoundTranscript& round);
// The round back, with `round`, `delivery`, `width` and `key` filled from the arguments. Throws
// std::invalid_argument naming what does not parse: a size, a count above `max_records` or the
// hops, a point or scalar that is not canonical, a trustee out of range or listed twice.
[[nodiscard]] RoundTranscript decode_evidence(std::span<const std::uint8_t> bytes, std::uint32_t round, Delivery delivery, std::size_t width,
                                              const ThresholdKey& key, std::size_t hops, std::size_t max_records);

// One line per hop of `round` whose proof of shuffle does not verify ("hop H: the proof of shuffle
// does not verify: ..."), each checked against its own input; hop `skip` (the checker's own) is not
// checked. Empty if every proof holds.
[[nodiscard]] std::vector<std::string> hop_faults(const SessionId& session, const RoundTranscript& round, unsigned threads,
                                                  std::optional<std::uint32_t> skip = std::nullopt);

// Checks the key (the trustees' public shares on the committed polynomial), every hop's proof of
// shuffle (each against its own input: a later hop is checked even if an earlier one cheated), that
// at least the threshold of distinct trustees decrypted, each one's decryption proofs, and that the
// records are what the proved shares decrypt to.
[[nodiscard]] Verdict verify_transcript(const Transcript& t, unsigned threads);

}  // namespace shufflempc::mixnet
