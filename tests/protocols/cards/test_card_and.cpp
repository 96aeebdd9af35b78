// Cryptographic cards (ElGamal on ristretto255) and the card-and protocol: known answers for the
// encoding, agreement with the simulated table on every input and cut, re-randomization, joint
// decryption only, validation of every inbound message, and runs through the in-process transport.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "shufflempc/protocols/cards/card_and.hpp"
#include "shufflempc/protocols/cards/elgamal.hpp"
#include "shufflempc/protocols/cards/gates.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/inproc.hpp"

using namespace shufflempc;
using namespace shufflempc::cards;

namespace {

std::string hex(const Point& p) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (std::uint8_t b : p) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

struct Keys {
  CardCrypto crypto;
  KeyShare x0, x1;
  Point y{};
  explicit Keys(Rng& rng) : x0(crypto.key_share(rng)), x1(crypto.key_share(rng)) {
    const Point shares[] = {x0.public_share, x1.public_share};
    y = crypto.joint_key(shares);
  }
  Suit open(const Ciphertext& c) {
    const Point d[] = {crypto.decryption_share(c, x0.secret), crypto.decryption_share(c, x1.secret)};
    return crypto.decrypt(c, d);
  }
};

bool is_violation(const std::system_error& e) { return e.code() == make_error_code(Errc::protocol_violation); }

}  // namespace

TEST_CASE("card crypto: faces are the ristretto255 points G and 2G (RFC 9496 test vectors)") {
  CHECK(hex(face_point(Suit::clubs)) == "e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76");
  CHECK(hex(face_point(Suit::hearts)) == "6a493210f7499cd17fecb510ae0cea23a110e8d5b901f8acadd3095c73a3b919");
  CHECK(valid_point(face_point(Suit::clubs)));
  CHECK_FALSE(valid_point(Point{}));  // the identity is refused
}

TEST_CASE("card crypto: encrypt, re-randomize and open with both shares, one share opens nothing") {
  SeededRng rng(501);
  Keys k(rng);
  for (const Suit face : {Suit::clubs, Suit::hearts}) {
    const Ciphertext c = k.crypto.encrypt(face, k.y, rng);
    CHECK(k.open(c) == face);
    const Ciphertext d = k.crypto.rerandomize(c, k.y, rng);
    CHECK(d.c1 != c.c1);  // both halves change
    CHECK(d.c2 != c.c2);
    CHECK(k.open(d) == face);
    // One party alone: C2 - x0 C1 = M + x1 C1 is neither face, and decrypt refuses it.
    const Point alone[] = {k.crypto.decryption_share(c, k.x0.secret)};
    const Point partial = k.crypto.partial_decrypt(c, alone);
    CHECK(partial != face_point(Suit::clubs));
    CHECK(partial != face_point(Suit::hearts));
    CHECK_THROWS_AS((void)k.crypto.decrypt(c, alone), std::system_error);
    // A share for another card does not open this one either.
    const Point wrong[] = {k.crypto.decryption_share(d, k.x0.secret), k.crypto.decryption_share(c, k.x1.secret)};
    CHECK_THROWS_AS((void)k.crypto.decrypt(c, wrong), std::system_error);
  }
}

