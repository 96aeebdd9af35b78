// One-round secret messages (lib/secret_messages.hpp): in one shuffled round, every ordered pair
// gets a secret channel; the observer's uncertainty is the chaff; wrong decoders fail.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>
#include <system_error>

#include <sodium.h>

#include "shufflempc/error.hpp"
#include "shufflempc/secret_messages.hpp"
#include "support/errors.hpp"
#include "support/stats.hpp"

namespace {

using namespace shufflempc;
using osm::SecretMessages;

struct Round {
  std::vector<SecretMessages> parties;
  std::vector<PartyId> submitted;
  MessageBatch output{1};
  std::unique_ptr<Rng> base;  // party p's generator is base->fork(p)
};

// Every party sends chaff and `message(sender, recipient)` to every peer; the round is shuffled.
Round run_round(const osm::Config& c, Rng& rng, const std::function<std::vector<std::uint8_t>(PartyId, PartyId)>& message,
                const std::function<void(PartyId, MessageBatch&)>& tamper = {}) {
  Round r;
  r.base = rng.split();  // fresh chaff every round
  Submissions all;
  all.messages = MessageBatch(c.width);
  for (PartyId p = 0; p < c.parties; ++p) {
    auto party_rng = r.base->fork(p);
    r.parties.emplace_back(c, p, *party_rng);
    const std::size_t first = all.messages.count();
    r.parties.back().append_chaff(all.messages);
    for (PartyId q = 0; q < c.parties; ++q)
      if (c.linked(p, q)) r.parties.back().append_ciphertext(q, message(p, q), all.messages);
    if (tamper) tamper(p, all.messages);
    all.parties.push_back({p, first, all.messages.count() - first});
  }
  RoundRules rules;
  rules.shape = {c.width, Delivery::all_parties, 0, all.messages.count()};
  for (PartyId p = 0; p < c.parties; ++p) rules.expected.push_back(p);
  rules.min_parties = c.parties;
  auto outcome = complete_round(rules, std::move(all), rng);
  r.submitted = outcome.submitted;
  r.output = std::move(*outcome.output);
  return r;
}

std::vector<std::uint8_t> text_message(PartyId from, PartyId to, std::size_t bytes) {
  std::vector<std::uint8_t> m(bytes);
  for (std::size_t i = 0; i < bytes; ++i) m[i] = static_cast<std::uint8_t>(from * 31 + to * 7 + i);
  return m;
}

}  // namespace

TEST_CASE("osm: every ordered pair reads what its peer sent in the same round, in both key modes") {
  for (const auto mode : {osm::KeyMode::kdf, osm::KeyMode::coset}) {
    CAPTURE(osm::to_string(mode));
    osm::Config c{.parties = 4, .width = osm::header_bytes + 40, .chaff = 400, .mode = mode};
    const std::size_t bytes = 45;  // two chunks, the last one partial
    SeededRng rng(11);
    Round r = run_round(c, rng, [&](PartyId a, PartyId b) { return text_message(a, b, bytes); });
    for (PartyId p = 0; p < c.parties; ++p) r.parties[p].receive(r.output, r.submitted);
    for (PartyId p = 0; p < c.parties; ++p)
      for (PartyId q = 0; q < c.parties; ++q) {
        if (p == q) continue;
        CHECK(r.parties[q].open(p, bytes) == text_message(p, q, bytes));
        // Both ends of a pair derive the same key for the next round; different pairs differ.
        CHECK(r.parties[p].pair_key(q) == r.parties[q].pair_key(p));
      }
    CHECK(r.parties[0].pair_key(1) != r.parties[0].pair_key(2));
  }
}

