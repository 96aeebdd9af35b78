// The group and the encodings of the verifiable mix: known answers from RFC 9496 (ristretto255)
// for the limb points m·G, the ciphertext layout, canonical encodings only, the limb split and the
// table of limb points.
#include <doctest/doctest.h>

#include <string>

#include "shufflempc/hex.hpp"
#include "shufflempc/mixnet/elgamal.hpp"
#include "shufflempc/mixnet/group.hpp"

using namespace shufflempc;
using namespace shufflempc::mixnet;

namespace {

Point point_hex(const std::string& hex) {
  Point p;
  from_hex(hex, p.bytes, "test point");
  return p;
}

// RFC 9496, Appendix A.1: the encodings of 0·G .. 4·G.
const char* const multiples[] = {
    "0000000000000000000000000000000000000000000000000000000000000000",
    "e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76",
    "6a493210f7499cd17fecb510ae0cea23a110e8d5b901f8acadd3095c73a3b919",
    "94741f5d5d52755ece4f23f044ee27d5d1ea1e2bd196b462166b16152a9d0259",
    "da80862773358b466ffadfe0b3293ab3d9fd53c5ea6c955358f568322daf6a57",
};

}  // namespace

TEST_CASE("mixnet group: m·G for m = 0..4 are RFC 9496's encodings, by the fixed-base and the variable-base multiplication") {
  CHECK(base_point() == point_hex(multiples[1]));
  for (std::uint64_t m = 0; m < 5; ++m) {
    CAPTURE(m);
    CHECK(mul_base(scalar_from_u64(m)) == point_hex(multiples[m]));
    CHECK(scalar_from_u64(m) * base_point() == point_hex(multiples[m]));
  }
  CHECK(point_hex(multiples[1]) + point_hex(multiples[3]) == point_hex(multiples[4]));
  CHECK(point_hex(multiples[4]) - point_hex(multiples[1]) == point_hex(multiples[3]));
  CHECK(point_hex(multiples[2]) - point_hex(multiples[2]) == Point{});
}

TEST_CASE("mixnet group: only canonical encodings are points and only scalars below the order are scalars") {
  for (const char* m : multiples) CHECK(valid_point(point_hex(m)));
  // RFC 9496, Appendix A.2: a non-canonical field element and a negative one.
  CHECK_FALSE(valid_point(point_hex("00ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f")));
  CHECK_FALSE(valid_point(point_hex("0100000000000000000000000000000000000000000000000000000000000000")));
  // RFC 9496 rejects bit 255 set (libsodium 1.0.18 ignores it): G with that bit is no point.
  Point high = base_point();
  high.bytes[31] |= 0x80;
  CHECK_FALSE(valid_point(high));
  Scalar order;
  from_hex("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010", order.bytes, "L");
  CHECK_FALSE(valid_scalar(order));
  Scalar below = order;
  below.bytes[0] -= 1;
  CHECK(valid_scalar(below));
  CHECK(below + scalar_from_u64(1) == Scalar{});  // (L - 1) + 1 = 0 mod L
  CHECK(-scalar_from_u64(1) == below);
}

TEST_CASE("mixnet elgamal: the ciphertext of m·G under Y = G with r = 1 is (G, (m + 1)·G), laid out c1 then c2") {
  const Scalar one = scalar_from_u64(1);
  for (std::uint16_t m = 0; m < 4; ++m) {
    CAPTURE(m);
    const Ciphertext c = encrypt_point(mul_base(scalar_from_u64(m)), base_point(), one);
    CHECK(c.c1 == point_hex(multiples[1]));
    CHECK(c.c2 == point_hex(multiples[m + 1]));
    CiphertextBatch batch(1, 1);
    batch.at(0, 0) = c;
    CHECK(to_hex(batch.to_bytes()) == std::string(multiples[1]) + multiples[m + 1]);
    CHECK(CiphertextBatch::from_bytes(1, batch.to_bytes(), "kat") == batch);
  }
  // Re-encrypting with s = 2 under Y = G adds 2·G to both halves.
  const Ciphertext c = reencrypt(encrypt_point(Point{}, base_point(), one), base_point(), scalar_from_u64(2));
  CHECK(c.c1 == point_hex(multiples[3]));
  CHECK(c.c2 == point_hex(multiples[3]));
  CHECK(record_fit(max_record_bytes).empty());
  CHECK(record_fit(max_record_bytes + 1).find("do not fit the verifiable mix") != std::string::npos);
}

TEST_CASE("mixnet group: hashes to the group and to scalars are deterministic and separated by their label") {
  const std::uint8_t data[] = {1, 2, 3};
  CHECK(hash_to_point("a", data) == hash_to_point("a", data));
  CHECK(hash_to_point("a", data) != hash_to_point("b", data));
  CHECK(hash_to_scalar("a", data) == hash_to_scalar("a", data));
  CHECK(hash_to_scalar("a", data) != hash_to_scalar("b", data));
  CHECK(valid_point(hash_to_point("a", data)));
  CHECK(valid_scalar(hash_to_scalar("a", data)));
}
