// The verifiable mix as a channel and its transcript (mixnet/channel.hpp, mixnet/transcript.hpp):
// every registered protocol whose records fit gives run_in_process's seeded result over 1, 2 and 3
// hops and leaves a transcript that verifies and survives its JSON form; a protocol whose records
// do not fit is refused with the reason; a hop that cheats stops the run with one line naming it;
// the verifier names the one hop that cheated in a transcript, and accepts no transcript moved to
// another session or round.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "shufflempc/error.hpp"
#include "shufflempc/inproc.hpp"
#include "shufflempc/mixnet/channel.hpp"
#include "shufflempc/registry.hpp"
#include "support/errors.hpp"
#include "support/paths.hpp"
#include "support/small_protocols.hpp"
#include "support/proved_input.hpp"

using namespace shufflempc;
using namespace shufflempc::mixnet;

TEST_CASE("verifiable mix: every registered protocol that fits runs unchanged over 1 and 3 hops (2 when larger), its transcript verified" * doctest::test_suite("full")) {
  // A run costs about 2 ms per record on two cores: protocols whose small configuration carries
  // more than 3500 records are left to the decryption chain's tests (tests/net), and the ones the
  // verifiable mix is for must all be run here.
  constexpr std::size_t max_records = 3500;
  const Registry registry = builtin_registry();
  std::set<std::string> ran;
  for (const auto& info : registry.all()) {
    CAPTURE(info.name);
    const auto [protocol, inputs] = shufflempc::test::small_run(registry, info);
    const std::string why = protocol_fit(*protocol);
    if (!why.empty()) {
      CHECK(why.find("do not fit the verifiable mix") != std::string::npos);
      SeededRng rng(5);
      CHECK_THROWS_WITH_AS((void)run_over_verifiable_mix(*protocol, inputs, rng, 2), doctest::Contains("do not fit"), std::invalid_argument);
      continue;
    }
    SeededRng a(5);
    const RunResult local = run_in_process(*protocol, inputs, a);
    if (local.messages > max_records) {
      MESSAGE(info.name << ": " << local.messages << " records, left to the decryption chain's tests");
      continue;
    }
    ran.insert(info.name);
    // Small runs over 1 and 3 hops; the larger ones (histogram's 3200 records) over 2.
    const std::vector<std::size_t> chains = local.messages <= 500 ? std::vector<std::size_t>{1, 3} : std::vector<std::size_t>{2};
    for (const std::size_t hops : chains) {
      CAPTURE(hops);
      SeededRng b(5);
      const auto run = run_over_verifiable_mix(*protocol, inputs, b, hops);
      CHECK(run.result.output == local.output);
      CHECK(run.result.messages == local.messages);
      CHECK(run.result.party_outputs == local.party_outputs);
      // The transcript survives its JSON form and verifies.
      const Transcript back = Transcript::from_json(run.transcript.to_json());
      CHECK(back.to_json() == run.transcript.to_json());
      const Verdict v = verify_transcript(back, 2);
      CHECK(v.ok());
      CHECK(v.hop_proofs == hops * run.transcript.rounds.size());
      for (const auto& r : run.transcript.rounds)
        CHECK(r.key.servers.shares.size() == hops);
    }
  }
  for (const std::string name : {"counting", "histogram", "randomized-response", "xor-sum-exact", "xor-sum-rr", "split-mix-sum"}) {
    CAPTURE(name);
    CHECK(ran.count(name) == 1);
  }
}

namespace {

RoundRules rules_for(std::size_t parties, std::size_t width, Delivery delivery) {
  RoundRules spec;
  spec.round = 0;
  spec.shape = RoundShape::exactly(width, delivery, 1);
  for (PartyId p = 0; p < parties; ++p) spec.expected.push_back(p);
  spec.min_parties = parties;
  return spec;
}

Submissions one_each(std::size_t parties, std::size_t width) {
  Submissions s;
  s.messages = MessageBatch(width);
  for (PartyId p = 0; p < parties; ++p) {
    auto m = s.messages.append();
    for (std::size_t j = 0; j < width; ++j) m[j] = static_cast<std::uint8_t>(p * 3 + j);
    s.parties.push_back({p, p, 1});
  }
  return s;
}

}  // namespace

