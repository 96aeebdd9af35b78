// ElGamal on ristretto255 with the record carried in the plaintext point (mixnet/elgamal.hpp): the
// embedding gives every record of every width 1 to 16 back, lays its encoding out as documented, takes
// as many draws whatever the data, and no other point passes for an embedding; a ciphertext decrypts to
// its point with the secret key and re-encrypts to the same point under fresh randomness; a batch
// round-trips through its bytes and refuses a torn or non-canonical one; and records wider than 16
// bytes are refused with the reason.
#include <doctest/doctest.h>

#include <array>

#include "shufflempc/mixnet/elgamal.hpp"

using namespace shufflempc;
using namespace shufflempc::mixnet;

namespace {

// The plaintext point of a ciphertext under (x, Y = x·G): c2 - x·c1.
Point plaintext_point(const Ciphertext& c, const Scalar& x) { return c.c2 - x * c.c1; }

}  // namespace

TEST_CASE("mixnet elgamal: the points of a record of every width 1 to 16 give the record back, and the encoding holds it where documented") {
  SeededRng rng(31);
  for (std::size_t width = 1; width <= max_record_bytes; ++width) {
    CAPTURE(width);
    std::vector<std::uint8_t> record(width), back(width);
    for (int trial = 0; trial < 50; ++trial) {
      rng.fill(record);
      const auto limbs = embed_record(record, rng);
      REQUIRE(limbs.size() == limbs_for(width));
      REQUIRE(valid_point(limbs[0]));
      CHECK(extract_record(limbs, back));
      CHECK(back == record);
      // s[0] even, the data at s[1 ..], zeros after it to s[16], and from s[19].
      const auto& s = limbs[0].bytes;
      CHECK(s[0] % 2 == 0);
      CHECK(std::equal(record.begin(), record.end(), s.begin() + 1));
      for (std::size_t i = 1 + width; i < 17; ++i) CHECK(s[i] == 0);
      for (std::size_t i = 19; i < point_bytes; ++i) CHECK(s[i] == 0);
    }
  }
  CHECK(limbs_for(1) == 1);
  CHECK(limbs_for(16) == 1);
  CHECK(limbs_for(17) == 2);
  std::vector<std::uint8_t> wide(limb_bytes + 1);
  CHECK_THROWS_AS((void)embed_limb(wide, rng), std::invalid_argument);
}

TEST_CASE("mixnet elgamal: an embedding takes as many draws whatever the data (its time says nothing of the record)") {
  // The draws of 20000 embeddings of each of three data, by count 1, 2, 3, 4, 5, 6 or more; the
  // three distributions must agree by a chi-square test of homogeneity (two by two, 5 degrees of
  // freedom, refused above 52: a false alarm has probability 5.4e-10 per pair).
  constexpr int samples = 20000;
  SeededRng rng(36);
  std::array<std::uint8_t, 16> zeros{}, ones{}, mixed{};
  ones.fill(0xff);
  for (std::size_t i = 0; i < mixed.size(); ++i) mixed[i] = static_cast<std::uint8_t>(37 * i + 11);
  std::vector<std::array<double, 6>> counts;
  double draws = 0;
  for (const auto* data : {&zeros, &ones, &mixed}) {
    std::array<double, 6> c{};
    for (int k = 0; k < samples; ++k) {
      std::size_t tries = 0;
      (void)embed_limb(*data, rng, &tries);
      REQUIRE(tries >= 1);
      c[std::min<std::size_t>(tries, 6) - 1] += 1;
      draws += static_cast<double>(tries);
    }
    counts.push_back(c);
  }
  for (std::size_t a = 0; a < counts.size(); ++a)
    for (std::size_t b = a + 1; b < counts.size(); ++b) {
      double chi2 = 0;
      for (std::size_t j = 0; j < 6; ++j) {
        const double total = counts[a][j] + counts[b][j];
        if (total == 0) continue;
        const double expected = total / 2;  // equal sample sizes
        chi2 += (counts[a][j] - expected) * (counts[a][j] - expected) / expected + (counts[b][j] - expected) * (counts[b][j] - expected) / expected;
      }
      CAPTURE(a);
      CAPTURE(b);
      CHECK(chi2 < 52.0);
    }
  // About one padding in four encodes a point: the mean number of draws is near 4 (a loose bound:
  // the claim checked here is that embedding is cheap, not the exact rate).
  const double mean = draws / (3.0 * samples);
  CAPTURE(mean);
  CHECK(mean > 2.0);
  CHECK(mean < 8.0);
}

