// circuit v2 (BMR with t + 1 garblers, t = floor((n - 1) / 3), every party computing) over the
// in-process channel: the published vectors at n = 4 and 7, random circuits at every threshold,
// the uniformity of a garbler's and of a non-garbler's round-2 bytes, and bad input.
#include <doctest/doctest.h>

#include "shufflempc/protocols/circuit/circuit.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/inproc.hpp"
#include "shufflempc/registry.hpp"
#include "shufflempc/secret_messages.hpp"
#include "protocols/circuit/random_circuit.hpp"
#include "protocols/circuit/vectors.hpp"
#include "support/errors.hpp"
#include "support/stats.hpp"
#include "support/tampering_channel.hpp"

namespace {

using namespace shufflempc;
using namespace shufflempc::circuit;
using test::bundled;
using test::error_text;

Options v2(std::vector<PartyId> owners = {}, std::size_t threshold = 0, Delivery delivery = Delivery::all_parties) {
  Options o;
  o.variant = Variant::many_garblers;
  o.owners = std::move(owners);
  o.threshold = threshold;
  o.delivery = delivery;
  return o;
}

}  // namespace

TEST_CASE("circuit v2: AES-128 (FIPS-197 C.1) and SHA-256 of abc at n = 4 and 7, every party gets the output, in two rounds") {
  const auto aes = bundled("aes_128");
  const auto sha = bundled("sha256");
  SeededRng rng(701);
  for (std::size_t n : {4u, 7u}) {
    CAPTURE(n);
    // The key and the plaintext belong to the last two parties: at n = 7, neither garbles.
    const auto p = make_protocol(aes, n, v2({static_cast<PartyId>(n - 2), static_cast<PartyId>(n - 1)}));
    std::vector<Value> inputs(n, nullptr);
    inputs[n - 2] = test::aes_key;
    inputs[n - 1] = test::aes_pt;
    const auto r = run_in_process(*p, inputs, rng);
    CHECK(r.output == test::aes_ct);
    CHECK(r.party_outputs.size() == n);
    for (const auto& [party, out] : r.party_outputs) CHECK(out == r.output);
    const Value d = p->describe();
    CHECK(d["variant"] == "v2");
    CHECK(d["threshold"] == (n - 1) / 3);
    CHECK(d["garblers"] == (n - 1) / 3 + 1);
    CHECK(p->rounds() == 2);
    // Every party sends its share of the garbled circuit in round 2.
    CHECK(r.rounds[1].messages == n * p->round(1).max_messages);
  }
  for (std::size_t n : {4u, 7u}) {
    const auto p = make_protocol(sha, n, v2({0, static_cast<PartyId>(n - 1)}));
    std::vector<Value> inputs(n, nullptr);
    inputs[0] = test::sha_block;
    inputs[n - 1] = test::sha_iv;
    CHECK(run_in_process(*p, inputs, rng).output == test::sha_abc);
  }
}

TEST_CASE("circuit v2: 40 random circuits at n in {4, 5, 7, 10} and every threshold agree with plain evaluation, in esa mode too") {
  SeededRng rng(702);
  for (int k = 0; k < 40; ++k) {
    const auto c = std::make_shared<const Circuit>(test::random_circuit(rng, 1 + static_cast<std::uint32_t>(rng.uniform(5)),
                                                                       1 + static_cast<std::uint32_t>(rng.uniform(5)),
                                                                       1 + static_cast<std::uint32_t>(rng.uniform(30)),
                                                                       1 + static_cast<std::uint32_t>(rng.uniform(4))));
    const std::size_t n = std::vector<std::size_t>{4, 5, 7, 10}[k % 4];
    const std::size_t t = 1 + rng.uniform((n - 1) / 3);
    const bool esa = k % 5 == 0;
    CAPTURE(n);
    CAPTURE(t);
    Options o = v2({static_cast<PartyId>(rng.uniform(n)), static_cast<PartyId>(rng.uniform(n))}, t, esa ? Delivery::analyzer_only : Delivery::all_parties);
    o.hash = k % 2 == 0 ? GarblingHash::aes : GarblingHash::chacha20;
    const auto p = make_protocol(c, n, o);
    CHECK(p->describe()["garblers"] == t + 1);
    std::vector<Value> inputs(n);
    for (PartyId q = 0; q < n; ++q) inputs[q] = p->random_input(q, "", rng);
    const auto r = run_in_process(*p, inputs, rng);
    REQUIRE(r.output == *p->truth(inputs));
    for (const auto& [party, out] : r.party_outputs) CHECK(out == (esa ? Value() : r.output));
  }
}

