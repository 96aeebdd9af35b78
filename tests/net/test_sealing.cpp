// ESA sealing (net/sealing.hpp): what the channel does to every analyzer-only message on both ends.
#include <doctest/doctest.h>
#include <sodium.h>

#include <array>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "shufflempc/net/sealing.hpp"

using namespace shufflempc;
using namespace shufflempc::net;

namespace {
std::vector<std::uint8_t> messages(std::size_t count, std::size_t width) {
  std::vector<std::uint8_t> m(count * width);
  for (std::size_t i = 0; i < m.size(); ++i) m[i] = static_cast<std::uint8_t>(i * 7 + 1);
  return m;
}
}  // namespace

TEST_CASE("sealing: records open to the messages in order under the analyzer's key, 48 bytes wider") {
  SeededRng rng(48);
  const auto analyzer = KeyPair::generate(rng);
  for (std::size_t width : {1u, 8u, 33u}) {
    const auto plain = messages(5, width);
    std::vector<std::uint8_t> records(5 * sealing::sealed_width(width));
    CHECK(sealing::sealed_width(width) == width + 48);
    sealing::seal(plain, width, analyzer.public_key(), records);
    const auto opened = sealing::open(records, width, analyzer);
    CHECK(opened.discarded == 0);
    CHECK(opened.messages.count() == 5);
    CHECK(std::vector<std::uint8_t>(opened.messages.bytes().begin(), opened.messages.bytes().end()) == plain);
  }
}

TEST_CASE("sealing: the ephemeral public keys made together are crypto_scalarmult_base's, on 3000 random clamped secrets") {
  // Against libsodium on random inputs: every run length up to 300 (its inversion shared), then 3000
  // at once; and the seal's records are crypto_box_seal's, opened by libsodium's own open.
  std::vector<std::array<std::uint8_t, 32>> secrets(3000);
  for (auto& s : secrets) {
    randombytes_buf(s.data(), s.size());
    s[0] &= 248;
    s[31] = static_cast<std::uint8_t>((s[31] & 127) | 64);
  }
  const auto expected = [&](std::size_t i) {
    PublicKey pk;
    REQUIRE(crypto_scalarmult_base(pk.data(), secrets[i].data()) == 0);
    return pk;
  };
  std::size_t checked = 0, first = 0;
  for (std::size_t k = 1; first + k <= secrets.size() && k <= 300; first += k, k += 37) {
    std::vector<PublicKey> out(k);
    sealing::ephemeral_public_keys(std::span(secrets).subspan(first, k), out);
    for (std::size_t i = 0; i < k; ++i) checked += out[i] == expected(first + i);
  }
  CHECK(checked == first);
  std::vector<PublicKey> all(secrets.size());
  sealing::ephemeral_public_keys(secrets, all);
  std::size_t same = 0;
  for (std::size_t i = 0; i < secrets.size(); ++i) same += all[i] == expected(i);
  CHECK(same == secrets.size());
  auto loose = secrets[0];
  loose[0] |= 1;  // not clamped
  std::vector<PublicKey> one(1);
  CHECK_THROWS_AS(sealing::ephemeral_public_keys(std::span(&loose, 1), one), std::invalid_argument);
  CHECK_THROWS_AS(sealing::ephemeral_public_keys(std::span(secrets).first(2), one), std::invalid_argument);

  SeededRng rng(47);
  const auto analyzer = KeyPair::generate(rng);
  const auto plain = messages(700, 3);
  std::vector<std::uint8_t> records(700 * sealing::sealed_width(3));
  sealing::seal(plain, 3, analyzer.public_key(), records);
  std::size_t opened = 0;
  for (std::size_t i = 0; i < 700; ++i) {
    std::array<std::uint8_t, 3> m{};
    opened += crypto_box_seal_open(m.data(), records.data() + i * 51, 51, analyzer.public_key().data(), analyzer.secret_key().data()) == 0 &&
              std::equal(m.begin(), m.end(), plain.begin() + 3 * static_cast<std::ptrdiff_t>(i));
  }
  CHECK(opened == 700);
}