TEST_CASE("mixnet elgamal: a point that no embedding makes is refused, and so is an embedding read at a width its data overflows") {
  SeededRng rng(37);
  std::array<std::uint8_t, 16> out{};
  for (int i = 0; i < 200; ++i) {
    std::uint8_t label[4];
    rng.fill(label);
    CHECK_FALSE(extract_limb(hash_to_point("test", label), out));  // a random point: passes with probability 2^-104
    CHECK_FALSE(extract_limb(mul_base(scalar_from_u64(static_cast<std::uint64_t>(i) + 1)), out));
  }
  const std::uint8_t five[] = {1, 2, 3, 4, 5};
  const Point p = embed_limb(five, rng);
  std::array<std::uint8_t, 5> back5{};
  CHECK(extract_limb(p, back5));
  std::array<std::uint8_t, 3> back3{};
  CHECK_FALSE(extract_limb(p, back3));  // bytes 4 and 5 are not zero
  std::array<std::uint8_t, 7> back7{};
  CHECK(extract_limb(p, back7));  // wider: the data zero-padded
  CHECK(back7 == std::array<std::uint8_t, 7>{1, 2, 3, 4, 5, 0, 0});
}

TEST_CASE("mixnet elgamal: a ciphertext decrypts to its point, re-encryption keeps it and changes every byte") {
  SeededRng rng(32);
  const ElGamalKey key = ElGamalKey::generate(rng);
  CHECK(mul_base(key.secret) == key.public_key);
  for (int trial = 0; trial < 8; ++trial) {
    std::array<std::uint8_t, 16> data;
    rng.fill(data);
    const Point m = embed_limb(data, rng);
    const auto c = encrypt_point(m, key.public_key, random_scalar(rng));
    CHECK(plaintext_point(c, key.secret) == m);
    const auto r = reencrypt(c, key.public_key, random_scalar(rng));
    CHECK(r.c1 != c.c1);
    CHECK(r.c2 != c.c2);
    CHECK(plaintext_point(r, key.secret) == m);
    // Under another key the plaintext point carries no record (with probability 1 - 2^-104).
    const ElGamalKey other = ElGamalKey::generate(rng);
    std::array<std::uint8_t, 16> back;
    CHECK_FALSE(extract_limb(plaintext_point(c, other.secret), back));
  }
}

TEST_CASE("mixnet elgamal: a batch round-trips through its bytes, the threads do not change it, and a torn or non-canonical batch is named") {
  const ElGamalKey key = [] {
    SeededRng rng(33);
    return ElGamalKey::generate(rng);
  }();
  MessageBatch records(5, 7);
  SeededRng fill(34);
  fill.fill(std::span(records.data(), records.size_bytes()));
  SeededRng r1(35), r2(35);
  const CiphertextBatch one = encrypt_batch(records, key.public_key, r1, 1);
  const CiphertextBatch two = encrypt_batch(records, key.public_key, r2, 2);
  CHECK(one == two);
  REQUIRE(one.size() == 7);
  REQUIRE(one.limbs() == limbs_for(5));
  for (std::size_t i = 0; i < records.count(); ++i) {
    std::vector<Point> limbs;
    for (const auto& c : one.record(i)) limbs.push_back(plaintext_point(c, key.secret));
    std::vector<std::uint8_t> back(5);
    CHECK(extract_record(limbs, back));
    CHECK(std::equal(back.begin(), back.end(), records[i].begin()));
  }
  const auto bytes = one.to_bytes();
  CHECK(bytes.size() == 7 * one.limbs() * ciphertext_bytes);
  CHECK(CiphertextBatch::from_bytes(one.limbs(), bytes, "the batch") == one);
  CHECK_THROWS_WITH_AS((void)CiphertextBatch::from_bytes(one.limbs(), std::span(bytes).first(bytes.size() - 1), "the batch"),
                       doctest::Contains("the batch"), std::invalid_argument);
  auto bad = bytes;
  std::fill(bad.begin(), bad.begin() + point_bytes, std::uint8_t{0xff});  // not a canonical encoding
  CHECK_THROWS_WITH_AS((void)CiphertextBatch::from_bytes(one.limbs(), bad, "the batch"), doctest::Contains("the batch"), std::invalid_argument);
}

TEST_CASE("mixnet elgamal: records of up to 16 bytes fit, wider ones are refused with the reason") {
  for (std::size_t w = 1; w <= max_record_bytes; ++w) CHECK(record_fit(w).empty());
  CHECK(record_fit(17).find("16 bytes") != std::string::npos);
  CHECK(record_fit(48).find("16 bytes") != std::string::npos);
}
