// The link's cryptography without a socket (net/detail/link_crypto.hpp): a client and a server that
// exchange only the bytes each step returns agree on keys, open each other's frames and refuse a
// wrong key, a replayed, skipped or altered frame and a reply for another session. The same steps
// compiled for a browser (web/) must give the same bytes: the known answers at the end pin them.
#include <doctest/doctest.h>
#include <sodium.h>

#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "shufflempc/hex.hpp"
#include "shufflempc/net/detail/link_crypto.hpp"
#include "shufflempc/random.hpp"
#include "support/errors.hpp"
#include "support/paths.hpp"

using namespace shufflempc;
using namespace shufflempc::net;
using namespace shufflempc::net::detail;
using test::code_of;

namespace link_crypto_test {

struct Pair {
  SessionId session{};
  ConfigDigest config{};
  KeyPair shuffler;
  KeyPair party;
  PartyId id = 7;
  LinkCipher client;
  LinkCipher server;

  explicit Pair(std::uint64_t seed) {
    SeededRng rng(seed);
    rng.fill(session);
    rng.fill(config);
    shuffler = KeyPair::generate(rng);
    party = KeyPair::generate(rng);
  }

  // The whole handshake, the client's proof made from `claimed` (the party's own key unless set).
  // Returns the client's confirm frame after the server's side derived its keys.
  std::vector<std::uint8_t> handshake(std::uint64_t seed, const KeyPair* claimed = nullptr) {
    SeededRng rng(seed);
    ClientHandshake c(session, config, id, 1, identity_proof(id, claimed ? *claimed : party, shuffler.public_key()),
                      shuffler.public_key(), rng);
    const Hello hello = decode_hello(c.hello());
    const auto reply = server_handshake(hello, shuffler, identity_proof(id, party, shuffler.public_key()), rng, server);
    return c.finish(reply, client);
  }
};

struct Opened {
  FrameHeader header;
  std::vector<std::uint8_t> payload;
};

// Opens a whole sealed frame with `cipher`: the header, then the payload.
Opened open_frame(LinkCipher& cipher, std::vector<std::uint8_t> bytes, const SessionId& session) {
  REQUIRE(bytes.size() >= frame_prefix_bytes + aead_tag_bytes);
  Opened f;
  f.header = cipher.open_prefix(bytes.data(), session, Limits{});
  REQUIRE(bytes.size() == frame_prefix_bytes + f.header.payload_length + aead_tag_bytes);
  cipher.open_payload(bytes.data() + frame_prefix_bytes, f.header.payload_length);
  f.payload.assign(bytes.begin() + frame_prefix_bytes, bytes.begin() + frame_prefix_bytes + f.header.payload_length);
  return f;
}

FrameHeader submit_header(const SessionId& session) {
  FrameHeader h;
  h.type = FrameType::submit;
  h.session = session;
  h.round = 0;
  h.width = 4;
  h.count = 2;
  return h;
}

}  // namespace link_crypto_test

using namespace link_crypto_test;

TEST_CASE("link crypto: a handshake of returned bytes gives both sides the keys, and frames cross both ways") {
  Pair p(1);
  const Opened confirm = open_frame(p.server, p.handshake(2), p.session);
  CHECK(confirm.header.type == FrameType::confirm);
  CHECK(confirm.payload.empty());
  FrameHeader back;
  back.type = FrameType::confirm;
  back.session = p.session;
  CHECK(open_frame(p.client, p.server.seal(back, {}), p.session).header.type == FrameType::confirm);

  const std::vector<std::uint8_t> payload = encode_submit(std::vector<std::uint32_t>{2}, std::vector<std::uint8_t>{1, 2, 3, 4, 5, 6, 7, 8});
  const Opened got = open_frame(p.server, p.client.seal(submit_header(p.session), payload), p.session);
  CHECK(got.header.type == FrameType::submit);
  CHECK(got.header.count == 2);
  CHECK(got.payload == payload);
}

TEST_CASE("link crypto: a client without the party's key fails the server's key confirmation") {
  Pair p(3);
  SeededRng rng(4);
  const KeyPair stranger = KeyPair::generate(rng);
  auto confirm = p.handshake(5, &stranger);
  CHECK(code_of([&] { (void)p.server.open_prefix(confirm.data(), p.session, Limits{}); }) == Errc::unauthenticated);
}

