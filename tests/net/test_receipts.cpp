// Receipts without sockets (net/receipts.hpp): the entry's commitment to the batch it admitted, a
// sender's paths, and what a sender finds when the entry drops, replaces, copies or reorders.
#include <doctest/doctest.h>

#include <functional>

#include "shufflempc/error.hpp"
#include "shufflempc/mixnet/signing.hpp"
#include "shufflempc/net/local.hpp"
#include "shufflempc/net/mix_hop.hpp"
#include "shufflempc/net/receipts.hpp"
#include "shufflempc/net/verifiable.hpp"

using namespace shufflempc;

namespace {

MessageBatch random_records(std::size_t n, std::size_t width, Rng& rng) {
  MessageBatch b(width);
  std::vector<std::uint8_t> r(width);
  for (std::size_t i = 0; i < n; ++i) {
    rng.fill(r);
    b.push_back(r);
  }
  return b;
}

// The receipt of `mine` (records of `width` bytes) against `committed` as an entry would make it.
// A fault as "code: text" (net::to_string of its code), "" for none: a check names both.
std::string describe(const std::optional<net::Fault>& f) { return f ? std::string(net::to_string(f->code)) + ": " + f->text : std::string(); }

std::string fault_of(const MessageBatch& committed, const MessageBatch& mine, bool sort = true) {
  auto ordered = net::in_leaf_order(committed, 1);
  if (!sort) ordered = {committed, merkle::leaves(committed.width(), committed.bytes())};
  const net::ReceiptMaker maker(committed.width(), ordered.leaves);
  const auto receipt = net::decode_receipt(net::encode_receipt(maker.receipt(mine.bytes(), {1, 2, 3})), mine.count());
  return describe(net::receipt_fault(receipt, committed.width(), mine.bytes(), maker.root()));
}

MessageBatch without(const MessageBatch& b, std::size_t skip) {
  MessageBatch out(b.width());
  for (std::size_t i = 0; i < b.count(); ++i)
    if (i != skip) out.push_back(b[i]);
  return out;
}

}  // namespace

TEST_CASE("receipts: for every batch of 1 to 12 records and every sender, an honest entry's receipt holds, and a dropped, replaced or copied record is named") {
  SeededRng rng(71);
  const std::size_t width = 9;
  for (std::size_t n = 1; n <= 12; ++n) {
    const MessageBatch batch = random_records(n, width, rng);
    for (std::size_t s = 0; s < n; ++s) {
      CAPTURE(n);
      CAPTURE(s);
      MessageBatch mine(width);
      mine.push_back(batch[s]);
      CHECK(fault_of(batch, mine) == "");
      // Dropped.
      CHECK(fault_of(without(batch, s), mine) == "left_out: record 0 of those submitted is not in the batch the entry committed to");
      // Replaced by a record of the entry's own.
      MessageBatch replaced = without(batch, s);
      replaced.push_back(random_records(1, width, rng)[0]);
      CHECK(fault_of(replaced, mine).starts_with("left_out: "));
      // Copied: the batch holds it twice (in its place, or in place of another record).
      MessageBatch copied = batch;
      copied.push_back(batch[s]);
      CHECK(fault_of(copied, mine).starts_with("duplicate: "));
      if (n > 1) {
        MessageBatch instead = without(batch, (s + 1) % n);
        instead.push_back(batch[s]);
        CHECK(fault_of(instead, mine).starts_with("duplicate: "));
      }
    }
    // A batch not in leaf order (an entry that commits to it and gives true paths): some sender
    // finds a neighbour out of order.
    if (n >= 3) {
      const auto ordered = net::in_leaf_order(batch, 1);
      std::vector<merkle::Hash> reversed(ordered.leaves.rbegin(), ordered.leaves.rend());
      const merkle::Tree tree(width, reversed);
      bool someone = false;
      for (std::size_t s = 0; s < n; ++s) {
        net::Receipt r;
        r.count = static_cast<std::uint32_t>(n);
        net::RecordProof p;
        p.index = static_cast<std::uint32_t>(s);
        p.path = tree.path(s);
        if (s > 0) p.left = reversed[s - 1], p.left_path = tree.path(s - 1);
        if (s + 1 < n) p.right = reversed[s + 1], p.right_path = tree.path(s + 1);
        r.records.push_back(p);
        const auto& record = ordered.batch[n - 1 - s];
        someone = someone || describe(net::receipt_fault(r, width, record, tree.root())).starts_with("out_of_order: ");
      }
      CHECK(someone);
    }
  }
}

