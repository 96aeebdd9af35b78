// The shuffler's signed commitment to a round's batch and a receipt checked against it, without
// sockets (net/batch_commitment.hpp): the analyzer refuses a commitment to any other batch, and a
// party's receipt shows its records included, left out (evidence against the shuffler), or makes no
// case when a signature, the session, the round or the published leaves do not hold.
#include <doctest/doctest.h>

#include <algorithm>

#include "shufflempc/error.hpp"
#include "shufflempc/mixnet/signing.hpp"
#include "shufflempc/net/batch_commitment.hpp"
#include "shufflempc/random.hpp"

using namespace shufflempc;

namespace {

constexpr std::size_t bc_width = 49;

// `n` random records of bc_width bytes, back to back.
std::vector<std::uint8_t> bc_records(std::size_t n, Rng& rng) {
  std::vector<std::uint8_t> out(n * bc_width);
  rng.fill(out);
  return out;
}

SessionId bc_session(std::uint8_t tag) {
  SessionId s{};
  s.fill(tag);
  return s;
}

// Party `first`'s batch: `count` records taken from `pool` at record `at`, receipted by `signer`.
net::AdmissionReceipt bc_receipt(const SessionId& session, const mixnet::SigningKeyPair& signer, PartyId first,
                                 const std::vector<std::uint8_t>& pool, std::size_t at, std::size_t count) {
  net::AdmissionReceipt r;
  r.batch = {.round = 0, .first = first, .counts = {static_cast<std::uint32_t>(count)}, .width = bc_width,
             .messages = std::vector<std::uint8_t>(pool.begin() + static_cast<std::ptrdiff_t>(at * bc_width),
                                                   pool.begin() + static_cast<std::ptrdiff_t>((at + count) * bc_width))};
  r.digest = r.batch.digest();
  r.signature = signer.sign(net::admission_statement(session, 0, first, r.digest));
  return r;
}

std::vector<std::uint8_t> bc_without(const std::vector<std::uint8_t>& pool, std::size_t record) {
  auto out = pool;
  out.erase(out.begin() + static_cast<std::ptrdiff_t>(record * bc_width), out.begin() + static_cast<std::ptrdiff_t>((record + 1) * bc_width));
  return out;
}

}  // namespace

TEST_CASE("batch commitment: encoded and decoded alike, and a commitment of any other length is refused") {
  SeededRng rng(81);
  const auto signer = mixnet::SigningKeyPair::generate(rng);
  const auto records = bc_records(5, rng);
  const auto made = net::commit_batch(bc_session(1), 3, bc_width, records, signer, 1);
  CHECK(made.commitment.round == 3);
  CHECK(made.commitment.count == 5);
  CHECK(made.commitment.width == bc_width);
  CHECK(std::is_sorted(made.leaves.begin(), made.leaves.end()));
  const auto bytes = net::encode_batch_commitment(made.commitment);
  CHECK(bytes.size() == net::batch_commitment_bytes);
  CHECK(net::decode_batch_commitment(bytes) == made.commitment);
  for (std::size_t n : {std::size_t{0}, net::batch_commitment_bytes - 1, net::batch_commitment_bytes + 1}) {
    CAPTURE(n);
    std::vector<std::uint8_t> other(n);
    CHECK_THROWS_AS((void)net::decode_batch_commitment(other), std::system_error);
  }
  // The order the records arrive in does not change the commitment: the leaves are sorted.
  std::vector<std::uint8_t> reversed;
  for (std::size_t i = 5; i-- > 0;) reversed.insert(reversed.end(), records.begin() + static_cast<std::ptrdiff_t>(i * bc_width),
                                                    records.begin() + static_cast<std::ptrdiff_t>((i + 1) * bc_width));
  CHECK(net::commit_batch(bc_session(1), 3, bc_width, reversed, signer, 2).commitment.root == made.commitment.root);
}

TEST_CASE("batch commitment: the analyzer takes the shuffler's commitment to the records it was given and refuses every other") {
  SeededRng rng(82);
  const auto signer = mixnet::SigningKeyPair::generate(rng);
  const auto stranger = mixnet::SigningKeyPair::generate(rng);
  const auto session = bc_session(2);
  const auto records = bc_records(8, rng);
  const auto honest = net::commit_batch(session, 0, bc_width, records, signer, 1);
  const auto bytes = net::encode_batch_commitment(honest.commitment);
  const auto checked = net::check_batch(session, signer.public_key(), 0, bc_width, records, bytes, 1);
  CHECK(checked.commitment == honest.commitment);
  CHECK(checked.leaves == honest.leaves);
  const auto refused = [&](const std::vector<std::uint8_t>& delivered, const std::vector<std::uint8_t>& commitment, std::uint32_t round,
                           const SessionId& s, const mixnet::SigningPublicKey& key, const char* says) {
    CAPTURE(says);
    CHECK_THROWS_WITH_AS((void)net::check_batch(s, key, round, bc_width, delivered, commitment, 1), doctest::Contains(says), std::system_error);
  };
  // A record left out of what was delivered, one added, one altered: another root, or another count.
  refused(bc_without(records, 3), bytes, 0, session, signer.public_key(), "8 records of 49 bytes; it delivered round 0, 7 of 49");
  auto altered = records;
  altered[5 * bc_width + 7] ^= 1;
  refused(altered, bytes, 0, session, signer.public_key(), "another Merkle root");
  // A commitment the shuffler signed to a batch without record 3 (the n - 1 attack on its own
  // commitment): refused against the records delivered.
  const auto short_one = net::encode_batch_commitment(net::commit_batch(session, 0, bc_width, bc_without(records, 3), signer, 1).commitment);
  refused(records, short_one, 0, session, signer.public_key(), "it delivered round 0, 8 of 49");
  // Another signer, another session, another round, bytes that are not a commitment.
  refused(records, bytes, 0, session, stranger.public_key(), "is not signed with the shuffler's signing key");
  refused(records, bytes, 0, bc_session(3), signer.public_key(), "is not signed with the shuffler's signing key");
  refused(records, bytes, 1, session, signer.public_key(), "names round 0");
  refused(records, {}, 0, session, signer.public_key(), "does not parse");
  // A signature over the right statement with one bit of the root changed: another root, refused.
  auto forged = honest.commitment;
  forged.root[0] ^= 1;
  refused(records, net::encode_batch_commitment(forged), 0, session, signer.public_key(), "is not signed");
}

