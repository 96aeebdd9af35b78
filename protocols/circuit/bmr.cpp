#include "shufflempc/protocols/circuit/bmr.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace shufflempc::circuit::bmr {
namespace {

// RSS product of a shared bit and a shared block, party k's additive share:
// x_k y_k ^ x_k y_{k+1} ^ x_{k+1} y_k.
Block mul(std::uint8_t x0, std::uint8_t x1, const Block& y0, const Block& y1) { return (y0 ^ y1).times(x0) ^ y0.times(x1); }

void fill_bits(Rng& rng, std::vector<std::uint8_t>& bits) {
  rng.fill(bits);
  for (auto& b : bits) b &= 1;
}

}  // namespace

Layout::Layout(const Circuit& c) : circuit(&c), fresh(c.wires, no_fresh) {
  inputs = c.input_bits();
  outputs = c.output_bits();
  for (std::uint32_t w = 0; w < inputs; ++w) fresh[w] = static_cast<std::uint32_t>(fresh_wires++);
  for (const Gate& g : c.gates)
    if (g.type == GateType::and_gate) {
      fresh[g.out] = static_cast<std::uint32_t>(fresh_wires++);
      ++ands;
    }
}

Garbler make_garbler(const Layout& l, int j, const Seed& seed) {
  KeyedRng rng(derive_seed(seed, "bmr/garbler"));
  Garbler g;
  g.j = j;
  g.delta = Block::random(rng);
  if (j == 0) g.delta.lo |= 1;
  g.lambda.resize(l.fresh_wires);
  fill_bits(rng, g.lambda);
  g.key.resize(l.fresh_wires);
  for (auto& k : g.key) {
    k = Block::random(rng);
    if (j == 0) k.lo &= ~std::uint64_t{1};
  }
  return g;
}

Dealt& Dealt::operator^=(const Dealt& o) {
  for (std::size_t i = 0; i < vec.size(); ++i) vec[i] ^= o.vec[i];
  for (std::size_t i = 0; i < bit.size(); ++i) bit[i] ^= o.bit[i];
  return *this;
}

Dealt dealt_values(const Layout& l, const Garbler& g) {
  Dealt d;
  d.vec.resize(l.vectors());
  d.bit.resize(l.bits());
  d.vec[0] = g.delta;
  for (std::size_t f = 0; f < l.fresh_wires; ++f) {
    d.vec[1 + f] = g.delta.times(g.lambda[f]);
    d.bit[f] = g.lambda[f];
  }
  // lambda_a lambda_b per AND gate, the masks of derived wires by linearity.
  const Circuit& c = *l.circuit;
  std::vector<std::uint8_t> lam(c.wires, 0);
  for (std::uint32_t w = 0; w < l.inputs; ++w) lam[w] = g.lambda[l.fresh[w]];
  std::size_t ai = 0;
  for (const Gate& gate : c.gates) {
    switch (gate.type) {
      case GateType::xor_gate: lam[gate.out] = lam[gate.a] ^ lam[gate.b]; break;
      case GateType::inv: lam[gate.out] = lam[gate.a] ^ (g.j == 0 ? 1 : 0); break;
      case GateType::eqw: lam[gate.out] = lam[gate.a]; break;
      case GateType::eq: lam[gate.out] = g.j == 0 ? static_cast<std::uint8_t>(gate.a) : 0; break;
      case GateType::and_gate:
        d.bit[l.fresh_wires + ai++] = lam[gate.a] & lam[gate.b];
        lam[gate.out] = g.lambda[l.fresh[gate.out]];
        break;
    }
  }
  return d;
}

Dealt stream_dealt(const Layout& l, const Seed& seed) {
  KeyedRng rng(seed);
  Dealt d;
  d.vec.resize(l.vectors());
  rng.fill(d.vec.data(), d.vec.size() * sizeof(Block));
  d.bit.resize(l.bits());
  fill_bits(rng, d.bit);
  return d;
}