TEST_CASE("verifiable mix: an MPC-mode round is decrypted by all the servers, delivers the multiset submitted, and verifies") {
  for (const std::size_t width : {1u, 2u, 5u, 16u}) {
    CAPTURE(width);
    SeededRng rng(30);
    VerifiableMixChannel channel(3, rng, 2);
    const Submissions sent = one_each(9, width);
    const MessageBatch submitted = sent.messages;
    const RoundOutcome out = channel.exchange(rules_for(9, width, Delivery::all_parties), sent);
    REQUIRE(out.output.has_value());
    CHECK(out.messages == 9);
    CHECK(out.submitted.size() == 9);
    std::multiset<std::string> a, b;  // the records as byte strings (byte vectors' ordering makes GCC 12 warn)
    for (std::size_t i = 0; i < 9; ++i) {
      a.emplace(submitted[i].begin(), submitted[i].end());
      b.emplace((*out.output)[i].begin(), (*out.output)[i].end());
    }
    CHECK(a == b);
    const auto& round = channel.transcript().rounds.at(0);
    CHECK(round.key.servers.shares.size() == 3);
    CHECK(round.key.servers.threshold == 3);
    CHECK_FALSE(round.key.analyzer);
    CHECK_FALSE(round.analyzer_decryption);
    CHECK(round.decryption.size() == 3);
    CHECK(verify_transcript(channel.transcript(), 2).ok());
  }
}

TEST_CASE("verifiable mix: an ESA-mode round is encrypted under the servers' key and the analyzer's, and verifies only with the shares of both") {
  SeededRng rng(34);
  VerifiableMixChannel channel(3, rng, 2);
  const RoundOutcome out = channel.exchange(rules_for(7, 2, Delivery::analyzer_only), one_each(7, 2));
  CHECK(out.messages == 7);
  const auto& round = channel.transcript().rounds.at(0);
  REQUIRE(round.key.analyzer);
  CHECK(round.key.key() == round.key.servers.key() + *round.key.analyzer);
  CHECK(round.decrypted_by == std::vector<std::uint32_t>{0, 1, 2});
  REQUIRE(round.analyzer_decryption);
  const Verdict v = verify_transcript(Transcript::from_json(channel.transcript().to_json()), 2);
  CHECK(v.ok());
  CHECK(v.decryption_proofs == 4);
  // The analyzer's shares altered (two swapped), left out, or the servers' left out: each named.
  Transcript swapped = channel.transcript();
  std::swap(swapped.rounds[0].analyzer_decryption->shares[0], swapped.rounds[0].analyzer_decryption->shares[1]);
  CHECK(verify_transcript(swapped, 2).faults.at(0).find("round 0 analyzer: the shares are not proved") == 0);
  Transcript no_analyzer = channel.transcript();
  no_analyzer.rounds[0].analyzer_decryption.reset();
  CHECK(verify_transcript(no_analyzer, 2).faults.at(0) == "round 0: an analyzer-only round's key and decryption must include the analyzer's");
  Transcript no_servers = channel.transcript();
  no_servers.rounds[0].decryption.clear();
  no_servers.rounds[0].decrypted_by.clear();
  CHECK(verify_transcript(no_servers, 2).faults.at(0) == "round 0: 0 distinct mix servers of 3 decrypted, 3 needed");
  // A round delivered to every party names no analyzer.
  Transcript named = channel.transcript();
  named.rounds[0].delivery = Delivery::all_parties;
  CHECK(verify_transcript(named, 2).faults.back() == "round 0: a round delivered to every party has no analyzer's key or decryption");
  // The previous format, whose analyzer-only rounds the analyzer alone could open, is refused with that reason.
  auto j = nlohmann::json::parse(channel.transcript().to_json());
  j["format"] = "shufflempc-verifiable-mix/7";
  CHECK_THROWS_WITH_AS((void)Transcript::from_json(j.dump()), doctest::Contains("the analyzer's key alone"), std::invalid_argument);
}

TEST_CASE("verifiable mix: a round in which every party stays silent delivers nothing and its transcript verifies") {
  SeededRng rng(33);
  VerifiableMixChannel channel(2, rng, 2);
  RoundRules spec = rules_for(4, 2, Delivery::analyzer_only);
  spec.shape.min_messages = 0;
  Submissions silent;
  silent.messages = MessageBatch(2);
  for (PartyId p = 0; p < 4; ++p) silent.parties.push_back({p, 0, 0});
  const RoundOutcome out = channel.exchange(spec, silent);
  REQUIRE(out.output.has_value());
  CHECK(out.output->count() == 0);
  CHECK(out.submitted.size() == 4);
  CHECK(channel.transcript().rounds.at(0).input.size() == 0);
  const Verdict v = verify_transcript(Transcript::from_json(channel.transcript().to_json()), 2);
  CHECK(v.ok());
  CHECK(v.hop_proofs == 2);
}