TEST_CASE("circuit v2: a garbler's and a non-garbler's round-2 bytes are uniform whatever the inputs (chi-square over 1,000 runs)") {
  // out = (a & b) ^ c at n = 4, t = 1: one AND gate, so a payload is 128 + 3 x 32 + 3 + 1 bytes.
  const auto c = std::make_shared<const Circuit>(parse("2 5\n2 2 1\n1 1\n\n2 1 0 1 3 AND\n2 1 3 2 4 XOR\n", "tiny"));
  const auto p = make_protocol(c, 4, v2());
  SeededRng rng(703);
  RunOptions opts;
  opts.record_view = true;
  std::vector<std::uint64_t> counts[2] = {std::vector<std::uint64_t>(256, 0), std::vector<std::uint64_t>(256, 0)};
  for (int run = 0; run < 1000; ++run) {
    // Inputs that alternate, with the same output 0.
    const bool odd = run % 2 == 1;
    const auto r = run_in_process(*p, std::vector<Value>{odd ? "3" : "0", odd ? "1" : "0", nullptr, nullptr}, rng, opts);
    REQUIRE(r.output == "0");
    const MessageBatch& round2 = r.view[1];
    for (std::size_t i = 0; i < round2.count(); ++i) {
      const auto m = round2[i];
      const PartyId sender = osm::read_header(m).b;
      if (sender != 1 && sender != 3) continue;  // party 1 garbles, party 3 does not
      for (std::size_t k = osm::header_bytes; k < m.size(); ++k) ++counts[sender == 1 ? 0 : 1][m[k]];
    }
  }
  for (const auto& cs : counts) {
    const auto chi = test::chi_square(cs, std::vector<double>(256, 1.0 / 256));
    CHECK(chi.passes());
  }
}

TEST_CASE("circuit v2 bad input: too few or too many parties, thresholds above (n - 1) / 3, a wrong share and a dropout get one clear line") {
  const auto adder = bundled("adder64");
  CHECK(error_text([&] { (void)make_protocol(adder, 3, v2()); }).find("variant v2 needs at least 4 parties") != std::string::npos);
  CHECK(error_text([&] { (void)make_protocol(adder, 256, v2()); }).find("at most 255 parties") != std::string::npos);
  CHECK(error_text([&] { (void)make_protocol(adder, 6, v2({}, 2)); }).find("variant v2 tolerates at most floor((n - 1) / 3) = 1 parties for n = 6") !=
        std::string::npos);
  CHECK_NOTHROW((void)make_protocol(adder, 7, v2({}, 2)));
  const Registry reg = builtin_registry();
  CHECK(reg.create("circuit", {{"variant", "v2"}}, 4)->describe()["variant"] == "v2");
  // A party whose round-2 share of a masked input is off its polynomial: the masked value is not a bit.
  const auto c = std::make_shared<const Circuit>(parse("2 5\n2 2 1\n1 1\n\n2 1 0 1 3 AND\n2 1 3 2 4 XOR\n", "tiny"));
  const auto p = make_protocol(c, 4, v2());
  const std::vector<Value> inputs = {"3", "1", nullptr, nullptr};
  const std::size_t masked_at = osm::header_bytes + 128 + 3 * 32;  // the first masked input in the one chunk
  const std::string wrong = error_text([&] {
    (void)test::run_tampered(*p, inputs, [&](std::uint32_t round, PartyId party, MessageBatch& all, std::size_t first, std::size_t) {
      if (round == 1 && party == 2) all[first][masked_at] ^= 0x40;
    }, 704);
  });
  CHECK(wrong.find("input wire 0 interpolate to") != std::string::npos);
  CHECK(wrong.find("not a bit") != std::string::npos);
  // A party that vanishes before round 2: every party's point is needed.
  SeededRng rng(705);
  RunOptions drop;
  drop.min_parties = 3;
  drop.dropouts = {{3, 1}};
  CHECK(error_text([&] { (void)run_in_process(*p, inputs, rng, drop); }).find("party 3 did not send round 2") != std::string::npos);
}