std::vector<std::uint8_t> encode(const Layout& l, const Dealt& d) {
  std::vector<std::uint8_t> out(l.dealt_bytes());
  for (std::size_t i = 0; i < d.vec.size(); ++i) d.vec[i].store(out.data() + i * block_bytes);
  const auto packed = pack_bits(d.bit);
  std::copy(packed.begin(), packed.end(), out.begin() + static_cast<std::ptrdiff_t>(l.vectors() * block_bytes));
  return out;
}

Dealt decode(const Layout& l, std::span<const std::uint8_t> bytes) {
  if (bytes.size() != l.dealt_bytes()) throw std::invalid_argument("bmr: a dealt share has the wrong size");
  Dealt d;
  d.vec.resize(l.vectors());
  for (std::size_t i = 0; i < d.vec.size(); ++i) d.vec[i] = Block::load(bytes.data() + i * block_bytes);
  d.bit.resize(l.bits());
  unpack_bits(bytes.subspan(l.vectors() * block_bytes), d.bit);
  return d;
}

Pair<Dealt> g1_shares_from_master(const Layout& l, PartyId k, const Seed& master) {
  const auto seeds = G1Seeds::of(master);
  Dealt s1 = stream_dealt(l, seeds.s1);
  Dealt s2 = stream_dealt(l, seeds.s2);
  Dealt s0 = dealt_values(l, make_garbler(l, 0, master));
  s0 ^= s1;
  s0 ^= s2;
  if (k == 0) return {std::move(s0), std::move(s1)};
  if (k == 2) return {std::move(s2), std::move(s0)};
  throw std::invalid_argument("bmr: only G1 and the helper hold G1's master seed");
}

Pair<Dealt> g1_shares_of_g2(const Layout& l, const G1Seeds& seeds) { return {stream_dealt(l, seeds.s1), stream_dealt(l, seeds.s2)}; }

Pair<Dealt> g2_own_shares(const Layout& l, const Seed& master) {
  const auto seeds = G2Seeds::of(master);
  Dealt s1 = stream_dealt(l, seeds.s1);
  Dealt s2 = dealt_values(l, make_garbler(l, 1, master));
  s2 ^= stream_dealt(l, seeds.s0);
  s2 ^= s1;
  return {std::move(s1), std::move(s2)};
}

Pair<Dealt> g2_shares_of_g1(const Layout& l, const G2Seeds& seeds) { return {stream_dealt(l, seeds.s0), stream_dealt(l, seeds.s1)}; }

Pair<Dealt> g2_shares_of_helper(const Layout& l, Dealt explicit_s2, const G2Seeds& seeds) {
  return {std::move(explicit_s2), stream_dealt(l, seeds.s0)};
}

std::array<std::vector<std::uint8_t>, 3> rss_split(std::span<const std::uint8_t> bits, Rng& rng) {
  std::array<std::vector<std::uint8_t>, 3> sh;
  sh[0].resize(bits.size());
  sh[1].resize(bits.size());
  fill_bits(rng, sh[0]);
  fill_bits(rng, sh[1]);
  sh[2].resize(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) sh[2][i] = bits[i] ^ sh[0][i] ^ sh[1][i];
  return sh;
}

