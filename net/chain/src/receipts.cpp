#include "shufflempc/net/receipts.hpp"

#include <algorithm>
#include <numeric>

#include "shufflempc/error.hpp"
#include "shufflempc/little_endian.hpp"
#include "shufflempc/trace.hpp"

namespace shufflempc::net {

namespace {

// The longest path a batch of up to 2^32 records has.
constexpr std::size_t max_path = 32;

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  out.resize(out.size() + 4);
  store_le(out.data() + out.size() - 4, v);
}

void put_path(std::vector<std::uint8_t>& out, const merkle::Path& path) {
  out.push_back(static_cast<std::uint8_t>(path.size()));
  for (const auto& h : path) out.insert(out.end(), h.begin(), h.end());
}

struct Reader {
  std::span<const std::uint8_t> bytes;
  std::size_t at = 0;
  [[noreturn]] static void fail(const std::string& what) { throw_error(Errc::malformed_frame, "receipt: " + what); }
  std::span<const std::uint8_t> take(std::size_t n) {
    if (bytes.size() - at < n) fail("ends early");
    const auto out = bytes.subspan(at, n);
    at += n;
    return out;
  }
  std::uint32_t u32() { return load_le<std::uint32_t>(take(4).data()); }
  merkle::Hash hash() {
    merkle::Hash h{};
    const auto b = take(h.size());
    std::copy(b.begin(), b.end(), h.begin());
    return h;
  }
  merkle::Path path() {
    const std::size_t n = take(1)[0];
    if (n > max_path) fail("a path of " + std::to_string(n) + " hashes");
    merkle::Path p(n);
    for (auto& h : p) h = hash();
    return p;
  }
};

}  // namespace

std::vector<std::uint8_t> encode_receipt(const Receipt& receipt) {
  std::vector<std::uint8_t> out;
  put_u32(out, receipt.count);
  put_u32(out, static_cast<std::uint32_t>(receipt.commitment.size()));
  out.insert(out.end(), receipt.commitment.begin(), receipt.commitment.end());
  put_u32(out, static_cast<std::uint32_t>(receipt.records.size()));
  for (const auto& r : receipt.records) {
    put_u32(out, r.index);
    if (r.index == missing_record) continue;
    put_path(out, r.path);
    if (r.index > 0) {
      out.insert(out.end(), r.left.begin(), r.left.end());
      put_path(out, r.left_path);
    }
    if (std::uint64_t{r.index} + 1 < receipt.count) {
      out.insert(out.end(), r.right.begin(), r.right.end());
      put_path(out, r.right_path);
    }
  }
  return out;
}

Receipt decode_receipt(std::span<const std::uint8_t> bytes, std::size_t max_records) {
  Reader in{bytes};
  Receipt r;
  r.count = in.u32();
  const std::uint32_t commitment = in.u32();
  if (commitment > 4096) Reader::fail("a commitment of " + std::to_string(commitment) + " bytes");
  const auto c = in.take(commitment);
  r.commitment.assign(c.begin(), c.end());
  const std::uint32_t n = in.u32();
  if (n > max_records) Reader::fail(std::to_string(n) + " records, above the " + std::to_string(max_records) + " this link submitted");
  r.records.resize(n);
  for (auto& p : r.records) {
    p.index = in.u32();
    if (p.index == missing_record) continue;
    if (p.index >= r.count) Reader::fail("index " + std::to_string(p.index) + " in a batch of " + std::to_string(r.count));
    p.path = in.path();
    if (p.index > 0) {
      p.left = in.hash();
      p.left_path = in.path();
    }
    if (std::uint64_t{p.index} + 1 < r.count) {
      p.right = in.hash();
      p.right_path = in.path();
    }
  }
  if (in.at != bytes.size()) Reader::fail(std::to_string(bytes.size() - in.at) + " bytes after the last record");
  return r;
}

std::vector<std::size_t> leaf_order(std::span<const merkle::Hash> leaves) {
  std::vector<std::size_t> order(leaves.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return leaves[a] < leaves[b]; });
  return order;
}

