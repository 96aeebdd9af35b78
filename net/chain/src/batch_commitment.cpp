// The shuffler's commitment to a round's batch and the check of a receipt against it
// (net/batch_commitment.hpp).
#include "shufflempc/net/batch_commitment.hpp"

#include <algorithm>
#include <string>

#include "shufflempc/error.hpp"
#include "shufflempc/little_endian.hpp"
#include "shufflempc/net/receipts.hpp"

namespace shufflempc::net {
namespace {

constexpr char batch_context[] = "shufflempc batch commitment v1";

// The commitment's fields before its signature.
void put_fields(std::vector<std::uint8_t>& out, const BatchCommitment& c) {
  std::uint8_t b[16];
  store_le<std::uint32_t>(b, c.round);
  store_le<std::uint64_t>(b + 4, c.count);
  store_le<std::uint32_t>(b + 12, c.width);
  out.insert(out.end(), b, b + sizeof b);
  out.insert(out.end(), c.root.begin(), c.root.end());
}

// The leaves of `records`, ascending.
std::vector<merkle::Hash> sorted_leaves(std::size_t width, std::span<const std::uint8_t> records, unsigned threads) {
  auto leaves = merkle::leaves(std::max<std::size_t>(1, width), records, threads);
  std::sort(leaves.begin(), leaves.end());
  return leaves;
}

merkle::Hash root_of(std::size_t width, const std::vector<merkle::Hash>& sorted) { return merkle::Tree(width, sorted).root(); }

}  // namespace

std::vector<std::uint8_t> batch_statement(const SessionId& session, const BatchCommitment& c) {
  std::vector<std::uint8_t> out(batch_context, batch_context + sizeof batch_context - 1);
  out.insert(out.end(), session.begin(), session.end());
  put_fields(out, c);
  return out;
}

std::vector<std::uint8_t> encode_batch_commitment(const BatchCommitment& c) {
  std::vector<std::uint8_t> out;
  out.reserve(batch_commitment_bytes);
  put_fields(out, c);
  out.insert(out.end(), c.signature.begin(), c.signature.end());
  return out;
}

BatchCommitment decode_batch_commitment(std::span<const std::uint8_t> bytes) {
  if (bytes.size() != batch_commitment_bytes)
    throw_error(Errc::malformed_frame, "a batch commitment is " + std::to_string(batch_commitment_bytes) + " bytes, not " +
                                           std::to_string(bytes.size()));
  BatchCommitment c;
  c.round = load_le<std::uint32_t>(bytes.data());
  c.count = load_le<std::uint64_t>(bytes.data() + 4);
  c.width = load_le<std::uint32_t>(bytes.data() + 12);
  std::copy_n(bytes.begin() + 16, c.root.size(), c.root.begin());
  std::copy_n(bytes.begin() + 48, c.signature.size(), c.signature.begin());
  return c;
}

bool commits_batch(const SessionConfig& config, Delivery delivery) {
  return config.mix_chain.empty() && config.shuffler_signer.has_value() && delivery == Delivery::analyzer_only;
}

CommittedBatch commit_batch(const SessionId& session, std::uint32_t round, std::size_t width, std::span<const std::uint8_t> records,
                            const mixnet::SigningKeyPair& signer, unsigned threads) {
  CommittedBatch out;
  out.leaves = sorted_leaves(width, records, threads);
  auto& c = out.commitment;
  c.round = round;
  c.count = out.leaves.size();
  c.width = static_cast<std::uint32_t>(width);
  c.root = root_of(width, out.leaves);
  c.signature = signer.sign(batch_statement(session, c));
  return out;
}

CommittedBatch check_batch(const SessionId& session, const mixnet::SigningPublicKey& signer, std::uint32_t round, std::size_t width,
                           std::span<const std::uint8_t> records, std::span<const std::uint8_t> bytes, unsigned threads) {
  const std::string what = "round " + std::to_string(round) + ": the shuffler's commitment to the batch ";
  CommittedBatch out;
  try {
    out.commitment = decode_batch_commitment(bytes);
  } catch (const std::system_error& e) {
    throw_error(Errc::protocol_violation, what + "does not parse (" + e.what() + ")");
  }
  const auto& c = out.commitment;
  const std::size_t count = width == 0 ? 0 : records.size() / width;
  if (c.round != round || c.width != width || c.count != count)
    throw_error(Errc::protocol_violation, what + "names round " + std::to_string(c.round) + ", " + std::to_string(c.count) +
                                              " records of " + std::to_string(c.width) + " bytes; it delivered round " +
                                              std::to_string(round) + ", " + std::to_string(count) + " of " + std::to_string(width));
  if (!mixnet::signature_holds(c.signature, batch_statement(session, c), signer))
    throw_error(Errc::protocol_violation, what + "is not signed with the shuffler's signing key the config names");
  out.leaves = sorted_leaves(width, records, threads);
  if (root_of(width, out.leaves) != c.root)
    throw_error(Errc::protocol_violation, what + "is not the batch it delivered (another Merkle root): records were left out, added or altered");
  return out;
}

ReceiptCheck check_receipt(const SessionId& session, const mixnet::SigningPublicKey& signer, const AdmissionReceipt& receipt,
                           const CommittedBatch& published) {
  const auto& b = receipt.batch;
  const auto& c = published.commitment;
  const std::string whose = "the receipt of the batch of party " + std::to_string(b.first) + " in round " + std::to_string(b.round);
  ReceiptCheck out;
  const auto unusable = [&](std::string text) {
    out.text = std::move(text);
    return out;
  };
  if (b.width == 0 || b.messages.size() % b.width != 0) return unusable(whose + " holds no whole number of records");
  out.records = b.messages.size() / b.width;
  if (b.digest() != receipt.digest) return unusable(whose + ": its records are not the batch its digest names");
  if (!mixnet::signature_holds(receipt.signature, admission_statement(session, b.round, b.first, receipt.digest), signer))
    return unusable(whose + " is not signed with the session's shuffler signing key for this session");
  if (c.round != b.round)
    return unusable("the commitment is of round " + std::to_string(c.round) + " and the receipt of round " + std::to_string(b.round));
  if (!mixnet::signature_holds(c.signature, batch_statement(session, c), signer))
    return unusable("the commitment to round " + std::to_string(c.round) + " is not signed with the session's shuffler signing key for this session");
  if (published.leaves.size() != c.count || !std::is_sorted(published.leaves.begin(), published.leaves.end()) ||
      root_of(c.width, published.leaves) != c.root)
    return unusable("the published leaves are not the committed batch of round " + std::to_string(c.round) + " (another count, order or root)");
  // Every record in the batch at least as often as the receipt's batch holds it (sealed records are
  // all different; a record the batch holds twice must be there twice).
  auto mine = b.width == c.width ? merkle::leaves(b.width, b.messages) : std::vector<merkle::Hash>{};
  std::vector<std::size_t> index(mine.size());
  for (std::size_t k = 0; k < index.size(); ++k) index[k] = k;
  std::stable_sort(index.begin(), index.end(), [&](std::size_t x, std::size_t y) { return mine[x] < mine[y]; });
  const auto left_out = [&](std::size_t k) {
    out.standing = ReceiptStanding::left_out;
    out.text = "record " + std::to_string(k) + " of " + whose + " is not in the batch the shuffler committed to: the receipt and the "
               "commitment, both signed by the shuffler, are evidence against it";
    return out;
  };
  if (b.width != c.width && out.records > 0) return left_out(0);
  for (std::size_t i = 0; i < index.size();) {
    std::size_t j = i;
    while (j < index.size() && mine[index[j]] == mine[index[i]]) ++j;
    const auto [lo, hi] = std::equal_range(published.leaves.begin(), published.leaves.end(), mine[index[i]]);
    if (static_cast<std::size_t>(hi - lo) < j - i) return left_out(*std::min_element(index.begin() + static_cast<std::ptrdiff_t>(i), index.begin() + static_cast<std::ptrdiff_t>(j)));
    i = j;
  }
  out.standing = ReceiptStanding::included;
  out.text = "all " + std::to_string(out.records) + " record(s) of " + whose + " are in the batch the shuffler committed to (" +
             std::to_string(c.count) + " records)";
  return out;
}

}  // namespace shufflempc::net