TEST_CASE("card crypto: the six-card AND on ciphertexts matches the simulated table on every input and cut") {
  // Alice cuts (rA), then Bob (rB); after every step the decrypted row must equal the simulated
  // table's row (where both parties cut in turn with the same coins).
  SeededRng rng(502);
  const Actor both[] = {alice, bob};
  for (int x = 0; x < 16; ++x) {
    const bool a = x & 1, b = x & 2, ra = x & 4, rb = x & 8;
    CAPTURE(x);
    Keys k(rng);
    std::vector<Ciphertext> row;
    for (const bool bit : {a, b, false}) {
      const auto [l, r] = faces_of(bit);
      row.push_back(k.crypto.encrypt(l, k.y, rng));
      row.push_back(k.crypto.encrypt(r, k.y, rng));
    }
    row = permuted<Ciphertext>(row, and_order);
    const auto before = row;
    row = cut_and_rerandomize(k.crypto, row, ra, k.y, rng);
    row = cut_and_rerandomize(k.crypto, row, rb, k.y, rng);
    for (const Ciphertext& c : row)
      for (const Ciphertext& old : before) {
        CHECK(c.c1 != old.c1);  // nothing of the cards before the cuts survives
        CHECK(c.c2 != old.c2);
      }
    row = permuted<Ciphertext>(row, and_inverse);

    Table t;
    ScriptedCoins coins({{ra ? 1 : 0, 2}, {rb ? 1 : 0, 2}});
    const Commitment ca = t.commit(a, alice);
    const Commitment cb = t.commit(b, bob);
    const GateResult g = six_card_and(t, ca, cb, coins, both);
    CHECK(coins.path().size() == 2);
    const std::vector<std::size_t> positions = {0, 1, 2, 3, 4, 5};  // a, b, then the constant 0
    for (std::size_t i = 0; i < 6; ++i) CHECK(k.open(row[i]) == t.face(positions[i]));
    const bool opened = k.open(row[0]) == Suit::hearts;
    CHECK(opened == g.opened);
    const auto [o1, o2] = and_output_pair(opened);
    CHECK(Commitment{o1, o2} == g.output);
    CHECK((k.open(row[o1]) == Suit::hearts) == (a && b));
  }
}

TEST_CASE("card-and: every input through the in-process transport, only four cards are ever opened") {
  auto protocol = make_card_and();
  std::set<int> opened_seen;
  for (int x = 0; x < 4; ++x) {
    for (std::uint64_t seed = 1; seed <= 16; ++seed) {
      const bool a = x & 1, b = x & 2;
      const std::vector<Value> inputs = {a ? "yes" : "no", b ? 1 : 0};
      SeededRng rng(1000 * static_cast<std::uint64_t>(x) + seed);
      RunOptions options;
      options.record_view = true;
      const RunResult r = run_in_process(*protocol, inputs, rng, options);
      CHECK(r.output == (a && b ? 1 : 0));
      CHECK(*protocol->truth(inputs) == r.output);
      REQUIRE(r.party_outputs.size() == 2);
      CHECK(r.party_outputs.at(alice)["and"] == r.output);
      CHECK(r.party_outputs.at(bob)["and"] == r.output);
      // Group operations per party (see docs/cards.md): Alice lays out 4 cards, Bob 2.
      CHECK(r.party_outputs.at(alice)["group_ops"] == 50);
      CHECK(r.party_outputs.at(bob)["group_ops"] == 44);
      CHECK(r.party_outputs.at(alice)["scalar_mults"] == 25);
      CHECK(r.party_outputs.at(bob)["scalar_mults"] == 21);
      opened_seen.insert(r.party_outputs.at(alice)["opened"].get<int>());
      REQUIRE(r.view.size() == card_and_rounds);
      CHECK(r.messages == 2 + 6 + 6 + 6 + 4 + 4);
      // Rounds 2 and 3: one speaker each, and every ciphertext is new.
      for (std::uint32_t round : {2u, 3u}) {
        std::set<std::string> earlier, now;
        for (std::uint32_t q = 1; q < round; ++q)
          for (std::size_t i = 0; i < r.view[q].count(); ++i) earlier.insert(std::string(r.view[q][i].begin() + 4, r.view[q][i].end()));
        for (std::size_t i = 0; i < r.view[round].count(); ++i) {
          CHECK(r.view[round][i][0] == (round == 2 ? alice : bob));
          now.insert(std::string(r.view[round][i].begin() + 4, r.view[round][i].end()));
        }
        for (const auto& c : now) CHECK(earlier.count(c) == 0);
      }
      // Decryption shares exist for cards 0 and 1 (round 4) and the output pair (round 5) only.
      for (std::uint32_t round : {4u, 5u}) {
        std::set<std::size_t> cards;
        for (std::size_t i = 0; i < r.view[round].count(); ++i) cards.insert(r.view[round][i][2]);
        CHECK(cards.size() == 2);
        if (round == 4) CHECK(cards == std::set<std::size_t>{0, 1});
        else CHECK((cards == std::set<std::size_t>{2, 3} || cards == std::set<std::size_t>{4, 5}));
      }
    }
  }
  // The opened pair shows a XOR rA XOR rB: both values occur (probability of missing one value
  // in 64 independent runs: 2 * 2^-64).
  CHECK(opened_seen == std::set<int>{0, 1});
}

