// Pedersen's distributed key generation (mixnet/dkg.hpp), in one process: for every t <= k <= 5 the
// servers' shares lie on the key's commitments and any t of them decrypt what the key encrypts
// while no t - 1 do; a dealer that seals a bad share and repeats it when complained about is
// disqualified and named, the key is the others' and the complainer's share still holds; a server
// that draws t complaints is disqualified; a withheld or swapped deal is named; a forged, altered
// or truncated transcript is refused; the transcript's bytes round-trip.
#include <doctest/doctest.h>

#include <sodium.h>

#include <memory>

#include "shufflempc/mixnet/decryption.hpp"
#include "shufflempc/mixnet/dkg.hpp"

using namespace shufflempc;
using namespace shufflempc::mixnet;

namespace {

struct Servers {
  DkgSetup setup;
  std::vector<std::array<std::uint8_t, 32>> secrets;
  std::vector<std::unique_ptr<DkgParticipant>> parts;
  std::vector<DkgParticipant*> ptrs;
};

Servers make_servers(std::size_t k, std::size_t t, Rng& rng) {
  Servers s;
  rng.fill(s.setup.session);
  s.setup.threshold = t;
  std::vector<SigningKeyPair> signing;
  for (std::size_t i = 0; i < k; ++i) {
    std::array<std::uint8_t, 32> secret{};
    rng.fill(secret);
    BoxPublicKey pk{};
    crypto_scalarmult_base(pk.data(), secret.data());
    s.secrets.push_back(secret);
    s.setup.box_keys.push_back(pk);
    signing.push_back(SigningKeyPair::derive(secret, "test signing"));
    s.setup.signers.push_back(signing.back().public_key());
  }
  for (std::size_t i = 0; i < k; ++i) {
    s.parts.push_back(std::make_unique<DkgParticipant>(s.setup, i, s.secrets[i], signing[i], rng));
    s.ptrs.push_back(s.parts.back().get());
  }
  return s;
}

// Σ λ_i x_i over `who`, times G.
Point recombine(const std::vector<ElGamalKey>& shares, const std::vector<std::uint32_t>& who) {
  const auto lambda = lagrange_at_zero(who);
  Scalar x;
  for (std::size_t j = 0; j < who.size(); ++j) x = x + lambda[j] * shares[who[j]].secret;
  return mul_base(x);
}

}  // namespace

TEST_CASE("mixnet dkg: for every t <= k <= 5 each share is on the key's commitments, t shares give the key and t - 1 do not") {
  SeededRng rng(5401);
  for (std::size_t k = 2; k <= 5; ++k)
    for (std::size_t t = 1; t <= k; ++t) {
      CAPTURE(k);
      CAPTURE(t);
      auto s = make_servers(k, t, rng);
      const auto tr = run_dkg_locally(s.ptrs);
      const auto out = dkg_outcome(tr, "dkg");
      CHECK(out.disqualified.empty());
      CHECK(out.qualified.size() == k);
      REQUIRE(out.key.check().empty());
      std::vector<ElGamalKey> shares;
      for (std::size_t i = 0; i < k; ++i) shares.push_back(dkg_share(tr, out, i, s.secrets[i]));
      for (std::size_t i = 0; i < k; ++i) CHECK(shares[i].public_key == out.key.shares[i]);
      // The first t and the last t recombine the key; the first t - 1 do not.
      std::vector<std::uint32_t> first(t), last(t);
      for (std::uint32_t i = 0; i < t; ++i) {
        first[i] = i;
        last[i] = static_cast<std::uint32_t>(k - t + i);
      }
      CHECK(recombine(shares, first) == out.key.key());
      CHECK(recombine(shares, last) == out.key.key());
      if (t > 1) CHECK(recombine(shares, std::vector<std::uint32_t>(first.begin(), first.end() - 1)) != out.key.key());
      // The key is the qualified dealers' constant terms: with no dealer, nobody knows it.
      CHECK(DkgTranscript::from_bytes(tr.to_bytes(), "dkg") == tr);
    }
}

TEST_CASE("mixnet dkg: a dealer that seals a bad share and repeats it when complained about is disqualified and named") {
  SeededRng rng(5402);
  auto s = make_servers(5, 3, rng);
  s.parts[2]->deal_bad_share_to(1);
  const auto tr = run_dkg_locally(s.ptrs);
  const auto out = dkg_outcome(tr, "dkg");
  REQUIRE(out.disqualified.size() == 1);
  CHECK(out.disqualified[0].first == 2);
  CHECK(out.disqualified[0].second.find("its share for server 1 is not on its commitments") != std::string::npos);
  CHECK(out.qualified == std::vector<std::uint32_t>{0, 1, 3, 4});
  // Every server, the complainer too and the disqualified dealer as well, holds its share of the others' key.
  std::vector<ElGamalKey> shares;
  for (std::size_t i = 0; i < 5; ++i) shares.push_back(dkg_share(tr, out, i, s.secrets[i]));
  CHECK(recombine(shares, {0, 2, 4}) == out.key.key());
  CHECK(recombine(shares, {1, 2, 3}) == out.key.key());
}