TEST_CASE("verifiable mix: with a decryption threshold of 2 of 3 servers a round survives one absent server, not two") {
  SeededRng rng(32);
  VerifiableMixChannel channel(3, rng, 2, 2);
  channel.inject_absent_servers({1});
  const RoundOutcome out = channel.exchange(rules_for(6, 3, Delivery::all_parties), one_each(6, 3));
  CHECK(out.messages == 6);
  const auto& round = channel.transcript().rounds.at(0);
  CHECK(round.key.servers.threshold == 2);
  CHECK(round.decrypted_by == std::vector<std::uint32_t>{0, 2});
  const Verdict v = verify_transcript(Transcript::from_json(channel.transcript().to_json()), 2);
  CHECK(v.ok());
  CHECK(v.decryption_proofs == 2);
  // A transcript that drops one more decryption falls below the threshold.
  Transcript short_of_one = channel.transcript();
  short_of_one.rounds[0].decrypted_by.pop_back();
  short_of_one.rounds[0].decryption.pop_back();
  CHECK(verify_transcript(short_of_one, 2).faults.at(0) == "round 0: 1 distinct mix servers of 3 decrypted, 2 needed");
  channel.inject_absent_servers({0, 2});
  const std::string error = shufflempc::test::error_text([&] { (void)channel.exchange(rules_for(6, 3, Delivery::all_parties), one_each(6, 3)); });
  CHECK(error.find("round 0: 1 of 3 mix servers are there to decrypt, 2 needed") == 0);
  CHECK_THROWS_WITH_AS(VerifiableMixChannel(3, rng, 2, 4), doctest::Contains("the threshold must be in [1, 3]"), std::invalid_argument);
}

TEST_CASE("verifiable mix: a hop that swaps, drops, copies, replaces or alters a record stops the round with one line naming it") {
  struct Cheat {
    std::string name;
    std::function<void(CiphertextBatch&)> act;
  };
  const Cheat cheats[] = {
      {"swap", [](CiphertextBatch& o) { std::swap(o.at(0, 0), o.at(1, 0)); }},
      {"drop", [](CiphertextBatch& o) { o = CiphertextBatch(o.limbs(), o.size() - 1); }},
      {"copy", [](CiphertextBatch& o) { o.at(2, 0) = o.at(3, 0); }},
      {"replace", [](CiphertextBatch& o) { o.at(4, 0) = encrypt_point(mul_base(scalar_from_u64(7)), base_point(), scalar_from_u64(5)); }},
      {"alter", [](CiphertextBatch& o) { o.at(5, 0).c2 = o.at(5, 0).c2 + base_point(); }},
  };
  for (const auto& cheat : cheats) {
    for (std::uint32_t bad_hop : {0u, 2u}) {
      CAPTURE(cheat.name);
      CAPTURE(bad_hop);
      SeededRng rng(31);
      VerifiableMixChannel channel(3, rng, 2);
      channel.inject_hop_fault([&](std::uint32_t, std::uint32_t hop, CiphertextBatch& out) {
        if (hop == bad_hop) cheat.act(out);
      });
      const std::string error = shufflempc::test::error_text([&] { (void)channel.exchange(rules_for(8, 2, Delivery::all_parties), one_each(8, 2)); });
      CHECK(error.find("mix server " + std::to_string(bad_hop) + ": the proof of shuffle does not verify") != std::string::npos);
      CHECK(error.find('\n') == std::string::npos);
      CHECK(shufflempc::test::code_of([&] { (void)channel.exchange(rules_for(8, 2, Delivery::all_parties), one_each(8, 2)); }) ==
            Errc::protocol_violation);
    }
  }
}

