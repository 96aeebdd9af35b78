#include "shufflempc/protocols/circuit/bmr_shamir.hpp"

#include <array>
#include <stdexcept>

#include <fmt/format.h>

#include "shufflempc/protocols/circuit/gf256.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/shamir.hpp"

namespace shufflempc::circuit::bmr_shamir {
namespace {

const gf256::Field field{};

// The products v * d for every byte v, d a vector of 16 bytes: table[v] = v d bytewise. Q = q [Delta^j]_k
// scaled by L_k is then one look-up per row.
std::array<Block, 256> times_table(const std::uint8_t* d) {
  std::array<std::array<std::uint8_t, block_bytes>, 256> bytes{};
  for (std::size_t p = 0; p < block_bytes; ++p)
    for (unsigned v = 0; v < 256; ++v) bytes[v][p] = gf256::mul(static_cast<std::uint8_t>(v), d[p]);
  std::array<Block, 256> t;
  for (unsigned v = 0; v < 256; ++v) t[v] = Block::load(bytes[v].data());
  return t;
}

}  // namespace

Plan::Plan(const Circuit& c, std::size_t parties, std::size_t threshold, GarblingHash hash) : layout(c), n(parties), t(threshold), garblers(threshold + 1) {
  if (t < 1 || 3 * t > n - 1 || n > 255)
    throw std::invalid_argument(fmt::format("bmr_shamir: threshold {} with {} parties (needs 1 <= t <= (n - 1) / 3 and n <= 255)", t, n));
  layout.hash = hash;
  points = shamir::points(field, n);
  std::vector<std::uint32_t> all(n);
  for (std::uint32_t k = 0; k < n; ++k) all[k] = k;
  lagrange = shamir::lagrange_at_zero(field, std::span<const std::uint32_t>(all));
}

std::vector<std::vector<std::uint8_t>> deal(const Plan& p, const bmr::Garbler& g, Rng& rng) {
  std::vector<std::vector<std::uint8_t>> out(p.n, std::vector<std::uint8_t>(p.dealt_bytes()));
  std::vector<std::uint8_t> shares(p.n);
  const auto put = [&](std::uint8_t value, std::size_t at) {
    shamir::share(field, value, p.t, rng, std::span<std::uint8_t>(shares), std::span<const std::uint8_t>(p.points));
    for (std::size_t k = 0; k < p.n; ++k) out[k][at] = shares[k];
  };
  for (std::size_t f = 0; f < p.layout.fresh_wires; ++f) put(g.lambda[f], f);
  std::array<std::uint8_t, block_bytes> delta;
  g.delta.store(delta.data());
  for (std::size_t b = 0; b < block_bytes; ++b) put(delta[b], p.layout.fresh_wires + b);
  return out;
}

std::vector<std::vector<std::uint8_t>> share_bits(const Plan& p, std::span<const std::uint8_t> bits, Rng& rng) {
  std::vector<std::vector<std::uint8_t>> out(p.n, std::vector<std::uint8_t>(bits.size()));
  std::vector<std::uint8_t> shares(p.n);
  for (std::size_t i = 0; i < bits.size(); ++i) {
    shamir::share(field, static_cast<std::uint8_t>(bits[i] & 1), p.t, rng, std::span<std::uint8_t>(shares), std::span<const std::uint8_t>(p.points));
    for (std::size_t k = 0; k < p.n; ++k) out[k][i] = shares[k];
  }
  return out;
}

std::vector<std::uint8_t> round2_share(const Plan& p, const Holdings& h) {
  const bmr::Layout& l = p.layout;
  const Circuit& c = *l.circuit;
  const std::size_t W = c.wires, G = p.garblers;
  if (h.dealt.size() != G || h.x.size() != l.inputs) throw std::invalid_argument("bmr_shamir: the holdings have the wrong sizes");
  const std::uint8_t Lk = p.lagrange[h.k];
  // L_k v [Delta^j]_k for every byte v, per garbler j.
  std::vector<std::array<Block, 256>> times(G);
  for (std::size_t j = 0; j < G; ++j) {
    std::array<std::uint8_t, block_bytes> d;
    for (std::size_t b = 0; b < block_bytes; ++b) d[b] = gf256::mul(Lk, h.dealt[j][l.fresh_wires + b]);
    times[j] = times_table(d.data());
  }
  // Per wire: the share of lambda_w, and the own garbler's 0-key.
  std::vector<std::uint8_t> s(W, 0);
  const bmr::Garbler* own = h.own ? &*h.own : nullptr;
  const std::size_t i = own ? static_cast<std::size_t>(own->j) : G;
  std::vector<Block> okey(own ? W : 0);
  const auto set_fresh = [&](std::uint32_t w) {
    const std::uint32_t f = l.fresh[w];
    std::uint8_t v = 0;
    for (std::size_t j = 0; j < G; ++j) v ^= h.dealt[j][f];
    s[w] = v;
    if (own) okey[w] = own->key[f];
  };
  for (std::uint32_t w = 0; w < l.inputs; ++w) set_fresh(w);

  std::vector<std::uint8_t> out(p.payload_bytes(), 0);
  std::size_t ai = 0;
  for (const Gate& g : c.gates) {
    const std::uint32_t a = g.a, b = g.b, o = g.out;
    switch (g.type) {
      case GateType::xor_gate:
        s[o] = s[a] ^ s[b];
        if (own) okey[o] = okey[a] ^ okey[b];
        break;
      case GateType::inv:  // lambda_c = lambda_a ^ 1: the polynomial plus the constant 1; keys unchanged
      case GateType::eqw:
        s[o] = static_cast<std::uint8_t>(s[a] ^ (g.type == GateType::inv ? 1 : 0));
        if (own) okey[o] = okey[a];
        break;
      case GateType::eq:  // the constant v: lambda = v (the constant polynomial), keys 0, so Lambda = 0
        s[o] = static_cast<std::uint8_t>(g.a);
        if (own) okey[o] = Block{};
        break;
      case GateType::and_gate: {
        set_fresh(o);
        std::uint8_t q[4];
        for (std::uint8_t alpha = 0; alpha < 2; ++alpha)
          for (std::uint8_t beta = 0; beta < 2; ++beta)
            q[2 * alpha + beta] = static_cast<std::uint8_t>(gf256::mul(s[a] ^ alpha, s[b] ^ beta) ^ s[o]);
        std::uint8_t* dst = out.data() + ai * 4 * G * block_bytes;
        for (std::size_t j = 0; j < G; ++j)
          for (std::size_t r = 0; r < 4; ++r) {
            Block row = times[j][q[r]];
            if (j == i) row ^= okey[o];
            row.store(dst + (4 * j + r) * block_bytes);
          }
        ++ai;
        break;
      }
    }
  }
  if (own) bmr::xor_hash_terms(l, G, *own, okey, out.data());  // its hash terms, in batches
  // Input labels (degree 2t), masked inputs and output masks (degree t), weighted by L_k.
  for (std::uint32_t w = 0; w < l.inputs; ++w) {
    const std::uint8_t v = h.x[w] ^ s[w];
    for (std::size_t j = 0; j < G; ++j) {
      Block kw = times[j][v];
      if (j == i) kw ^= okey[w];
      kw.store(out.data() + p.labels_offset() + (G * w + j) * block_bytes);
    }
    out[p.masked_offset() + w] = gf256::mul(Lk, v);
  }
  for (std::size_t q = 0; q < l.outputs; ++q) out[p.masks_offset() + q] = gf256::mul(Lk, s[W - l.outputs + q]);
  return out;
}

std::vector<std::uint8_t> evaluate(const Plan& p, std::span<const std::uint8_t> payload, std::vector<std::uint8_t>* masked, std::vector<Block>* g1_keys) {
  if (payload.size() != p.payload_bytes()) throw std::invalid_argument("bmr_shamir: the round-2 payload has the wrong size");
  const auto bits = payload.subspan(p.masked_offset());
  for (std::size_t q = 0; q < bits.size(); ++q)
    if (bits[q] > 1)
      throw_error(Errc::protocol_violation,
                  fmt::format("circuit v2: the round-2 shares of {} {} interpolate to {}, not a bit: a party's share is wrong",
                              q < p.layout.inputs ? "input wire" : "output", q < p.layout.inputs ? q : q - p.layout.inputs, bits[q]));
  const bmr::Garbled gc{.garblers = p.garblers,
                        .rows = payload.first(p.labels_offset()),
                        .labels = payload.subspan(p.labels_offset(), p.masked_offset() - p.labels_offset()),
                        .input_masked = payload.subspan(p.masked_offset(), p.layout.inputs),
                        .output_masks = payload.subspan(p.masks_offset(), p.layout.outputs)};
  return bmr::evaluate_garbled(p.layout, gc, masked, g1_keys);
}

}  // namespace shufflempc::circuit::bmr_shamir
