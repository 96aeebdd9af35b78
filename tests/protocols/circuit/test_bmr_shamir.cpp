// v2 (multi-party BMR with t + 1 garblers, degree 3 in Shamir shares over GF(2^8)), the computations
// without a channel: every party's round-2 share from real shares, XORed and evaluated, against plain
// evaluation and the published vectors; the public masked values' distribution by exact enumeration
// with whichever garbler is the honest one, with bug-injected negative controls; the degree bound.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>
#include <system_error>
#include <utility>

#include "shufflempc/protocols/circuit/bmr_shamir.hpp"
#include "shufflempc/protocols/circuit/bristol.hpp"
#include "protocols/circuit/bmr_shamir_sim.hpp"
#include "protocols/circuit/random_circuit.hpp"
#include "protocols/circuit/views.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/random.hpp"
#include "support/paths.hpp"

namespace {

using namespace shufflempc;
using namespace shufflempc::circuit;
using shufflempc::test::bits_of;
using shufflempc::test::equal_within_outputs;
using shufflempc::test::Views;

std::vector<Seed> seeds(Rng& rng, std::size_t garblers) {
  std::vector<Seed> s(garblers);
  for (auto& x : s) x = random_seed(rng);
  return s;
}

constexpr std::pair<std::size_t, std::size_t> settings[] = {{4, 1}, {5, 1}, {7, 1}, {7, 2}, {10, 3}};

}  // namespace

TEST_CASE("bmr_shamir: 200 random circuits at (n, t) = (4, 1), (5, 1), (7, 1), (7, 2), (10, 3) agree with plain evaluation, either hash") {
  SeededRng rng(311);
  for (int trial = 0; trial < 200; ++trial) {
    const auto in = static_cast<std::uint32_t>(2 + rng.uniform(6));
    const Circuit c = test::random_circuit(rng, in / 2, in - in / 2, static_cast<std::uint32_t>(1 + rng.uniform(40)),
                                           static_cast<std::uint32_t>(1 + rng.uniform(6)));
    const auto [n, t] = settings[trial % 5];
    const bmr_shamir::Plan p(c, n, t, trial % 2 == 0 ? GarblingHash::aes : GarblingHash::chacha20);
    const auto x = bits_of(rng.next_u64(), in);
    REQUIRE(test::simulate_bmr_shamir(p, x, seeds(rng, t + 1), rng).output == evaluate(c, x));
  }
  // A circuit without gates: the outputs are the inputs.
  const Circuit id = parse("0 3\n1 3\n1 3\n", "identity");
  const bmr_shamir::Plan p(id, 4, 1, GarblingHash::aes);
  for (std::uint64_t v = 0; v < 8; ++v) CHECK(test::simulate_bmr_shamir(p, bits_of(v, 3), seeds(rng, 2), rng).output == bits_of(v, 3));
}