TEST_CASE("receipts: a link's several records are each checked, a path for another root fails, and a receipt of the wrong size is refused") {
  SeededRng rng(72);
  const MessageBatch batch = random_records(20, 5, rng);
  MessageBatch mine(5);
  for (std::size_t i : {3u, 7u, 19u}) mine.push_back(batch[i]);
  CHECK(fault_of(batch, mine) == "");
  CHECK(fault_of(without(batch, 7), mine).starts_with("left_out: record 1 of those submitted is not in the batch"));
  const auto ordered = net::in_leaf_order(batch, 2);
  const net::ReceiptMaker maker(5, ordered.leaves);
  const auto receipt = maker.receipt(mine.bytes(), {});
  const auto other_root = net::ReceiptMaker(5, net::in_leaf_order(without(batch, 0), 1).leaves).root();
  CHECK(describe(net::receipt_fault(receipt, 5, mine.bytes(), other_root)).starts_with("wrong_path: record 0 of those submitted is not at the place its path claims"));
  CHECK(describe(net::receipt_fault(receipt, 5, std::span(mine.bytes()).first(10), maker.root())) == "wrong_count: it covers 3 records, not the 2 submitted");
  // A missing record the entry may refuse (a sender's own malformed one) is no fault.
  MessageBatch odd = mine;
  odd.push_back(random_records(1, 5, rng)[0]);
  const auto with_odd = maker.receipt(odd.bytes(), {});
  CHECK(describe(net::receipt_fault(with_odd, 5, odd.bytes(), maker.root())).starts_with("left_out: record 3 of those submitted is not in the batch"));
  CHECK_FALSE(net::receipt_fault(with_odd, 5, odd.bytes(), maker.root(), [&](std::size_t k) { return k == 3; }));
  CHECK(describe(net::receipt_fault(with_odd, 5, odd.bytes(), maker.root(), [&](std::size_t k) { return k == 2; })).starts_with("left_out: record 3 of those"));
}

TEST_CASE("receipts: the encoding round-trips, and truncated, oversized or trailing bytes are refused naming what is wrong") {
  SeededRng rng(73);
  const MessageBatch batch = random_records(9, 4, rng);
  MessageBatch mine(4);
  mine.push_back(batch[2]);
  mine.push_back(random_records(1, 4, rng)[0]);  // missing
  const net::ReceiptMaker maker(4, net::in_leaf_order(batch, 1).leaves);
  const auto bytes = net::encode_receipt(maker.receipt(mine.bytes(), {9, 9}));
  const auto back = net::decode_receipt(bytes, 2);
  CHECK(back.count == 9);
  CHECK(back.commitment == std::vector<std::uint8_t>{9, 9});
  REQUIRE(back.records.size() == 2);
  CHECK(back.records[1].index == net::missing_record);
  CHECK(net::encode_receipt(back) == bytes);
  const auto refused = [](std::span<const std::uint8_t> b, std::size_t max, const std::string& what) {
    CAPTURE(what);
    CHECK_THROWS_WITH_AS((void)net::decode_receipt(b, max), doctest::Contains(what.c_str()), std::system_error);
  };
  refused(std::span(bytes).first(bytes.size() - 1), 2, "receipt: ends early");
  refused(bytes, 1, "receipt: 2 records, above the 1 this link submitted");
  auto trailing = bytes;
  trailing.push_back(0);
  refused(trailing, 2, "1 bytes after the last record");
  auto long_path = bytes;
  long_path[4 + 4 + 2 + 4 + 4] = 200;  // the first record's path length
  refused(long_path, 2, "a path of 200 hashes");
  auto big_index = bytes;
  big_index[4 + 4 + 2 + 4] = 9;  // index 9 of 9
  refused(big_index, 2, "index 9 in a batch of 9");
}

