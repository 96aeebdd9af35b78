// The entry's side of a round through a chain, without sockets (net/detail/chain_entry.hpp): the
// test plays the further servers with net::MixHop (an onion chain) and checks what the entry
// delivers, what it commits to, and that a wrong answer, a hop that drops a record and an entry
// batch altered by the tamper hook are each caught or shown; in a verifiable chain, records that are
// not ciphertexts are left out and counted, and a wrong answer is named.
#include <doctest/doctest.h>

#include <set>
#include <vector>

#include "shufflempc/net/detail/chain_entry.hpp"
#include "shufflempc/net/local.hpp"
#include "shufflempc/net/onion.hpp"
#include "shufflempc/net/round_shapes.hpp"
#include "shufflempc/net/verifiable.hpp"
#include "support/records.hpp"

using namespace shufflempc;
using namespace shufflempc::net;
using shufflempc::test::records_of;

namespace {

constexpr std::uint32_t round_no = 0;
constexpr std::size_t parties = 6, width = 4;

std::string name_of(std::size_t hop) { return "server " + std::to_string(hop); }

// A session of `parties` parties through a verifiable chain of 3, one round of one 2-byte record each.
LocalDeployment verifiable_deployment(std::size_t parties, Delivery delivery, Rng& rng) {
  SessionConfig base;
  base.protocol = "(test)";
  base.mix = MixKind::verifiable;
  base.rounds = {wire_shape(RoundShape::exactly(2, delivery, 1), 3, MixKind::verifiable)};
  return LocalDeployment::create(parties, rng, base, 3);
}

// A chain of three servers over one round of `parties` 4-byte records delivered to all parties.
struct OnionChain {
  LocalDeployment local;
  MessageBatch messages{width};
  std::vector<MixHop> hops;  // index = hop

  explicit OnionChain(std::uint64_t seed) {
    SeededRng rng(seed);
    SessionConfig base;
    base.protocol = "(test)";
    base.rounds = {wire_shape(RoundShape::exactly(width, Delivery::all_parties, 1), 3)};
    local = LocalDeployment::create(parties, rng, base, 3);
    hops.emplace_back(0, local.shuffler, signing_key_of(local.shuffler));
    for (std::size_t h = 1; h < 3; ++h) hops.emplace_back(static_cast<std::uint32_t>(h), local.further_server_keys[h - 1], signing_key_of(local.further_server_keys[h - 1]));
    messages = MessageBatch(width, parties);
    rng.fill(std::span(messages.data(), messages.size_bytes()));
  }
  [[nodiscard]] detail::SessionRounds::Closed closed() const {
    std::vector<PublicKey> layers;
    for (const auto& k : local.config.mix_chain) layers.push_back(k.key);
    detail::SessionRounds::Closed c;
    c.round = round_no;
    c.shape = local.config.rounds[0];
    c.outcome.messages = parties;
    c.outcome.output = onion::wrap(messages.bytes(), width, Delivery::all_parties, {}, layers, local.config.session, round_no);
    return c;
  }
  // Further server `hop`'s honest answer to `ask` (a mixed frame: its signed report, then its records).
  std::pair<FrameHeader, std::vector<std::uint8_t>> answer(std::size_t hop, const detail::HopAsk& ask, Rng& rng,
                                                            bool drop_one = false) {
    auto mixed = hops[hop].mix(MessageBatch::from_bytes(ask.width, std::vector<std::uint8_t>(ask.payload.begin(), ask.payload.end())), local.config.session, round_no, rng);
    MessageBatch out = mixed.records;
    if (drop_one) {
      out = MessageBatch(mixed.records.width());
      for (std::size_t i = 1; i < mixed.records.count(); ++i) out.push_back(mixed.records[i]);
    }
    std::vector<std::uint8_t> payload = encode_reports(std::span(&mixed.report, 1));
    payload.insert(payload.end(), out.bytes().begin(), out.bytes().end());
    FrameHeader h;
    h.type = FrameType::mixed;
    h.round = round_no;
    h.width = static_cast<std::uint32_t>(out.width());
    h.count = static_cast<std::uint32_t>(out.count());
    h.payload_length = static_cast<std::uint32_t>(payload.size());
    return {h, payload};
  }
};

}  // namespace