TEST_CASE("bmr_shamir: AES-128 and SHA-256 through the garbled circuit give the published vectors at (n, t) = (4, 1) and (7, 2)") {
  SeededRng rng(312);
  const auto run = [&](const std::string& file, const std::vector<std::string>& hex, std::size_t n, std::size_t t) {
    const Circuit c = load(std::string(SHUFFLEMPC_CIRCUITS_DIR) + "/" + file);
    std::vector<std::uint8_t> x;
    for (std::size_t g = 0; g < hex.size(); ++g) {
      const auto b = bits_from_hex(hex[g], c.inputs[g], "input");
      x.insert(x.end(), b.begin(), b.end());
    }
    const bmr_shamir::Plan p(c, n, t, GarblingHash::aes);
    return hex_from_bits(test::simulate_bmr_shamir(p, x, seeds(rng, t + 1), rng).output);
  };
  for (const auto& [n, t] : {std::pair<std::size_t, std::size_t>{4, 1}, {7, 2}}) {
    CAPTURE(n);
    CHECK(run("aes_128.txt", {"000102030405060708090a0b0c0d0e0f", "00112233445566778899aabbccddeeff"}, n, t) ==
          "69c4e0d86a7b0430d8cdb78070b4c55a");
    const std::string block = "61626380" + std::string(104, '0') + "0000000000000018";
    CHECK(run("sha256.txt", {block, "6a09e667bb67ae853c6ef372a54ff53a510e527f9b05688c1f83d9ab5be0cd19"}, n, t) ==
          "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  }
}

namespace {

// The public masked values Lambda_w of every wire and the output masks for every input of `c`, the
// garbler `honest` the only one whose mask bits are hidden: its masks enumerated, every other
// garbler's fixed (the coalition of the other t garblers knows them). `bug` edits the honest
// garbler's masks after the enumeration sets them. Per output value, the multisets of views of each
// input with that output; the scheme is private when they are all equal.
Views lambda_views(const Circuit& c, std::size_t n, std::size_t t, int honest, const std::function<void(const bmr::Layout&, bmr::Garbler&)>& bug) {
  const bmr_shamir::Plan p(c, n, t, GarblingHash::aes);
  const bmr::Layout& l = p.layout;
  SeededRng rng(0x2b3c);
  const auto s = seeds(rng, t + 1);
  Views views;
  for (std::uint64_t x = 0; x < (std::uint64_t{1} << l.inputs); ++x) {
    const auto in = bits_of(x, l.inputs);
    std::vector<std::string> seen;
    std::vector<std::uint8_t> out;
    for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << l.fresh_wires); ++mask) {
      const auto r = test::simulate_bmr_shamir(p, in, s, rng, [&](bmr::Garbler& g) {
        if (g.j != honest) return;
        g.lambda = bits_of(mask, l.fresh_wires);
        if (bug) bug(l, g);
      });
      out = r.output;
      std::string view(r.masked.begin(), r.masked.end());
      const auto masks = std::span(r.payload).subspan(p.masks_offset());
      view.append(masks.begin(), masks.end());  // the published output masks
      seen.push_back(std::move(view));
    }
    std::sort(seen.begin(), seen.end());
    REQUIRE(out == evaluate(c, in));
    views[std::string(out.begin(), out.end())].push_back(std::move(seen));
  }
  return views;
}

}  // namespace

TEST_CASE("bmr_shamir privacy: the public masked values have one distribution for all inputs with equal outputs, whichever garbler is honest (exact enumeration)" * doctest::test_suite("slow")) {
  // out = (a & b) ^ (c & d), then NOT of it through an INV and an XOR with a constant: six fresh wires.
  const Circuit c = parse("6 10\n2 2 2\n1 1\n\n2 1 0 1 4 AND\n2 1 2 3 5 AND\n2 1 4 5 6 XOR\n1 1 6 7 INV\n1 1 1 8 EQ\n2 1 7 8 9 XOR\n", "tiny");
  for (const auto& [n, t] : {std::pair<std::size_t, std::size_t>{4, 1}, {7, 2}}) {
    for (int honest = 0; honest <= static_cast<int>(t); ++honest) {
      CAPTURE(n);
      CAPTURE(honest);
      const auto views = lambda_views(c, n, t, honest, {});
      CHECK(views.size() == 2);
      CHECK(equal_within_outputs(views));
    }
  }
  // Negative controls, which must fail: the honest garbler masks its AND outputs with 0, or reuses an
  // input's mask on the first AND output.
  const auto zero_and_masks = [](const bmr::Layout& l, bmr::Garbler& g) {
    for (std::size_t f = l.inputs; f < l.fresh_wires; ++f) g.lambda[f] = 0;
  };
  const auto reuse_mask = [](const bmr::Layout& l, bmr::Garbler& g) { g.lambda[l.inputs] = g.lambda[0]; };
  CHECK_FALSE(equal_within_outputs(lambda_views(c, 4, 1, 0, zero_and_masks)));
  CHECK_FALSE(equal_within_outputs(lambda_views(c, 7, 2, 2, zero_and_masks)));
  CHECK_FALSE(equal_within_outputs(lambda_views(c, 7, 2, 1, reuse_mask)));
}