TEST_CASE("card-and: every malformed or missing message is a protocol violation") {
  auto protocol = make_card_and();
  const std::vector<Value> inputs = {"yes", "yes"};
  SeededRng rng(503);
  RunOptions options;
  options.record_view = true;
  const RunResult r = run_in_process(*protocol, inputs, rng, options);
  REQUIRE(r.view.size() == card_and_rounds);
  // Replays the public rounds into a fresh table, with round `bad` altered by `tamper`.
  const auto replay = [&](std::uint32_t bad, const std::function<void(MessageBatch&)>& tamper) {
    PublicCardTable t;
    for (std::uint32_t q = 0; q < card_and_rounds; ++q) {
      MessageBatch m = r.view[q];
      if (q == bad) tamper(m);
      t.absorb(q, m);
    }
    return t.result();
  };
  CHECK(replay(99, [](MessageBatch&) {}) == std::optional<bool>(true));
  const auto violation = [&](std::uint32_t bad, const std::function<void(MessageBatch&)>& tamper) {
    CAPTURE(bad);
    try {
      (void)replay(bad, tamper);
      FAIL("accepted a tampered round");
    } catch (const std::system_error& e) {
      CHECK(is_violation(e));
    }
  };
  violation(0, [](MessageBatch& m) { m[0][0] = 7; });                          // unknown sender
  violation(1, [](MessageBatch& m) { m[0][1] = 3; });                          // wrong kind
  violation(1, [](MessageBatch& m) { for (auto& b : m[0].subspan(4, 32)) b = 0; });  // identity point
  violation(2, [](MessageBatch& m) { m[0][0] = bob; });                        // Bob speaks in Alice's round
  violation(3, [](MessageBatch& m) { m[1][2] = m[0][2]; });                    // a card index twice
  violation(4, [](MessageBatch& m) {                                           // Bob's shares missing
    MessageBatch only(m.width());
    for (std::size_t i = 0; i < m.count(); ++i)
      if (m[i][0] == alice) only.push_back(m[i]);
    m = only;
  });
  violation(4, [](MessageBatch& m) { m[0][2] = 3; });                          // a share for a card not opened
  violation(5, [](MessageBatch& m) { m[0][4] ^= 1; });                       // a wrong share
  PublicCardTable t;
  CHECK_THROWS_AS(t.absorb(6, r.view[0]), std::system_error);
}

TEST_CASE("card-and: inputs, parameters and the registry entry") {
  CHECK(parse_answer("yes", "Alice"));
  CHECK_FALSE(parse_answer(0, "Alice"));
  CHECK_THROWS_WITH_AS((void)parse_answer("maybe", "Alice"), doctest::Contains("Alice must answer yes or no"), std::invalid_argument);
  auto protocol = make_card_and(true, std::nullopt);
  CHECK_THROWS_AS((void)protocol->make_party(2, "yes"), std::invalid_argument);
  SeededRng rng(504);
  CHECK(protocol->random_input(alice, "", rng) == "yes");
  CHECK(protocol->random_input(bob, "constant:no", rng) == "no");
  CHECK_THROWS_AS((void)protocol->random_input(bob, "bernoulli:2", rng), std::invalid_argument);
  const Registry registry = builtin_registry();
  const ProtocolInfo& info = registry.get("card-and");
  CHECK(info.min_parties == 2);
  CHECK(info.max_parties == 2);
  CHECK_THROWS_AS((void)registry.create("card-and", {{"alice", "maybe"}}, 2), std::invalid_argument);
  auto configured = registry.create("card-and", {{"alice", "yes"}, {"bob", "no"}}, 2);
  CHECK(configured->random_input(alice, "", rng) == "yes");
  CHECK(configured->random_input(bob, "", rng) == "no");
}