InLeafOrder<MessageBatch> in_leaf_order(const MessageBatch& batch, unsigned threads) {
  const auto leaves = merkle::leaves(std::max<std::size_t>(1, batch.width()), batch.bytes(), threads);
  const auto order = leaf_order(leaves);
  InLeafOrder<MessageBatch> out{MessageBatch(batch.width()), std::vector<merkle::Hash>(order.size()), order};
  for (std::size_t i = 0; i < order.size(); ++i) {
    out.batch.push_back(batch[order[i]]);
    out.leaves[i] = leaves[order[i]];
  }
  return out;
}

InLeafOrder<mixnet::CiphertextBatch> in_leaf_order(const mixnet::CiphertextBatch& batch, unsigned threads) {
  const std::size_t limbs = batch.limbs();
  const auto leaves = merkle::leaves(std::max<std::size_t>(1, limbs * mixnet::ciphertext_bytes), batch.to_bytes(), threads);
  const auto order = leaf_order(leaves);
  InLeafOrder<mixnet::CiphertextBatch> out{batch.permuted(order), std::vector<merkle::Hash>(order.size()), order};
  for (std::size_t i = 0; i < order.size(); ++i) out.leaves[i] = leaves[order[i]];
  return out;
}

ReceiptMaker::ReceiptMaker(std::size_t width, std::vector<merkle::Hash> sorted_leaves) : width_(width), tree_(width, std::move(sorted_leaves)) {}

Receipt ReceiptMaker::receipt(std::span<const std::uint8_t> records, std::vector<std::uint8_t> commitment) const {
  trace::point("ReceiptMaker::receipt");
  Receipt r;
  r.count = static_cast<std::uint32_t>(tree_.size());
  r.commitment = std::move(commitment);
  const auto mine = merkle::leaves(width_, records);
  const std::size_t n = tree_.size();
  for (const auto& leaf : mine) {
    RecordProof p;
    std::size_t lo = 0, hi = n;  // the first leaf not below `leaf`
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (tree_.leaf_at(mid) < leaf) lo = mid + 1;
      else hi = mid;
    }
    if (lo < n && tree_.leaf_at(lo) == leaf) {
      p.index = static_cast<std::uint32_t>(lo);
      p.path = tree_.path(lo);
      if (lo > 0) {
        p.left = tree_.leaf_at(lo - 1);
        p.left_path = tree_.path(lo - 1);
      }
      if (lo + 1 < n) {
        p.right = tree_.leaf_at(lo + 1);
        p.right_path = tree_.path(lo + 1);
      }
    }
    r.records.push_back(std::move(p));
  }
  return r;
}

std::optional<Fault> receipt_fault(const Receipt& receipt, std::size_t width, std::span<const std::uint8_t> records, const merkle::Hash& root,
                                   const std::function<bool(std::size_t)>& refusable) {
  trace::point("receipt_fault");
  const auto fault = [](FaultCode code, std::string text) { return Fault{.code = code, .text = std::move(text)}; };
  const auto mine = merkle::leaves(width, records);
  if (receipt.records.size() != mine.size())
    return fault(FaultCode::wrong_count,
                 "it covers " + std::to_string(receipt.records.size()) + " records, not the " + std::to_string(mine.size()) + " submitted");
  for (std::size_t k = 0; k < mine.size(); ++k) {
    const auto& p = receipt.records[k];
    const std::string which = "record " + std::to_string(k) + " of those submitted";
    if (p.index == missing_record) {
      if (refusable && refusable(k)) continue;
      return fault(FaultCode::left_out, which + " is not in the batch the entry committed to");
    }
    if (!merkle::holds(mine[k], p.index, receipt.count, width, p.path, root))
      return fault(FaultCode::wrong_path, which + " is not at the place its path claims in the batch the entry committed to");
    if (p.index > 0 && !(p.left < mine[k] && merkle::holds(p.left, p.index - 1, receipt.count, width, p.left_path, root)))
      return p.left == mine[k] ? fault(FaultCode::duplicate, which + " is in the batch the entry committed to twice")
                               : fault(FaultCode::out_of_order, which + "'s neighbour below it is not in the committed order");
    if (std::uint64_t{p.index} + 1 < receipt.count &&
        !(mine[k] < p.right && merkle::holds(p.right, p.index + 1, receipt.count, width, p.right_path, root)))
      return p.right == mine[k] ? fault(FaultCode::duplicate, which + " is in the batch the entry committed to twice")
                                : fault(FaultCode::out_of_order, which + "'s neighbour above it is not in the committed order");
  }
  return std::nullopt;
}

}  // namespace shufflempc::net