void xor_hash_terms(const Layout& l, std::size_t garblers, const Garbler& g, std::span<const Block> keys, std::uint8_t* rows) {
  const Circuit& c = *l.circuit;
  const std::size_t G = garblers, per = 2 * G;
  constexpr std::size_t batch = 16;  // AND gates a call: 64 keys of 2G blocks
  std::array<Block, 4 * batch> hkeys;
  std::array<std::uint64_t, 4 * batch> hgates;
  std::array<std::uint8_t, 4 * batch> sides;
  for (std::size_t m = 0; m < sides.size(); ++m) sides[m] = (m % 4) / 2;  // a, a ^ Delta, b, b ^ Delta
  std::vector<Block> hashed(4 * batch * per);
  std::size_t ai = 0, filled = 0;
  const auto flush = [&] {
    hash_batch(l.hash, hkeys.data(), hgates.data(), sides.data(), 4 * filled, per, hashed.data());
    for (std::size_t k = 0; k < filled; ++k) {
      const std::size_t gate = hgates[4 * k];
      const Block* ha = hashed.data() + 4 * k * per;  // ha + alpha * per: H(k_a ^ alpha Delta)
      const Block* hb = ha + 2 * per;                  // hb + beta * per: H(k_b ^ beta Delta)
      std::uint8_t* dst = rows + gate * 4 * G * block_bytes;
      for (std::size_t j = 0; j < G; ++j)
        for (std::size_t alpha = 0; alpha < 2; ++alpha)
          for (std::size_t beta = 0; beta < 2; ++beta) {
            std::uint8_t* r = dst + (4 * j + 2 * alpha + beta) * block_bytes;
            (Block::load(r) ^ ha[alpha * per + 2 * j + beta] ^ hb[beta * per + 2 * j + alpha]).store(r);
          }
    }
    filled = 0;
  };
  for (const Gate& gate : c.gates) {
    if (gate.type != GateType::and_gate) continue;
    const Block ka = keys[gate.a], kb = keys[gate.b];
    hkeys[4 * filled] = ka;
    hkeys[4 * filled + 1] = ka ^ g.delta;
    hkeys[4 * filled + 2] = kb;
    hkeys[4 * filled + 3] = kb ^ g.delta;
    for (std::size_t m = 0; m < 4; ++m) hgates[4 * filled + m] = ai;
    ++ai;
    if (++filled == batch) flush();
  }
  if (filled > 0) flush();
}

namespace {

// What a party holds of every wire's masks while it walks the circuit for its round-2 share: for
// each garbler j and each of its two replicated shares s, lambda^j_w (a bit) and lambda^j_w Delta^j
// (a block); and, when it is a garbler itself, its own mask and 0-key of the wire.
struct WireMasks {
  const Layout& l;
  const Holdings& h;
  std::uint8_t one[2];  // the RSS constant 1 is share 0 = 1: party 0 holds it first, party 2 second
  std::vector<std::uint8_t> lam[2][2];
  std::vector<Block> lamd[2][2];
  Block delta[2][2];
  const Garbler* own;
  int i;  // the garbler this party is, or -1
  std::vector<std::uint8_t> olam;
  std::vector<Block> okey;

  WireMasks(const Layout& layout, const Holdings& holdings)
      : l(layout), h(holdings), one{static_cast<std::uint8_t>(holdings.k == 0), static_cast<std::uint8_t>(holdings.k == 2)},
        own(holdings.own ? &*holdings.own : nullptr), i(own ? own->j : -1) {
    const std::size_t W = l.circuit->wires;
    for (int j = 0; j < 2; ++j) {
      delta[j][0] = h.dealt[j].first.vec[0];
      delta[j][1] = h.dealt[j].second.vec[0];
      for (int s = 0; s < 2; ++s) {
        lam[j][s].assign(W, 0);
        lamd[j][s].assign(W, Block{});
      }
    }
    olam.assign(own ? W : 0, 0);
    okey.resize(own ? W : 0);
  }

  // A wire with masks of its own (an input, an AND gate's output): its dealt shares.
  void fresh(std::uint32_t w) {
    const std::uint32_t f = l.fresh[w];
    for (int j = 0; j < 2; ++j) {
      lam[j][0][w] = h.dealt[j].first.bit[f];
      lam[j][1][w] = h.dealt[j].second.bit[f];
      lamd[j][0][w] = h.dealt[j].first.vec[1 + f];
      lamd[j][1][w] = h.dealt[j].second.vec[1 + f];
    }
    if (own) {
      olam[w] = own->lambda[f];
      okey[w] = own->key[f];
    }
  }

  void xor_gate(const Gate& g) {
    for (int j = 0; j < 2; ++j)
      for (int s = 0; s < 2; ++s) {
        lam[j][s][g.out] = lam[j][s][g.a] ^ lam[j][s][g.b];
        lamd[j][s][g.out] = lamd[j][s][g.a] ^ lamd[j][s][g.b];
      }
    if (own) {
      olam[g.out] = olam[g.a] ^ olam[g.b];
      okey[g.out] = okey[g.a] ^ okey[g.b];
    }
  }

