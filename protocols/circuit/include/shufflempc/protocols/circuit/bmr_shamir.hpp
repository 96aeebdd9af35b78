// v2: multi-party BMR with t + 1 garblers, every party computing, private against any t <= (n - 1) / 3
// parties even when everyone sees both rounds (docs/two-round-mpc.md, "v2 step by step"). The pure
// computations; circuit/many_garblers.cpp runs them over the shuffle.
//
// Garblers i = 0..t each draw Delta^i, a mask bit lambda^i_w and a 0-key k^i_w per fresh wire (bmr.hpp's
// Garbler; free-XOR, point-and-permute on lsb(K^0)). The garbled row (alpha, beta) of component j of
// AND gate (a, b -> c) is
//   R^j = xor_i [H(k^i_a ^ alpha Delta^i)[j, beta] ^ H(k^i_b ^ beta Delta^i)[j, alpha]] ^ k^j_c ^ chi Delta^j,
//   chi = (lambda_a ^ alpha)(lambda_b ^ beta) ^ lambda_c,  lambda_w = xor_i lambda^i_w.
// With t + 1 garblers chi Delta^j has monomials of three parties' values: degree 3. Round 1 shares every
// garbler's mask bits and the bytes of its Delta, and every input bit, at degree t over GF(2^8) (a bit is
// the element 0 or 1, and XOR is the field's addition, so XOR-derived masks are sums of shares). Party k
// evaluates Q_k = ((s_a + alpha)(s_b + beta) + s_c) [Delta^j]_k bytewise: a point of a polynomial of
// degree 3t <= n - 1 through chi Delta^j, so sum_k L_k Q_k = chi Delta^j over all n points (L_k the
// Lagrange coefficients at 0). Round 2: party k publishes L_k Q_k for every row, plus its hash terms and
// k^k_c if it garbles, and the same for the input labels K^j_w = k^j_w ^ (x_w ^ lambda_w) Delta^j
// (degree 2t), the masked inputs Lambda_w = x_w ^ lambda_w and the output masks (degree t), all under a
// zero-sum pad from pair keys (pad_pair below). The XOR of the n payloads is the garbled circuit.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "shufflempc/protocols/circuit/bmr.hpp"
#include "shufflempc/protocols/circuit/garble.hpp"
#include "shufflempc/random.hpp"

namespace shufflempc::circuit::bmr_shamir {

// The sizes of a run with n parties and threshold t (1 <= t, 3t <= n - 1, n <= 255).
struct Plan {
  Plan(const Circuit& c, std::size_t parties, std::size_t threshold, GarblingHash hash);
  bmr::Layout layout;
  std::size_t n = 0, t = 0, garblers = 0;  // garblers = t + 1: parties 0..t
  std::vector<std::uint8_t> points;        // party k's point in GF(2^8): k + 1
  std::vector<std::uint8_t> lagrange;      // at 0 over all n points

  // Round 1: a garbler's shares to one party (its mask bit per fresh wire, then the 16 bytes of Delta);
  // an input owner's, one byte per input bit.
  [[nodiscard]] std::size_t dealt_bytes() const { return layout.fresh_wires + block_bytes; }
  // Round 2: 4 rows x G components per AND gate, G label components per input wire, then one byte per
  // input wire (Lambda_w) and per output wire (lambda_o).
  [[nodiscard]] std::size_t labels_offset() const { return layout.ands * 4 * garblers * block_bytes; }
  [[nodiscard]] std::size_t masked_offset() const { return labels_offset() + layout.inputs * garblers * block_bytes; }
  [[nodiscard]] std::size_t masks_offset() const { return masked_offset() + layout.inputs; }
  [[nodiscard]] std::size_t payload_bytes() const { return masks_offset() + layout.outputs; }
};

// The zero-sum pad's pairs: parties a and b pad with each other's pair key when their distance on the
// ring 0..n-1 is at most pad_reach(t) = ceil((t + 1) / 2). That graph (the ceil((t+1)/2)-th power of
// the n-cycle, a Harary graph) stays connected when any t parties are removed, because its vertex
// connectivity is 2 ceil((t+1)/2) > t; so the honest parties' payloads are uniform given their XOR
// and whatever t parties know, at ceil((t+1)/2) * 2 streams a party instead of n - 1.
[[nodiscard]] constexpr std::size_t pad_reach(std::size_t t) { return (t + 2) / 2; }
[[nodiscard]] constexpr bool pad_pair(std::size_t n, std::size_t reach, PartyId a, PartyId b) {
  if (a == b) return false;
  const std::size_t d = a > b ? a - b : b - a;
  return std::min(d, n - d) <= reach;
}

// Garbler g's round-1 shares, one dealt_bytes() vector per party (its own included).
[[nodiscard]] std::vector<std::vector<std::uint8_t>> deal(const Plan& p, const bmr::Garbler& g, Rng& rng);
// An input owner's shares of its bits, one vector per party (its own included): out[k][i] of bit i.
[[nodiscard]] std::vector<std::vector<std::uint8_t>> share_bits(const Plan& p, std::span<const std::uint8_t> bits, Rng& rng);

// What party k holds after round 1.
struct Holdings {
  PartyId k = 0;
  std::vector<std::vector<std::uint8_t>> dealt;  // from each garbler i < G: dealt_bytes()
  std::vector<std::uint8_t> x;                   // its share of every input bit (layout.inputs)
  std::optional<bmr::Garbler> own;               // its garbling secrets, if k < G
};

// Party k's round-2 payload before the zero-sum pad: its L_k-weighted share of everything.
[[nodiscard]] std::vector<std::uint8_t> round2_share(const Plan& p, const Holdings& h);

// Evaluates the XOR of the n round-2 payloads. Throws protocol_violation if a masked value or an
// output mask is not a bit (a share was wrong). `masked` and `g1_keys` as for bmr::evaluate.
[[nodiscard]] std::vector<std::uint8_t> evaluate(const Plan& p, std::span<const std::uint8_t> payload, std::vector<std::uint8_t>* masked = nullptr,
                                                 std::vector<Block>* g1_keys = nullptr);

}  // namespace shufflempc::circuit::bmr_shamir
