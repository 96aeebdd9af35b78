// Exponential ElGamal on ristretto255 (mixnet/elgamal.hpp): limbs round-trip for every record width
// the verifiable mix takes, a limb decrypts to itself with the secret key and re-encrypts to the same
// plaintext under fresh randomness, the discrete-log table knows every 16-bit limb and nothing else,
// a batch round-trips through its bytes and refuses a torn or non-canonical one, and records wider
// than 16 bytes are refused with the reason.
#include <doctest/doctest.h>

#include "shufflempc/mixnet/elgamal.hpp"

using namespace shufflempc;
using namespace shufflempc::mixnet;

namespace {

// m·G from a ciphertext under (x, Y = x·G): c2 - x·c1.
Point plaintext_point(const Ciphertext& c, const Scalar& x) { return c.c2 - x * c.c1; }

}  // namespace

TEST_CASE("mixnet elgamal: the limbs of a record of every width 1 to 16 give the record back") {
  SeededRng rng(31);
  for (std::size_t width = 1; width <= max_record_bytes; ++width) {
    CAPTURE(width);
    std::vector<std::uint8_t> record(width), back(width);
    for (int trial = 0; trial < 20; ++trial) {
      rng.fill(record);
      const auto limbs = to_limbs(record);
      REQUIRE(limbs.size() == limbs_for(width));
      from_limbs(limbs, back);
      CHECK(back == record);
    }
  }
  // Little-endian words; an odd last byte is a limb of its own.
  const std::vector<std::uint8_t> three = {0x34, 0x12, 0x7f};
  CHECK(to_limbs(three) == std::vector<std::uint16_t>{0x1234, 0x007f});
}

TEST_CASE("mixnet elgamal: a limb decrypts to itself, re-encryption keeps it and changes every byte, and the table knows exactly the 16-bit limbs") {
  SeededRng rng(32);
  const ElGamalKey key = ElGamalKey::generate(rng);
  CHECK(mul_base(key.secret) == key.public_key);
  for (std::uint32_t m : {0u, 1u, 2u, 255u, 256u, 4097u, 65534u, 65535u}) {
    CAPTURE(m);
    const auto c = encrypt_limb(static_cast<std::uint16_t>(m), key.public_key, random_scalar(rng));
    CHECK(limb_log(plaintext_point(c, key.secret)) == std::optional<std::uint16_t>(static_cast<std::uint16_t>(m)));
    const auto r = reencrypt(c, key.public_key, random_scalar(rng));
    CHECK(r.c1 != c.c1);
    CHECK(r.c2 != c.c2);
    CHECK(limb_log(plaintext_point(r, key.secret)) == std::optional<std::uint16_t>(static_cast<std::uint16_t>(m)));
    // Under another key the plaintext point is no limb (with probability 1 - 2^16 / 2^252).
    const ElGamalKey other = ElGamalKey::generate(rng);
    CHECK_FALSE(limb_log(plaintext_point(c, other.secret)));
  }
  CHECK_FALSE(limb_log(mul_base(scalar_from_u64(65536))));  // just past the table
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
    std::vector<std::uint16_t> limbs;
    for (const auto& c : one.record(i)) limbs.push_back(*limb_log(plaintext_point(c, key.secret)));
    std::vector<std::uint8_t> back(5);
    from_limbs(limbs, back);
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