TEST_CASE("osm: with hubs, clients talk to the hubs only, and a chaff label between two clients is refused") {
  osm::Config c{.parties = 5, .width = osm::header_bytes + osm::mac_bytes + 16, .chaff = osm::default_chaff, .hubs = 2};
  CHECK(c.linked(0, 1));
  CHECK(c.linked(4, 0));
  CHECK_FALSE(c.linked(3, 4));
  CHECK(c.peers(0) == 4);
  CHECK(c.peers(3) == 2);
  SeededRng rng(21);
  Round r = run_round(c, rng, [&](PartyId a, PartyId b) { return text_message(a, b, 40); });
  // 7 linked pairs (0-1, and 0 and 1 with each of 2, 3, 4): chaff from both ends and a ciphertext each way.
  CHECK(r.output.count() == 7 * 2 * (c.chaff + c.chunks(40)));
  for (PartyId p = 0; p < c.parties; ++p) {
    CHECK(r.parties[p].chaff_messages() == c.chaff * c.peers(p));
    r.parties[p].receive(r.output, r.submitted);
  }
  for (PartyId p = 0; p < c.parties; ++p) {
    for (PartyId q = 0; q < c.parties; ++q) {
      if (!c.linked(p, q)) continue;
      CHECK(r.parties[p].open(q, 40) == text_message(q, p, 40));
      CHECK(r.parties[p].pair_key(q) == r.parties[q].pair_key(p));
    }
  }
  CHECK_THROWS_WITH_AS((void)r.parties[3].open(4, 40), doctest::Contains("no chaff from party 4"), std::system_error);
  const auto view = osm::observe(c, r.output, r.submitted);
  CHECK(view.pairs == 7);
  CHECK(view.min_uncertain_labels == c.chaff);
  // A client that sends chaff to another client: every receiver refuses the round.
  Round bad = run_round(c, rng, [&](PartyId a, PartyId b) { return text_message(a, b, 40); }, [&](PartyId p, MessageBatch& out) {
    if (p != 3) return;
    auto m = out.append();
    osm::write_header(m, {static_cast<std::uint8_t>(osm::Kind::chaff), 3, 4, 0});
  });
  CHECK(test::code_of([&] { bad.parties[0].receive(bad.output, bad.submitted); }) == Errc::protocol_violation);
  SeededRng r2(1);
  CHECK_THROWS_WITH_AS((void)SecretMessages(osm::Config{.parties = 3, .width = 40, .hubs = 4}, 0, r2), doctest::Contains("hubs = 4"),
                       std::invalid_argument);
}

TEST_CASE("osm: the observer's uncertainty equals the number of chaff labels (no collisions in 20,000 rounds)") {
  // 8-byte payloads: a label collides with probability 2^-64, so D = N in every round.
  osm::Config c{.parties = 2, .width = osm::header_bytes + osm::mac_bytes + 8, .chaff = osm::default_chaff};
  SeededRng rng(12);
  for (int run = 0; run < 20'000; ++run) {
    Round r = run_round(c, rng, [&](PartyId a, PartyId b) { return text_message(a, b, 8); });
    const auto view = osm::observe(c, r.output, r.submitted);
    REQUIRE(view.pairs == 1);
    REQUIRE(view.min_uncertain_labels == c.chaff);
    REQUIRE(view.collided_labels == 0);
  }
  // The negative control: a party whose chaff equals its peer's leaves the observer certain.
  osm::Config one{.parties = 2, .width = osm::header_bytes + osm::mac_bytes + 1, .chaff = 1};
  std::size_t collided = 0;
  for (int run = 0; run < 4096; ++run) {
    Round r = run_round(one, rng, [&](PartyId a, PartyId b) { return text_message(a, b, 1); });
    collided += osm::observe(one, r.output, r.submitted).collided_labels;
  }
  // 1-byte payloads collide with probability 1/256: 16 expected in 4096 rounds.
  const auto ci = test::binomial_interval(4096, 1.0 / 256);
  CHECK(ci.contains(static_cast<double>(collided)));
}