TEST_CASE("receipts: the commitment must be the chain entry's, for this session and round, in either kind of chain") {
  SystemRng keys;
  for (const auto kind : {net::MixKind::decryption, net::MixKind::verifiable}) {
    CAPTURE(net::to_string(kind));
    net::SessionConfig base;
    base.protocol = "(test)";
    base.mix = kind;
    base.rounds = {RoundShape::exactly(kind == net::MixKind::verifiable ? net::verifiable_width(1) : 100, Delivery::analyzer_only, 1)};
    if (kind == net::MixKind::verifiable) base.rounds[0].record_width = 1;
    const auto d = net::LocalDeployment::create(3, keys, base, 3);
    const auto entry = net::signing_key_of(d.shuffler), stranger = net::signing_key_of(d.analyzer);
    SeededRng rng(74);
    net::Receipt receipt;
    merkle::Hash root{};
    const auto commit = [&](const mixnet::SigningKeyPair& who, std::uint32_t round, const SessionId& session) {
      if (kind == net::MixKind::decryption) {
        net::HopReport rep;
        rep.place = {session, round, 0};
        rep.records_in = 4;
        rep.received = root = merkle::root(100, random_records(4, 100, rng).bytes());
        rep.signature = who.sign(rep.signed_bytes());
        receipt.count = 4;
        receipt.commitment = net::encode_reports(std::span(&rep, 1));
      } else {
        const auto key = net::round_key(d.config, Delivery::analyzer_only).key();
        const auto input = mixnet::encrypt_batch(MessageBatch::from_bytes(1, std::vector<std::uint8_t>{1, 2}), key, rng, 1);
        auto mixed = mixnet::reencrypt_shuffle(input, key, rng, 1);
        const mixnet::ProofContext ctx{session, round, 0, 1};  // records of 1 byte (the config's record_width)
        const auto proof = mixnet::prove_shuffle(ctx, key, input, mixed.output, mixed.witness, rng, 1);
        receipt.commitment = mixnet::hop_statement(ctx, key, input, mixed.output, proof);
        const auto sig = who.sign(receipt.commitment);
        receipt.commitment.insert(receipt.commitment.end(), sig.begin(), sig.end());
        root = mixnet::input_root(input);
      }
    };
    std::optional<net::Fault> fault;
    commit(entry, 0, d.config.session);
    const auto got = net::committed_root(d.config, 0, Delivery::analyzer_only, receipt, fault);
    CHECK(describe(fault) == "");
    REQUIRE(got.has_value());
    CHECK(*got == root);
    const auto refused = [&](net::FaultCode code, const std::string& what) {
      std::optional<net::Fault> why;
      CHECK_FALSE(net::committed_root(d.config, 0, Delivery::analyzer_only, receipt, why).has_value());
      REQUIRE(why);
      CHECK(net::to_string(why->code) == net::to_string(code));
      CHECK(why->round == 0u);
      CHECK(why->hop == 0u);  // the entry's commitment
      CHECK_MESSAGE(why->text.find(what) != std::string::npos, why->text);
    };
    commit(stranger, 0, d.config.session);
    refused(net::FaultCode::bad_signature, "not signed by the chain's entry");
    commit(entry, 1, d.config.session);
    refused(net::FaultCode::wrong_place, "of this session's round 0");
    commit(entry, 0, SessionId{7});
    refused(net::FaultCode::wrong_place, "of this session's round 0");
    receipt.commitment.resize(10);
    refused(net::FaultCode::malformed, kind == net::MixKind::verifiable ? "too short" : "not one hop report");
    auto no_chain = d.config;
    no_chain.mix_chain.clear();
    std::optional<net::Fault> why;
    CHECK_FALSE(net::committed_root(no_chain, 0, Delivery::analyzer_only, receipt, why).has_value());
    CHECK(describe(why) == "no_chain: the session has no chain");
  }
}
