#include "circuit/half_gates.hpp"

#include <stdexcept>

namespace shufflempc::circuit::half_gates {
namespace {

constexpr std::uint8_t garble_sides[4] = {0, 0, 1, 1};
constexpr std::uint8_t evaluate_sides[2] = {0, 1};

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
  g.tables.reserve(2 * c.and_gates);
  std::size_t ai = 0;
  const Block& r = g.delta;
  for (const Gate& gate : c.gates) {
    switch (gate.type) {
      case GateType::xor_gate: zero[gate.out] = zero[gate.a] ^ zero[gate.b]; break;
      case GateType::inv: zero[gate.out] = zero[gate.a] ^ r; break;
      case GateType::eqw: zero[gate.out] = zero[gate.a]; break;
      case GateType::eq: zero[gate.out] = r.times(static_cast<std::uint8_t>(gate.a)); break;  // the active label is 0
      case GateType::and_gate: {
        const Block a0 = zero[gate.a], b0 = zero[gate.b];
        const std::uint8_t pa = a0.lsb(), pb = b0.lsb();
        const Block keys[4] = {a0, a0 ^ r, b0, b0 ^ r};
        Block hashed[4];
        hash1_many(hash, keys, ai, garble_sides, 4, hashed);
        const Block ha0 = hashed[0], ha1 = hashed[1], hb0 = hashed[2], hb1 = hashed[3];
        const Block tg = ha0 ^ ha1 ^ r.times(pb);
        const Block wg0 = ha0 ^ tg.times(pa);
        const Block te = hb0 ^ hb1 ^ a0;
        const Block we0 = hb0 ^ (te ^ a0).times(pb);
        zero[gate.out] = wg0 ^ we0;
        g.tables.push_back(tg);
        g.tables.push_back(te);
        ++ai;
        break;
      }
    }
  }
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
  std::size_t ai = 0;
  for (const Gate& gate : c.gates) {
    switch (gate.type) {
      case GateType::xor_gate: label[gate.out] = label[gate.a] ^ label[gate.b]; break;
      case GateType::inv:
      case GateType::eqw: label[gate.out] = label[gate.a]; break;
      case GateType::eq: label[gate.out] = Block{}; break;
      case GateType::and_gate: {
        const Block a = label[gate.a], b = label[gate.b];
        const Block tg = Block::load(public_part.data() + (2 * ai) * block_bytes);
        const Block te = Block::load(public_part.data() + (2 * ai + 1) * block_bytes);
        const Block keys[2] = {a, b};
        Block hashed[2];
        hash1_many(hash, keys, ai, evaluate_sides, 2, hashed);
        const Block wg = hashed[0] ^ tg.times(a.lsb());
        const Block we = hashed[1] ^ (te ^ a).times(b.lsb());
        label[gate.out] = wg ^ we;
        ++ai;
        break;
      }
    }
  }
  std::vector<std::uint8_t> decode(c.output_bits());
  unpack_bits(public_part.subspan(c.and_gates * 2 * block_bytes), decode);
  std::vector<std::uint8_t> out(c.output_bits());
  for (std::uint32_t q = 0; q < c.output_bits(); ++q) out[q] = label[c.wires - c.output_bits() + q].lsb() ^ decode[q];
  return out;
}

}  // namespace shufflempc::circuit::half_gates
