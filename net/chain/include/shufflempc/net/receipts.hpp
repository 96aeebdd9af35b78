// A sender's receipt in a chain of mix servers (docs/mix-chain.md, "Receipts and complaints"),
// without sockets: the entry's signed commitment to the batch it admitted, and for each record a
// sender submitted, a Merkle path showing it in that batch between its two neighbours.
//
// The entry puts the records it admits in the order of their Merkle leaves (merkle::leaf, ascending)
// and signs the root: as its hop 0 report's `received` digest in a decryption chain, as the input
// root of its hop 0 statement in a verifiable chain. A sender checks, with the chain's first
// signing key from the session config, that the commitment is the entry's for this session and
// round; then that each of its records is at the index the receipt gives, and that the leaves on
// either side are strictly smaller and larger: so no record of its was left out or replaced, and no
// exact copy of one was added. The paths show the sender nothing of the other records but their
// leaf hashes.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/merkle.hpp"
#include "shufflempc/messages.hpp"
#include "shufflempc/mixnet/elgamal.hpp"
#include "shufflempc/net/fault.hpp"
#include "shufflempc/net/keys.hpp"

namespace shufflempc::net {

inline constexpr std::uint32_t missing_record = 0xffff'ffffu;

struct RecordProof {
  std::uint32_t index = missing_record;  // its position in the committed batch, or missing_record
  merkle::Path path;
  // The leaves next to it (none at either end of the batch) and their paths.
  merkle::Hash left{}, right{};
  merkle::Path left_path, right_path;
};

struct Receipt {
  std::uint32_t count = 0;  // records in the committed batch
  // What the entry signed: its hop 0 report (encode_reports) in a decryption chain; its hop 0
  // statement (mixnet::hop_statement) and the signature in a verifiable chain.
  std::vector<std::uint8_t> commitment;
  std::vector<RecordProof> records;  // one per record the link's parties submitted, in their order
};

[[nodiscard]] std::vector<std::uint8_t> encode_receipt(const Receipt& receipt);
// Throws std::system_error(malformed_frame) on bytes that are not a receipt, or one with more than
// `max_records` records or a path longer than a batch of `count` records has.
[[nodiscard]] Receipt decode_receipt(std::span<const std::uint8_t> bytes, std::size_t max_records);

// The entry's side: the tree over the admitted batch, its records in leaf order.
class ReceiptMaker {
 public:
  ReceiptMaker(std::size_t width, std::vector<merkle::Hash> sorted_leaves);
  [[nodiscard]] const merkle::Hash& root() const { return tree_.root(); }
  [[nodiscard]] std::size_t width() const { return width_; }
  // The receipt for `records` (records of the maker's width, as one link submitted them).
  [[nodiscard]] Receipt receipt(std::span<const std::uint8_t> records, std::vector<std::uint8_t> commitment) const;

 private:
  std::size_t width_;
  merkle::Tree tree_;
};

// The order that sorts `leaves` ascending (what the entry applies to the batch it admits).
[[nodiscard]] std::vector<std::size_t> leaf_order(std::span<const merkle::Hash> leaves);
// A batch in the order of its records' Merkle leaves, with those leaves in that order, and the
// order itself (record k of `batch` is record order[k] of the batch given).
template <class Batch>
struct InLeafOrder {
  Batch batch;
  std::vector<merkle::Hash> leaves;
  std::vector<std::size_t> order;
};
[[nodiscard]] InLeafOrder<MessageBatch> in_leaf_order(const MessageBatch& batch, unsigned threads);
[[nodiscard]] InLeafOrder<mixnet::CiphertextBatch> in_leaf_order(const mixnet::CiphertextBatch& batch, unsigned threads);

// The root the receipt's commitment signs, for round `round` of `config` (delivered as `delivery`),
// if the commitment is the chain's first server's (config.mix_chain[0]) for this session and round;
// otherwise what is wrong, in `fault` (no_chain, malformed, wrong_place, counts_mismatch, bad_signature).
[[nodiscard]] std::optional<merkle::Hash> committed_root(const SessionConfig& config, std::uint32_t round, Delivery delivery,
                                                         const Receipt& receipt, std::optional<Fault>& fault);

// Nothing if every one of `records` (records of `width` bytes, the receipt's in order) is in the
// batch whose root is `root`, once, between strictly smaller and larger leaves; otherwise the fault of
// the first that is not (wrong_count, left_out, wrong_path, duplicate, out_of_order). A record the
// receipt calls missing is no fault if `refusable(k)` says the entry may refuse record k (a
// verifiable chain's entry admits only well-formed ciphertexts with a valid proof of plaintext
// knowledge: a sender's own record without one is its own doing).
[[nodiscard]] std::optional<Fault> receipt_fault(const Receipt& receipt, std::size_t width, std::span<const std::uint8_t> records,
                                                 const merkle::Hash& root, const std::function<bool(std::size_t)>& refusable = {});

// What a sender makes of the entry's receipt (`bytes`, what follows a result's output) of the
// records it sent in round `round` (`own`: as it sent them, wrapped for the chain): the root its
// commitment signs when the receipt holds, or the complaint to send the analyzer, in the words
// "the chain's entry ... <complaint>". Fails closed: whatever goes wrong while the receipt is read
// or checked, whatever is thrown, is a complaint. The one check of a native party process's channel
// and of a party in a browser. `threads` for a verifiable chain's proofs (refusable records).
struct ReceiptJudgement {
  std::optional<merkle::Hash> root;  // the receipt holds
  std::string complaint;             // it does not: why
};
[[nodiscard]] ReceiptJudgement judge_receipt(const SessionConfig& config, std::uint32_t round, Delivery delivery,
                                             std::span<const std::uint8_t> bytes, const MessageBatch& own, unsigned threads);

}  // namespace shufflempc::net
