// Decryption by the trustees (mixnet/decryption.hpp, mixnet/threshold.hpp): 1 to 3 trustees recover
// every record; a key shared t-of-m opens to every set of t trustees and to no smaller one; a
// public share off the committed polynomial is named; a share from the wrong key, or any altered
// byte of a proof, is named by the check; a wrong share makes the record undecodable rather than
// silently wrong.
#include <doctest/doctest.h>

#include "shufflempc/mixnet/decryption.hpp"

using namespace shufflempc;
using namespace shufflempc::mixnet;

namespace {

MessageBatch some_records(std::size_t width, std::size_t count, Rng& rng) {
  MessageBatch m(width, count);
  rng.fill(std::span<std::uint8_t>(m.data(), m.size_bytes()));
  return m;
}

}  // namespace

TEST_CASE("mixnet decryption: 1, 2 and 3 trustees recover records of 1, 2, 3, 8 and 16 bytes, every share proved") {
  SeededRng rng(21);
  const ProofContext ctx{{}, 0, 3};
  for (std::size_t trustees : {1u, 2u, 3u}) {
    for (std::size_t width : {1u, 2u, 3u, 8u, 16u}) {
      CAPTURE(trustees);
      CAPTURE(width);
      const DealtKey dealt = deal_key(trustees, trustees, rng);
      REQUIRE(dealt.key.check() == "");
      const MessageBatch records = some_records(width, 9, rng);
      const CiphertextBatch batch = encrypt_batch(records, dealt.key.key(), rng, 2);
      std::vector<DecryptionShares> shares;
      std::vector<std::uint32_t> who;
      for (std::uint32_t k = 0; k < trustees; ++k) {
        shares.push_back(decryption_shares(ctx, k, dealt.secrets[k], batch, rng, 2));
        who.push_back(k);
        CHECK(check_decryption_shares(ctx, k, dealt.key.shares[k], batch, shares.back(), 2) == "");
        CHECK(DecryptionShares::from_bytes(batch.all().size(), shares.back().to_bytes(), "shares") == shares.back());
      }
      CHECK(combine_decryption(batch, shares, who, width, 2) == records);
      if (trustees > 1) {
        // Without one trustee's shares nothing decodes.
        CHECK_THROWS_AS((void)combine_decryption(batch, std::span(shares).first(trustees - 1), std::span(who).first(trustees - 1), width, 2),
                        std::system_error);
      }
    }
  }
}

TEST_CASE("mixnet decryption: a key shared t-of-m is decrypted by every set of t or more trustees and by no set of fewer") {
  SeededRng rng(24);
  const ProofContext ctx{{}, 0, 2};
  for (const auto& [m, t] : std::vector<std::pair<std::size_t, std::size_t>>{{3, 2}, {4, 2}, {5, 3}, {4, 4}, {3, 1}}) {
    CAPTURE(m);
    CAPTURE(t);
    const DealtKey dealt = deal_key(m, t, rng);
    REQUIRE(dealt.key.check() == "");
    CHECK(dealt.key.commitments.size() == t);
    const MessageBatch records = some_records(3, 4, rng);
    const CiphertextBatch batch = encrypt_batch(records, dealt.key.key(), rng, 2);
    std::vector<DecryptionShares> all;
    for (std::uint32_t k = 0; k < m; ++k) all.push_back(decryption_shares(ctx, k, dealt.secrets[k], batch, rng, 2));
    // Every subset of the trustees, by its bit mask.
    for (std::uint32_t mask = 1; mask < (1u << m); ++mask) {
      std::vector<DecryptionShares> shares;
      std::vector<std::uint32_t> who;
      for (std::uint32_t k = 0; k < m; ++k)
        if (mask & (1u << k)) {
          shares.push_back(all[k]);
          who.push_back(k);
        }
      CAPTURE(mask);
      if (who.size() >= t) {
        CHECK(combine_decryption(batch, shares, who, 3, 2) == records);
      } else {
        CHECK_THROWS_AS((void)combine_decryption(batch, shares, who, 3, 2), std::system_error);
      }
    }
  }
}

