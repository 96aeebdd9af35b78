// Private channels: the key derivation recomputed from its specification with libsodium directly,
// round trips through a real shuffle among other links and cover traffic, separation of
// directions, pairs and sessions, and rejection of tampered, replayed and misaddressed messages.
#include <doctest/doctest.h>
#include <sodium.h>

#include <string>
#include <system_error>

#include "shufflempc/error.hpp"
#include "shufflempc/private_channel.hpp"
#include "shufflempc/shuffle.hpp"

using shufflempc::LinkKey;
using shufflempc::MessageBatch;
using shufflempc::PrivateChannels;
using shufflempc::SeededRng;
using shufflempc::SessionId;
namespace pc = shufflempc::private_channel;

namespace {

std::vector<std::uint8_t> bytes_0_to(std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(i);
  return v;
}

std::string hex(std::span<const std::uint8_t> b) {
  std::string s(2 * b.size() + 1, '\0');
  sodium_bin2hex(s.data(), s.size(), b.data(), b.size());
  s.pop_back();
  return s;
}

std::vector<std::uint8_t> payload_of(std::uint32_t from, std::uint32_t to, std::uint32_t seq, std::size_t width) {
  std::vector<std::uint8_t> p(width);
  for (std::size_t i = 0; i < width; ++i) p[i] = static_cast<std::uint8_t>(from * 31 + to * 7 + seq * 3 + i);
  return p;
}

template <class F>
std::error_code error_of(F&& f) {
  try {
    f();
  } catch (const std::system_error& e) {
    return e.code();
  }
  return {};
}

}  // namespace

TEST_CASE("private channel: key derivation follows its specification (recomputed with libsodium)") {
  shufflempc::ensure_sodium();
  const auto secret = bytes_0_to(32);
  const SessionId session = shufflempc::session_id_from_name("doc");
  // session id = BLAKE2b-128("shufflempc/session-id/v1" | name)
  const std::string sid_input = std::string("shufflempc/session-id/v1") + "doc";
  SessionId expected_sid{};
  crypto_generichash(expected_sid.data(), expected_sid.size(), reinterpret_cast<const unsigned char*>(sid_input.data()),
                     sid_input.size(), nullptr, 0);
  CHECK(session == expected_sid);

  // prk = BLAKE2b-256(domain | session | u32le(min) | u32le(max) | u64le(len) | secret), with
  // the pair (1, 2) in either direction.
  std::vector<std::uint8_t> input;
  const std::string domain = "shufflempc/private-channel/v1";
  input.insert(input.end(), domain.begin(), domain.end());
  input.insert(input.end(), session.begin(), session.end());
  for (std::uint8_t b : {1, 0, 0, 0, 2, 0, 0, 0, 32, 0, 0, 0, 0, 0, 0, 0}) input.push_back(b);
  input.insert(input.end(), secret.begin(), secret.end());
  std::array<std::uint8_t, 32> prk{};
  crypto_generichash(prk.data(), prk.size(), input.data(), input.size(), nullptr, 0);
  const auto up = LinkKey::derive(secret, session, 1, 2);    // min -> max: subkeys 0 and 1
  const auto down = LinkKey::derive(secret, session, 2, 1);  // max -> min: subkeys 2 and 3
  std::array<std::uint8_t, 32> sub{};
  for (std::uint64_t id = 0; id < 4; ++id) {
    crypto_kdf_derive_from_key(sub.data(), sub.size(), id, "smpcchan", prk.data());
    const auto& mine = id == 0 ? up.encryption_key() : id == 1 ? up.tag_key() : id == 2 ? down.encryption_key() : down.tag_key();
    CHECK(mine == sub);
  }

  // tag = BLAKE2b-128 keyed with the tag key over u32le(round) | u32le(seq); the sealed message
  // is tag | ChaCha20-Poly1305-IETF(nonce = u32le(round) | u32le(seq) | 0^4, ad = tag).
  const std::array<std::uint8_t, 8> rs{5, 0, 0, 0, 9, 0, 0, 0};
  pc::Tag tag{};
  crypto_generichash(tag.data(), tag.size(), rs.data(), rs.size(), up.tag_key().data(), up.tag_key().size());
  CHECK(up.tag(5, 9) == tag);
  const auto payload = bytes_0_to(20);
  std::vector<std::uint8_t> sealed(pc::sealed_width(payload.size()));
  up.seal(5, 9, payload, sealed);
  std::array<std::uint8_t, 12> nonce{5, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0};
  std::vector<std::uint8_t> expected(tag.begin(), tag.end());
  expected.resize(sealed.size());
  crypto_aead_chacha20poly1305_ietf_encrypt_detached(expected.data() + 16, expected.data() + 36, nullptr, payload.data(),
                                                     payload.size(), tag.data(), tag.size(), nullptr, nonce.data(),
                                                     up.encryption_key().data());
  CHECK(sealed == expected);
  // The vector quoted in docs/private-channels.md, so that the format cannot drift unnoticed.
  CHECK(hex(up.encryption_key()) == "ae24a4888da12f65b940fa3edd2240d84b3f9030cb4cc0fbcd930ad8718a9d10");
  CHECK(hex(sealed) ==
        "6c68dc6ecbdb3c24c387af675117b905e4f8b644772203f50611b2e2133a787d5425ee233011f4b0ee234a50ce127ac6b5769674");
}