TEST_CASE("batch commitment: a receipt shows its records included, or left out as evidence, or makes no case") {
  SeededRng rng(83);
  const auto signer = mixnet::SigningKeyPair::generate(rng);
  const auto stranger = mixnet::SigningKeyPair::generate(rng);
  const auto session = bc_session(4);
  const auto pool = bc_records(10, rng);
  const auto mine = bc_receipt(session, signer, 7, pool, 4, 2);  // records 4 and 5 of the pool
  const auto published = net::commit_batch(session, 0, bc_width, pool, signer, 1);
  const auto standing = [&](const net::AdmissionReceipt& r, const net::CommittedBatch& c, const SessionId& s = {},
                            const mixnet::SigningPublicKey* key = nullptr) {
    return net::check_receipt(s == SessionId{} ? session : s, key ? *key : signer.public_key(), r, c);
  };
  const auto included = standing(mine, published);
  CHECK(included.standing == net::ReceiptStanding::included);
  CHECK(included.records == 2);
  CHECK(included.text.find("all 2 record(s) of the receipt of the batch of party 7 in round 0 are in the batch") != std::string::npos);

  // Left out: the shuffler committed to the batch without record 5 (record 1 of the receipt's).
  const auto without = net::commit_batch(session, 0, bc_width, bc_without(pool, 5), signer, 1);
  auto left = standing(mine, without);
  CHECK(left.standing == net::ReceiptStanding::left_out);
  CHECK(left.text.find("record 1 of the receipt of the batch of party 7") != std::string::npos);
  CHECK(left.text.find("evidence against it") != std::string::npos);
  // A batch holding one record twice must be there twice: a commitment holding it once leaves one out.
  auto twice = bc_receipt(session, signer, 8, pool, 2, 1);
  twice.batch.messages.insert(twice.batch.messages.end(), twice.batch.messages.begin(), twice.batch.messages.end());
  twice.batch.counts = {2};
  twice.digest = twice.batch.digest();
  twice.signature = signer.sign(net::admission_statement(session, 0, 8, twice.digest));
  CHECK(standing(twice, published).standing == net::ReceiptStanding::left_out);
  // A commitment to records of another width leaves every record out.
  CHECK(standing(mine, net::commit_batch(session, 0, bc_width - 1, std::vector<std::uint8_t>(10 * (bc_width - 1)), signer, 1)).standing ==
        net::ReceiptStanding::left_out);

  // No case: each signature, the session, the round, the records, the published leaves.
  const auto no_case = [&](const net::ReceiptCheck& c, const char* says) {
    CAPTURE(says);
    CHECK(c.standing == net::ReceiptStanding::unusable);
    CHECK_MESSAGE(c.text.find(says) != std::string::npos, c.text);
  };
  no_case(standing(bc_receipt(session, stranger, 7, pool, 4, 2), published), "is not signed with the session's shuffler signing key");
  no_case(standing(mine, net::commit_batch(session, 0, bc_width, bc_without(pool, 5), stranger, 1)), "the commitment to round 0 is not signed");
  no_case(standing(mine, published, bc_session(5)), "is not signed with the session's shuffler signing key");
  no_case(standing(mine, published, {}, &stranger.public_key()), "is not signed with the session's shuffler signing key");
  no_case(standing(mine, net::commit_batch(session, 1, bc_width, pool, signer, 1)), "the commitment is of round 1 and the receipt of round 0");
  auto changed = mine;
  changed.batch.messages[3] ^= 1;  // the records are not the batch the signed digest names
  no_case(standing(changed, published), "its records are not the batch its digest names");
  auto torn = mine;
  torn.batch.messages.pop_back();
  no_case(standing(torn, published), "holds no whole number of records");
  // The published leaves must be the committed batch: one dropped, one changed, out of order.
  for (int how = 0; how < 3; ++how) {
    CAPTURE(how);
    auto bad = published;
    if (how == 0) bad.leaves.erase(bad.leaves.begin() + 2);
    if (how == 1) bad.leaves[2][0] ^= 1;
    if (how == 2) std::swap(bad.leaves[0], bad.leaves[1]);
    no_case(standing(mine, bad), "the published leaves are not the committed batch of round 0");
  }
}
