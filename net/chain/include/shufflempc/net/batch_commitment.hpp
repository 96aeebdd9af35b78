// The shuffler's signed commitment to the batch of a round it delivers to the analyzer, and the
// check a party (or anyone holding its receipt) makes of it after the round, with no server
// (docs/network.md, "Durable collection").
//
// In a session with no chain of mix servers whose config names the shuffler's signing key
// (shuffler_signing_key), every round delivered to the analyzer alone (records sealed to it, so no
// two alike) carries, in its result's reports, the shuffler's commitment to the batch: the Merkle
// root (shufflempc/merkle.hpp, the tree a chain's receipts use) of the round's records in the
// order of their leaves, binding their count and width, signed over batch_statement. The analyzer
// recomputes the root from the records it was given and refuses the round if it differs or the
// signature does not hold; it publishes the commitment with the output, and the leaves with it.
//
// A party's admission receipt (net/wire.hpp: its batch, the batch's digest and the shuffler's
// signature) and that publication then settle, for anyone holding the session config, whether each
// of the party's records is in the batch the analyzer counted: a record missing from it is
// evidence against the shuffler, two statements it signed that contradict each other.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/merkle.hpp"
#include "shufflempc/mixnet/signing.hpp"
#include "shufflempc/net/keys.hpp"
#include "shufflempc/net/wire.hpp"

namespace shufflempc::net {

struct BatchCommitment {
  std::uint32_t round = 0;
  std::uint64_t count = 0;  // records in the batch
  std::uint32_t width = 0;  // bytes a record (sealed)
  merkle::Hash root{};      // merkle root of the records in the order of their leaves
  mixnet::Signature signature{};  // the shuffler's, over batch_statement
  bool operator==(const BatchCommitment&) const = default;
};
inline constexpr std::size_t batch_commitment_bytes = 4 + 8 + 4 + 32 + 64;

// What the shuffler signs: a label, the session, then round, count, width and root.
[[nodiscard]] std::vector<std::uint8_t> batch_statement(const SessionId& session, const BatchCommitment& c);
[[nodiscard]] std::vector<std::uint8_t> encode_batch_commitment(const BatchCommitment& c);
// Throws std::system_error(malformed_frame) on bytes that are not one commitment.
[[nodiscard]] BatchCommitment decode_batch_commitment(std::span<const std::uint8_t> bytes);

// Whether a round of `config` carries a commitment: no chain, a shuffler signing key named, the
// round delivered to the analyzer alone.
[[nodiscard]] bool commits_batch(const SessionConfig& config, Delivery delivery);

// A commitment with the leaves it was made from, ascending: what the analyzer publishes.
struct CommittedBatch {
  BatchCommitment commitment;
  std::vector<merkle::Hash> leaves;
};

// The shuffler's side: commits to `records` (`width` bytes each, back to back) of round `round`.
[[nodiscard]] CommittedBatch commit_batch(const SessionId& session, std::uint32_t round, std::size_t width,
                                          std::span<const std::uint8_t> records, const mixnet::SigningKeyPair& signer, unsigned threads);

// The analyzer's side: the commitment in `bytes` checked against the records it was delivered.
// Throws std::system_error(protocol_violation) naming what does not hold (the bytes are not a
// commitment, another round's, another count or width, not the signer's, another root).
[[nodiscard]] CommittedBatch check_batch(const SessionId& session, const mixnet::SigningPublicKey& signer, std::uint32_t round,
                                         std::size_t width, std::span<const std::uint8_t> records, std::span<const std::uint8_t> bytes,
                                         unsigned threads);

// What a receipt shows against a published commitment.
enum class ReceiptStanding {
  included,  // every record of the receipt's batch is in the committed batch
  left_out,  // one is not: the receipt and the commitment are evidence against the shuffler
  unusable,  // the two do not make a case: a signature that does not hold, another session or round,
             // leaves that are not the committed batch's, a receipt whose records are not its batch
};
struct ReceiptCheck {
  ReceiptStanding standing = ReceiptStanding::unusable;
  std::string text;  // one line: what holds, or what is missing or wrong
  std::size_t records = 0;  // records of the receipt's batch
};
[[nodiscard]] ReceiptCheck check_receipt(const SessionId& session, const mixnet::SigningPublicKey& signer, const AdmissionReceipt& receipt,
                                         const CommittedBatch& published);

}  // namespace shufflempc::net
