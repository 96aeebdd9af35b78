// The keys of a networked verifiable mix without a dealer (mixnet/server_keys.hpp) and the round
// evidence a result frame carries (mixnet/transcript.hpp): derived keys are deterministic and
// label-separated; a proof of possession checks only for its key and its context, and one altered
// byte fails it; the combined key of 1 to 5 servers passes the threshold check, equals the sum of
// the keys, and decrypts with every server's share and with no fewer; the evidence of a round
// encodes and decodes to itself and every malformed form is named.
#include <doctest/doctest.h>

#include "shufflempc/mixnet/decryption.hpp"
#include "shufflempc/mixnet/server_keys.hpp"
#include "shufflempc/mixnet/transcript.hpp"
#include "support/proved_input.hpp"

using namespace shufflempc;
using namespace shufflempc::mixnet;

TEST_CASE("mixnet server keys: derivation is deterministic, separated by label and by secret") {
  const std::vector<std::uint8_t> a(32, 7), b(32, 8);
  CHECK(derive_key(a, "x").public_key == derive_key(a, "x").public_key);
  CHECK(derive_key(a, "x").public_key != derive_key(a, "y").public_key);
  CHECK(derive_key(a, "x").public_key != derive_key(b, "x").public_key);
  const auto k = derive_key(a, "x");
  CHECK(mul_base(k.secret) == k.public_key);
}

TEST_CASE("mixnet server keys: a proof of possession checks for its key and context only, and one altered byte fails it") {
  SeededRng rng(5);
  const auto key = ElGamalKey::generate(rng);
  const auto other = ElGamalKey::generate(rng);
  const std::vector<std::uint8_t> ctx{1, 2, 3}, ctx2{1, 2, 4};
  const auto proof = prove_possession(ctx, key, rng);
  CHECK(check_possession(ctx, key.public_key, proof));
  CHECK_FALSE(check_possession(ctx2, key.public_key, proof));
  CHECK_FALSE(check_possession(ctx, other.public_key, proof));
  CHECK_FALSE(check_possession(ctx, Point{}, proof));
  const auto bytes = proof.to_bytes();
  CHECK(PossessionProof::from_bytes(bytes, "p") == proof);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    auto bad = bytes;
    bad[i] ^= 1;
    bool accepted = false;
    try {
      accepted = check_possession(ctx, key.public_key, PossessionProof::from_bytes(bad, "p"));
    } catch (const std::invalid_argument&) {  // a scalar pushed above the group order
    }
    CHECK_FALSE(accepted);
  }
  CHECK_THROWS_WITH_AS((void)PossessionProof::from_bytes(std::vector<std::uint8_t>(63), "analyzer"),
                       "analyzer: a proof of possession is 64 bytes, got 63", std::invalid_argument);
}

TEST_CASE("mixnet server keys: the combined key of k servers is their sum, checks, and needs every server's share") {
  SeededRng rng(6);
  for (std::size_t k = 1; k <= 5; ++k) {
    CAPTURE(k);
    std::vector<ElGamalKey> own;
    std::vector<Point> publics;
    Point sum{};
    for (std::size_t i = 0; i < k; ++i) {
      own.push_back(ElGamalKey::generate(rng));
      publics.push_back(own.back().public_key);
      sum = sum + own.back().public_key;
    }
    const ThresholdKey key = combined_key(publics);
    CHECK(key.check() == "");
    CHECK(key.threshold == k);
    CHECK(key.key() == sum);
    const MessageBatch records = MessageBatch::from_bytes(3, std::vector<std::uint8_t>{1, 2, 3, 250, 251, 252});
    const CiphertextBatch batch = encrypt_batch(records, key.key(), rng, 2);
    const ProofContext ctx{{}, 0, static_cast<std::uint32_t>(k)};
    std::vector<DecryptionShares> shares;
    std::vector<std::uint32_t> who;
    for (std::uint32_t i = 0; i < k; ++i) {
      const ElGamalKey share = combined_share(own[i], i, k);
      CHECK(share.public_key == key.shares[i]);
      shares.push_back(decryption_shares(ctx, i, share, batch, rng, 2));
      CHECK(check_decryption_shares(ctx, i, key.shares[i], batch, shares.back(), 2) == "");
      who.push_back(i);
    }
    CHECK(combine_decryption(batch, shares, who, 3, 2) == records);
    if (k > 1) {  // one server short: the records do not decode
      shares.pop_back();
      who.pop_back();
      CHECK_THROWS_AS((void)combine_decryption(batch, shares, who, 3, 2), std::system_error);
    }
  }
  CHECK_THROWS_AS((void)combined_key(std::vector<Point>{}), std::invalid_argument);
}

