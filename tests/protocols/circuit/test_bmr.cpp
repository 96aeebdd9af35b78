// V1 (BMR with two garblers and a helper), the computations without a channel: every party's
// round-2 share from real RSS shares, XORed and evaluated, against plain evaluation; the public
// masked values' distribution by exact enumeration, with bug-injected negative controls.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>


#include "shufflempc/protocols/circuit/bmr.hpp"
#include "shufflempc/protocols/circuit/bristol.hpp"
#include "protocols/circuit/bmr_sim.hpp"
#include "protocols/circuit/random_circuit.hpp"
#include "protocols/circuit/views.hpp"
#include "shufflempc/random.hpp"
#include "support/paths.hpp"

namespace {

using namespace shufflempc;
using namespace shufflempc::circuit;
using shufflempc::test::bits_of;
using shufflempc::test::equal_within_outputs;
using shufflempc::test::Views;

}  // namespace

TEST_CASE("bmr: 300 random circuits (AND(a,a), INV chains, constants, outputs that are inputs) agree with plain evaluation") {
  SeededRng rng(301);
  for (int t = 0; t < 300; ++t) {
    const auto in = static_cast<std::uint32_t>(2 + rng.uniform(6));
    const Circuit c = test::random_circuit(rng, in / 2, in - in / 2, static_cast<std::uint32_t>(1 + rng.uniform(40)),
                                           static_cast<std::uint32_t>(1 + rng.uniform(6)));
    const bmr::Layout l(c);
    const auto x = bits_of(rng.next_u64(), in);
    const auto r = test::simulate_bmr(l, x, random_seed(rng), random_seed(rng), rng);
    REQUIRE(r.output == evaluate(c, x));
  }
  // A circuit without gates: the outputs are the inputs.
  const Circuit id = parse("0 3\n1 3\n1 3\n", "identity");
  const bmr::Layout l(id);
  for (std::uint64_t v = 0; v < 8; ++v) CHECK(test::simulate_bmr(l, bits_of(v, 3), random_seed(rng), random_seed(rng), rng).output == bits_of(v, 3));
}

TEST_CASE("bmr: AES-128 and SHA-256 through the garbled circuit give the published vectors") {
  SeededRng rng(302);
  const auto run = [&](const std::string& file, const std::vector<std::string>& hex) {
    const Circuit c = load(std::string(SHUFFLEMPC_CIRCUITS_DIR) + "/" + file);
    std::vector<std::uint8_t> x;
    for (std::size_t g = 0; g < hex.size(); ++g) {
      const auto b = bits_from_hex(hex[g], c.inputs[g], "input");
      x.insert(x.end(), b.begin(), b.end());
    }
    const bmr::Layout l(c);
    return hex_from_bits(test::simulate_bmr(l, x, random_seed(rng), random_seed(rng), rng).output);
  };
  CHECK(run("aes_128.txt", {"000102030405060708090a0b0c0d0e0f", "00112233445566778899aabbccddeeff"}) ==
        "69c4e0d86a7b0430d8cdb78070b4c55a");
  std::string block = "61626380" + std::string(104, '0') + "0000000000000018";
  CHECK(run("sha256.txt", {block, "6a09e667bb67ae853c6ef372a54ff53a510e527f9b05688c1f83d9ab5be0cd19"}) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

namespace {

// The public masked values Lambda_w of every wire and the output masks, as the corrupted party
// `corrupt` sees them, for every input of `c`: its own garbler's (or, for the helper, G1's)
// randomness fixed, the honest garbler's mask bits enumerated. `edit` injects a bug into the
// honest garbler's masks after the enumeration sets them. Returns, per output value, the multisets
// of views of each input with that output; the scheme is private when they are all equal.
Views lambda_views(const Circuit& c, PartyId corrupt, const std::function<void(const bmr::Layout&, bmr::Garbler&)>& bug) {
  const bmr::Layout l(c);
  SeededRng rng(0x1a3b);
  const Seed m1 = random_seed(rng), m2 = random_seed(rng);
  const int honest = corrupt == 1 ? 0 : 1;  // G2 corrupt: G1 is the hidden garbler; G1 or helper corrupt: G2 is
  Views views;
  for (std::uint64_t x = 0; x < (std::uint64_t{1} << l.inputs); ++x) {
    const auto in = bits_of(x, l.inputs);
    std::vector<std::string> seen;
    std::vector<std::uint8_t> out;
    for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << l.fresh_wires); ++mask) {
      const auto r = test::simulate_bmr(l, in, m1, m2, rng, [&](bmr::Garbler& g) {
        if (g.j != honest) return;
        g.lambda = bits_of(mask, l.fresh_wires);
        if (bug) bug(l, g);
      });
      out = r.output;
      std::string view(r.masked.begin(), r.masked.end());
      std::vector<std::uint8_t> bits(l.inputs + l.outputs);
      unpack_bits(std::span(r.payload).subspan(l.bits_offset()), bits);
      view.append(bits.begin() + static_cast<std::ptrdiff_t>(l.inputs), bits.end());  // the published output masks
      seen.push_back(std::move(view));
    }
    std::sort(seen.begin(), seen.end());
    REQUIRE(out == evaluate(c, in));
    views[std::string(out.begin(), out.end())].push_back(std::move(seen));
  }
  return views;
}

}  // namespace

TEST_CASE("bmr privacy: the public masked values have one distribution for all inputs with equal outputs (exact enumeration)") {
  // out = (a & b) ^ (c & d), then NOT of it through an INV and an XOR with a constant: six fresh wires.
  const Circuit c = parse("6 10\n2 2 2\n1 1\n\n2 1 0 1 4 AND\n2 1 2 3 5 AND\n2 1 4 5 6 XOR\n1 1 6 7 INV\n1 1 1 8 EQ\n2 1 7 8 9 XOR\n", "tiny");
  for (PartyId corrupt = 0; corrupt < 3; ++corrupt) {
    CAPTURE(corrupt);
    const auto views = lambda_views(c, corrupt, {});
    CHECK(views.size() == 2);
    CHECK(equal_within_outputs(views));
  }
  // Negative controls, which must fail. The hidden garbler masks its AND outputs with 0:
  const auto zero_and_masks = [](const bmr::Layout& l, bmr::Garbler& g) {
    for (std::size_t f = l.inputs; f < l.fresh_wires; ++f) g.lambda[f] = 0;
  };
  CHECK_FALSE(equal_within_outputs(lambda_views(c, 0, zero_and_masks)));
  CHECK_FALSE(equal_within_outputs(lambda_views(c, 1, zero_and_masks)));
  // ... or reuses an input's mask on an AND output (lambda_c := lambda_a for the first gate):
  const auto reuse_mask = [](const bmr::Layout& l, bmr::Garbler& g) { g.lambda[l.inputs] = g.lambda[0]; };
  CHECK_FALSE(equal_within_outputs(lambda_views(c, 2, reuse_mask)));
}
