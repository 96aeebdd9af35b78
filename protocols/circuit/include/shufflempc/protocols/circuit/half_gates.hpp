// V3's garbled circuit: one garbler, free-XOR and half-gates (Zahur-Rosulek-Evans, Eurocrypt 2015),
// two labels per AND gate, with the garbling hash of garble.hpp (fixed-key AES by default).
#pragma once

#include <span>
#include <vector>

#include "shufflempc/protocols/circuit/bristol.hpp"
#include "shufflempc/protocols/circuit/garble.hpp"

namespace shufflempc::circuit::half_gates {

struct Garbled {
  Block delta;                        // R, lsb 1
  std::vector<Block> zero_labels;     // per input wire: the label of 0
  std::vector<Block> tables;          // 2 per AND gate
  std::vector<std::uint8_t> decode;   // per output wire: lsb of its 0-label
};

[[nodiscard]] Garbled garble(const Circuit& c, Rng& rng, GarblingHash hash = GarblingHash::aes);
// The public part: the tables, then the decoding bits packed.
[[nodiscard]] std::vector<std::uint8_t> encode_public(const Garbled& g);
[[nodiscard]] std::size_t public_bytes(const Circuit& c);
// Evaluates the public part with the active input labels; returns the output bits.
[[nodiscard]] std::vector<std::uint8_t> evaluate(const Circuit& c, std::span<const std::uint8_t> public_part,
                                                 std::span<const Block> input_labels, GarblingHash hash = GarblingHash::aes);

}  // namespace shufflempc::circuit::half_gates
