// Proofs of plaintext knowledge (mixnet/knowledge.hpp): proved records decrypt to their messages and
// every proof holds; a re-randomized copy of a record is refused under its original proof and under
// every proof its copier can make without the randomness; a proof moved to another tag, round,
// session, key or ciphertext fails; the batched check names exactly the records that fail; the tags
// are a keyed function of the session, round and index that differs for every record; the bytes
// round-trip and refuse what is torn or not canonical.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "shufflempc/mixnet/knowledge.hpp"

using namespace shufflempc;
using namespace shufflempc::mixnet;

namespace {

struct KnowledgeFixture {
  SeededRng rng{71};
  ElGamalKey key = ElGamalKey::generate(rng);
  KnowledgeContext context;
  TagKey tag_key{};
  KnowledgeFixture() {
    rng.fill(context.session);
    context.round = 3;
    context.key = key.public_key;
    rng.fill(tag_key);
  }
  std::vector<SubmitterTag> tags(std::size_t n, std::uint64_t first = 0) const {
    std::vector<SubmitterTag> t;
    for (std::size_t i = 0; i < n; ++i) t.push_back(submitter_tag(tag_key, context.session, context.round, 5, first + i));
    return t;
  }
  MessageBatch messages(std::size_t width, std::size_t n) {
    MessageBatch m(width, n);
    for (std::size_t i = 0; i < n; ++i) rng.fill(m[i]);
    return m;
  }
};

Point decrypt(const Ciphertext& c, const Scalar& x) { return c.c2 - x * c.c1; }

}  // namespace

TEST_CASE("mixnet knowledge: proved records of every width decrypt to their messages and every proof holds") {
  KnowledgeFixture f;
  for (std::size_t width : {1, 2, 3, 8, 16}) {
    CAPTURE(width);
    const MessageBatch m = f.messages(width, 12);
    const auto proved = encrypt_and_prove(m, f.context, f.tags(12), f.rng, 2);
    REQUIRE(proved.ciphertexts.size() == 12);
    REQUIRE(proved.proofs.size() == 12);
    for (std::size_t i = 0; i < 12; ++i) {
      std::vector<Point> limbs;
      for (std::size_t l = 0; l < proved.ciphertexts.limbs(); ++l) limbs.push_back(decrypt(proved.ciphertexts.at(i, l), f.key.secret));
      std::vector<std::uint8_t> back(width);
      CHECK(extract_record(limbs, back));
      CHECK(std::equal(back.begin(), back.end(), m[i].begin()));
      CHECK(proved.proofs.tag(i) == f.tags(12)[i]);
    }
    CHECK(unproved_records(f.context, proved.ciphertexts, proved.proofs, 2).empty());
    CHECK(check_knowledge(f.context, proved.ciphertexts, proved.proofs, 1) == "");
  }
}

TEST_CASE("mixnet knowledge: a re-randomized copy of a record is refused, whatever proof its copier makes without the randomness") {
  KnowledgeFixture f;
  const auto proved = encrypt_and_prove(f.messages(4, 1), f.context, f.tags(1), f.rng, 1);
  // The copy: the same plaintext under r + s, for an s the copier knows.
  const Scalar s = random_scalar(f.rng);
  CiphertextBatch copy(1, 1);
  copy.at(0, 0) = reencrypt(proved.ciphertexts.at(0, 0), f.context.key, s);
  // Under the original proof.
  CHECK(unproved_records(f.context, copy, proved.proofs, 1) == std::vector<std::size_t>{0});
  // Under the original proof shifted by the copier's s (z + e'·s, with the copy's challenge e' it
  // cannot make agree: the commitments are the original's, so z_l·G = A_l + e·r_l·G, not e'·(r_l+s)·G).
  KnowledgeProofs shifted = proved.proofs;
  shifted.response(0, 0) = shifted.response(0, 0) + s;
  CHECK(unproved_records(f.context, copy, shifted, 1) == std::vector<std::size_t>{0});
  // Under a fresh proof of its own for s alone (what it knows): it proves c1 - c1_original, not c1.
  KnowledgeProofs own(1, 1);
  own.tag(0) = f.tags(1, 7)[0];
  const Scalar a = random_scalar(f.rng);
  own.commit(0, 0) = mul_base(a);
  // Its challenge as the check computes it is out of the copier's hands; any response it gives for
  // s fails: try the honest-for-s one under a few challenges it might guess.
  for (std::uint64_t guess = 0; guess < 4; ++guess) {
    own.response(0, 0) = a + scalar_from_u64(guess) * s;
    CHECK(unproved_records(f.context, copy, own, 1) == std::vector<std::size_t>{0});
  }
}

