// circuit: any Bristol Fashion circuit in two shuffle rounds, over the in-process channel. The
// published vectors in both variants and with input-only clients, random circuits against plain
// evaluation, the uniformity of one party's round-2 bytes, and bad input.
#include <doctest/doctest.h>

#include <fstream>

#include "shufflempc/protocols/circuit/circuit.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/inproc.hpp"
#include "shufflempc/registry.hpp"
#include "protocols/circuit/random_circuit.hpp"
#include "protocols/circuit/vectors.hpp"
#include "support/errors.hpp"
#include "support/stats.hpp"
#include "support/tampering_channel.hpp"
#include "support/temp_dir.hpp"

namespace {

using namespace shufflempc;
using namespace shufflempc::circuit;
using test::aes_ct;
using test::aes_key;
using test::aes_pt;
using test::bundled;
using test::error_text;

std::unique_ptr<Protocol> make(std::shared_ptr<const Circuit> c, std::size_t n, Variant v, std::vector<PartyId> owners = {},
                               std::size_t threshold = 0) {
  Options o;
  o.variant = v;
  o.owners = std::move(owners);
  o.threshold = threshold;
  o.delivery = v == Variant::designated_garbler ? Delivery::analyzer_only : Delivery::all_parties;
  return make_protocol(std::move(c), n, o);
}

}  // namespace

TEST_CASE("circuit: AES-128 in both variants, with input-only clients (v1) and larger thresholds (v3), gives FIPS-197 C.1") {
  const auto aes = bundled("aes_128");
  SeededRng rng(501);
  for (const Variant v : {Variant::two_garblers, Variant::designated_garbler}) {
    for (std::size_t n : {3u, 5u, 7u}) {
      CAPTURE(to_string(v));
      CAPTURE(n);
      // The key and the plaintext belong to the last two parties: at n > 3 in v1, to clients.
      const auto p = make(aes, n, v, {static_cast<PartyId>(n - 2), static_cast<PartyId>(n - 1)});
      std::vector<Value> inputs(n, nullptr);
      inputs[n - 2] = aes_key;
      inputs[n - 1] = aes_pt;
      const auto r = run_in_process(*p, inputs, rng);
      CHECK(r.output == aes_ct);
      if (v == Variant::two_garblers) {
        for (const auto& [party, out] : r.party_outputs) CHECK(out == aes_ct);  // MPC mode: everyone evaluates
        // Clients send round-1 messages to the three computing parties only, and nothing in round 2.
        CHECK(r.rounds[1].messages == 3 * p->round(1).max_messages);
      } else {
        CHECK(p->describe()["threshold"] == (n - 1) / 2);
      }
    }
  }
}

TEST_CASE("circuit: the SHA-256 of abc through v1 and v3, the block and the chaining value from two parties") {
  const auto sha = bundled("sha256");
  SeededRng rng(502);
  for (const Variant v : {Variant::two_garblers, Variant::designated_garbler}) {
    const auto p = make(sha, 3, v);
    const auto r = run_in_process(*p, std::vector<Value>{test::sha_block, test::sha_iv, nullptr}, rng);
    CHECK(r.output == test::sha_abc);
  }
}

TEST_CASE("circuit: 40 random circuits (AND(a,a), INV chains, constants, outputs that are inputs) in both variants agree with plain evaluation") {
  SeededRng rng(503);
  for (int t = 0; t < 40; ++t) {
    const auto c = std::make_shared<const Circuit>(test::random_circuit(rng, 1 + static_cast<std::uint32_t>(rng.uniform(5)),
                                                                       1 + static_cast<std::uint32_t>(rng.uniform(5)),
                                                                       1 + static_cast<std::uint32_t>(rng.uniform(30)),
                                                                       1 + static_cast<std::uint32_t>(rng.uniform(4))));
    const std::size_t n = 3 + rng.uniform(3);
    for (const Variant v : {Variant::two_garblers, Variant::designated_garbler}) {
      const auto p = make(c, n, v, {static_cast<PartyId>(rng.uniform(n)), static_cast<PartyId>(rng.uniform(n))});
      std::vector<Value> inputs(n);
      for (PartyId q = 0; q < n; ++q) inputs[q] = p->random_input(q, "", rng);
      const auto r = run_in_process(*p, inputs, rng);
      REQUIRE(r.output == *p->truth(inputs));
    }
  }
}

TEST_CASE("circuit: a party's round-2 bytes are uniform whatever the inputs (chi-square over 2,000 runs, both variants)" * doctest::test_suite("slow")) {
  // out = (a & b) ^ c: one AND gate, so v1's payload is 128 + 3 x 32 + 1 bytes per party.
  const auto c = std::make_shared<const Circuit>(parse("2 5\n2 2 1\n1 1\n\n2 1 0 1 3 AND\n2 1 3 2 4 XOR\n", "tiny"));
  for (const Variant v : {Variant::two_garblers, Variant::designated_garbler}) {
    CAPTURE(to_string(v));
    const auto p = make(c, 3, v);
    SeededRng rng(504);
    RunOptions opts;
    opts.record_view = true;
    std::vector<std::uint64_t> counts(256, 0);
    for (int run = 0; run < 2000; ++run) {
      const auto r = run_in_process(*p, std::vector<Value>{"3", "1", nullptr}, rng, opts);
      REQUIRE(r.output == "0");
      const MessageBatch& round2 = r.view[1];
      for (std::size_t i = 0; i < round2.count(); ++i) {
        const auto m = round2[i];
        if (osm::read_header(m).b != 1) continue;  // party 1 (G2 in v1)
        // v1's last byte packs 3 + 1 bits; every other byte is a full share.
        const std::size_t end = v == Variant::two_garblers ? m.size() - 1 : m.size();
        for (std::size_t k = osm::header_bytes; k < end; ++k) ++counts[m[k]];
      }
    }
    const auto chi = test::chi_square(counts, std::vector<double>(256, 1.0 / 256));
    CHECK(chi.passes());
  }
}