  // INV and EQW copy the input's masks; INV then has G1 flip its mask (lambda^1 ^= 1,
  // lambda^1 Delta^1 ^= Delta^1). Keys are unchanged.
  void copy_gate(const Gate& g) {
    const std::uint8_t flip = g.type == GateType::inv ? 1 : 0;
    for (int j = 0; j < 2; ++j)
      for (int s = 0; s < 2; ++s) {
        lam[j][s][g.out] = lam[j][s][g.a];
        lamd[j][s][g.out] = lamd[j][s][g.a];
      }
    for (int s = 0; s < 2; ++s) {
      lam[0][s][g.out] ^= static_cast<std::uint8_t>(one[s] & flip);
      lamd[0][s][g.out] ^= delta[0][s].times(flip);
    }
    if (own) {
      olam[g.out] = olam[g.a] ^ static_cast<std::uint8_t>(i == 0 ? flip : 0);
      okey[g.out] = okey[g.a];
    }
  }

  // A constant v: lambda^1 = v, lambda^2 = 0, keys 0 (XOR(w, w), then INV if v = 1).
  void constant(const Gate& g) {
    const auto v = static_cast<std::uint8_t>(g.a);
    for (int s = 0; s < 2; ++s) {
      lam[0][s][g.out] = static_cast<std::uint8_t>(one[s] & v);
      lamd[0][s][g.out] = delta[0][s].times(v);
      lam[1][s][g.out] = 0;
      lamd[1][s][g.out] = Block{};
    }
    if (own) {
      olam[g.out] = i == 0 ? v : 0;
      okey[g.out] = Block{};
    }
  }

  // The AND gate number `ai`: this party's share of both garblers' four rows, into dst; a garbler's
  // own k^i_c and chi Delta^i terms too (its hash terms come after the walk, in batches).
  void and_rows(const Gate& g, std::size_t ai, std::uint8_t* dst) {
    const std::uint32_t a = g.a, b = g.b, o = g.out;
    fresh(o);
    Block rows[2][4];
    for (int j = 0; j < 2; ++j) {
      const int p = 1 - j;  // the other garbler
      const Block base = mul(lam[p][0][b], lam[p][1][b], lamd[j][0][a], lamd[j][1][a]) ^
                         mul(lam[p][0][a], lam[p][1][a], lamd[j][0][b], lamd[j][1][b]);
      const std::uint8_t prod[2] = {h.dealt[p].first.bit[l.fresh_wires + ai], h.dealt[p].second.bit[l.fresh_wires + ai]};
      for (std::uint8_t alpha = 0; alpha < 2; ++alpha)
        for (std::uint8_t beta = 0; beta < 2; ++beta) {
          std::uint8_t bs[2];
          for (int s = 0; s < 2; ++s)
            bs[s] = prod[s] ^ static_cast<std::uint8_t>(beta & lam[p][s][a]) ^ static_cast<std::uint8_t>(alpha & lam[p][s][b]) ^
                    lam[p][s][o];
          rows[j][2 * alpha + beta] = base ^ mul(bs[0], bs[1], delta[j][0], delta[j][1]);
        }
    }
    if (own) {
      const std::uint8_t la = olam[a], lb = olam[b], lc = olam[o];
      for (std::uint8_t alpha = 0; alpha < 2; ++alpha)
        for (std::uint8_t beta = 0; beta < 2; ++beta) {
          const auto chi = static_cast<std::uint8_t>((la & lb) ^ (beta & la) ^ (alpha & lb) ^ lc ^ (alpha & beta));
          rows[i][2 * alpha + beta] ^= okey[o] ^ own->delta.times(chi);
        }
    }
    for (int j = 0; j < 2; ++j)
      for (int r = 0; r < 4; ++r) rows[j][r].store(dst + (4 * j + r) * block_bytes);
  }