TEST_CASE("mixnet dkg: a false complaint is answered in public and the dealer stays, a withheld or swapped deal is named") {
  SeededRng rng(5403);
  SUBCASE("a complaint answered with a good share") {
    // Server 1's complaint about server 3 is forged here (signed as server 1 would): server 3 answers
    // with its true share, stays, and server 1 uses the revealed share.
    auto s = make_servers(4, 2, rng);
    auto tr = run_dkg_locally(s.ptrs);
    std::vector<std::uint8_t> body = {1, 0, 0, 0, 3, 0, 0, 0};
    tr.messages[1][2]->body = body;
    tr.messages[1][2]->signature = SigningKeyPair::derive(s.secrets[1], "test signing").sign(dkg_statement(s.setup, DkgStep::complain, 1, body));
    std::vector<std::optional<DkgMessage>> complaints;
    for (std::size_t i = 0; i < 4; ++i) complaints.push_back(tr.messages[i][2]);
    tr.messages[3][3] = s.parts[3]->justify(complaints);
    const auto out = dkg_outcome(tr, "dkg");
    CHECK(out.disqualified.empty());
    CHECK(dkg_share(tr, out, 1, s.secrets[1]).public_key == out.key.shares[1]);
  }
  SUBCASE("t complaints disqualify") {
    auto s = make_servers(4, 2, rng);
    s.parts[0]->deal_bad_share_to(1);
    // A second complaint about server 0 (from server 2), forged as above: 2 >= t.
    auto tr = run_dkg_locally(s.ptrs);
    std::vector<std::uint8_t> body = {1, 0, 0, 0, 0, 0, 0, 0};
    tr.messages[2][2]->body = body;
    tr.messages[2][2]->signature = SigningKeyPair::derive(s.secrets[2], "test signing").sign(dkg_statement(s.setup, DkgStep::complain, 2, body));
    const auto out = dkg_outcome(tr, "dkg");
    REQUIRE(out.disqualified.size() == 1);
    CHECK(out.disqualified[0].first == 0);
    CHECK(out.disqualified[0].second.find("2 servers complained") != std::string::npos);
  }
  SUBCASE("no deal, a deal other than the one committed to") {
    auto s = make_servers(4, 2, rng);
    auto tr = run_dkg_locally(s.ptrs);
    tr.messages[1][1].reset();
    auto other = make_servers(4, 2, rng);  // same sizes: a well-formed deal, signed below as server 2's
    tr.messages[2][1]->body = other.parts[2]->deal().body;
    tr.messages[2][1]->signature = SigningKeyPair::derive(s.secrets[2], "test signing").sign(dkg_statement(s.setup, DkgStep::deal, 2, tr.messages[2][1]->body));
    const auto out = dkg_outcome(tr, "dkg");
    REQUIRE(out.disqualified.size() == 2);
    CHECK(out.disqualified[0] == std::pair<std::uint32_t, std::string>{1, "it sent no deal"});
    CHECK(out.disqualified[1] == std::pair<std::uint32_t, std::string>{2, "its deal is not the one it committed to"});
    CHECK(out.qualified == std::vector<std::uint32_t>{0, 3});
    // With server 3 gone too, one dealer is left, fewer than t = 2: no key (it would be server 0's alone).
    tr.messages[3][0].reset();
    CHECK_THROWS_WITH_AS((void)dkg_outcome(tr, "dkg"), doctest::Contains("dkg: 1 server(s) qualified, fewer than the threshold 2"),
                         std::invalid_argument);
  }
}

