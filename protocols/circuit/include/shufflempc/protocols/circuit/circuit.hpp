// circuit: any Boolean circuit in Bristol Fashion in exactly two shuffle rounds, with round 1's
// private messages carried by one-round secret messages (OSM) through the shuffle itself.
//
//   v1  BMR with two garblers (parties 0 and 1) and a helper (party 2); parties 3.. are input-only
//       clients. Round 1 (MPC mode): OSM chaff, replicated shares of the garblers' values and of
//       every input bit. Round 2 (MPC mode by default): each computing party's additive share of
//       the garbled circuit, its active input labels and its output masks, under a zero-sum pad.
//       Semi-honest; private against ONE corrupted computing party plus any number of clients even
//       when everyone sees everything (threshold 1: faithful at n = 3, below t < n/2 beyond).
//   v2  BMR with t + 1 garblers (parties 0..t), t = floor((n - 1) / 3), every party computing. Round 1
//       (MPC mode): OSM chaff, each garbler's masks and Delta and every input bit Shamir-shared at
//       degree t over GF(2^8). Round 2: each party's share of the garbled circuit, whose rows are
//       degree-3 polynomials in the shared values (3t <= n - 1 points interpolate them), under a
//       zero-sum pad from every pair's key. Semi-honest; private against ANY t parties even when
//       everyone sees both rounds: the lectures' two-round theorem for t < n/3 at every n.
//   v3  a designated garbler (party 0) garbles alone with half-gates and publishes the garbled
//       circuit in round 1; every party Shamir-shares its input bits and the garbler Delta over
//       GF(2^128), t < n/2. Round 2 (ESA mode only: the analyzer alone sees it) selects each input
//       wire's label k_0 + x Delta by a degree-2t sharing. Private against the analyzer plus t
//       parties other than the garbler; THE GARBLER AND THE ANALYZER TOGETHER LEARN EVERY INPUT.
//   bgw the many-round baseline: BGW over GF(2^8), t < n/2, in AND-depth + 2 rounds. Round 1: OSM
//       chaff and every input bit's Shamir shares (its pairwise keys make the private channels of
//       the next rounds). One round per layer of AND gates: each party reshares its products at
//       degree t to every peer through private channels, one byte per gate per peer, and
//       recombines what it receives (degree reduction). Last round: every party's shares of the
//       outputs, interpolated by whoever receives them. Semi-honest, private against any t parties
//       even when everyone sees every round; many rounds, few bytes per gate.
//
// docs/two-round-mpc.md gives both variants side by side: threat models, rounds, bytes, figures.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "shufflempc/protocols/circuit/bristol.hpp"
#include "shufflempc/protocols/circuit/garble.hpp"
#include "shufflempc/registry.hpp"
#include "shufflempc/secret_messages.hpp"

namespace shufflempc::circuit {

// The constructions: two rounds (named by who garbles; the CLI and the docs call them v1, v2 and v3),
// and the many-round baseline the CLI calls bgw.
enum class Variant { two_garblers, designated_garbler, bgw, many_garblers };
[[nodiscard]] const char* to_string(Variant v);

struct Options {
  Variant variant = Variant::two_garblers;
  std::vector<PartyId> owners;  // party owning each input group; empty: group g -> party g mod n
  std::size_t threshold = 0;    // corruptions asked for; 0: the variant's largest
  Delivery delivery = Delivery::all_parties;  // round 2 (v1); v3 runs in ESA mode only
  std::size_t chaff = 0;        // OSM chaff labels per pair (0: 160)
  GarblingHash hash = GarblingHash::aes;  // the garbling hash (garble.hpp)

  // For the tests of bgw's privacy only. observe_bgw is called with every plaintext a party opens:
  // in round 0 each peer's shares of its input bits, in a layer round each peer's reshares (one
  // byte per AND gate). bgw_fault_fixed_reshare is the negative control: every product is reshared
  // on the constant polynomial, with no fresh randomness, and the degree reduction leaks.
  std::function<void(PartyId party, std::uint32_t round, PartyId from, std::span<const std::uint8_t> plaintext)> observe_bgw;
  bool bgw_fault_fixed_reshare = false;
};

// Throws std::invalid_argument naming the parameter (variant, threshold, owners, delivery, chaff,
// min-parties) on a bad combination.
[[nodiscard]] std::unique_ptr<Protocol> make_protocol(std::shared_ptr<const Circuit> circuit, std::size_t parties, const Options& options,
                                                      std::size_t min_parties = 0);

// The --random-inputs forms: uniform (every input bit a fair coin), the only one.
[[nodiscard]] const std::vector<InputForm>& input_forms();

}  // namespace shufflempc::circuit
