// Boolean circuits in the Bristol Fashion format (https://nigelsmart.github.io/MPC-Circuits/):
//
//   gates wires
//   niv  w_0 ... w_{niv-1}        input groups and their bit widths
//   nov  v_0 ... v_{nov-1}        output groups and their bit widths
//   in out  a [b]  c  TYPE        one gate per line, TYPE in XOR AND INV EQ EQW MAND
//
// Input wires come first (group 0's bits, then group 1's, ...); the outputs are the LAST wires.
// Bit order ("the circuit's own byte order"): wire j of a group is bit j, least significant first,
// of the group's value read as ONE big-endian integer. So the hex text of a 128-bit group is the
// integer's 32 hex digits, and its last byte holds wires 0..7. With this convention aes_128.txt
// (group 0 the key, group 1 the plaintext) maps the FIPS-197 C.1 vector onto itself, and
// sha256.txt (group 0 the padded 512-bit block, group 1 the chaining value) gives the digest as
// the usual hex text; the tests check both.
//
// parse() validates everything a garbler relies on: counts, arities, wire ranges, that every gate
// reads wires already set and writes a wire no other gate writes, and that every output is set.
// Errors name the circuit, the line and the gate or wire.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace shufflempc::circuit {

// What parse() accepts at most, each named in its error and in --circuit's help (besides the
// bounds a file's own size sets: a gate line takes at least 10 characters).
inline constexpr std::uint32_t max_wires = 1u << 28;
inline constexpr std::uint64_t max_gates = 1u << 28;
inline constexpr std::uint64_t max_input_bits = 1u << 24;  // 16 Mbit of inputs; AES-128 takes 256, SHA-256 768

enum class GateType : std::uint8_t { xor_gate, and_gate, inv, eq, eqw };
[[nodiscard]] const char* to_string(GateType t);

struct Gate {
  GateType type = GateType::xor_gate;
  std::uint32_t a = 0;  // first input wire (EQ: the constant, 0 or 1)
  std::uint32_t b = 0;  // second input wire (XOR, AND)
  std::uint32_t out = 0;
};

// The gates by AND-depth (the largest number of AND gates on a path from an input): linear[d] holds
// the XOR, INV, EQ and EQW gates whose output has depth d, ands[d] the AND gates of depth d (ands[0]
// is empty), each in circuit order. Evaluating linear[0], ands[1], linear[1], ands[2], ... respects
// every dependency, and the gates of one ands[d] are independent of each other: what lets a garbler
// or an evaluator hash a layer's gates in one batch, and what bgw spends one round on.
struct Layers {
  std::vector<std::vector<std::uint32_t>> ands, linear;
  std::vector<std::uint32_t> and_index;  // per gate: its index among the AND gates in circuit order (AND gates only)
  [[nodiscard]] std::size_t depth() const { return ands.empty() ? 0 : ands.size() - 1; }
};

struct Circuit {
  std::string name;
  std::uint32_t wires = 0;
  std::vector<std::uint32_t> inputs;   // bit width of each input group
  std::vector<std::uint32_t> outputs;  // bit width of each output group
  std::vector<Gate> gates;             // MAND gates are expanded into their AND gates
  std::size_t and_gates = 0, xor_gates = 0, inv_gates = 0;
  Layers layers;                       // set by parse()

  [[nodiscard]] std::uint32_t input_bits() const;
  [[nodiscard]] std::uint32_t output_bits() const;
  // Wire of bit 0 of input group g, and of output group g.
  [[nodiscard]] std::uint32_t input_wire(std::size_t group) const;
  [[nodiscard]] std::uint32_t output_wire(std::size_t group) const;
};

// Visits the gates layer by layer: linear(gate) for the linear gates of a depth one by one, then
// ands(span of gate indices) for the AND gates of the next depth, at most `batch` at a time.
template <class Linear, class Ands>
void by_layers(const Circuit& c, std::size_t batch, Linear linear, Ands ands) {
  const Layers& l = c.layers;
  for (std::size_t d = 0; d <= l.depth(); ++d) {
    for (const std::uint32_t g : l.linear[d]) linear(c.gates[g]);
    if (d + 1 > l.depth()) break;
    const std::span<const std::uint32_t> layer(l.ands[d + 1]);
    for (std::size_t first = 0; first < layer.size(); first += batch) ands(layer.subspan(first, std::min(batch, layer.size() - first)));
  }
}

// The layers of a circuit's gates (parse() stores them in Circuit::layers).
[[nodiscard]] Layers layer_by_and_depth(const Circuit& c);

// Throws std::invalid_argument "circuit NAME, line L: ..." on anything malformed.
[[nodiscard]] Circuit parse(std::string_view text, std::string_view name);
// Reads and parses a file (std::invalid_argument naming the path when it cannot be read).
[[nodiscard]] Circuit load(const std::string& path);

// Plain evaluation: one byte (0 or 1) per input bit, all groups concatenated; returns one byte per
// output bit.
[[nodiscard]] std::vector<std::uint8_t> evaluate(const Circuit& c, std::span<const std::uint8_t> input_bits);

// The bits of a `width`-bit group from its hex text (exactly ceil(width / 4) digits, the big-endian
// integer; bits above `width` must be 0). Throws std::invalid_argument naming `what`.
[[nodiscard]] std::vector<std::uint8_t> bits_from_hex(std::string_view hex, std::uint32_t width, std::string_view what);
// The hex text of a group's bits (ceil(width / 4) digits).
[[nodiscard]] std::string hex_from_bits(std::span<const std::uint8_t> bits);

// Writes a circuit in Bristol Fashion gate by gate, the reverse of parse(): the input wires come
// first, and every gate's output is the next wire. Operations skip the constant 0 (`zero`: no
// wire, no gate) where they can, so a generated circuit holds no gate it does not need. Numbers are
// vectors of wires, least significant bit first. The outputs are the last wires: place them with
// copy() once everything else is written.
class BristolWriter {
 public:
  static constexpr std::uint32_t zero = ~std::uint32_t{0};

  explicit BristolWriter(std::vector<std::uint32_t> input_groups);
  // Wire of bit `bit` of input group `group`.
  [[nodiscard]] std::uint32_t input(std::size_t group, std::uint32_t bit) const;

  std::uint32_t xor_(std::uint32_t a, std::uint32_t b);
  std::uint32_t and_(std::uint32_t a, std::uint32_t b);
  // A new wire holding a (EQW), or the constant 0 (EQ) when a is zero.
  std::uint32_t copy(std::uint32_t a);
  // a + b mod 2^width (missing bits are 0). A full adder costs one AND: s = a ^ b ^ c,
  // carry = c ^ ((a ^ c) & (b ^ c)).
  std::vector<std::uint32_t> add(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b, std::size_t width);
  // The sum of all numbers by a balanced tree, each partial sum `grow` ? one bit wider than its
  // widest operand (at most `width`) : `width` bits.
  std::vector<std::uint32_t> sum(std::vector<std::vector<std::uint32_t>> xs, std::size_t width, bool grow);

  [[nodiscard]] std::uint32_t wires() const { return next_; }
  [[nodiscard]] std::size_t gates() const { return gates_; }
  // The whole file, its last sum(output_groups) wires the outputs.
  [[nodiscard]] std::string text(const std::vector<std::uint32_t>& output_groups) const;

 private:
  std::uint32_t gate2(std::uint32_t a, std::uint32_t b, const char* type);
  std::vector<std::uint32_t> inputs_, first_;  // widths and first wires of the input groups
  std::uint32_t next_ = 0;
  std::size_t gates_ = 0;
  std::string body_;
};

}  // namespace shufflempc::circuit