TEST_CASE("bmr_shamir: the degree bound 3t <= n - 1 is enforced, and a share off its polynomial is caught or changes the output") {
  const Circuit c = parse("1 3\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n", "and");
  CHECK_THROWS_AS(bmr_shamir::Plan(c, 6, 2, GarblingHash::aes), std::invalid_argument);  // 3t = 6 > 5
  CHECK_THROWS_AS(bmr_shamir::Plan(c, 3, 1, GarblingHash::aes), std::invalid_argument);
  CHECK_THROWS_AS(bmr_shamir::Plan(c, 7, 0, GarblingHash::aes), std::invalid_argument);
  CHECK_NOTHROW(bmr_shamir::Plan(c, 7, 2, GarblingHash::aes));
  // With only 3t points the degree-3t products do not interpolate: evaluating the XOR of n - 1 of the
  // n payloads gives the wrong AND on some input (as a Plan for n = 3t + 1 whose last party is silent).
  SeededRng rng(313);
  const bmr_shamir::Plan p(c, 4, 1, GarblingHash::aes);
  bool wrong = false, refused = false;
  for (std::uint64_t v = 0; v < 4; ++v)
    for (int rep = 0; rep < 8; ++rep) {
      auto r = test::simulate_bmr_shamir(p, bits_of(v, 2), seeds(rng, 2), rng);
      for (std::size_t b = 0; b < r.payload.size(); ++b) r.payload[b] ^= r.shares[3][b];
      try {
        wrong |= bmr_shamir::evaluate(p, r.payload) != evaluate(c, bits_of(v, 2));
      } catch (const std::system_error& e) {
        refused = true;
        CHECK(std::string(e.what()).find("not a bit") != std::string::npos);
      }
    }
  CHECK((wrong || refused));
  // A masked input interpolating to 2 is refused with the wire it names.
  auto r = test::simulate_bmr_shamir(p, bits_of(1, 2), seeds(rng, 2), rng);
  r.payload[p.masked_offset() + 1] ^= 2;
  try {
    (void)bmr_shamir::evaluate(p, r.payload);
    FAIL("a masked value of 2 was accepted");
  } catch (const std::system_error& e) {
    CHECK(e.code() == Errc::protocol_violation);
    CHECK(std::string(e.what()).find("input wire 1") != std::string::npos);
  }
}

namespace {

// Whether the parties outside `coalition` stay connected by pad pairs among themselves.
bool honest_connected(std::size_t n, std::size_t reach, const std::vector<bool>& coalition) {
  std::vector<bool> seen(n, false);
  std::vector<PartyId> stack;
  std::size_t honest = 0, reached = 0;
  for (PartyId p = 0; p < n; ++p)
    if (!coalition[p]) {
      ++honest;
      if (stack.empty()) {
        stack.push_back(p);
        seen[p] = true;
      }
    }
  while (!stack.empty()) {
    const PartyId p = stack.back();
    stack.pop_back();
    ++reached;
    for (PartyId q = 0; q < n; ++q)
      if (!coalition[q] && !seen[q] && bmr_shamir::pad_pair(n, reach, p, q)) {
        seen[q] = true;
        stack.push_back(q);
      }
  }
  return reached == honest;
}

// Whether every coalition of t parties leaves the honest ones connected (all C(n, t) of them).
bool survives_every_coalition(std::size_t n, std::size_t t, std::size_t reach) {
  std::vector<bool> coalition(n, false);
  std::fill(coalition.begin(), coalition.begin() + static_cast<std::ptrdiff_t>(t), true);
  std::sort(coalition.begin(), coalition.end());
  do {
    if (!honest_connected(n, reach, coalition)) return false;
  } while (std::next_permutation(coalition.begin(), coalition.end()));
  return true;
}

}  // namespace

TEST_CASE("bmr_shamir: the zero-sum pad's pairs keep the honest parties connected against every coalition of t, for n = 4 to 16") {
  for (std::size_t n = 4; n <= 16; ++n)
    for (std::size_t t = 1; 3 * t <= n - 1; ++t) {
      CAPTURE(n);
      CAPTURE(t);
      CHECK(survives_every_coalition(n, t, bmr_shamir::pad_reach(t)));
      // Each party pads with 2 ceil((t + 1) / 2) peers (all n - 1 when that is more).
      std::size_t peers = 0;
      for (PartyId q = 1; q < n; ++q) peers += bmr_shamir::pad_pair(n, bmr_shamir::pad_reach(t), 0, q) ? 1 : 0;
      CHECK(peers == std::min(n - 1, 2 * bmr_shamir::pad_reach(t)));
    }
  // Negative control: a plain ring (reach 1) is cut by two parties, so it would not do for t = 2.
  CHECK_FALSE(survives_every_coalition(7, 2, 1));
  CHECK_FALSE(survives_every_coalition(10, 3, 1));
  CHECK(survives_every_coalition(7, 1, 1));
}