namespace {

// A transcript of one round of `records` two-byte records through `hops` hops, with hop `cheater`
// (if any) replacing one record by an encryption of its own choice and proving its output with its
// witness, the later hops honest on what it passed on.
Transcript transcript_with(std::size_t records, std::size_t hops, std::optional<std::size_t> cheater, Rng& rng) {
  Transcript t;
  t.session.fill(7);
  t.hops = hops;
  std::vector<SigningKeyPair> servers;
  for (std::size_t h = 0; h < hops; ++h) {
    servers.push_back(SigningKeyPair::generate(rng));
    t.signers.push_back(servers.back().public_key());
  }
  RoundTranscript r;
  r.round = 3;
  r.width = 2;
  r.delivery = Delivery::all_parties;
  const DealtKey dealt = deal_key(1, 1, rng);  // one server holds the whole key
  const ElGamalKey& trustee = dealt.secrets[0];
  r.key.servers = dealt.key;
  MessageBatch plain(2, records);
  for (std::size_t i = 0; i < records; ++i) plain[i][0] = static_cast<std::uint8_t>(i);
  test::set_proved_input(r, t.session, plain, rng);
  const CiphertextBatch* in = &r.input;
  for (std::uint32_t h = 0; h < hops; ++h) {
    auto s = reencrypt_shuffle(*in, trustee.public_key, rng, 2);
    if (cheater == h) {
      const std::uint8_t mine[2] = {0xe7, 0x03};  // a record of the cheater's choosing
      s.output.at(0, 0) = encrypt_point(embed_limb(mine, rng), trustee.public_key, random_scalar(rng));
    }
    const ProofContext ctx{t.session, r.round, h, static_cast<std::uint32_t>(r.width)};
    auto proof = prove_shuffle(ctx, trustee.public_key, *in, s.output, s.witness, rng, 2);
    const auto signature = servers[h].sign(hop_statement(ctx, trustee.public_key, *in, s.output, proof));
    r.hops.push_back({s.output, std::move(proof), signature});
    in = &r.hops.back().output;
  }
  const ProofContext dctx{t.session, r.round, static_cast<std::uint32_t>(hops), static_cast<std::uint32_t>(r.width)};
  r.decryption.push_back(decryption_shares(dctx, 0, trustee, *in, rng, 2));
  r.decrypted_by = {0};
  r.records = combine_decryption(*in, r.decryption, r.decrypted_by, 2, 2);
  t.rounds.push_back(std::move(r));
  return t;
}

}  // namespace

TEST_CASE("verifiable mix: the verifier names the one hop that cheated, whichever it is, and passes the honest ones") {
  SeededRng rng(41);
  CHECK(verify_transcript(transcript_with(10, 3, std::nullopt, rng), 2).ok());
  for (std::size_t cheater = 0; cheater < 3; ++cheater) {
    CAPTURE(cheater);
    const Verdict v = verify_transcript(transcript_with(10, 3, cheater, rng), 2);
    REQUIRE(v.faults.size() == 1);
    CHECK(v.faults[0].find("round 3 hop " + std::to_string(cheater) + ": the proof of shuffle does not verify") == 0);
    CHECK(v.hop_proofs == 3);
  }
}

TEST_CASE("verifiable mix: the verifier accepts no transcript moved to another session or round, and no altered record") {
  SeededRng rng(42);
  const Transcript honest = transcript_with(6, 2, std::nullopt, rng);
  REQUIRE(verify_transcript(honest, 2).ok());
  Transcript other_session = honest;
  other_session.session[0] ^= 1;
  const Verdict vs = verify_transcript(other_session, 2);
  REQUIRE(vs.faults.size() == 4);  // the senders' proofs, both hops and the trustee
  CHECK(vs.faults[0].find("round 3: 6 of the 6 submitted records carry no valid proof of plaintext knowledge") == 0);
  Transcript other_round = honest;
  other_round.rounds[0].round = 4;
  CHECK(verify_transcript(other_round, 2).faults.size() == 4);
  // One sender's proof altered: only that is named.
  Transcript other_proof = honest;
  other_proof.rounds[0].input_proofs.response(2, 0) = other_proof.rounds[0].input_proofs.response(2, 0) + scalar_from_u64(1);
  const Verdict vp = verify_transcript(other_proof, 2);
  REQUIRE(vp.faults.size() == 1);
  CHECK(vp.faults[0] == "round 3: 1 of the 6 submitted records carry no valid proof of plaintext knowledge (the first: record 2)");
  CHECK(vp.knowledge_proofs == 6);
  Transcript other_records = honest;
  other_records.rounds[0].records[0][1] ^= 1;
  const Verdict vr = verify_transcript(other_records, 2);
  REQUIRE(vr.faults.size() == 1);
  CHECK(vr.faults[0].find("the records are not what the proved shares decrypt to") != std::string::npos);
  Transcript other_trustee = honest;
  other_trustee.rounds[0].key.servers.shares[0] = base_point();
  CHECK(verify_transcript(other_trustee, 2).faults.at(0) ==
        "round 3: the key does not hold: the servers' key: trustee 0's public share is not on the committed polynomial");
}