TEST_CASE("sealing: the same message seals to a different record each time (no equality leaks to the shuffler)") {
  SeededRng rng(49);
  const auto analyzer = KeyPair::generate(rng);
  const std::vector<std::uint8_t> plain(4 * 16, 0);  // four equal messages
  std::vector<std::uint8_t> records(4 * sealing::sealed_width(16));
  sealing::seal(plain, 16, analyzer.public_key(), records);
  const std::span<const std::uint8_t> all(records);
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = i + 1; j < 4; ++j) {
      const auto a = all.subspan(i * 64, 64), b = all.subspan(j * 64, 64);
      CHECK_FALSE(std::equal(a.begin(), a.end(), b.begin()));
    }
}

TEST_CASE("sealing: a record sealed to another key or altered on the way is discarded and counted, the others kept") {
  SeededRng rng(50);
  const auto analyzer = KeyPair::generate(rng);
  const auto stranger = KeyPair::generate(rng);
  const auto plain = messages(4, 8);
  const std::size_t ww = sealing::sealed_width(8);
  std::vector<std::uint8_t> records(4 * ww);
  sealing::seal(plain, 8, analyzer.public_key(), records);
  sealing::seal(std::span<const std::uint8_t>(plain).first(8), 8, stranger.public_key(), std::span<std::uint8_t>(records).first(ww));
  records[2 * ww + 50] ^= 1;  // record 2's ciphertext
  const auto opened = sealing::open(records, 8, analyzer);
  CHECK(opened.discarded == 2);
  REQUIRE(opened.messages.count() == 2);
  CHECK(std::vector<std::uint8_t>(opened.messages[0].begin(), opened.messages[0].end()) ==
        std::vector<std::uint8_t>(plain.begin() + 8, plain.begin() + 16));
  CHECK(std::vector<std::uint8_t>(opened.messages[1].begin(), opened.messages[1].end()) ==
        std::vector<std::uint8_t>(plain.begin() + 24, plain.begin() + 32));
}

TEST_CASE("sealing: 5000 records, sealed and opened on every core, keep their order, and altered ones in any block are dropped") {
  SeededRng rng(52);
  const auto analyzer = KeyPair::generate(rng);
  const std::size_t n = 5000, width = 4, ww = sealing::sealed_width(width);
  std::vector<std::uint8_t> plain(n * width);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t b = 0; b < width; ++b) plain[i * width + b] = static_cast<std::uint8_t>(i >> (8 * b));  // record i holds i
  std::vector<std::uint8_t> records(n * ww);
  sealing::seal(plain, width, analyzer.public_key(), records);
  const std::vector<std::size_t> altered = {0, 1023, 1024, 2500, 4999};  // the edges of the 1024-record blocks
  for (std::size_t i : altered) records[i * ww + ww - 1] ^= 0x80;  // the last tag byte
  const auto opened = sealing::open(records, width, analyzer);
  CHECK(opened.discarded == altered.size());
  REQUIRE(opened.messages.count() == n - altered.size());
  std::size_t at = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::find(altered.begin(), altered.end(), i) != altered.end()) continue;
    const auto m = opened.messages[at++];
    CHECK(std::equal(m.begin(), m.end(), plain.begin() + static_cast<std::ptrdiff_t>(i * width)));
  }
}

TEST_CASE("sealing: sizes that are not whole messages or records are refused") {
  SeededRng rng(51);
  const auto analyzer = KeyPair::generate(rng);
  std::vector<std::uint8_t> plain(10), out(2 * sealing::sealed_width(4));
  CHECK_THROWS_AS(sealing::seal(plain, 4, analyzer.public_key(), out), std::invalid_argument);
  plain.resize(8);
  std::vector<std::uint8_t> short_out(out.size() - 1);
  CHECK_THROWS_AS(sealing::seal(plain, 4, analyzer.public_key(), short_out), std::invalid_argument);
  CHECK_THROWS_AS((void)sealing::open(std::vector<std::uint8_t>(sealing::sealed_width(4) + 1), 4, analyzer), std::invalid_argument);
  CHECK(sealing::open(std::vector<std::uint8_t>{}, 4, analyzer).messages.count() == 0);
}