TEST_CASE("mixnet dkg: a forged, altered or truncated transcript is refused naming what fails") {
  SeededRng rng(5404);
  auto s = make_servers(3, 2, rng);
  const auto tr = run_dkg_locally(s.ptrs);
  {
    auto bad = tr;
    bad.messages[1][1]->body[5] ^= 1;  // altered after it was signed
    CHECK_THROWS_WITH_AS((void)dkg_outcome(bad, "the dkg"), doctest::Contains("the dkg: server 1: its deal: the signature does not hold"),
                         std::invalid_argument);
  }
  {
    auto bad = tr;
    bad.setup.threshold = 3;  // another setup: every signature is over the setup's digest
    CHECK_THROWS_WITH_AS((void)dkg_outcome(bad, "the dkg"), doctest::Contains("the signature does not hold"), std::invalid_argument);
  }
  {
    auto bad = tr;
    for (auto& m : bad.messages) m[1].reset();
    CHECK_THROWS_WITH_AS((void)dkg_outcome(bad, "the dkg"), doctest::Contains("no server dealt a usable part of the key"), std::invalid_argument);
  }
  const auto bytes = tr.to_bytes();
  CHECK_THROWS_WITH_AS((void)DkgTranscript::from_bytes(std::span(bytes).first(bytes.size() - 1), "the dkg"), doctest::Contains("the dkg: ends early"),
                       std::invalid_argument);
  auto longer = bytes;
  longer.push_back(0);
  CHECK_THROWS_WITH_AS((void)DkgTranscript::from_bytes(longer, "the dkg"), doctest::Contains("1 bytes too many"), std::invalid_argument);
  // A setup out of range is named with its range.
  DkgSetup one = tr.setup;
  one.threshold = 4;
  CHECK(one.check() == "a threshold of 4 (1 to the 3 servers)");
  // A server's share needs its own key file.
  const auto out = dkg_outcome(tr, "dkg");
  CHECK_THROWS_AS((void)dkg_share(tr, out, 0, s.secrets[1]), std::invalid_argument);
}

TEST_CASE("mixnet dkg: the key's shares decrypt with proofs as a dealt key's do") {
  SeededRng rng(5405);
  auto s = make_servers(4, 3, rng);
  const auto tr = run_dkg_locally(s.ptrs);
  const auto out = dkg_outcome(tr, "dkg");
  CiphertextBatch batch(1, 3);
  for (std::size_t i = 0; i < 3; ++i) {
    const std::uint8_t record[2] = {static_cast<std::uint8_t>(100 + i), 0};
    batch.at(i, 0) = encrypt_point(embed_limb(record, rng), out.key.key(), random_scalar(rng));
  }
  const ProofContext ctx{s.setup.session, 0, 4};
  std::vector<DecryptionShares> shares;
  const std::vector<std::uint32_t> who = {0, 2, 3};
  for (auto i : who) {
    shares.push_back(decryption_shares(ctx, i, dkg_share(tr, out, i, s.secrets[i]), batch, rng, 1));
    CHECK(check_decryption_shares(ctx, i, out.key.shares[i], batch, shares.back(), 1).empty());
  }
  const MessageBatch plain = combine_decryption(batch, shares, who, 2, 1);
  REQUIRE(plain.count() == 3);
  for (std::size_t i = 0; i < 3; ++i) CHECK((plain[i][0] | (plain[i][1] << 8)) == 100 + i);
}

TEST_CASE("mixnet dkg: the outcome stands only with the signature of every qualified server, and never with fewer than t of them") {
  SeededRng rng(5406);
  auto s = make_servers(3, 2, rng);
  const auto tr = run_dkg_locally(s.ptrs);
  const auto out = dkg_outcome(tr, "dkg");
  REQUIRE(out.qualified.size() == 3);
  CHECK_NOTHROW(check_endorsements(tr, out, "dkg"));
  CHECK(DkgTranscript::from_bytes(tr.to_bytes(), "dkg").endorsements == tr.endorsements);
  {
    // The coordinator keeps its own commitment and deal only: it would hold the whole key.
    auto forged = tr;
    for (std::size_t i = 1; i < 3; ++i) forged.messages[i] = {};
    CHECK_THROWS_WITH_AS((void)dkg_outcome(forged, "dkg"), doctest::Contains("dkg: 1 server(s) qualified, fewer than the threshold 2"),
                         std::invalid_argument);
  }
  {
    // It leaves server 2 out and signs the new outcome itself: server 1's signature was of another
    // transcript, so server 1 did not consent to this key.
    auto forged = tr;
    forged.messages[2] = {};
    forged.endorsements[0] = s.parts[0]->endorse(forged);
    const auto o = dkg_outcome(forged, "dkg");
    CHECK(o.qualified == std::vector<std::uint32_t>{0, 1});
    CHECK_THROWS_WITH_AS(check_endorsements(forged, o, "dkg"), doctest::Contains("dkg: qualified server 1's signature of the outcome does not hold"),
                         std::invalid_argument);
    forged.endorsements[1].reset();
    CHECK_THROWS_WITH_AS(check_endorsements(forged, o, "dkg"), doctest::Contains("dkg: qualified server 1 did not sign the outcome"), std::invalid_argument);
    // With server 1's consent the key stands: server 1 holds a share the coordinator does not.
    forged.endorsements[1] = s.parts[1]->endorse(forged);
    CHECK_NOTHROW(check_endorsements(forged, o, "dkg"));
  }
  // A transcript of an earlier version, without the endorsements: refused saying so.
  const auto bare = tr.to_bytes(false);
  CHECK_THROWS_WITH_AS((void)DkgTranscript::from_bytes(bare, "dkg"), doctest::Contains("carries no server's signature of the outcome"),
                       std::invalid_argument);
}