TEST_CASE("mixnet knowledge: a proof moved to another tag, round, session, key or ciphertext fails") {
  KnowledgeFixture f;
  const auto proved = encrypt_and_prove(f.messages(2, 1), f.context, f.tags(1), f.rng, 1);
  const auto fails = [&](const KnowledgeContext& c, const CiphertextBatch& b, const KnowledgeProofs& p) {
    return unproved_records(c, b, p, 1) == std::vector<std::size_t>{0};
  };
  CHECK_FALSE(fails(f.context, proved.ciphertexts, proved.proofs));
  KnowledgeProofs other_tag = proved.proofs;
  other_tag.tag(0) = f.tags(1, 1)[0];
  CHECK(fails(f.context, proved.ciphertexts, other_tag));
  KnowledgeContext c = f.context;
  c.round = 4;
  CHECK(fails(c, proved.ciphertexts, proved.proofs));
  c = f.context;
  c.session[0] ^= 1;
  CHECK(fails(c, proved.ciphertexts, proved.proofs));
  c = f.context;
  c.key = ElGamalKey::generate(f.rng).public_key;
  CHECK(fails(c, proved.ciphertexts, proved.proofs));
  // The same c1 with another c2 (another plaintext): the challenge binds the whole ciphertext.
  CiphertextBatch other = proved.ciphertexts;
  other.at(0, 0).c2 = other.at(0, 0).c2 + base_point();
  CHECK(fails(f.context, other, proved.proofs));
  KnowledgeProofs altered = proved.proofs;
  altered.response(0, 0) = altered.response(0, 0) + scalar_from_u64(1);
  CHECK(fails(f.context, proved.ciphertexts, altered));
  altered = proved.proofs;
  altered.commit(0, 0) = altered.commit(0, 0) + base_point();
  CHECK(fails(f.context, proved.ciphertexts, altered));
}

TEST_CASE("mixnet knowledge: the batched check names exactly the records whose proofs fail") {
  KnowledgeFixture f;
  const std::size_t n = 300;
  auto proved = encrypt_and_prove(f.messages(3, n), f.context, f.tags(n), f.rng, 2);
  const std::vector<std::size_t> broken = {0, 17, 18, 150, 299};
  for (std::size_t i : broken) proved.proofs.response(i, 0) = proved.proofs.response(i, 0) + scalar_from_u64(i + 1);
  CHECK(unproved_records(f.context, proved.ciphertexts, proved.proofs, 2) == broken);
  const std::string why = check_knowledge(f.context, proved.ciphertexts, proved.proofs, 1);
  CHECK(why.find("5 of the 300") != std::string::npos);
  CHECK(why.find("record 0") != std::string::npos);
  // The identity as a commitment (a canonical point) fails as any other wrong commitment does.
  auto again = encrypt_and_prove(f.messages(3, 2), f.context, f.tags(2), f.rng, 1);
  again.proofs.commit(1, 0) = Point{};
  CHECK(unproved_records(f.context, again.ciphertexts, again.proofs, 1) == std::vector<std::size_t>{1});
  // An empty batch holds; a count that does not match is refused.
  CHECK(unproved_records(f.context, CiphertextBatch(1, 0), KnowledgeProofs(1, 0), 1).empty());
  CHECK_THROWS_AS((void)unproved_records(f.context, again.ciphertexts, KnowledgeProofs(1, 1), 1), std::invalid_argument);
  CHECK_THROWS_AS((void)unproved_records(f.context, again.ciphertexts, KnowledgeProofs(2, 2), 1), std::invalid_argument);
}

