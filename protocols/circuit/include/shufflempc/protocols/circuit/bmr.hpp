// V1: BMR with two garblers and a helper (docs/two-round-mpc.md, "v1 step by step"), the pure computations.
//
// Computing parties G1 = 0 and G2 = 1 garble (free-XOR, point-and-permute, the garbling hash of
// garble.hpp); the helper H = 2 only computes. Every product in a garbled row of multi-party BMR
// with two garblers involves at most two parties, so round 1 replicated-secret-shares (RSS over
// GF(2), party k holds shares k and k+1 of three) each garbler's values and every input bit, and
// round 2 publishes each computing party's additive share of the whole garbled circuit, masked by
// a zero-sum of pairwise PRF pads. Whoever XORs the three round-2 payloads holds the garbled
// circuit, the active input labels and the output masks, and evaluates.
//
// Garbler j's dealt values (j = 0 for G1, 1 for G2): the vectors Delta^j and lambda^j_w Delta^j
// for every fresh wire w (circuit inputs and AND outputs), and the bits lambda^j_w and, per AND gate
// (a, b -> c), lambda^j_a lambda^j_b. The garbled row (alpha, beta) of component j is
//   R^j = xor_i [H(k^i_a ^ alpha Delta^i)[j, beta] ^ H(k^i_b ^ beta Delta^i)[j, alpha]] ^ k^j_c ^ chi Delta^j,
//   chi Delta^j = (G_j-local terms) ^ lambda^o_b (lambda^j_a Delta^j) ^ lambda^o_a (lambda^j_b Delta^j)
//                 ^ (lambda^o_a lambda^o_b ^ beta lambda^o_a ^ alpha lambda^o_b ^ lambda^o_c) Delta^j,
// o the other garbler: RSS products of a bit dealt by G_o and a vector dealt by G_j.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "shufflempc/protocols/circuit/bristol.hpp"
#include "shufflempc/protocols/circuit/garble.hpp"

namespace shufflempc::circuit::bmr {

inline constexpr std::uint32_t computing_parties = 3;  // G1 = 0, G2 = 1, helper = 2

// The circuit's fresh wires and the sizes of everything.
struct Layout {
  explicit Layout(const Circuit& c);
  const Circuit* circuit;
  std::vector<std::uint32_t> fresh;  // per wire: its fresh index, or no_fresh
  static constexpr std::uint32_t no_fresh = ~std::uint32_t{0};
  std::size_t fresh_wires = 0, ands = 0, inputs = 0, outputs = 0;
  GarblingHash hash = GarblingHash::aes;  // the garbling hash (the protocol's `hash` parameter)

