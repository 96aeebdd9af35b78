// The verifiable chain over TCP (net/verifiable.hpp): the shuffler as the entry, further servers as
// TcpMixServers, every party and the analyzer on their own links, all on 127.0.0.1. Each protocol
// the verifiable mix is for gives run_in_process's seeded result and leaves a transcript, as the
// analyzer verified it, that verify_transcript accepts; a further server that swaps, drops, copies,
// replaces or alters a record after proving its shuffle stops the session with one line naming it,
// in an analyzer-only round and in a round delivered to every party; session configs whose
// verifiable keys are missing or unproved are refused naming the field.
#include <doctest/doctest.h>

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "shufflempc/error.hpp"
#include "shufflempc/hex.hpp"
#include "shufflempc/inproc.hpp"
#include "shufflempc/mixnet/transcript.hpp"
#include "shufflempc/net/detail/link.hpp"
#include "shufflempc/net/local.hpp"
#include "shufflempc/net/receipts.hpp"
#include "shufflempc/net/loopback.hpp"
#include "shufflempc/net/mix_server.hpp"
#include "shufflempc/mixnet/decryption.hpp"
#include "shufflempc/mixnet/server_keys.hpp"
#include "shufflempc/net/round_shapes.hpp"
#include "shufflempc/net/verifiable.hpp"
#include "shufflempc/registry.hpp"
#include "net/verifiable_server.hpp"
#include "support/errors.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "support/small_protocols.hpp"
#include "support/proved_input.hpp"

using namespace shufflempc;

TEST_CASE("verifiable chain over TCP: the protocols it is for give the in-process result, and the analyzer's transcript verifies") {
  const Registry registry = builtin_registry();
  for (const std::string name : {"counting", "randomized-response", "xor-sum-exact", "split-mix-sum", "ikos-key-exchange"}) {
    CAPTURE(name);
    // IKOS (a round to every party, so the servers decrypt) with short keys: 36 records.
    auto [protocol, inputs] = shufflempc::test::small_run(registry, *registry.find(name));
    if (name == "ikos-key-exchange") {
      protocol = registry.create(name, {{"k", "2"}, {"labels", "6"}}, 3);
      inputs.assign(3, Value());
    }
    SeededRng a(11), b(11);
    const RunResult local = run_in_process(*protocol, inputs, a);
    const auto run = net::run_over_loopback_chain(*protocol, inputs, b, 3, {}, net::MixKind::verifiable);
    CHECK(run.result.output == local.output);
    CHECK(run.result.messages == local.messages);
    CHECK(run.result.party_outputs == local.party_outputs);
    const auto& t = run.transcript;
    CHECK(t.hops == 3);
    REQUIRE(!t.rounds.empty());
    for (const auto& r : t.rounds) {
      CHECK(r.hops.size() == 3);
      // Every server decrypts, in either delivery; in an analyzer-only round the analyzer after them.
      CHECK(r.key.servers.shares.size() == 3u);
      CHECK(r.decryption.size() == 3u);
      CHECK(r.key.analyzer.has_value() == (r.delivery == Delivery::analyzer_only));
      CHECK(r.analyzer_decryption.has_value() == (r.delivery == Delivery::analyzer_only));
    }
    const auto back = mixnet::Transcript::from_json(t.to_json());
    const auto verdict = mixnet::verify_transcript(back, 2);
    CHECK(verdict.ok());
    CHECK(verdict.hop_proofs == 3 * t.rounds.size());
  }
}