  // Input labels K^j_w = k^j_w ^ lambda^j_w Delta^j ^ (x_w ^ lambda^o_w) Delta^j, and the masked
  // inputs and output masks Lambda_w, into the share's tail.
  void labels_and_masks(std::uint8_t* out) const {
    const std::size_t W = l.circuit->wires;
    std::vector<std::uint8_t> bits(l.inputs + l.outputs, 0);
    for (std::uint32_t w = 0; w < l.inputs; ++w) {
      for (int j = 0; j < 2; ++j) {
        const int p = 1 - j;
        const std::uint8_t x0 = h.x.first[w] ^ lam[p][0][w], x1 = h.x.second[w] ^ lam[p][1][w];
        Block kw = mul(x0, x1, delta[j][0], delta[j][1]);
        if (own && i == j) kw ^= okey[w] ^ own->delta.times(olam[w]);
        kw.store(out + l.labels_offset() + (2 * w + static_cast<std::size_t>(j)) * block_bytes);
      }
      bits[w] = h.x.first[w] ^ lam[0][0][w] ^ lam[1][0][w];
    }
    for (std::size_t q = 0; q < l.outputs; ++q) {
      const std::size_t w = W - l.outputs + q;
      bits[l.inputs + q] = lam[0][0][w] ^ lam[1][0][w];
    }
    const auto packed = pack_bits(bits);
    std::copy(packed.begin(), packed.end(), out + l.bits_offset());
  }
};

}  // namespace

std::vector<std::uint8_t> round2_share(const Layout& l, const Holdings& h) {
  WireMasks m(l, h);
  for (std::uint32_t w = 0; w < l.inputs; ++w) m.fresh(w);
  std::vector<std::uint8_t> out(l.payload_bytes(), 0);
  std::size_t ai = 0;
  for (const Gate& g : l.circuit->gates) {
    switch (g.type) {
      case GateType::xor_gate: m.xor_gate(g); break;
      case GateType::inv:
      case GateType::eqw: m.copy_gate(g); break;
      case GateType::eq: m.constant(g); break;
      case GateType::and_gate:
        m.and_rows(g, ai, out.data() + l.rows_offset() + ai * 8 * block_bytes);
        ++ai;
        break;
    }
  }
  if (m.own) xor_hash_terms(l, 2, *m.own, m.okey, out.data() + l.rows_offset());
  m.labels_and_masks(out.data());
  return out;
}