TEST_CASE("osm: a decoder that pairs the wrong halves, or the wrong party, cannot decrypt") {
  osm::Config c{.parties = 3, .width = osm::header_bytes + osm::mac_bytes + 16, .chaff = osm::default_chaff};
  SeededRng rng(13);
  Round r = run_round(c, rng, [&](PartyId a, PartyId b) { return text_message(a, b, 16); });
  for (auto& p : r.parties) p.receive(r.output, r.submitted);
  CHECK(r.parties[1].open(0, 16) == text_message(0, 1, 16));
  // Party 0's chaff for the pair {0, 1}: the first bytes its generator drew (forks depend on the
  // label only), the same the receiver recovers by removing its own copy at every label.
  const std::size_t pb = c.payload_bytes();
  std::vector<std::uint8_t> chaff0(c.chaff * pb);
  r.base->fork(0)->fill(chaff0);
  const osm::Key right = osm::direction_key(0, 1, chaff0, pb);
  CHECK(right == r.parties[0].sending_key(1));
  // The wrong decoder takes the other half at label 5 only.
  const std::uint8_t* ct = nullptr;
  for (std::size_t i = 0; i < r.output.count(); ++i) {
    const auto h = osm::read_header(r.output[i]);
    const auto payload = r.output[i].subspan(osm::header_bytes);
    if (h.kind == static_cast<std::uint8_t>(osm::Kind::chaff) && h.a == 0 && h.b == 1 && h.index == 5 &&
        !std::equal(payload.begin(), payload.end(), chaff0.begin() + 5 * pb))
      std::memcpy(chaff0.data() + 5 * pb, payload.data(), pb);
    if (h.kind == static_cast<std::uint8_t>(osm::Kind::ciphertext) && h.a == 0 && h.b == 1) ct = r.output[i].data();
  }
  REQUIRE(ct != nullptr);
  const osm::Key wrong = osm::direction_key(0, 1, chaff0, pb);
  CHECK(wrong != right);
  std::array<std::uint8_t, 64> out{};
  unsigned long long len = 0;
  const std::array<std::uint8_t, crypto_aead_xchacha20poly1305_ietf_NPUBBYTES> nonce{};  // chunk 0
  CHECK(crypto_aead_xchacha20poly1305_ietf_decrypt(out.data(), &len, nullptr, ct + osm::header_bytes, pb, ct, osm::header_bytes,
                                                   nonce.data(), right.data()) == 0);
  CHECK(crypto_aead_xchacha20poly1305_ietf_decrypt(out.data(), &len, nullptr, ct + osm::header_bytes, pb, ct, osm::header_bytes,
                                                   nonce.data(), wrong.data()) != 0);
  // The wrong party: party 2 holds no ciphertext from 0 but its own, and 0 -> 1's key is not 0 -> 2's.
  CHECK(r.parties[0].sending_key(2) != right);
  CHECK(r.parties[2].open(0, 16) == text_message(0, 2, 16));
}

TEST_CASE("osm: a kdf key hashes the first 32 bytes of each chaff payload, in label order, under its domain and ids") {
  SeededRng rng(29);
  for (const std::size_t pb : {std::size_t{8}, std::size_t{32}, std::size_t{529}}) {
    CAPTURE(pb);
    const std::size_t labels = 160, take = std::min<std::size_t>(pb, 32);
    std::vector<std::uint8_t> a(labels * pb), b(labels * pb);
    rng.fill(a);
    rng.fill(b);
    // The formula, written out: BLAKE2b-256(domain | u32le(x) | u32le(y) | prefixes).
    const auto expected = [&](const char* domain, std::uint32_t x, std::uint32_t y, std::initializer_list<const std::vector<std::uint8_t>*> chaffs) {
      std::vector<std::uint8_t> in(domain, domain + std::strlen(domain));
      for (const std::uint32_t id : {x, y})
        for (int i = 0; i < 4; ++i) in.push_back(static_cast<std::uint8_t>(id >> (8 * i)));
      for (const auto* c : chaffs)
        for (std::size_t t = 0; t < labels; ++t) in.insert(in.end(), c->begin() + static_cast<std::ptrdiff_t>(t * pb),
                                                           c->begin() + static_cast<std::ptrdiff_t>(t * pb + take));
      osm::Key k{};
      crypto_generichash(k.data(), k.size(), in.data(), in.size(), nullptr, 0);
      return k;
    };
    CHECK(osm::direction_key(3, 7, a, pb) == expected("shufflempc/osm/v2", 3, 7, {&a}));
    CHECK(osm::pair_key(7, 3, b, a, pb) == expected("shufflempc/osm-pair/v2", 3, 7, {&a, &b}));
    CHECK(osm::pair_key(3, 7, a, b, pb) == osm::pair_key(7, 3, b, a, pb));
    // A byte past the prefix leaves the key alone (when there is one); a byte inside changes it.
    const osm::Key before = osm::direction_key(3, 7, a, pb);
    if (pb > take) {
      a[5 * pb + take] ^= 1;
      CHECK(osm::direction_key(3, 7, a, pb) == before);
    }
    a[5 * pb + take - 1] ^= 1;
    CHECK(osm::direction_key(3, 7, a, pb) != before);
    CHECK(osm::direction_key(7, 3, a, pb) != osm::direction_key(3, 7, a, pb));
  }
  std::vector<std::uint8_t> ragged(100);
  CHECK_THROWS_WITH_AS((void)osm::direction_key(0, 1, ragged, 32), "secret messages: 100 chaff bytes are not whole payloads of 32",
                       std::invalid_argument);
}

