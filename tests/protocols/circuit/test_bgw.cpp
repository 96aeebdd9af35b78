// The circuit protocol's many-round variant (bgw): GF(2^8), the published vectors at n = 4 and 7,
// random circuits against plain evaluation at every threshold, the rounds and bytes it declares,
// privacy (a corrupted party's view and every party's last-round shares are the same whatever
// the inputs, with a negative control that must fail), and bad input.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "shufflempc/protocols/circuit/circuit.hpp"
#include "shufflempc/protocols/circuit/gf256.hpp"
#include "protocols/circuit/random_circuit.hpp"
#include "protocols/circuit/vectors.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/inproc.hpp"
#include "shufflempc/private_channel.hpp"
#include "shufflempc/registry.hpp"
#include "shufflempc/secret_messages.hpp"
#include "support/errors.hpp"
#include "support/stats.hpp"
#include "support/tampering_channel.hpp"

namespace {

using namespace shufflempc;
using namespace shufflempc::circuit;
using test::bundled;
using test::error_text;

Options bgw(std::vector<PartyId> owners = {}, std::size_t threshold = 0, Delivery delivery = Delivery::all_parties) {
  Options o;
  o.variant = Variant::bgw;
  o.owners = std::move(owners);
  o.threshold = threshold;
  o.delivery = delivery;
  return o;
}

// x0 AND x1: one bit from party 0, one from party 1, one AND gate.
std::shared_ptr<const Circuit> one_and() { return std::make_shared<const Circuit>(parse("1 3\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n", "and")); }

}  // namespace

TEST_CASE("gf256: the tables give the product by shift and reduce for all 65,536 pairs, and every inverse") {
  const gf256::Field f;
  for (unsigned a = 0; a < 256; ++a) {
    for (unsigned b = 0; b < 256; ++b)
      REQUIRE(f.mul(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b)) ==
              gf256::mul_slow(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b)));
    if (a != 0) REQUIRE(f.mul(static_cast<std::uint8_t>(a), f.inverse(static_cast<std::uint8_t>(a))) == 1);
  }
  CHECK(gf256::mul_slow(0x57, 0x83) == 0xc1);  // FIPS-197 section 4.2's example
  CHECK_THROWS_AS((void)f.inverse(0), std::invalid_argument);
  CHECK(f.reduce(255) == 255);
  CHECK_THROWS_AS((void)f.reduce(256), std::invalid_argument);
}

TEST_CASE("circuit bgw: AES-128 (FIPS-197 C.1) and SHA-256 of abc at n = 4 and 7, every party gets the output, in AND-depth + 2 rounds") {
  const auto aes = bundled("aes_128");
  const auto sha = bundled("sha256");
  SeededRng rng(601);
  for (std::size_t n : {4u, 7u}) {
    CAPTURE(n);
    const auto p = make_protocol(aes, n, bgw({static_cast<PartyId>(n - 2), static_cast<PartyId>(n - 1)}));
    std::vector<Value> inputs(n, nullptr);
    inputs[n - 2] = test::aes_key;
    inputs[n - 1] = test::aes_pt;
    const auto r = run_in_process(*p, inputs, rng);
    CHECK(r.output == test::aes_ct);
    CHECK(r.party_outputs.size() == n);
    for (const auto& [party, out] : r.party_outputs) CHECK(out == r.output);
    const Value d = p->describe();
    CHECK(d["threshold"] == (n - 1) / 2);
    CHECK(p->rounds() == d["and_depth"].get<std::uint32_t>() + 2);
    CHECK(r.rounds.size() == p->rounds());
  }
  for (std::size_t n : {4u, 7u}) {
    const auto p = make_protocol(sha, n, bgw({0, 1}));
    std::vector<Value> inputs(n, nullptr);
    inputs[0] = test::sha_block;
    inputs[1] = test::sha_iv;
    CHECK(run_in_process(*p, inputs, rng).output == test::sha_abc);
  }
}

TEST_CASE("circuit bgw: 40 random circuits at n in {3, 4, 5, 8} and every threshold agree with plain evaluation, in esa mode too") {
  SeededRng rng(602);
  for (int k = 0; k < 40; ++k) {
    const auto c = std::make_shared<const Circuit>(test::random_circuit(rng, 1 + static_cast<std::uint32_t>(rng.uniform(5)),
                                                                       1 + static_cast<std::uint32_t>(rng.uniform(5)),
                                                                       1 + static_cast<std::uint32_t>(rng.uniform(30)),
                                                                       1 + static_cast<std::uint32_t>(rng.uniform(4))));
    const std::size_t n = std::vector<std::size_t>{3, 4, 5, 8}[k % 4];
    const std::size_t t = 1 + rng.uniform((n - 1) / 2);
    const bool esa = k % 5 == 0;
    CAPTURE(n);
    CAPTURE(t);
    const auto p = make_protocol(c, n, bgw({static_cast<PartyId>(rng.uniform(n)), static_cast<PartyId>(rng.uniform(n))}, t,
                                           esa ? Delivery::analyzer_only : Delivery::all_parties));
    std::vector<Value> inputs(n);
    for (PartyId q = 0; q < n; ++q) inputs[q] = p->random_input(q, "", rng);
    const auto r = run_in_process(*p, inputs, rng);
    REQUIRE(r.output == *p->truth(inputs));
    for (const auto& [party, out] : r.party_outputs) CHECK(out == (esa ? Value() : r.output));
  }
}