TEST_CASE("mixnet decryption: a public share off the committed polynomial, or a threshold out of range, is named") {
  SeededRng rng(25);
  DealtKey dealt = deal_key(4, 3, rng);
  REQUIRE(dealt.key.check() == "");
  ThresholdKey moved = dealt.key;
  moved.shares[2] = moved.shares[2] + base_point();
  CHECK(moved.check() == "trustee 2's public share is not on the committed polynomial");
  ThresholdKey fewer = dealt.key;
  fewer.commitments.pop_back();
  CHECK(fewer.check().find("2 commitments for a threshold of 3") != std::string::npos);
  ThresholdKey too_high = dealt.key;
  too_high.threshold = 5;
  CHECK(too_high.check().find("1 <= t <= m") != std::string::npos);
  CHECK_THROWS_WITH_AS((void)deal_key(3, 4, rng), doctest::Contains("the threshold must be in [1, 3]"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)deal_key(0, 1, rng), doctest::Contains("trustees must be in [1, 64]"), std::invalid_argument);
  const std::uint32_t twice[] = {1, 1};
  CHECK_THROWS_AS((void)lagrange_at_zero(twice), std::invalid_argument);
}

TEST_CASE("mixnet decryption: shares of the wrong key, or for another trustee index or context, are not proved") {
  SeededRng rng(22);
  const ProofContext ctx{{}, 1, 2};
  const ElGamalKey key = ElGamalKey::generate(rng), other = ElGamalKey::generate(rng);
  const CiphertextBatch batch = encrypt_batch(some_records(4, 5, rng), key.public_key, rng, 2);
  const auto wrong = decryption_shares(ctx, 0, other, batch, rng, 2);
  CHECK(check_decryption_shares(ctx, 0, key.public_key, batch, wrong, 2).find("the shares are not proved") != std::string::npos);
  const auto good = decryption_shares(ctx, 0, key, batch, rng, 2);
  CHECK(check_decryption_shares(ctx, 1, key.public_key, batch, good, 2) != "");
  CHECK(check_decryption_shares(ProofContext{{}, 2, 2}, 0, key.public_key, batch, good, 2) != "");
  // Two shares swapped (a trustee that answers for the wrong ciphertext), or one share alone
  // replaced by a point of the prover's choosing: the proof covers every share.
  auto swapped = good;
  std::swap(swapped.shares[3], swapped.shares[4]);
  CHECK(check_decryption_shares(ctx, 0, key.public_key, batch, swapped, 2).find("the shares are not proved") != std::string::npos);
  for (std::size_t i = 0; i < good.shares.size(); ++i) {
    CAPTURE(i);
    auto one = good;
    one.shares[i] = one.shares[i] + base_point();
    CHECK(check_decryption_shares(ctx, 0, key.public_key, batch, one, 2).find("the shares are not proved") != std::string::npos);
  }
  CHECK(check_decryption_shares(ctx, 0, key.public_key, batch, good, 2) == "");
  const std::uint32_t first[] = {0};
  CHECK_THROWS_AS((void)combine_decryption(batch, std::span(&wrong, 1), first, 4, 2), std::system_error);
}

TEST_CASE("mixnet decryption: every single flipped byte of a trustee's proved shares is refused") {
  SeededRng rng(23);
  const ProofContext ctx{{}, 0, 1};
  const ElGamalKey key = ElGamalKey::generate(rng);
  const CiphertextBatch batch = encrypt_batch(some_records(2, 2, rng), key.public_key, rng, 1);
  const auto bytes = decryption_shares(ctx, 0, key, batch, rng, 1).to_bytes();
  std::size_t checked = 0;
  for (std::size_t at = 0; at < bytes.size(); ++at) {
    CAPTURE(at);
    auto bad = bytes;
    bad[at] ^= 0x80;
    try {
      const auto s = DecryptionShares::from_bytes(2, bad, "shares");
      CHECK(check_decryption_shares(ctx, 0, key.public_key, batch, s, 1) != "");
      ++checked;
    } catch (const std::invalid_argument&) {
    }
  }
  // Every flip in the response's 31 low bytes parses (and the check refuses it); flips in a point mostly do too.
  CHECK(checked >= 31 + 10);
}