TEST_CASE("osm: ciphertexts of a fixed message are uniform bytes (chi-square over 3,000 rounds)") {
  for (const auto mode : {osm::KeyMode::kdf, osm::KeyMode::coset}) {
    CAPTURE(osm::to_string(mode));
    osm::Config c{.parties = 2, .width = osm::header_bytes + 32, .chaff = 200, .mode = mode};
    const std::size_t bytes = mode == osm::KeyMode::kdf ? 16 : 8;
    SeededRng rng(14);
    std::vector<std::uint64_t> counts(256, 0);
    for (int run = 0; run < 3000; ++run) {
      Round r = run_round(c, rng, [&](PartyId, PartyId) { return std::vector<std::uint8_t>(bytes, 0); });
      for (std::size_t i = 0; i < r.output.count(); ++i) {
        const auto h = osm::read_header(r.output[i]);
        if (h.kind != static_cast<std::uint8_t>(osm::Kind::ciphertext)) continue;
        for (std::size_t b = 0; b < bytes; ++b) ++counts[r.output[i][osm::header_bytes + b]];
      }
    }
    const auto chi = test::chi_square(counts, std::vector<double>(256, 1.0 / 256));
    CHECK(chi.passes());
  }
}

TEST_CASE("osm: a tampered chunk, a missing chunk and an extra chaff message are refused with their reason") {
  osm::Config c{.parties = 3, .width = osm::header_bytes + osm::mac_bytes + 16, .chaff = osm::default_chaff};
  SeededRng rng(15);
  {
    Round r = run_round(c, rng, [&](PartyId a, PartyId b) { return text_message(a, b, 16); },
                        [](PartyId p, MessageBatch& out) {
                          if (p == 0) out[out.count() - 1][osm::header_bytes] ^= 1;  // 0's chunk to 2
                        });
    r.parties[2].receive(r.output, r.submitted);
    CHECK(test::code_of([&] { (void)r.parties[2].open(0, 16); }) == Errc::unauthenticated);
    CHECK(r.parties[2].open(1, 16) == text_message(1, 2, 16));  // the other sender's message is intact
  }
  {
    Round r = run_round(c, rng, [&](PartyId a, PartyId b) { return text_message(a, b, 16); });
    r.parties[1].receive(r.output, r.submitted);
    CHECK(test::code_of([&] { (void)r.parties[1].open(0, 40); }) == Errc::protocol_violation);  // expects 2 chunks, got 1
  }
  {
    Round r = run_round(c, rng, [&](PartyId a, PartyId b) { return text_message(a, b, 16); },
                        [&](PartyId p, MessageBatch& out) {
                          if (p == 2) {  // party 2 injects a copy under the pair {0, 1}'s label 0
                            auto m = out.append();
                            osm::write_header(m, {static_cast<std::uint8_t>(osm::Kind::chaff), 0, 1, 0});
                          }
                        });
    CHECK(test::code_of([&] { r.parties[0].receive(r.output, r.submitted); }) == Errc::protocol_violation);
  }
  // A coset pad longer than the chaff hides is refused up front.
  osm::Config coset{.parties = 2, .width = osm::header_bytes + 16, .chaff = 100, .mode = osm::KeyMode::coset};
  SecretMessages s(coset, 0, rng);
  MessageBatch out(coset.width);
  CHECK_THROWS_WITH_AS(s.append_ciphertext(1, std::vector<std::uint8_t>(8, 0), out),
                       doctest::Contains("needs chaff >= 104"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)SecretMessages(osm::Config{.parties = 1, .width = 40}, 0, rng), doctest::Contains("parties = 1"),
                       std::invalid_argument);
}