TEST_CASE("chain entry: an onion round crosses three servers socket-free, every record arrives once, and the commitment covers the admitted batch") {
  OnionChain chain(301);
  SeededRng rng(302);
  detail::ChainEntry entry(chain.local.config, nullptr, signing_key_of(chain.local.shuffler), &chain.hops[0], chain.closed(), rng,
                           {}, name_of);
  for (std::size_t hop = 1; hop < 3; ++hop) {
    const auto ask = entry.shuffle_ask();
    CHECK(ask.type == FrameType::mix);
    CHECK(ask.count == parties);
    const auto [header, payload] = chain.answer(hop, ask, rng);
    REQUIRE_FALSE(entry.take_shuffle(hop, header, payload));
  }
  CHECK_FALSE(entry.needs_decryption());
  detail::ChainEntry::Result out;
  REQUIRE_FALSE(entry.finish(out));
  REQUIRE(out.closed.outcome.output);
  CHECK(records_of(*out.closed.outcome.output) == records_of(chain.messages));
  CHECK(out.closed.outcome.messages == parties);
  CHECK(out.closed.shape.width == width);
  CHECK(out.hop_reports.size() == 3);
  CHECK(decode_reports(out.reports).size() == 3);
  REQUIRE(out.commitment.maker);
  CHECK(out.commitment.maker->root() == out.hop_reports[0].received);  // hop 0 signed the root of what it admitted
  CHECK(entry.take_notes().empty());
}

TEST_CASE("chain entry: a wrong frame, a hop that drops a record and an entry that alters its batch are each caught or shown") {
  OnionChain chain(303);
  SeededRng rng(304);
  {  // server 1 answers with a frame of another round: the line names it
    detail::ChainEntry entry(chain.local.config, nullptr, signing_key_of(chain.local.shuffler), &chain.hops[0], chain.closed(),
                             rng, {}, name_of);
    auto [header, payload] = chain.answer(1, entry.shuffle_ask(), rng);
    header.round = 7;
    const auto fault = entry.take_shuffle(1, header, payload);
    REQUIRE(fault);
    CHECK(fault->code == net::FaultCode::wrong_frame);
    CHECK(fault->hop == 1u);
    CHECK(fault->round == 0u);
    CHECK(fault->text == "round 0: server 1 answered with a frame that is not this round's mixed batch");
  }
  {  // server 2 drops a record after signing for all of them: the chain's reports do not hold
    detail::ChainEntry entry(chain.local.config, nullptr, signing_key_of(chain.local.shuffler), &chain.hops[0], chain.closed(),
                             rng, {}, name_of);
    const auto [h1, p1] = chain.answer(1, entry.shuffle_ask(), rng);
    REQUIRE_FALSE(entry.take_shuffle(1, h1, p1));
    const auto [h2, p2] = chain.answer(2, entry.shuffle_ask(), rng, true);
    REQUIRE_FALSE(entry.take_shuffle(2, h2, p2));
    detail::ChainEntry::Result out;
    const auto fault = entry.finish(out);
    REQUIRE(fault);
    CHECK(fault->code == net::FaultCode::output_mismatch);  // it signed for every record, and one fewer arrived
    CHECK(fault->hop == 2u);
    CHECK(fault->round == 0u);
    CHECK(fault->text.find("round 0: the mix chain's reports do not hold: hop 2") == 0);
  }
  {  // the entry drops a record before it commits (the tamper hook): the chain holds, and the
     // commitment covers one record fewer than were submitted, which the dropped sender's receipt shows
    const detail::ChainEntry::Tamper drop = [](std::uint32_t, MessageBatch& b) {
      MessageBatch out(b.width());
      for (std::size_t i = 1; i < b.count(); ++i) out.push_back(b[i]);
      b = std::move(out);
    };
    detail::ChainEntry entry(chain.local.config, nullptr, signing_key_of(chain.local.shuffler), &chain.hops[0], chain.closed(),
                             rng, drop, name_of);
    for (std::size_t hop = 1; hop < 3; ++hop) {
      const auto [header, payload] = chain.answer(hop, entry.shuffle_ask(), rng);
      REQUIRE_FALSE(entry.take_shuffle(hop, header, payload));
    }
    detail::ChainEntry::Result out;
    REQUIRE_FALSE(entry.finish(out));
    CHECK(out.closed.outcome.output->count() == parties - 1);
    CHECK(out.hop_reports[0].records_in == parties - 1);  // hop 0 signed for the batch the entry kept
  }
}