TEST_CASE("circuit bgw: each layer round carries one byte per AND gate per peer, sealed, and the counts are the declared ones") {
  // adder64 is a ripple-carry adder: 63 layers of one AND gate each.
  const auto adder = bundled("adder64");
  const auto p = make_protocol(adder, 5, bgw());
  CHECK(p->rounds() == 65);
  SeededRng rng(603);
  RunOptions opts;
  opts.record_view = true;
  const auto r = run_in_process(*p, std::vector<Value>{"0000000000000005", "00000000ffffffff", nullptr, nullptr, nullptr}, rng, opts);
  CHECK(r.output == "0000000100000004");
  for (std::uint32_t round = 1; round + 1 < p->rounds(); ++round) {
    CHECK(r.view[round].width() == private_channel::sealed_width(1));
    CHECK(r.view[round].count() == 5 * 4);  // every party to each of its 4 peers
  }
  // The last round: each party's 64 output shares in one message.
  CHECK(r.view.back().count() == 5);
  CHECK(r.view.back().width() == osm::header_bytes + 64);
  // AES-128: 6400 AND gates over 60 layers; a layer's shares travel in messages of at most 1024.
  const auto aes = make_protocol(bundled("aes_128"), 3, bgw());
  const Value d = aes->describe();
  std::size_t gates = 0;
  for (const auto& layer : d["layer_rounds"]) {
    const std::size_t g = layer["and_gates"].get<std::size_t>();
    gates += g;
    const std::size_t chunks = (g + 1023) / 1024;
    CHECK(layer["messages_per_party"] == 2 * chunks);
    CHECK(layer["bytes_per_party"] == 2 * chunks * private_channel::sealed_width(std::min<std::size_t>(g, 1024)));
  }
  CHECK(gates == 6400);
}

TEST_CASE("circuit bgw privacy: party 2's view of x0 AND x1 is the same for (0, 1) and (1, 0), and without fresh reshares it is not" * doctest::test_suite("slow")) {
  // n = 3, t = 1, party 2 corrupted: it holds its shares X0(3), X1(3) of the inputs, the reshares
  // h0(3), h1(3) of the parties' products, and sees every last-round share. With fresh degree-t
  // reshares each received byte is uniform whatever the inputs. Party 2's best test of the
  // hypothesis (x0, x1) = (0, 1): rebuild X0(1) = x0 + (X0(3) - x0)/3 and X1(1) likewise, and
  // check h0(3) == X0(1) X1(1), which holds only with probability 1/256 for fresh reshares. On the
  // constant reshare of the negative control it holds in every run where the hypothesis is true.
  const gf256::Field f;
  const std::uint8_t inv3 = f.inverse(3);
  const auto hypothesis_holds = [&](std::uint8_t x0s, std::uint8_t x1s, std::uint8_t h0) {
    const std::uint8_t a0 = f.mul(static_cast<std::uint8_t>(x0s ^ 0), inv3), a1 = f.mul(static_cast<std::uint8_t>(x1s ^ 1), inv3);
    return h0 == f.mul(static_cast<std::uint8_t>(0 ^ a0), static_cast<std::uint8_t>(1 ^ a1));
  };
  constexpr int runs = 2000;
  // Under fresh reshares the count is about Binomial(2000, 1/256), mean 7.8: P(count >= 60) < 1e-30.
  constexpr int bound = 60;
  for (const bool fault : {false, true}) {
    std::map<std::string, std::vector<std::uint64_t>> hist;  // per input: histograms of the 4 received bytes
    std::map<std::string, int> holds;
    for (const std::string input : {"01", "10"}) {
      struct View {
        std::uint8_t x0s = 0, x1s = 0, h0 = 0, h1 = 0;
      } view;
      Options o = bgw({0, 1});
      o.bgw_fault_fixed_reshare = fault;
      o.observe_bgw = [&view](PartyId party, std::uint32_t round, PartyId from, std::span<const std::uint8_t> plain) {
        if (party != 2) return;
        if (round == 0) (from == 0 ? view.x0s : view.x1s) = plain[0];
        else (from == 0 ? view.h0 : view.h1) = plain[0];
      };
      const auto p = make_protocol(one_and(), 3, o);
      SeededRng rng(fault ? 605 : 604);
      auto& h = hist[input];
      h.assign(4 * 256, 0);
      for (int k = 0; k < runs; ++k) {
        const auto r = run_in_process(*p, std::vector<Value>{input.substr(0, 1), input.substr(1, 1), nullptr}, rng);
        REQUIRE(r.output == "0");
        ++h[view.x0s];
        ++h[256 + view.x1s];
        ++h[512 + view.h0];
        ++h[768 + view.h1];
        holds[input] += hypothesis_holds(view.x0s, view.x1s, view.h0) ? 1 : 0;
      }
    }
    CAPTURE(fault);
    if (!fault) {
      for (const auto& [input, h] : hist)
        for (int coordinate = 0; coordinate < 4; ++coordinate) {
          CAPTURE(input);
          CAPTURE(coordinate);
          std::vector<std::uint64_t> one(h.begin() + 256 * coordinate, h.begin() + 256 * (coordinate + 1));
          CHECK(test::chi_square(one, std::vector<double>(256, 1.0 / 256)).passes());
        }
      CHECK(holds["01"] < bound);
      CHECK(holds["10"] < bound);
    } else {
      // The negative control: the hypothesis test separates the two inputs.
      CHECK(holds["01"] == runs);
      CHECK(holds["10"] < bound);
    }
  }
}