TEST_CASE("private channel: all-pairs messages through a shuffle reach exactly their recipients") {
  const std::uint32_t n = 6;
  const std::size_t width = 24;
  SeededRng rng(11);
  const SessionId session = shufflempc::random_session_id(rng);
  // Pair secrets (in a real run: IKOS keys or X25519 session keys).
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::uint8_t>> secrets;
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = i + 1; j < n; ++j) {
      std::vector<std::uint8_t> s(16);
      rng.fill(s.data(), s.size());
      secrets[{i, j}] = s;
    }
  std::vector<PrivateChannels> ends;
  for (std::uint32_t i = 0; i < n; ++i) {
    ends.emplace_back(session, i, width);
    for (std::uint32_t j = 0; j < n; ++j)
      if (i != j) ends.back().add_peer(j, secrets.at({std::min(i, j), std::max(i, j)}));
  }
  // Every party sends two messages to every other party, plus cover traffic.
  MessageBatch round(pc::sealed_width(width));
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = 0; j < n; ++j)
      if (i != j)
        for (std::uint32_t s = 0; s < 2; ++s) ends[i].seal(j, 3, s, payload_of(i, j, s, width), round);
  for (int c = 0; c < 25; ++c) shufflempc::append_cover_message(rng, round);
  CHECK(round.width() == width + pc::overhead);
  shufflempc::shuffle(round, rng);

  for (std::uint32_t j = 0; j < n; ++j) {
    const auto got = ends[j].open_all(3, round, 4);
    REQUIRE(got.size() == 2 * (n - 1));
    std::size_t at = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
      if (i == j) continue;
      for (std::uint32_t s = 0; s < 2; ++s, ++at) {
        CHECK(got[at].sender == i);
        CHECK(got[at].seq == s);
        CHECK(got[at].payload == payload_of(i, j, s, width));
      }
    }
    // The same output read as another round finds nothing: tags depend on the round.
    CHECK(ends[j].open_all(4, round, 4).empty());
  }
}

TEST_CASE("private channel: directions, pairs and sessions get distinct keys, forgeries are refused") {
  SeededRng rng(12);
  const auto secret = bytes_0_to(16);
  const SessionId s1 = shufflempc::session_id_from_name("one");
  const SessionId s2 = shufflempc::session_id_from_name("two");
  const auto k12 = LinkKey::derive(secret, s1, 1, 2);
  CHECK(k12.encryption_key() != LinkKey::derive(secret, s1, 2, 1).encryption_key());
  CHECK(k12.encryption_key() != LinkKey::derive(secret, s1, 1, 3).encryption_key());
  CHECK(k12.encryption_key() != LinkKey::derive(secret, s2, 1, 2).encryption_key());
  CHECK(k12.tag_key() != k12.encryption_key());
  CHECK(k12.tag(0, 0) != k12.tag(0, 1));
  CHECK(k12.tag(0, 0) != k12.tag(1, 0));

  PrivateChannels alice(s1, 1, 8), bob(s1, 2, 8), carol(s1, 3, 8);
  alice.add_peer(2, secret);
  bob.add_peer(1, secret);
  carol.add_peer(1, bytes_0_to(17));  // carol shares another secret with alice
  MessageBatch out(alice.sealed_width());
  alice.seal(2, 0, 0, payload_of(1, 2, 0, 8), out);
  CHECK(carol.open_all(0, out, 4).empty());  // not hers: skipped, not an error
  CHECK(bob.open_all(0, out, 4).size() == 1);

  // A payload bit flipped in transit: the tag still names bob's link, the MAC fails.
  MessageBatch tampered = out;
  tampered[0][pc::tag_bytes + 3] ^= 1;
  CHECK(error_of([&] { (void)bob.open_all(0, tampered, 4); }) == shufflempc::Errc::unauthenticated);
  // A copy of the same message: replay.
  MessageBatch twice = out;
  twice.append(out);
  CHECK(error_of([&] { (void)bob.open_all(0, twice, 4); }) == shufflempc::Errc::replayed_frame);
  // Another session never matches.
  PrivateChannels bob_other(s2, 2, 8);
  bob_other.add_peer(1, secret);
  CHECK(bob_other.open_all(0, out, 4).empty());
  // A wrong width is a protocol violation.
  MessageBatch wide(alice.sealed_width() + 1, 1);
  CHECK(error_of([&] { (void)bob.open_all(0, wide, 4); }) == shufflempc::Errc::protocol_violation);
  // LinkKey::open reports a forgery with false and leaves the payload zeroed.
  std::vector<std::uint8_t> plain(8, 0xaa);
  CHECK_FALSE(LinkKey::derive(secret, s1, 1, 2).open(0, 0, tampered[0], plain));
  CHECK(plain == std::vector<std::uint8_t>(8, 0));
  CHECK(LinkKey::derive(secret, s1, 1, 2).open(0, 0, out[0], plain));
  CHECK(plain == payload_of(1, 2, 0, 8));

  // Misuse is a std::invalid_argument that names what is wrong.
  CHECK_THROWS_WITH_AS((void)LinkKey::derive(bytes_0_to(15), s1, 1, 2), doctest::Contains("pair_secret"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)LinkKey::derive(secret, s1, 4, 4), doctest::Contains("differ"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(alice.seal(3, 0, 0, payload_of(1, 3, 0, 8), out), doctest::Contains("no key"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(alice.seal(2, 0, 1, payload_of(1, 2, 0, 7), out), doctest::Contains("payload"), std::invalid_argument);
  CHECK_THROWS_AS(PrivateChannels(s1, 1, 0), std::invalid_argument);
  (void)rng;
}