TEST_CASE("chain entry: a verifiable round leaves out records that are not ciphertexts, counts them, and names a wrong answer") {
  SeededRng rng(305);
  const auto local = verifiable_deployment(4, Delivery::analyzer_only, rng);
  detail::SessionRounds::Closed closed;
  closed.round = round_no;
  closed.shape = local.config.rounds[0];
  MessageBatch junk(closed.shape.width, 4);
  for (std::size_t i = 0; i < junk.size_bytes(); ++i) junk.data()[i] = 0xff;  // no record decodes as a point (top bit set)
  for (std::size_t r = 0; r < 4; ++r) junk.data()[r * closed.shape.width] = static_cast<std::uint8_t>(r);  // and no two are copies
  closed.outcome.output = junk;
  closed.outcome.messages = 4;
  closed.sources.messages = junk;
  for (PartyId p = 0; p < 4; ++p) closed.sources.parties.push_back({p, p, 1});
  const auto share = net::server_share(local.config, local.shuffler, 0);
  detail::ChainEntry entry(local.config, &share, signing_key_of(local.shuffler), nullptr, closed, rng, {}, name_of);
  const auto notes = entry.take_notes();
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] == "round 0: 4 record(s) that are not ElGamal ciphertexts with a proof, 0 without a valid proof of plaintext knowledge by their "
                    "sender (a re-randomized copy of another's record is one) and 0 copies were not admitted to the chain");
  const auto ask = entry.shuffle_ask();
  CHECK(ask.type == FrameType::shuffle);
  CHECK(ask.count == 0);  // an empty batch still crosses the chain, so every server stays on the rounds
  FrameHeader wrong;
  wrong.type = FrameType::mixed;
  wrong.round = round_no;
  wrong.width = ask.width;
  const auto fault = entry.take_shuffle(1, wrong, {});
  REQUIRE(fault);
  CHECK(fault->code == net::FaultCode::wrong_frame);
  CHECK(fault->hop == 1u);
  CHECK(fault->text == "round 0: server 1 answered with a frame that is not this round's shuffled batch");
  CHECK_FALSE(entry.needs_decryption());
  detail::ChainEntry::Result out;
  REQUIRE_FALSE(entry.finish(out));
  CHECK(out.closed.outcome.discarded == 4);
  CHECK_FALSE(out.closed.outcome.output);
  CHECK_FALSE(out.evidence.empty());
}