TEST_CASE("verifiable chain over TCP: a further server that cheats after proving its shuffle is named, in ESA and in MPC mode") {
  struct Cheat {
    std::string name, expect;
    std::function<void(mixnet::CiphertextBatch&)> act;
  };
  const std::vector<Cheat> cheats = {
      {"swap", "proof of shuffle does not verify", [](mixnet::CiphertextBatch& o) { std::swap(o.at(0, 0), o.at(1, 0)); }},
      {"drop", "records for the", [](mixnet::CiphertextBatch& o) { o = mixnet::CiphertextBatch(o.limbs(), o.size() - 1); }},
      {"copy", "proof of shuffle does not verify", [](mixnet::CiphertextBatch& o) { o.at(2, 0) = o.at(3, 0); }},
      {"replace", "proof of shuffle does not verify",
       [](mixnet::CiphertextBatch& o) { o.at(4, 0) = mixnet::encrypt_point(mixnet::mul_base(mixnet::scalar_from_u64(7)), mixnet::base_point(), mixnet::scalar_from_u64(5)); }},
      {"alter", "proof of shuffle does not verify", [](mixnet::CiphertextBatch& o) { o.at(5, 0).c2 = o.at(5, 0).c2 + mixnet::base_point(); }},
  };
  const Registry registry = builtin_registry();
  // randomized-response: one analyzer-only round of 8 records; IKOS: one round to every party (36 records).
  for (const auto& [name, params] :
       std::vector<std::pair<std::string, std::map<std::string, std::string>>>{{"randomized-response", {}}, {"ikos-key-exchange", {{"k", "2"}, {"labels", "6"}}}}) {
    const bool ikos = name == "ikos-key-exchange";
    const auto protocol = registry.create(name, params, ikos ? 3 : 8);
    std::vector<Value> inputs(ikos ? 3 : 8, ikos ? Value() : Value(1));
    for (const auto& cheat : cheats) {
      CAPTURE(name);
      CAPTURE(cheat.name);
      SeededRng rng(12);
      net::LoopbackFault fault{2, [&](std::uint32_t, mixnet::CiphertextBatch& o) { cheat.act(o); }};
      const std::string error = shufflempc::test::error_text(
          [&] { (void)net::run_over_loopback_chain(*protocol, inputs, rng, 3, {}, net::MixKind::verifiable, fault); });
      CHECK(error.find("mix server 2") != std::string::npos);
      CHECK(error.find(cheat.expect) != std::string::npos);
      CHECK(error.find('\n') == std::string::npos);
    }
  }
}

TEST_CASE("verifiable chain over TCP: an entry that replaces admitted records (the n - 1 attack) is caught by the parties it left out") {
  const Registry registry = builtin_registry();
  const auto protocol = registry.create("ikos-key-exchange", {{"k", "2"}, {"labels", "6"}}, 3);
  const std::vector<Value> inputs(3, Value());
  SeededRng rng(13);
  // Every proof holds (the entry proves its own hop on the altered batch): only the senders can tell.
  // Record 0 replaced by a copy of record 1: a valid ciphertext, so every proof and decryption holds.
  net::LoopbackFault fault{0, [](std::uint32_t, mixnet::CiphertextBatch& admitted) {
                             for (std::size_t l = 0; l < admitted.limbs(); ++l) admitted.at(0, l) = admitted.at(1, l);
                           }};
  const std::string error = shufflempc::test::error_text(
      [&] { (void)net::run_over_loopback_chain(*protocol, inputs, rng, 3, {}, net::MixKind::verifiable, fault); });
  INFO(error);
  // The party whose record was replaced finds it missing from the batch the entry signed, and the
  // one whose record was copied finds it there twice: whichever is checked first is named.
  CHECK(error.find("the chain's entry (the shuffler) gave a receipt that does not hold: record") != std::string::npos);
  CHECK((error.find("is not in the batch the entry committed to") != std::string::npos ||
         error.find("is in the batch the entry committed to twice") != std::string::npos));
  CHECK(error.find('\n') == std::string::npos);
}

namespace {
// Randomized response of 8 parties (each input 1) through a verifiable chain of 3 over TCP, the
// senders' records altered by `submitted` as they are sent.
net::LoopbackChainRun rr_through_verifiable_chain(std::uint64_t seed, std::function<void(std::uint32_t, MessageBatch&)> submitted) {
  const Registry registry = builtin_registry();
  const auto protocol = registry.create("randomized-response", {}, 8);
  const std::vector<Value> inputs(8, Value(1));
  SeededRng rng(seed);
  net::LoopbackFault fault;
  fault.submitted = std::move(submitted);
  return net::run_over_loopback_chain(*protocol, inputs, rng, 3, {}, net::MixKind::verifiable, fault);
}
}  // namespace

TEST_CASE("verifiable chain over TCP: a record altered after its sender proved it, and a copy of another sender's record, are refused by the entry and counted") {
  // Record 0's plaintext raised by 2 (c2 + 2G: no key needed) as it enters the chain: its proof of
  // plaintext knowledge binds c2, so the entry refuses it; the analyzer counts it as discarded.
  const auto raised = rr_through_verifiable_chain(17, [](std::uint32_t, MessageBatch& records) {
    auto batch = mixnet::CiphertextBatch::from_bytes(1, records.bytes().first(mixnet::ciphertext_bytes), "the record");
    batch.at(0, 0).c2 = batch.at(0, 0).c2 + mixnet::base_point() + mixnet::base_point();
    const auto bytes = batch.to_bytes();
    std::copy(bytes.begin(), bytes.end(), records[0].data());
  });
  CHECK_FALSE(raised.result.output.is_null());
  REQUIRE(raised.result.details.is_object());
  CHECK(raised.result.details["discarded_records"] == 1);
  REQUIRE(raised.transcript.rounds.size() == 1);
  CHECK(raised.transcript.rounds[0].input.size() == 7);
  CHECK(raised.transcript.rounds[0].records.count() == 7);
  CHECK(mixnet::verify_transcript(raised.transcript, 2).ok());
  // Party 1 sends party 0's record exactly, its tag and proof included: the tag is not party 1's,
  // so the entry refuses that copy and keeps party 0's.
  const auto copied = rr_through_verifiable_chain(18, [](std::uint32_t, MessageBatch& records) {
    std::copy_n(records[0].data(), records.width(), records[1].data());
  });
  CHECK(copied.result.details["discarded_records"] == 1);
  REQUIRE(copied.transcript.rounds.size() == 1);
  CHECK(copied.transcript.rounds[0].input.size() == 7);
  CHECK(mixnet::verify_transcript(copied.transcript, 2).ok());
}