std::vector<std::uint8_t> evaluate_garbled(const Layout& l, const Garbled& gc, std::vector<std::uint8_t>* masked, std::vector<Block>* g1_keys) {
  const Circuit& c = *l.circuit;
  const std::size_t W = c.wires, G = gc.garblers;
  if (G < 2 || G > 128 || gc.rows.size() != l.ands * 4 * G * block_bytes || gc.labels.size() != l.inputs * G * block_bytes ||
      gc.input_masked.size() != l.inputs || gc.output_masks.size() != l.outputs)
    throw std::invalid_argument("bmr: the garbled circuit's parts have the wrong sizes");
  std::vector<Block> key(W * G);  // component j of wire w's active label at G w + j
  std::vector<std::uint8_t> lam(W, 0);
  for (std::uint32_t w = 0; w < l.inputs; ++w) {
    for (std::size_t j = 0; j < G; ++j) key[G * w + j] = Block::load(gc.labels.data() + (G * w + j) * block_bytes);
    lam[w] = gc.input_masked[w];
  }
  // Per AND gate: H of every garbler's active labels of a (side 0) and b (side 1), 2 G blocks each,
  // for the gates of a layer in batches (Circuit::layers).
  const std::size_t batch = std::max<std::size_t>(1, 256 / (4 * G * G));
  std::vector<Block> hkeys(batch * 2 * G), hashed(batch * 4 * G * G), out(G);
  std::vector<std::uint64_t> hgates(batch * 2 * G);
  std::vector<std::uint8_t> sides(batch * 2 * G);
  for (std::size_t i = 0; i < sides.size(); ++i) sides[i] = i % 2;
  by_layers(
      c, batch,
      [&](const Gate& g) {
        const std::uint32_t a = g.a, b = g.b, o = g.out;
        switch (g.type) {
          case GateType::xor_gate:
            for (std::size_t j = 0; j < G; ++j) key[G * o + j] = key[G * a + j] ^ key[G * b + j];
            lam[o] = lam[a] ^ lam[b];
            break;
          case GateType::inv:
          case GateType::eqw:
            for (std::size_t j = 0; j < G; ++j) key[G * o + j] = key[G * a + j];
            lam[o] = lam[a];
            break;
          case GateType::eq:
            for (std::size_t j = 0; j < G; ++j) key[G * o + j] = Block{};
            lam[o] = 0;
            break;
          case GateType::and_gate: break;
        }
      },
      [&](std::span<const std::uint32_t> ands) {
        for (std::size_t k = 0; k < ands.size(); ++k) {
          const Gate& g = c.gates[ands[k]];
          for (std::size_t i = 0; i < G; ++i) {
            hkeys[2 * G * k + 2 * i] = key[G * g.a + i];
            hkeys[2 * G * k + 2 * i + 1] = key[G * g.b + i];
            hgates[2 * G * k + 2 * i] = hgates[2 * G * k + 2 * i + 1] = c.layers.and_index[ands[k]];
          }
        }
        hash_batch(l.hash, hkeys.data(), hgates.data(), sides.data(), 2 * G * ands.size(), 2 * G, hashed.data());
        for (std::size_t k = 0; k < ands.size(); ++k) {
          const Gate& g = c.gates[ands[k]];
          const std::size_t ai = c.layers.and_index[ands[k]];
          const std::uint8_t la = lam[g.a], lb = lam[g.b];
          const std::uint8_t* rows = gc.rows.data() + ai * 4 * G * block_bytes;
          for (std::size_t j = 0; j < G; ++j) out[j] = Block::load(rows + (4 * j + 2 * la + lb) * block_bytes);
          const Block* h = hashed.data() + k * 4 * G * G;
          for (std::size_t i = 0; i < G; ++i) {
            const Block* ha = h + 2 * i * 2 * G;
            const Block* hb = ha + 2 * G;
            for (std::size_t j = 0; j < G; ++j) out[j] ^= ha[2 * j + lb] ^ hb[2 * j + la];
          }
          for (std::size_t j = 0; j < G; ++j) key[G * g.out + j] = out[j];
          lam[g.out] = out[0].lsb();
        }
      });
  std::vector<std::uint8_t> result(l.outputs);
  for (std::size_t q = 0; q < l.outputs; ++q) result[q] = lam[W - l.outputs + q] ^ gc.output_masks[q];
  if (masked) *masked = std::move(lam);
  if (g1_keys) {
    g1_keys->resize(W);
    for (std::size_t w = 0; w < W; ++w) (*g1_keys)[w] = key[G * w];
  }
  return result;
}

std::vector<std::uint8_t> evaluate(const Layout& l, std::span<const std::uint8_t> payload, std::vector<std::uint8_t>* masked,
                                   std::vector<Block>* g1_keys) {
  if (payload.size() != l.payload_bytes()) throw std::invalid_argument("bmr: the round-2 payload has the wrong size");
  std::vector<std::uint8_t> bits(l.inputs + l.outputs);
  unpack_bits(payload.subspan(l.bits_offset()), bits);
  const Garbled gc{.garblers = 2,
                   .rows = payload.subspan(l.rows_offset(), l.labels_offset() - l.rows_offset()),
                   .labels = payload.subspan(l.labels_offset(), l.bits_offset() - l.labels_offset()),
                   .input_masked = std::span<const std::uint8_t>(bits).first(l.inputs),
                   .output_masks = std::span<const std::uint8_t>(bits).subspan(l.inputs)};
  return evaluate_garbled(l, gc, masked, g1_keys);
}

}  // namespace shufflempc::circuit::bmr