TEST_CASE("mixnet knowledge: tags are keyed, and differ for every index, party, round, session and key") {
  KnowledgeFixture f;
  std::set<SubmitterTag> seen;
  for (std::uint64_t i = 0; i < 100; ++i) seen.insert(submitter_tag(f.tag_key, f.context.session, f.context.round, 5, i));
  CHECK(seen.size() == 100);
  const SubmitterTag t = submitter_tag(f.tag_key, f.context.session, 3, 5, 0);
  CHECK(t == submitter_tag(f.tag_key, f.context.session, 3, 5, 0));
  CHECK(t != submitter_tag(f.tag_key, f.context.session, 4, 5, 0));
  CHECK(t != submitter_tag(f.tag_key, f.context.session, 3, 6, 0));
  SessionId other = f.context.session;
  other[5] ^= 0x80;
  CHECK(t != submitter_tag(f.tag_key, other, 3, 5, 0));
  TagKey k2 = f.tag_key;
  k2[31] ^= 1;
  CHECK(t != submitter_tag(k2, f.context.session, 3, 5, 0));
}

TEST_CASE("mixnet knowledge: proofs and submissions round-trip through their bytes and refuse torn or non-canonical ones") {
  KnowledgeFixture f;
  // Records of 3 limbs (wider than the mix takes, so made by hand: the layout is the same for every ℓ).
  ProvedBatch proved{CiphertextBatch(3, 4), KnowledgeProofs(3, 4)};
  for (std::size_t i = 0; i < 4; ++i) {
    proved.proofs.tag(i) = f.tags(4)[i];
    for (std::size_t l = 0; l < 3; ++l) {
      proved.ciphertexts.at(i, l) = encrypt_point(mul_base(scalar_from_u64(10 * i + l)), f.context.key, random_scalar(f.rng));
      proved.proofs.commit(i, l) = mul_base(random_scalar(f.rng));
      proved.proofs.response(i, l) = random_scalar(f.rng);
    }
  }
  const auto bytes = proved.proofs.to_bytes();
  CHECK(bytes.size() == 4 * KnowledgeProofs::record_bytes(3));
  CHECK(KnowledgeProofs::from_bytes(4, 3, bytes, "proofs") == proved.proofs);
  CHECK_THROWS_WITH_AS((void)KnowledgeProofs::from_bytes(4, 3, std::span(bytes).first(bytes.size() - 1), "the proofs"),
                       doctest::Contains("the proofs: "), std::invalid_argument);
  auto bad = bytes;
  std::fill_n(bad.begin() + KnowledgeProofs::record_bytes(3) + tag_bytes + 3 * point_bytes, scalar_bytes, 0xff);  // record 1's z_0 above the order
  CHECK_THROWS_WITH_AS((void)KnowledgeProofs::from_bytes(4, 3, bad, "proofs"), doctest::Contains("record 1"), std::invalid_argument);
  // The wire form: ciphertexts then proof, record after record; submission_limbs inverts its width.
  const MessageBatch wire = to_submissions(proved);
  CHECK(wire.width() == submission_bytes(3));
  CHECK(wire.count() == 4);
  for (std::size_t limbs = 1; limbs <= 8; ++limbs) CHECK(submission_limbs(submission_bytes(limbs)) == limbs);
  CHECK(submission_limbs(0) == 0);
  CHECK(submission_limbs(submission_bytes(2) + 1) == 0);
  CHECK(submission_limbs(3 * ciphertext_bytes) == 0);
  const auto ct = proved.ciphertexts.to_bytes();
  CHECK(std::equal(ct.begin(), ct.begin() + 3 * ciphertext_bytes, wire[0].begin()));
  CHECK(std::equal(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(KnowledgeProofs::record_bytes(3)), wire[0].begin() + 3 * ciphertext_bytes));
  // permuted carries whole records, ciphertexts and proofs alike.
  const std::vector<std::size_t> order = {2, 0, 3, 1};
  const KnowledgeProofs p = proved.proofs.permuted(order);
  const CiphertextBatch c = proved.ciphertexts.permuted(order);
  REQUIRE(c.size() == 4);
  for (std::size_t k = 0; k < 4; ++k) {
    CHECK(std::ranges::equal(c.record(k), proved.ciphertexts.record(order[k])));
    CHECK(p.tag(k) == proved.proofs.tag(order[k]));
    CHECK(p.commit(k, 2) == proved.proofs.commit(order[k], 2));
    CHECK(p.response(k, 1) == proved.proofs.response(order[k], 1));
  }
  // What the mix takes: one limb a record, made by encrypt_and_prove.
  const auto one = encrypt_and_prove(f.messages(16, 2), f.context, f.tags(2), f.rng, 1);
  CHECK(one.ciphertexts.limbs() == 1);
  CHECK(to_submissions(one).width() == submission_bytes(1));
}