TEST_CASE("chain entry: a verifiable round refuses and counts a re-randomized copy of another sender's record, a record under another sender's tag, and an exact copy") {
  SeededRng rng(306);
  const auto local = verifiable_deployment(6, Delivery::all_parties, rng);
  const auto context = knowledge_context(local.config, round_no, Delivery::all_parties);
  const auto tag_key = [&](PartyId p) { return tag_key_of(local.parties[p], local.config.shuffler_key); };
  // Party p's one record (plaintext 10 + p), proved under its own tag, as its process makes it.
  std::vector<mixnet::ProvedBatch> made;
  MessageBatch records(local.config.rounds[0].width);
  for (PartyId p = 0; p < 6; ++p) {
    const std::vector<mixnet::SubmitterTag> tag = {mixnet::submitter_tag(tag_key(p), local.config.session, round_no, p, 0)};
    made.push_back(mixnet::encrypt_and_prove(MessageBatch::from_bytes(2, std::vector<std::uint8_t>{static_cast<std::uint8_t>(10 + p), 0}), context, tag,
                                             rng, 1));
    records.append(mixnet::to_submissions(made.back()));
  }
  // Party 3 re-randomizes party 0's record (the same plaintext under r + s) and sends it with party
  // 0's proof; party 4 sends the re-randomized copy under its own tag with party 0's commitments and
  // responses; party 5 sends party 0's record exactly as party 0 did (tag and proof included).
  const auto rerandomized = [&](const mixnet::ProvedBatch& of, const mixnet::SubmitterTag& tag) {
    mixnet::ProvedBatch copy = of;
    copy.ciphertexts.at(0, 0) = mixnet::reencrypt(of.ciphertexts.at(0, 0), context.key, mixnet::random_scalar(rng));
    copy.proofs.tag(0) = tag;
    return mixnet::to_submissions(copy);
  };
  const auto put = [&](std::size_t i, const MessageBatch& one) { std::copy_n(one[0].data(), records.width(), records[i].data()); };
  put(3, rerandomized(made[0], made[0].proofs.tag(0)));
  put(4, rerandomized(made[0], made[4].proofs.tag(0)));
  put(5, mixnet::to_submissions(made[0]));
  detail::SessionRounds::Closed closed;
  closed.round = round_no;
  closed.shape = local.config.rounds[0];
  closed.outcome.output = records;
  closed.outcome.messages = 6;
  closed.sources.messages = records;
  for (PartyId p = 0; p < 6; ++p) closed.sources.parties.push_back({p, p, 1});
  const auto share = net::server_share(local.config, local.shuffler, 0);
  detail::ChainEntry entry(local.config, &share, signing_key_of(local.shuffler), nullptr, closed, rng, {}, name_of, tag_key);
  const auto notes = entry.take_notes();
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("round 0: 0 record(s) that are not ElGamal ciphertexts with a proof, 3 without a valid proof of plaintext knowledge") == 0);
  CHECK(entry.shuffle_ask().count == 3);  // parties 0, 1 and 2
  // Without the senders' tags (any tag), party 5's exact copy passes the proof and is refused as a copy.
  const Admitted any = admit_records(records, context, nullptr, 1);
  CHECK(any.unproved == 2);
  CHECK(any.duplicates == 1);
  CHECK(any.batch.size() == 3);
  CHECK(mixnet::check_knowledge(context, any.batch, any.proofs, 1) == "");
  // With the senders' tags: the same three refused, and the admitted records keep proofs that hold.
  const Admitted bound = admit_records(records, context, [&](std::size_t i) { return made[i].proofs.tag(0); }, 1);
  CHECK(bound.unproved == 3);
  CHECK(bound.duplicates == 0);
  REQUIRE(bound.batch.size() == 3);
  CHECK(mixnet::check_knowledge(context, bound.batch, bound.proofs, 1) == "");
  for (std::size_t k = 0; k < 3; ++k) CHECK(bound.batch.record(k)[0] == made[k].ciphertexts.at(0, 0));
  // What a sender's own process expects the entry may refuse (its receipt may call them missing):
  // the two re-randomized copies; and what its receipt covers: the ciphertexts without the proofs.
  CHECK(refusable_records(records, context, 1) == std::vector<char>{0, 0, 0, 1, 1, 0});
  const MessageBatch ciphertexts = ciphertexts_of(records);
  REQUIRE(ciphertexts.width() == mixnet::ciphertext_bytes);
  CHECK(std::equal(ciphertexts[1].begin(), ciphertexts[1].end(), records[1].begin()));
  CHECK_THROWS_AS((void)ciphertexts_of(MessageBatch(64, 1)), std::invalid_argument);
}