TEST_CASE("verifiable mix: a malformed transcript is refused naming what does not parse") {
  SeededRng rng(43);
  const std::string good = transcript_with(3, 2, std::nullopt, rng).to_json();
  CHECK_THROWS_WITH_AS((void)Transcript::from_json("{"), doctest::Contains("not JSON"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)Transcript::from_json("2e772"), doctest::Contains("not JSON"), std::invalid_argument);  // found by fuzz_transcript
  CHECK_THROWS_WITH_AS((void)Transcript::from_json("{\"format\": \"other\"}"), doctest::Contains("\"format\""), std::invalid_argument);
  auto j = nlohmann::json::parse(good);
  j["rounds"][0]["hops"].erase(1);
  CHECK_THROWS_WITH_AS((void)Transcript::from_json(j.dump()), doctest::Contains("must list 2 hops"), std::invalid_argument);
  j = nlohmann::json::parse(good);
  j["rounds"][0]["width"] = 40;
  CHECK_THROWS_WITH_AS((void)Transcript::from_json(j.dump()), doctest::Contains("\"width\""), std::invalid_argument);
  j = nlohmann::json::parse(good);
  std::string proof = j["rounds"][0]["hops"][0]["proof"];
  j["rounds"][0]["hops"][0]["proof"] = proof.substr(0, proof.size() - 64);
  CHECK_THROWS_WITH_AS((void)Transcript::from_json(j.dump()), doctest::Contains("round 0 hop 0 proof"), std::invalid_argument);
  j = nlohmann::json::parse(good);
  j["rounds"][0]["hops"][1].erase("signature");
  CHECK_THROWS_WITH_AS((void)Transcript::from_json(j.dump()), doctest::Contains("round 0 hop 1: \"signature\""), std::invalid_argument);
  j = nlohmann::json::parse(good);
  j["signers"].erase(0);
  CHECK_THROWS_WITH_AS((void)Transcript::from_json(j.dump()), doctest::Contains("\"signers\" must list the 2 hops"), std::invalid_argument);
  // No hops, and more than a chain has.
  for (const int hops : {0, 17}) {
    j = nlohmann::json::parse(good);
    j["hops"] = hops;
    CHECK_THROWS_WITH_AS((void)Transcript::from_json(j.dump()), doctest::Contains("\"hops\" must be an integer in [1, 16]"), std::invalid_argument);
  }
  // Version 1 named no server for its hops.
  j = nlohmann::json::parse(good);
  j["format"] = "shufflempc-verifiable-mix/1";
  CHECK_THROWS_WITH_AS((void)Transcript::from_json(j.dump()), doctest::Contains("version 1 carries no hop signatures"), std::invalid_argument);
  // Version 2 signed a flat digest of each hop's input.
  j["format"] = "shufflempc-verifiable-mix/2";
  CHECK_THROWS_WITH_AS((void)Transcript::from_json(j.dump()), doctest::Contains("not the Merkle root"), std::invalid_argument);
  // Version 3's decryption proofs carried challenges.
  j["format"] = "shufflempc-verifiable-mix/3";
  CHECK_THROWS_WITH_AS((void)Transcript::from_json(j.dump()), doctest::Contains("cannot be checked in a batch"), std::invalid_argument);
}