  [[nodiscard]] std::size_t vectors() const { return 1 + fresh_wires; }  // Delta, then lambda_w Delta
  [[nodiscard]] std::size_t bits() const { return fresh_wires + ands; }  // lambda_w, then lambda_a lambda_b
  [[nodiscard]] std::size_t dealt_bytes() const { return vectors() * block_bytes + (bits() + 7) / 8; }
  // Round 2: 4 rows x 2 components per AND gate, 2 labels per input wire, then the bits Lambda_w of
  // the inputs and lambda_o of the outputs.
  [[nodiscard]] std::size_t rows_offset() const { return 0; }
  [[nodiscard]] std::size_t labels_offset() const { return ands * 8 * block_bytes; }
  [[nodiscard]] std::size_t bits_offset() const { return labels_offset() + inputs * 2 * block_bytes; }
  [[nodiscard]] std::size_t payload_bytes() const { return bits_offset() + (inputs + outputs + 7) / 8; }
};

// Garbler j's secrets, all from one seed: Delta (lsb 1 for G1, whose keys have lsb 0, so that the
// evaluator reads Lambda_w = lsb(K^1_w)), a mask bit and a 0-key per fresh wire.
struct Garbler {
  int j = 0;
  Block delta;
  std::vector<std::uint8_t> lambda;  // per fresh wire
  std::vector<Block> key;            // per fresh wire
};
[[nodiscard]] Garbler make_garbler(const Layout& l, int j, const Seed& seed);

// A set of dealt values (or one RSS share of one).
struct Dealt {
  std::vector<Block> vec;          // layout.vectors()
  std::vector<std::uint8_t> bit;   // layout.bits(), one byte per bit
  Dealt& operator^=(const Dealt& o);
};
[[nodiscard]] Dealt dealt_values(const Layout& l, const Garbler& g);
// A pseudorandom share from a seed.
[[nodiscard]] Dealt stream_dealt(const Layout& l, const Seed& seed);
[[nodiscard]] std::vector<std::uint8_t> encode(const Layout& l, const Dealt& d);
[[nodiscard]] Dealt decode(const Layout& l, std::span<const std::uint8_t> bytes);

template <class T>
struct Pair {
  T first;   // share k of party k
  T second;  // share k + 1
};

// The dealing of round 1, RSS shares s_0 ^ s_1 ^ s_2 = v, party k holding (s_k, s_{k+1}):
//   G1's values: s_1, s_2 from seeds derived from G1's master seed; G2 receives those two seeds and
//     the helper the master seed itself (it co-knows G1's garbling secrets, never G2's), so G1's
//     dealing costs 96 bytes;
//   G2's values: s_1 from a seed sent to G1, s_0 from a seed sent to G1 and the helper, and the
//     explicit s_2 = v ^ s_0 ^ s_1 sent to the helper (dealt_bytes()).
struct G1Seeds {
  Seed s1, s2;
  [[nodiscard]] static G1Seeds of(const Seed& master) { return {derive_seed(master, "bmr/g1/s1"), derive_seed(master, "bmr/g1/s2")}; }
};
struct G2Seeds {
  Seed s0, s1;
  [[nodiscard]] static G2Seeds of(const Seed& master) { return {derive_seed(master, "bmr/g2/s0"), derive_seed(master, "bmr/g2/s1")}; }
};
// G1's (k = 0) or the helper's (k = 2) shares of G1's values, from G1's master seed.
[[nodiscard]] Pair<Dealt> g1_shares_from_master(const Layout& l, PartyId k, const Seed& master);
// G2's shares (s_1, s_2) of G1's values.
[[nodiscard]] Pair<Dealt> g1_shares_of_g2(const Layout& l, const G1Seeds& seeds);
// G2's own shares (s_1, s_2) of its values and the explicit s_2 for the helper.
[[nodiscard]] Pair<Dealt> g2_own_shares(const Layout& l, const Seed& master);
// G1's shares (s_0, s_1) of G2's values.
[[nodiscard]] Pair<Dealt> g2_shares_of_g1(const Layout& l, const G2Seeds& seeds);
// The helper's shares (s_2, s_0) of G2's values.
[[nodiscard]] Pair<Dealt> g2_shares_of_helper(const Layout& l, Dealt explicit_s2, const G2Seeds& seeds);

// Replicated shares s_0 ^ s_1 ^ s_2 = bits of an input owner's bits, s_0 and s_1 fresh from `rng`.
[[nodiscard]] std::array<std::vector<std::uint8_t>, 3> rss_split(std::span<const std::uint8_t> bits, Rng& rng);

// What a computing party holds after round 1.
struct Holdings {
  PartyId k = 0;
  std::array<Pair<Dealt>, 2> dealt;          // of G1's and of G2's values
  Pair<std::vector<std::uint8_t>> x;         // of every input bit (layout.inputs)
  std::optional<Garbler> own;                // its garbling secrets, if k is a garbler
};

// Garbler g's hash terms of every AND gate XORed into the garbled rows at `rows` (garblers x 4 blocks
// per gate, component j's row 2 alpha + beta at 4 j + 2 alpha + beta): H(k_a ^ alpha Delta, g, 0)[2 j +
// beta] ^ H(k_b ^ beta Delta, g, 1)[2 j + alpha], from its 0-key of every wire (`keys`), 16 gates
// through the garbling hash at a time. v1 and v2 garblers both call it.
void xor_hash_terms(const Layout& l, std::size_t garblers, const Garbler& g, std::span<const Block> keys, std::uint8_t* rows);

// Party k's additive share of the round-2 payload (before the zero-sum pad).
[[nodiscard]] std::vector<std::uint8_t> round2_share(const Layout& l, const Holdings& h);

// A garbled circuit of multi-party BMR with G garblers (v1: G = 2; v2: G = t + 1), as the evaluator
// holds it: per AND gate 4 G blocks (component j of row 2 alpha + beta at 4 j + 2 alpha + beta), per
// input wire the G components of its active label (at G w + j) and its public masked value Lambda_w,
// per output wire its mask lambda_o.
struct Garbled {
  std::size_t garblers = 2;
  std::span<const std::uint8_t> rows, labels, input_masked, output_masks;
};
// Evaluates it: XOR gates on labels, AND gates by the row (Lambda_a, Lambda_b) and every garbler's
// hash of its active labels, Lambda_c = lsb(K^0_c); the output bits are Lambda_o ^ lambda_o. `masked`
// and `g1_keys` as for evaluate below.
[[nodiscard]] std::vector<std::uint8_t> evaluate_garbled(const Layout& l, const Garbled& gc, std::vector<std::uint8_t>* masked = nullptr,
                                                         std::vector<Block>* g1_keys = nullptr);

// Evaluates the XOR of the round-2 payloads; returns the output bits. `masked`, if given, receives
// the public masked value Lambda_w of every wire; `g1_keys` G1's component K^1_w of every active
// label (G1 can check each against its k^1_w and k^1_w ^ Delta^1: a forged label shows there).
[[nodiscard]] std::vector<std::uint8_t> evaluate(const Layout& l, std::span<const std::uint8_t> payload,
                                                 std::vector<std::uint8_t>* masked = nullptr, std::vector<Block>* g1_keys = nullptr);

}  // namespace shufflempc::circuit::bmr