TEST_CASE("circuit bad input: wrong hex, owners, thresholds, delivery, files, junk, forged chunks and dropouts get one clear line") {
  const auto adder = bundled("adder64");
  const auto p = make(adder, 3, Variant::two_garblers);
  const std::vector<Value> inputs = {"0000000000000005", "0000000000000007", nullptr};
  CHECK(error_text([&] { (void)p->make_party(0, "05"); }).find("party 0: input group 0 (64 bits) must be 16 hex digits") != std::string::npos);
  CHECK(error_text([&] { (void)p->make_party(0, "00000000000000zz"); }).find("must be hex digits") != std::string::npos);
  CHECK(error_text([&] { (void)p->make_party(2, "0000000000000001"); }).find("party 2 owns no input group") != std::string::npos);
  CHECK(error_text([&] { (void)p->make_party(0, 5); }).find("give one hex string") != std::string::npos);
  CHECK(error_text([&] { (void)make(adder, 3, Variant::two_garblers, {0}); }).find("'owners': circuit") != std::string::npos);
  CHECK(error_text([&] { (void)make(adder, 3, Variant::two_garblers, {0, 3}); }).find("owner 3 is outside [0, 3)") != std::string::npos);
  CHECK(error_text([&] { (void)make(adder, 5, Variant::two_garblers, {}, 2); }).find("variant v1 tolerates one corrupted computing party (threshold 1)") !=
        std::string::npos);
  CHECK(error_text([&] { (void)make(adder, 5, Variant::designated_garbler, {}, 3); }).find("variant v3 tolerates at most floor((n - 1) / 2) = 2") !=
        std::string::npos);
  Options mpc_v3;
  mpc_v3.variant = Variant::designated_garbler;
  CHECK(error_text([&] { (void)make_protocol(adder, 3, mpc_v3); }).find("runs in esa mode only") != std::string::npos);
  CHECK(error_text([&] { (void)make_protocol(adder, 4, {}, 3); }).find("--min-parties 3") != std::string::npos);
  CHECK(error_text([&] { (void)make(adder, 2, Variant::two_garblers); }).find("at least 3 parties") != std::string::npos);
  // Through the registry: a malformed file names its line; a missing one names --circuit.
  const Registry reg = builtin_registry();
  const test::TempDir tmp("shufflempc-circuittest");
  const std::string bad = tmp / "bad.txt";
  {
    std::ofstream f(bad);
    f << "1 3\n1 2\n1 1\n\n2 1 0 1 2 NAND\n";
  }
  CHECK(error_text([&] { (void)reg.create("circuit", {{"circuit", bad}}, 3); }).find("line 5: gate 0 has type 'NAND'") != std::string::npos);
  CHECK(error_text([&] { (void)reg.create("circuit", {{"circuit", "no_such_circuit"}}, 3); }).find("--circuit") != std::string::npos);
  CHECK(error_text([&] { (void)reg.create("circuit", {{"owners", "0,x"}}, 3); }).find("'owners' = '0,x'") != std::string::npos);
  // Junk within a party's declared range is counted against the declared totals.
  const std::string junk = error_text([&] { (void)test::run_tampered(*p, inputs, [](auto...) {}, 505, 1); });
  CHECK(junk.find("circuit: round 1 holds") != std::string::npos);
  // A computing party that sends its round-2 chunk under another sender's name.
  const std::string forged = error_text([&] {
    (void)test::run_tampered(*p, inputs, [](std::uint32_t round, PartyId party, MessageBatch& all, std::size_t first, std::size_t) {
      if (round != 1 || party != 2) return;
      auto h = osm::read_header(all[first]);
      h.b = 0;
      osm::write_header(all[first], h);
    }, 506);
  });
  CHECK(forged.find("a round-2 message names sender 0 chunk 0") != std::string::npos);
  // v3: a second copy of a garbled-circuit chunk in place of another.
  const auto p3 = make(adder, 3, Variant::designated_garbler);
  const std::string gc = error_text([&] {
    (void)test::run_tampered(*p3, inputs, [](std::uint32_t round, PartyId party, MessageBatch& all, std::size_t first, std::size_t count) {
      if (round != 0 || party != 0) return;
      for (std::size_t i = first; i < first + count; ++i)
        if (all[i][0] == osm::first_protocol_kind) {
          auto h = osm::read_header(all[i]);
          h.index = 0;
          osm::write_header(all[i], h);
        }
    }, 507);
  });
  CHECK(gc.find("a garbled-circuit chunk names index 0, duplicated") != std::string::npos);
  // A computing party that vanishes before round 2, and a client that misses round 1.
  SeededRng rng(508);
  RunOptions drop2;
  drop2.min_parties = 2;
  drop2.dropouts = {{1, 1}};
  const std::string gone = error_text([&] { (void)run_in_process(*p, inputs, rng, drop2); });
  CHECK(gone.find("party 1 did not send round 2") != std::string::npos);
  RunOptions drop1;
  drop1.min_parties = 2;
  drop1.dropouts = {{2, 0}};
  const std::string missing = error_text([&] { (void)run_in_process(*p, inputs, rng, drop1); });
  CHECK(missing.find("every party's inputs are needed") != std::string::npos);
}