TEST_CASE("circuit bgw privacy: a party's last-round shares are uniform whatever the inputs (chi-square over 2,000 runs)" * doctest::test_suite("slow")) {
  // out = (a & b) ^ c; party 1's share of the output bit at its point is uniform on GF(2^8).
  const auto c = std::make_shared<const Circuit>(parse("2 5\n2 2 1\n1 1\n\n2 1 0 1 3 AND\n2 1 3 2 4 XOR\n", "tiny"));
  const auto p = make_protocol(c, 3, bgw());
  for (const std::vector<Value>& inputs : {std::vector<Value>{"3", "1", nullptr}, std::vector<Value>{"0", "0", nullptr}}) {
    SeededRng rng(606);
    RunOptions opts;
    opts.record_view = true;
    std::vector<std::uint64_t> counts(256, 0);
    for (int run = 0; run < 2000; ++run) {
      const auto r = run_in_process(*p, inputs, rng, opts);
      REQUIRE(r.output == "0");
      const MessageBatch& last = r.view.back();
      for (std::size_t i = 0; i < last.count(); ++i)
        if (osm::read_header(last[i]).b == 1) ++counts[last[i][osm::header_bytes]];
    }
    CHECK(test::chi_square(counts, std::vector<double>(256, 1.0 / 256)).passes());
  }
}

TEST_CASE("circuit bgw bad input: thresholds, too many parties, a wrong last-round share, a forged reshare and dropouts get one clear line") {
  const auto adder = bundled("adder64");
  CHECK(error_text([&] { (void)make_protocol(adder, 7, bgw({}, 4)); }).find("variant bgw tolerates at most floor((n - 1) / 2) = 3 parties for n = 7") !=
        std::string::npos);
  CHECK(error_text([&] { (void)make_protocol(adder, 256, bgw()); }).find("at most 255 parties, got 256") != std::string::npos);
  const Registry reg = builtin_registry();
  CHECK(reg.create("circuit", {{"variant", "bgw"}}, 5)->rounds() == 65);
  const auto p = make_protocol(adder, 4, bgw());
  const std::vector<Value> inputs = {"0000000000000005", "0000000000000007", nullptr, nullptr};
  // A party that sends a wrong share of an output bit: the others lie on one polynomial, it does not.
  const std::string lie = error_text([&] {
    (void)test::run_tampered(*p, inputs, [&](std::uint32_t round, PartyId party, MessageBatch& all, std::size_t first, std::size_t) {
      if (round + 1 != p->rounds() || party != 3) return;
      all[first][osm::header_bytes + 5] ^= 0x40;
    }, 607);
  });
  CHECK(lie.find("output bit 5: the last round's shares do not lie on one polynomial of degree 1") != std::string::npos);
  // A reshare altered on the way fails its MAC at the recipient.
  const std::string forged = error_text([&] {
    (void)test::run_tampered(*p, inputs, [](std::uint32_t round, PartyId party, MessageBatch& all, std::size_t first, std::size_t) {
      if (round != 3 || party != 1) return;
      all[first][all.width() - 1] ^= 1;
    }, 608);
  });
  CHECK(forged.find("fails authentication") != std::string::npos);
  // A party gone after round 0: the degree reduction needs everyone.
  SeededRng rng(609);
  RunOptions drop;
  drop.min_parties = 3;
  drop.dropouts = {{2, 2}};
  CHECK(error_text([&] { (void)run_in_process(*p, inputs, rng, drop); }).find("3 of 4 parties sent round 3; bgw's degree reduction needs every party") !=
        std::string::npos);
}