TEST_CASE("verifiable chain over TCP: a further server that computes for longer than the deadline says it is alive and the round completes, and past the round's limit it is named") {
  // A deadline of 600 ms; the round's limit 2 x 600 ms + 1 ms a party = 1208 ms from the entry's ask.
  const Registry registry = builtin_registry();
  const auto protocol = registry.create("randomized-response", {}, 8);
  const std::vector<Value> inputs(8, Value(1));
  const auto run_with = [&](std::chrono::milliseconds slow) {
    SeededRng rng(15);
    net::LoopbackFault fault;
    fault.hop = 1;
    fault.computing = [slow](std::uint32_t) { std::this_thread::sleep_for(slow); };
    RunOptions options;
    options.deadline = std::chrono::milliseconds(600);
    return net::run_over_loopback_chain(*protocol, inputs, rng, 3, options, net::MixKind::verifiable, fault);
  };
  // 800 ms to shuffle and again to decrypt, each longer than the deadline: the alive frames carry it.
  SeededRng plain_rng(15);
  const RunResult plain = run_in_process(*protocol, inputs, plain_rng);
  const auto slow = run_with(std::chrono::milliseconds(800));
  CHECK(slow.result.output == plain.output);
  CHECK(mixnet::verify_transcript(slow.transcript, 2).ok());
  // 3 s: the round's limit comes first, and the line names the server and the limit.
  const std::string error = shufflempc::test::error_text([&] { (void)run_with(std::chrono::milliseconds(3'000)); });
  CHECK(error.find("mix server 1 (127.0.0.1:") != std::string::npos);
  CHECK(error.find("was still computing at the round's limit of 1208 ms") != std::string::npos);
}

TEST_CASE("verifiable chain over TCP: records the entry does not admit are counted as discarded, and an empty batch crosses every server") {
  // Every record refused at the entry: each sender garbles its record as it sends it (a first point
  // that is not an encoding; its receipt calls it missing, which the sender of a malformed record
  // expects). The empty batch crosses and is proved at every hop, and the analyzer counts the 8
  // records as discarded.
  const auto run = rr_through_verifiable_chain(14, [](std::uint32_t, MessageBatch& records) {
    for (std::size_t i = 0; i < records.count(); ++i) std::fill_n(records[i].data(), 32, std::uint8_t{0xff});
  });
  CHECK(run.result.messages == 8);
  CHECK(run.result.details.value("discarded_records", 0) == 8);
  REQUIRE(run.transcript.rounds.size() == 1);
  CHECK(run.transcript.rounds[0].input.size() == 0);
  CHECK(run.transcript.rounds[0].hops.size() == 3);
  CHECK(mixnet::verify_transcript(run.transcript, 2).ok());
}

TEST_CASE("verifiable chain over TCP: a session config without verifiable keys, or with an unproved one, is refused naming the field") {
  SystemRng rng;
  net::SessionConfig base;
  base.protocol = "counting";
  base.rounds = {RoundShape::exactly(net::verifiable_width(1), Delivery::analyzer_only, 2)};
  base.rounds[0].record_width = 1;
  base.mix = net::MixKind::verifiable;
  const auto d = net::LocalDeployment::create(3, rng, base, 3);
  REQUIRE(d.config.analyzer_elgamal.has_value());
  const auto round_trip = [](const net::SessionConfig& c) { return net::SessionConfig::from_json(c.to_json()); };
  CHECK(round_trip(d.config).mix == net::MixKind::verifiable);
  CHECK(round_trip(d.config).digest() == d.config.digest());
  const auto refused = [&](net::SessionConfig c, const std::string& what) {
    CAPTURE(what);
    CHECK_THROWS_WITH_AS((void)round_trip(c), doctest::Contains(what.c_str()), std::invalid_argument);
  };
  {
    auto c = d.config;
    c.analyzer_elgamal.reset();
    refused(c, "a verifiable mix needs 'analyzer_elgamal_key'");
  }
  {
    auto c = d.config;
    c.mix_chain[1].elgamal.reset();
    refused(c, "mix_chain[1] has no ElGamal key");
  }
  {
    auto c = d.config;
    c.mix_chain[2].elgamal->proof[0] ^= 1;
    refused(c, "mix_chain[2]: the proof of possession");
  }
  {  // a server's key and proof copied for another server: the proof is bound to its X25519 key
    auto c = d.config;
    c.mix_chain[2].elgamal = c.mix_chain[1].elgamal;
    refused(c, "mix_chain[2]: the proof of possession of the ElGamal key does not verify for its X25519 key");
  }
  {
    auto c = d.config;
    c.mix_chain.clear();
    refused(c, "a verifiable mix needs a chain of mix servers");
  }
  {  // a round of one-limb ciphertexts without their proofs (a config of an earlier version)
    auto c = d.config;
    c.rounds[0].width = 64;
    refused(c, "rounds[0]: a width of 64 bytes is no verifiable record's (32 + 128·L bytes for records of L in [1, 1] limbs");
  }
  {
    auto c = d.config;
    c.analyzer_elgamal->key = {};
    refused(c, "'analyzer_elgamal_key': the ElGamal key is not a canonical ristretto255 point other than the identity");
  }
  // Keys as text: the four-part mix server form and the analyzer's two-part form parse back.
  CHECK(net::parse_mix_server_keys(net::to_string(d.config.mix_chain[1]), "x") == d.config.mix_chain[1]);
  CHECK(net::parse_verifiable_key(net::to_string(*d.config.analyzer_elgamal), "x") == *d.config.analyzer_elgamal);
  CHECK_THROWS_WITH_AS((void)net::parse_mix_server_keys("aa:bb:cc", "--mix-server-keys item 2"),
                       doctest::Contains("--mix-server-keys item 2 must be KEY:SIGNING_KEY, or KEY:SIGNING_KEY:ELGAMAL_KEY:PROOF"),
                       std::invalid_argument);
}

TEST_CASE("verifiable chain over TCP: a protocol whose records do not fit is refused with the reason") {
  const Registry registry = builtin_registry();
  const auto protocol = registry.create("circuit", {}, 3);
  CHECK_THROWS_WITH_AS((void)net::wire_rounds(*protocol, 3, net::MixKind::verifiable), doctest::Contains("do not fit the verifiable mix"),
                       std::invalid_argument);
}

namespace {

using shufflempc::test::shuffle_as;
using shufflempc::test::VerifiableServer;

// The key file of server `hop` of `d`'s chain (the shuffler is hop 0).
const net::KeyPair& server_keys(const net::LocalDeployment& d, std::uint32_t hop) { return hop == 0 ? d.shuffler : d.further_server_keys.at(hop - 1); }

// Every hop of `rt` made by its own server, then every server's proved decryption shares of the
// output, as the chain's entry gathers them.
void run_chain(const net::LocalDeployment& d, mixnet::RoundTranscript& rt, Rng& rng) {
  const mixnet::CiphertextBatch* in = &rt.input;
  for (std::uint32_t h = 0; h < d.config.mix_chain.size(); ++h) {
    rt.hops.push_back(shuffle_as(d, server_keys(d, h), rt.round, h, *in, rng));
    in = &rt.hops.back().output;
  }
  const mixnet::ProofContext dctx{d.config.session, rt.round, static_cast<std::uint32_t>(rt.hops.size()), static_cast<std::uint32_t>(rt.width)};
  for (std::uint32_t h = 0; h < rt.hops.size(); ++h) {
    rt.decrypted_by.push_back(h);
    rt.decryption.push_back(mixnet::decryption_shares(dctx, h, net::server_share(d.config, server_keys(d, h), h), *in, rng, 2));
  }
}

// `input` as the round's input, in the order an entry commits to, the proofs following their records.
void order_input(mixnet::RoundTranscript& rt, const mixnet::ProvedBatch& input) {
  auto ordered = net::in_leaf_order(input.ciphertexts, 2);
  rt.input = std::move(ordered.batch);
  rt.input_proofs = input.proofs.permuted(ordered.order);
}

// A session of `parties` parties through a verifiable chain of 3 with one analyzer-only round of
// one-byte records, and that round's transcript holding `records` encrypted under the round's key
// (the servers' and the analyzer's), before any hop.
struct EsaRound {
  net::LocalDeployment d;
  mixnet::RoundTranscript rt;
};
EsaRound esa_round(std::size_t parties, const std::vector<std::uint8_t>& records, Rng& rng) {
  net::SessionConfig base;
  base.protocol = "(test)";
  base.mix = net::MixKind::verifiable;
  base.rounds = {RoundShape::exactly(net::verifiable_width(1), Delivery::analyzer_only, 1)};
  base.rounds[0].record_width = 1;
  EsaRound e{net::LocalDeployment::create(parties, rng, base, 3), {}};
  e.rt.round = 0;
  e.rt.delivery = Delivery::analyzer_only;
  e.rt.width = 1;
  e.rt.key = net::round_key(e.d.config, Delivery::analyzer_only);
  // In the order an entry commits to (net/receipts.hpp), as the analyzer checks, each with its proof.
  order_input(e.rt, shufflempc::test::proved_input(e.rt, e.d.config.session, MessageBatch::from_bytes(1, records), rng));
  return e;
}

}  // namespace

TEST_CASE("verifiable chain over TCP: a server decrypts only the output of a chain it took part in, each round once, its hop as it made it") {
  VerifiableServer s;
  const std::uint32_t round = 0;
  const MessageBatch plain = MessageBatch::from_bytes(1, std::vector<std::uint8_t>{1, 2, 3, 4});
  mixnet::RoundTranscript rt;
  rt.round = round;
  rt.delivery = Delivery::all_parties;
  rt.width = 2;
  rt.key = s.key;
  shufflempc::test::set_proved_input(rt, s.local.config.session, plain, s.rng);
  rt.hops.push_back(s.shuffle(round, 0, rt.input));
  const auto reason = [](const net::detail::Frame& f) {
    CHECK(f.header.type == net::FrameType::abort);
    return std::string(f.payload.begin(), f.payload.end());
  };
  s.as_entry([&](net::detail::SecureLink& link) -> asio::awaitable<void> {
    // Nothing shuffled yet: nothing to decrypt.
    const auto early = mixnet::encode_evidence(rt);
    link.send(net::FrameType::decrypt, round, 64, 4, early);
    CHECK(reason(co_await link.receive()).find("nothing to decrypt here") != std::string::npos);
  });
  mixnet::CiphertextBatch server_output;
  s.as_entry([&](net::detail::SecureLink& link) -> asio::awaitable<void> {
    const auto sent = rt.hops[0].output.to_bytes();
    link.send(net::FrameType::shuffle, round, 64, 4, sent);
    auto f = co_await link.receive();
    REQUIRE(f.header.type == net::FrameType::shuffled);
    REQUIRE(f.header.count == 4);
    rt.hops.push_back(mixnet::decode_hop(f.payload, 4, 1, "server 1's answer"));
    server_output = rt.hops.back().output;
    // Proved, and signed by server 1's key in the session config.
    CHECK(mixnet::hop_fault({s.local.config.session, round, 1, 1}, s.key.key(), rt.hops[0].output, rt.hops[1], s.local.config.mix_chain[1].signer,
                            2) == "");
    // The same batch again: the same answer; another batch for the round: refused.
    link.send(net::FrameType::shuffle, round, 64, 4, sent);
    auto again = co_await link.receive();
    CHECK(again.payload == f.payload);
    const auto other = s.shuffle(round, 0, rt.input).output.to_bytes();
    link.send(net::FrameType::shuffle, round, 64, 4, other);
    CHECK(reason(co_await link.receive()).find("round 0 was shuffled already, with another batch") != std::string::npos);
  });
  rt.hops.push_back(s.shuffle(round, 2, rt.hops[1].output));
  const auto ask = [&](const mixnet::RoundTranscript& evidence) {
    std::string answer;
    s.as_entry([&](net::detail::SecureLink& link) -> asio::awaitable<void> {
      link.send(net::FrameType::decrypt, round, 64, 4, mixnet::encode_evidence(evidence));
      auto f = co_await link.receive();
      answer = f.header.type == net::FrameType::decrypted ? "decrypted" : std::string(f.payload.begin(), f.payload.end());
    });
    return answer;
  };
  {  // The entry's own chain, without the server's hop: refused (no decryption of anything but a chain it took part in).
    auto forged = rt;
    forged.hops[1] = s.shuffle(round, 1, rt.hops[0].output);
    forged.hops[2] = s.shuffle(round, 2, forged.hops[1].output);
    CHECK(ask(forged).find("the evidence's hop 1 is not the batch this server sent") != std::string::npos);
  }
  {  // A victim's records behind the server's hop: its input is not what it received.
    auto forged = rt;
    forged.hops[0] = s.shuffle(round, 0, mixnet::encrypt_batch(plain, s.key.key(), s.rng, 2));
    CHECK(ask(forged).find("the evidence's hop 0 is not the batch this server received") != std::string::npos);
  }
  {  // A later hop whose proof fails.
    auto forged = rt;
    std::swap(forged.hops[2].output.at(0, 0), forged.hops[2].output.at(1, 0));
    CHECK(ask(forged).find("hop 2: the proof of shuffle does not verify") != std::string::npos);
  }
  {  // The evidence already carrying shares.
    auto forged = rt;
    forged.decrypted_by = {0};
    forged.decryption = {mixnet::DecryptionShares{std::vector<mixnet::Point>(4), {}, {}, {}}};
    CHECK(ask(forged).find("already carries decryption shares") != std::string::npos);
  }
  CHECK(ask(rt) == "decrypted");
  CHECK(ask(rt) == "decrypted");  // the same evidence again: the same answer
  {
    auto other = rt;
    other.hops[2] = s.shuffle(round, 2, rt.hops[1].output);
    CHECK(ask(other).find("round 0 was decrypted already, with other evidence") != std::string::npos);
  }
}

TEST_CASE("verifiable chain over TCP: a record its sender encrypted outside the round's width is dropped and counted, the rest delivered") {
  SystemRng rng;
  // Four one-byte records; the last party encrypted 300, which no byte decrypts to.
  EsaRound e = esa_round(4, {7, 8, 9, 10}, rng);
  const auto& d = e.d;
  auto& rt = e.rt;
  // Its sender encrypts 300 and proves it, as any sender can.
  std::vector<mixnet::SubmitterTag> tags(4);
  for (auto& t : tags) rng.fill(t);
  auto input = mixnet::encrypt_and_prove(MessageBatch::from_bytes(2, std::vector<std::uint8_t>{7, 0, 8, 0, 9, 0, 44, 1}),
                                         net::knowledge_context(d.config, 0, Delivery::analyzer_only), tags, rng, 2);
  order_input(rt, input);
  run_chain(d, rt, rng);
  std::size_t discarded = 0;
  const auto opened = net::open_evidence(d.config, 0, RoundShape::exactly(1, Delivery::analyzer_only, 1), mixnet::encode_evidence(rt),
                                         &d.analyzer, 4, 2, nullptr, &discarded);
  CHECK(discarded == 1);
  REQUIRE(opened.records.count() == 3);
  std::multiset<std::uint8_t> got;
  for (std::size_t i = 0; i < 3; ++i) got.insert(opened.records[i][0]);
  CHECK(got == std::multiset<std::uint8_t>{7, 8, 9});
  // The transcript of that round verifies: the records are what the proved shares decrypt to.
  CHECK(mixnet::verify_transcript(mixnet::Transcript{d.config.session, 3, net::signers_of(d.config.mix_chain), {opened}}, 2).ok());
}

TEST_CASE("verifiable chain: in an analyzer-only round the entry with the analyzer opens no record it saw sent, and the round opens only with every server's shares and the analyzer's") {
  // The coalition: the analyzer's key and the entry's share (hop 0). It knows each input record's
  // sender; to link a record it must open it (then match it to the output) or know every hop's
  // permutation. Its own hop's permutation it knows; the honest servers' it does not, so it must
  // open the input: under the round's key (the servers' and the analyzer's) it cannot.
  SeededRng rng(70);
  const std::vector<std::uint8_t> sent = {11, 22, 33, 44};
  EsaRound e = esa_round(4, sent, rng);
  const auto& d = e.d;
  auto& rt = e.rt;
  const mixnet::ElGamalKey analyzer = net::elgamal_key_of(d.analyzer);
  std::vector<mixnet::ElGamalKey> servers;
  for (std::uint32_t h = 0; h < 3; ++h) servers.push_back(net::server_share(d.config, server_keys(d, h), h));
  const std::vector<std::uint32_t> all = {0, 1, 2};
  const auto lambda = mixnet::lagrange_at_zero(all);
  // What record i of the input opens to with the analyzer's key (if `with_analyzer`) and the shares
  // of the servers `who`: c2 - x_A c1 - Σ λ_h x_h c1, read as a record (nothing if it carries none).
  const auto open_input = [&](std::size_t i, bool with_analyzer, const std::vector<std::uint32_t>& who) -> std::optional<std::uint8_t> {
    const mixnet::Ciphertext& c = rt.input.at(i, 0);
    mixnet::Point m = c.c2;
    if (with_analyzer) m = m - analyzer.secret * c.c1;
    for (std::uint32_t h : who) m = m - lambda[h] * (servers[h].secret * c.c1);
    std::uint8_t record[1];
    if (!mixnet::extract_record(std::span(&m, 1), record)) return std::nullopt;
    return record[0];
  };
  std::multiset<std::uint8_t> opened_with_all;
  for (std::size_t i = 0; i < rt.input.size(); ++i) {
    CAPTURE(i);
    // The coalition's keys, alone or together, open nothing (a point that carries no record: a
    // random point does with probability 2^-105).
    CHECK_FALSE(open_input(i, true, {}));
    CHECK_FALSE(open_input(i, true, {0}));
    CHECK_FALSE(open_input(i, false, {0}));
    // Nor does any coalition short of every server and the analyzer.
    CHECK_FALSE(open_input(i, true, {0, 1}));
    CHECK_FALSE(open_input(i, true, {0, 2}));
    CHECK_FALSE(open_input(i, false, all));
    // Every server with the analyzer opens it: the check above can fail.
    const auto opened = open_input(i, true, all);
    REQUIRE(opened);
    opened_with_all.insert(*opened);
  }
  CHECK(opened_with_all == std::multiset<std::uint8_t>(sent.begin(), sent.end()));

  // The round as the chain runs it: the servers' shares of the last hop's output, then the analyzer.
  run_chain(d, rt, rng);
  const auto shape = RoundShape::exactly(1, Delivery::analyzer_only, 1);
  const auto opened = net::open_evidence(d.config, 0, shape, mixnet::encode_evidence(rt), &d.analyzer, 4, 2);
  std::multiset<std::uint8_t> got;
  for (std::size_t i = 0; i < opened.records.count(); ++i) got.insert(opened.records[i][0]);
  CHECK(got == std::multiset<std::uint8_t>(sent.begin(), sent.end()));
  const mixnet::Transcript t{d.config.session, 3, net::signers_of(d.config.mix_chain), {opened}};
  CHECK(mixnet::verify_transcript(t, 2).ok());
  CHECK(mixnet::check_session(t, net::session_chain(d.config)).empty());
  // An entry that leaves a server's shares out, or names the analyzer's key as the whole key: refused.
  auto without = rt;
  without.decrypted_by.pop_back();
  without.decryption.pop_back();
  CHECK(shufflempc::test::error_text([&] { (void)net::open_evidence(d.config, 0, shape, mixnet::encode_evidence(without), &d.analyzer, 4, 2); })
            .find("round 0: 2 of 3 mix servers decrypted, 3 needed") != std::string::npos);
  auto analyzer_only_key = opened;
  analyzer_only_key.key.servers = mixnet::combined_key(std::vector<mixnet::Point>{analyzer.public_key});
  analyzer_only_key.key.analyzer.reset();
  const auto mismatch = mixnet::check_session(mixnet::Transcript{d.config.session, 3, net::signers_of(d.config.mix_chain), {analyzer_only_key}},
                                              net::session_chain(d.config));
  REQUIRE(mismatch.size() == 1);
  CHECK(mismatch[0] == "round 0: encrypted under another key than the session's servers' and analyzer's");
}

TEST_CASE("verifiable chain over TCP: a server shuffles and proves an empty batch, and takes the next round after it") {
  VerifiableServer s;
  s.as_entry([&](net::detail::SecureLink& link) -> asio::awaitable<void> {
    for (std::uint32_t round = 0; round < 2; ++round) {
      CAPTURE(round);
      link.send(net::FrameType::shuffle, round, 64, 0, std::span<const std::uint8_t>{});
      auto f = co_await link.receive();
      REQUIRE(f.header.type == net::FrameType::shuffled);
      CHECK(f.header.count == 0);
      const mixnet::CiphertextBatch empty(1, 0);
      const auto hop = mixnet::decode_hop(f.payload, 0, 1, "server 1's answer");
      CHECK(mixnet::hop_fault({s.local.config.session, round, 1, 1}, s.key.key(), empty, hop, s.local.config.mix_chain[1].signer, 2) == "");
    }
  });
}

TEST_CASE("verifiable chain: an entry that makes every hop itself is refused by the analyzer and by verify --config, naming hop 1") {
  // Re-encryption needs only the round's public key, so whoever holds the batch can re-encrypt,
  // permute and prove every hop. The entry does: it knows each record's sender (it authenticated
  // them), so with its own permutations it would link every record to its sender once it is opened.
  SystemRng rng;
  EsaRound e = esa_round(8, {1, 2, 3, 4, 5, 6, 7, 8}, rng);
  const auto& d = e.d;
  auto& rt = e.rt;
  const auto key = rt.key;
  const mixnet::CiphertextBatch* in = &rt.input;
  for (std::uint32_t h = 0; h < 3; ++h) {
    rt.hops.push_back(shuffle_as(d, d.shuffler, 0, h, *in, rng));  // hop 0 is its own; 1 and 2 it signs as best it can
    in = &rt.hops.back().output;
  }
  // Every proof of shuffle holds: without the servers' signatures, this chain was accepted.
  CHECK(mixnet::hop_fault({d.config.session, 0, 1, 1}, key.key(), rt.hops[0].output, rt.hops[1], net::signing_key_of(d.shuffler).public_key(), 2) ==
        "");
  // The analyzer (net::open_evidence) refuses it, naming hop 1.
  const std::string error = shufflempc::test::error_text([&] {
    (void)net::open_evidence(d.config, 0, RoundShape::exactly(1, Delivery::analyzer_only, 1), mixnet::encode_evidence(rt), &d.analyzer, 8, 2);
  });
  CHECK(error.find("round 0: the verifiable mix does not verify: hop 1: its server's signature does not verify") != std::string::npos);
  CHECK(error.find("hop 2: its server's signature does not verify") != std::string::npos);
  CHECK(error.find("hop 0") == std::string::npos);

  // Its transcript as the entry would publish it, decrypted by every server and the analyzer (the
  // shares made here with the servers' key files, which an honest server would not lend to a chain
  // it took no part in): only the signatures are wrong.
  const mixnet::ProofContext dctx{d.config.session, 0, 3, 1};
  for (std::uint32_t h = 0; h < 3; ++h) {
    rt.decrypted_by.push_back(h);
    rt.decryption.push_back(mixnet::decryption_shares(dctx, h, net::server_share(d.config, server_keys(d, h), h), rt.hops.back().output, rng, 2));
  }
  rt.analyzer_decryption = mixnet::decryption_shares(dctx, rt.key.analyzer_trustee(), net::elgamal_key_of(d.analyzer), rt.hops.back().output, rng, 2);
  rt.records = mixnet::combine_decryption(mixnet::strip_shares(rt.hops.back().output, *rt.analyzer_decryption, 2), rt.decryption, rt.decrypted_by, 1, 2);
  const auto entry_key = net::signing_key_of(d.shuffler).public_key();
  const mixnet::Transcript own_signers{d.config.session, 3, {d.config.mix_chain[0].signer, entry_key, entry_key}, {rt}};
  const mixnet::Transcript session_signers{d.config.session, 3, net::signers_of(d.config.mix_chain), {rt}};
  // Naming its own keys as the signers, the file agrees with itself: that is all verify alone says.
  CHECK(mixnet::verify_transcript(own_signers, 2).ok());
  const auto mismatch = mixnet::check_session(own_signers, net::session_chain(d.config));
  REQUIRE(mismatch.size() == 2);
  CHECK(mismatch[0] == "hop 1: the transcript's signer is not the session's server");
  CHECK(mismatch[1] == "hop 2: the transcript's signer is not the session's server");
  // Naming the session's servers, their signatures do not verify.
  const auto v = mixnet::verify_transcript(session_signers, 2);
  REQUIRE(v.faults.size() == 2);
  CHECK(v.faults[0].find("round 0 hop 1: its server's signature does not verify") == 0);
  CHECK(mixnet::check_session(session_signers, net::session_chain(d.config)).empty());

  // The command line: verify alone says the file is not tied to a session; with --config it refuses.
  const shufflempc::test::TempDir dir;
  d.config.save(dir / "session.json");
  own_signers.save(dir / "own.json");
  session_signers.save(dir / "session-signers.json");
  const auto alone = shufflempc::test::run_command(shufflempc::test::cli_binary() + " verify " + (dir / "own.json"));
  CHECK(alone.exit_code == 0);
  CHECK(alone.out.find("not tied to a session") != std::string::npos);
  CHECK(alone.out.find("hop 1 signed by " + to_hex(entry_key)) != std::string::npos);
  for (const std::string file : {"own.json", "session-signers.json"}) {
    CAPTURE(file);
    const auto bound = shufflempc::test::run_command(shufflempc::test::cli_binary() + " verify " + (dir / file) + " --config " + (dir / "session.json"));
    CHECK(bound.exit_code == 1);
    CHECK(bound.err.find("shufflempc verify: ") != std::string::npos);
    CHECK(bound.err.find("hop 1") != std::string::npos);
    CHECK(bound.err.find("NOT VERIFIED (2 fault(s))") != std::string::npos);
  }
}
