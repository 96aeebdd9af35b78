#include "shufflempc/protocols/circuit/half_gates.hpp"

#include <algorithm>
#include <array>
#include <span>
#include <stdexcept>

namespace shufflempc::circuit::half_gates {
namespace {

constexpr std::uint8_t garble_sides[4] = {0, 0, 1, 1};
constexpr std::uint8_t evaluate_sides[2] = {0, 1};

// AND gates a batch: their hashes go through the garbling hash together (by_layers, bristol.hpp).
constexpr std::size_t batch = 32;

}  // namespace

std::size_t public_bytes(const Circuit& c) { return c.and_gates * 2 * block_bytes + (c.output_bits() + 7) / 8; }

Garbled garble(const Circuit& c, Rng& rng, GarblingHash hash) {
  Garbled g;
  g.delta = Block::random(rng);
  g.delta.lo |= 1;
  std::vector<Block> zero(c.wires);
  const std::uint32_t in = c.input_bits();
  g.zero_labels.resize(in);
  for (std::uint32_t w = 0; w < in; ++w) zero[w] = g.zero_labels[w] = Block::random(rng);
  g.tables.assign(2 * c.and_gates, Block{});
  const Block& r = g.delta;
  std::array<Block, 4 * batch> keys, hashed;
  std::array<std::uint64_t, 4 * batch> gates;
  std::array<std::uint8_t, 4 * batch> sides;
  for (std::size_t i = 0; i < 4 * batch; ++i) sides[i] = garble_sides[i % 4];
  by_layers(
      c, batch,
      [&](const Gate& gate) {
        switch (gate.type) {
          case GateType::xor_gate: zero[gate.out] = zero[gate.a] ^ zero[gate.b]; break;
          case GateType::inv: zero[gate.out] = zero[gate.a] ^ r; break;
          case GateType::eqw: zero[gate.out] = zero[gate.a]; break;
          case GateType::eq: zero[gate.out] = r.times(static_cast<std::uint8_t>(gate.a)); break;  // the active label is 0
          case GateType::and_gate: break;
        }
      },
      [&](std::span<const std::uint32_t> ands) {
        for (std::size_t k = 0; k < ands.size(); ++k) {
          const Gate& gate = c.gates[ands[k]];
          const Block a0 = zero[gate.a], b0 = zero[gate.b];
          keys[4 * k] = a0;
          keys[4 * k + 1] = a0 ^ r;
          keys[4 * k + 2] = b0;
          keys[4 * k + 3] = b0 ^ r;
          for (int m = 0; m < 4; ++m) gates[4 * k + m] = c.layers.and_index[ands[k]];
        }
        hash_batch(hash, keys.data(), gates.data(), sides.data(), 4 * ands.size(), 1, hashed.data());
        for (std::size_t k = 0; k < ands.size(); ++k) {
          const Gate& gate = c.gates[ands[k]];
          const Block a0 = keys[4 * k], b0 = keys[4 * k + 2];
          const std::uint8_t pa = a0.lsb(), pb = b0.lsb();
          const Block ha0 = hashed[4 * k], ha1 = hashed[4 * k + 1], hb0 = hashed[4 * k + 2], hb1 = hashed[4 * k + 3];
          const Block tg = ha0 ^ ha1 ^ r.times(pb);
          const Block wg0 = ha0 ^ tg.times(pa);
          const Block te = hb0 ^ hb1 ^ a0;
          const Block we0 = hb0 ^ (te ^ a0).times(pb);
          zero[gate.out] = wg0 ^ we0;
          const std::size_t ai = c.layers.and_index[ands[k]];
          g.tables[2 * ai] = tg;
          g.tables[2 * ai + 1] = te;
        }
      });
  g.decode.resize(c.output_bits());
  for (std::uint32_t q = 0; q < c.output_bits(); ++q) g.decode[q] = zero[c.wires - c.output_bits() + q].lsb();
  return g;
}

std::vector<std::uint8_t> encode_public(const Garbled& g) {
  std::vector<std::uint8_t> out(g.tables.size() * block_bytes);
  for (std::size_t i = 0; i < g.tables.size(); ++i) g.tables[i].store(out.data() + i * block_bytes);
  const auto d = pack_bits(g.decode);
  out.insert(out.end(), d.begin(), d.end());
  return out;
}

std::vector<std::uint8_t> evaluate(const Circuit& c, std::span<const std::uint8_t> public_part, std::span<const Block> input_labels,
                                   GarblingHash hash) {
  if (public_part.size() != public_bytes(c) || input_labels.size() != c.input_bits())
    throw std::invalid_argument("half-gates: the garbled circuit or the input labels have the wrong size");
  std::vector<Block> label(c.wires);
  for (std::size_t w = 0; w < input_labels.size(); ++w) label[w] = input_labels[w];
  std::array<Block, 2 * batch> keys, hashed;
  std::array<std::uint64_t, 2 * batch> gates;
  std::array<std::uint8_t, 2 * batch> sides;
  for (std::size_t i = 0; i < 2 * batch; ++i) sides[i] = evaluate_sides[i % 2];
  by_layers(
      c, batch,
      [&](const Gate& gate) {
        switch (gate.type) {
          case GateType::xor_gate: label[gate.out] = label[gate.a] ^ label[gate.b]; break;
          case GateType::inv:
          case GateType::eqw: label[gate.out] = label[gate.a]; break;
          case GateType::eq: label[gate.out] = Block{}; break;
          case GateType::and_gate: break;
        }
      },
      [&](std::span<const std::uint32_t> ands) {
        for (std::size_t k = 0; k < ands.size(); ++k) {
          const Gate& gate = c.gates[ands[k]];
          keys[2 * k] = label[gate.a];
          keys[2 * k + 1] = label[gate.b];
          gates[2 * k] = gates[2 * k + 1] = c.layers.and_index[ands[k]];
        }
        hash_batch(hash, keys.data(), gates.data(), sides.data(), 2 * ands.size(), 1, hashed.data());
        for (std::size_t k = 0; k < ands.size(); ++k) {
          const Gate& gate = c.gates[ands[k]];
          const std::size_t ai = c.layers.and_index[ands[k]];
          const Block a = keys[2 * k], b = keys[2 * k + 1];
          const Block tg = Block::load(public_part.data() + (2 * ai) * block_bytes);
          const Block te = Block::load(public_part.data() + (2 * ai + 1) * block_bytes);
          const Block wg = hashed[2 * k] ^ tg.times(a.lsb());
          const Block we = hashed[2 * k + 1] ^ (te ^ a).times(b.lsb());
          label[gate.out] = wg ^ we;
        }
      });
  std::vector<std::uint8_t> decode(c.output_bits());
  unpack_bits(public_part.subspan(c.and_gates * 2 * block_bytes), decode);
  std::vector<std::uint8_t> out(c.output_bits());
  for (std::uint32_t q = 0; q < c.output_bits(); ++q) out[q] = label[c.wires - c.output_bits() + q].lsb() ^ decode[q];
  return out;
}

}  // namespace shufflempc::circuit::half_gates