TEST_CASE("mixnet evidence: a round's evidence decodes to itself and verifies, and malformed evidence is named") {
  SeededRng rng(7);
  const DealtKey dealt = deal_key(2, 2, rng);
  const SessionId session{9};
  RoundTranscript r;
  r.round = 1;
  r.delivery = Delivery::all_parties;
  r.width = 3;
  r.key.servers = dealt.key;
  test::set_proved_input(r, session, MessageBatch::from_bytes(3, std::vector<std::uint8_t>{1, 2, 3, 4, 5, 6, 7, 8, 9}), rng);
  const CiphertextBatch* in = &r.input;
  const std::vector<SigningKeyPair> servers = {SigningKeyPair::generate(rng), SigningKeyPair::generate(rng)};
  const std::vector<SigningPublicKey> signers = {servers[0].public_key(), servers[1].public_key()};
  for (std::uint32_t h = 0; h < 2; ++h) {
    auto mixed = reencrypt_shuffle(*in, r.key.key(), rng, 2);
    auto proof = prove_shuffle({session, 1, h, 3}, r.key.key(), *in, mixed.output, mixed.witness, rng, 2);
    const auto signature = servers[h].sign(hop_statement({session, 1, h, 3}, r.key.key(), *in, mixed.output, proof));
    r.hops.push_back({std::move(mixed.output), std::move(proof), signature});
    in = &r.hops.back().output;
  }
  for (std::uint32_t k = 0; k < 2; ++k) {
    r.decrypted_by.push_back(k);
    r.decryption.push_back(decryption_shares({session, 1, 2, 3}, k, dealt.secrets[k], *in, rng, 2));
  }
  const auto bytes = encode_evidence(r);
  RoundTranscript back = decode_evidence(bytes, 1, Delivery::all_parties, 3, r.key, 2, 100);
  CHECK(back.input == r.input);
  CHECK(back.input_proofs == r.input_proofs);
  CHECK(back.hops.size() == 2);
  CHECK(back.hops[1].proof == r.hops[1].proof);
  CHECK(back.decrypted_by == r.decrypted_by);
  CHECK(back.decryption == r.decryption);
  CHECK(back.hops[1].signature == r.hops[1].signature);
  CHECK(hop_faults(session, back, signers, 2).empty());
  back.records = combine_decryption(back.hops.back().output, back.decryption, back.decrypted_by, 3, 2);
  Transcript t{session, 2, signers, {back}};
  CHECK(verify_transcript(t, 2).ok());
  // Hop 0's proof checked against another round's context, and a hop skipped.
  CHECK(hop_faults(SessionId{8}, back, signers, 2).size() == 2);
  CHECK(hop_faults(SessionId{8}, back, signers, 2, 0).size() == 1);
  // The signers swapped: each hop's signature is another server's.
  const std::vector<SigningPublicKey> swapped = {signers[1], signers[0]};
  const auto faults = hop_faults(session, back, swapped, 2);
  REQUIRE(faults.size() == 2);
  CHECK(faults[0].find("hop 0: its server's signature does not verify") == 0);
  CHECK(hop_faults(session, back, std::span(signers).first(1), 2).front().find("1 signers for 2 hops") != std::string::npos);

  const auto fails = [&](std::vector<std::uint8_t> b, std::size_t hops, std::size_t max_records, const std::string& what) {
    CAPTURE(what);
    try {
      (void)decode_evidence(b, 1, Delivery::all_parties, 3, r.key, hops, max_records);
      FAIL("accepted");
    } catch (const std::invalid_argument& e) {
      CHECK(std::string(e.what()).find(what) != std::string::npos);
    }
  };
  fails({bytes.begin(), bytes.begin() + 5}, 2, 100, "ends inside its header");
  fails(bytes, 3, 100, "2 hops, the chain has 3");
  fails(bytes, 2, 2, "3 records, at most 2");
  fails({bytes.begin(), bytes.end() - 1}, 2, 100, "ends inside trustee 1's shares");
  auto longer = bytes;
  longer.push_back(0);
  fails(longer, 2, 100, "1 bytes after its end");
  auto twice = bytes;  // trustee 1 relabelled 0
  const std::size_t second = bytes.size() - DecryptionShares::size_bytes(3 * limbs_for(3)) - 4;
  REQUIRE(second < twice.size());
  twice.at(second) = 0;
  fails(twice, 2, 100, "trustee 0 is out of range or listed twice");
  auto bad_point = bytes;
  for (std::size_t i = 12; i < 44; ++i) bad_point.at(i) = 0xff;  // the first input point
  fails(bad_point, 2, 100, "input");
}