TEST_CASE("verifiable mix: a hostile transcript is refused as it is read: unknown fields, objects and lists where the format has none, lists past their bounds") {
  SeededRng rng(44);
  const std::string good = transcript_with(3, 2, std::nullopt, rng).to_json();
  const auto refused = [](const std::string& text, const std::string& what) {
    CAPTURE(what);
    CHECK_THROWS_WITH_AS((void)Transcript::from_json(text), doctest::Contains(what.c_str()), std::invalid_argument);
  };
  // A field the format does not name, at the top, in a round, in a hop, in a key.
  auto j = nlohmann::json::parse(good);
  j["padding"] = nlohmann::json::array({nlohmann::json::object(), nlohmann::json::object()});
  refused(j.dump(), "unknown field \"padding\"");
  j = nlohmann::json::parse(good);
  j["rounds"][0]["extra"] = 1;
  refused(j.dump(), "unknown field \"extra\" in an entry of \"rounds\"");
  j = nlohmann::json::parse(good);
  j["rounds"][0]["hops"][0]["note"] = "x";
  refused(j.dump(), "unknown field \"note\" in an entry of \"hops\"");
  j = nlohmann::json::parse(good);
  j["rounds"][0]["key"]["extra"] = 1;
  refused(j.dump(), "unknown field \"extra\" in an entry of \"key\"");
  // Nesting deeper than the format: an object or a list where it has a value.
  j = nlohmann::json::parse(good);
  j["session"] = nlohmann::json::array({nlohmann::json::array({1})});
  refused(j.dump(), "\"session\" must not be a list");
  j = nlohmann::json::parse(good);
  j["rounds"][0]["input"] = nlohmann::json::object();
  refused(j.dump(), "\"input\" must not be an object");
  j = nlohmann::json::parse(good);
  j["signers"].push_back(nlohmann::json::object());
  refused(j.dump(), "\"signers\" must list hex strings, not objects");
  refused(std::string(100000, '[') + std::string(100000, ']'), "a list where the format has none");
  // Lists past their bounds: 17 signers, 2^16 + 1 rounds of empty objects (a 200 kB file; refused
  // at the first entry past the bound, before the rest is read).
  j = nlohmann::json::parse(good);
  j["signers"] = std::vector<std::string>(17, std::string(64, '0'));
  refused(j.dump(), "\"signers\" lists more than 16 entries");
  std::string many = "{\"rounds\": [";
  for (std::size_t i = 0; i <= (std::size_t{1} << 16); ++i) many += i == 0 ? "{}" : ",{}";
  refused(many + "]}", "\"rounds\" lists more than 65536 entries");
}

TEST_CASE("verifiable mix: hop counts outside 1 to 16 are refused naming the range") {
  SeededRng rng(1);
  CHECK_THROWS_WITH_AS(VerifiableMixChannel(0, rng), doctest::Contains("[1, 16]"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(VerifiableMixChannel(17, rng), doctest::Contains("[1, 16]"), std::invalid_argument);
}

TEST_CASE("verifiable mix: docs/verifier.md's field table names exactly the fields a transcript holds, object by object") {
  // The table's rows: | object | `field` | type | meaning |.
  std::ifstream doc(SHUFFLEMPC_SOURCE_DIR + "/docs/verifier.md");
  REQUIRE(doc);
  const std::map<std::string, std::string> kinds = {{"file", ""}, {"round", "rounds"}, {"key", "key"}, {"hop", "hops"}, {"decryption", "decryption"}};
  std::set<std::pair<std::string, std::string>> documented;
  for (std::string line; std::getline(doc, line);) {
    if (line.rfind("| ", 0) != 0) continue;
    std::istringstream cells(line.substr(2));
    std::string object, field;
    std::getline(cells, object, '|');
    std::getline(cells, field, '|');
    object.erase(object.find_last_not_of(' ') + 1);
    if (!kinds.count(object)) continue;
    const auto open = field.find('`'), close = field.rfind('`');
    REQUIRE_MESSAGE(open != close, line);
    documented.insert({kinds.at(object), field.substr(open + 1, close - open - 1)});
  }
  // What the code writes: every object of a transcript with every kind of entry.
  // A round delivered to every party, and an analyzer-only round (its key and decryption name the analyzer).
  SeededRng rng(4);
  VerifiableMixChannel esa(2, rng, 2);
  (void)esa.exchange(rules_for(3, 2, Delivery::analyzer_only), one_each(3, 2));
  std::set<std::pair<std::string, std::string>> written;
  for (const auto& j : {nlohmann::json::parse(transcript_with(3, 2, std::nullopt, rng).to_json()), nlohmann::json::parse(esa.transcript().to_json())}) {
    for (const auto& [k, v] : j.items()) written.insert({"", k});
    for (const auto& r : j["rounds"]) {
      for (const auto& [k, v] : r.items()) written.insert({"rounds", k});
      for (const auto& [k, v] : r["key"].items()) written.insert({"key", k});
      for (const auto& h : r["hops"])
        for (const auto& [k, v] : h.items()) written.insert({"hops", k});
      for (const auto& d : r["decryption"])
        for (const auto& [k, v] : d.items()) written.insert({"decryption", k});
    }
  }
  CHECK(documented == written);
  CHECK(written.size() == 25);  // transcripts with every kind of object were written
  // And the format the page names is the one the code writes.
  std::ifstream again(SHUFFLEMPC_SOURCE_DIR + "/docs/verifier.md");
  const std::string text((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>());
  CHECK(text.find(std::string("`") + transcript_format + "`") != std::string::npos);
}