TEST_CASE("link crypto: a replayed, a skipped and an altered frame are refused before their payload") {
  Pair p(6);
  (void)open_frame(p.server, p.handshake(7), p.session);
  const std::vector<std::uint8_t> payload = encode_submit(std::vector<std::uint32_t>{2}, std::vector<std::uint8_t>(8, 9));
  auto first = p.client.seal(submit_header(p.session), payload);
  (void)open_frame(p.server, first, p.session);
  // The same frame again: its sequence number was used.
  CHECK(code_of([&] { (void)p.server.open_prefix(first.data(), p.session, Limits{}); }) == Errc::replayed_frame);
  // A frame whose predecessor never came: the counter skips ahead.
  (void)p.client.seal(submit_header(p.session), payload);
  auto third = p.client.seal(submit_header(p.session), payload);
  CHECK(code_of([&] { (void)p.server.open_prefix(third.data(), p.session, Limits{}); }) == Errc::replayed_frame);

  Pair q(8);
  (void)open_frame(q.server, q.handshake(9), q.session);
  auto header_flipped = q.client.seal(submit_header(q.session), payload);
  header_flipped[sequence_bytes + 3] ^= 1;
  CHECK(code_of([&] { (void)q.server.open_prefix(header_flipped.data(), q.session, Limits{}); }) == Errc::unauthenticated);

  Pair r(10);
  (void)open_frame(r.server, r.handshake(11), r.session);
  auto payload_flipped = r.client.seal(submit_header(r.session), payload);
  payload_flipped[frame_prefix_bytes + 1] ^= 1;
  (void)r.server.open_prefix(payload_flipped.data(), r.session, Limits{});
  CHECK(code_of([&] { r.server.open_payload(payload_flipped.data() + frame_prefix_bytes, payload.size()); }) == Errc::unauthenticated);
}

TEST_CASE("link crypto: a reply for another session, from no shuffler or of the wrong size is refused with what it is") {
  Pair p(12);
  SeededRng rng(13);
  ClientHandshake c(p.session, p.config, p.id, 1, identity_proof(p.id, p.party, p.shuffler.public_key()), p.shuffler.public_key(), rng);
  LinkCipher server;
  auto reply = server_handshake(decode_hello(c.hello()), p.shuffler, identity_proof(p.id, p.party, p.shuffler.public_key()), rng, server);
  auto other_session = reply;
  other_session[8] ^= 1;
  LinkCipher client;
  CHECK(code_of([&] { (void)c.finish(other_session, client); }) == Errc::wrong_session);
  CHECK(test::error_text([&] { (void)c.finish(other_session, client); }).starts_with("handshake: the shuffler answered for another session"));
  auto not_ours = reply;
  not_ours[0] ^= 1;
  CHECK(code_of([&] { (void)c.finish(not_ours, client); }) == Errc::malformed_frame);
  CHECK(code_of([&] { (void)c.finish(std::span(reply).first(10), client); }) == Errc::malformed_frame);
}

// Known answers: a handshake and a submit frame of fixed keys and seeded ephemeral keys, in
// tests/web/link_vectors.json. The browser's build of this code (web/) reproduces them byte for
// byte from the same file (tests/web/link_kat.mjs): the two builds cannot drift apart unseen.
TEST_CASE("link crypto: known answers shared with the browser's build") {
  std::ifstream in(SHUFFLEMPC_SOURCE_DIR + "/tests/web/link_vectors.json");
  REQUIRE(in);
  const auto v = nlohmann::json::parse(in);
  const auto bytes = [&](const char* key) {
    std::vector<std::uint8_t> out(v.at(key).get<std::string>().size() / 2);
    from_hex(v.at(key).get<std::string>(), out, key);
    return out;
  };
  SessionId session{};
  ConfigDigest config{};
  std::array<std::uint8_t, secret_key_bytes> party_secret{}, shuffler_secret{};
  from_hex(v.at("session").get<std::string>(), session, "session");
  from_hex(v.at("config").get<std::string>(), config, "config");
  from_hex(v.at("party_secret").get<std::string>(), party_secret, "party_secret");
  from_hex(v.at("shuffler_secret").get<std::string>(), shuffler_secret, "shuffler_secret");
  const KeyPair party = KeyPair::from_secret(party_secret);
  const KeyPair shuffler = KeyPair::from_secret(shuffler_secret);
  const auto id = v.at("id").get<PartyId>();
  CHECK(to_hex(shuffler.public_key()) == v.at("shuffler_public").get<std::string>());

  SeededRng client_rng(v.at("client_seed").get<std::uint64_t>());
  SeededRng server_rng(v.at("server_seed").get<std::uint64_t>());
  ClientHandshake c(session, config, id, 1, identity_proof(id, party, shuffler.public_key()), shuffler.public_key(), client_rng);
  LinkCipher client, server;
  const auto reply = server_handshake(decode_hello(c.hello()), shuffler, identity_proof(id, party, shuffler.public_key()), server_rng, server);
  auto confirm = c.finish(reply, client);
  FrameHeader h;
  h.type = FrameType::submit;
  h.session = session;
  h.round = v.at("submit_round").get<std::uint32_t>();
  h.width = v.at("submit_width").get<std::uint32_t>();
  h.count = v.at("submit_count").get<std::uint32_t>();
  const auto submit = client.seal(h, bytes("submit_payload"));
  CHECK(to_hex(c.hello()) == v.at("hello").get<std::string>());
  CHECK(to_hex(reply) == v.at("reply").get<std::string>());
  CHECK(to_hex(confirm) == v.at("confirm").get<std::string>());
  CHECK(to_hex(submit) == v.at("submit").get<std::string>());
  // And the server opens both: the vectors are a working session, not only bytes.
  CHECK(open_frame(server, confirm, session).header.type == FrameType::confirm);
  CHECK(open_frame(server, submit, session).payload == bytes("submit_payload"));
}
