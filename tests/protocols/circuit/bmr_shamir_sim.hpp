// Runs v2's n parties' local computations in one place (no channel, no pad): every garbler's
// dealing, every owner's input shares, each party's round-2 share, their XOR and the evaluation.
// The protocol runs the same functions; tests use this to enumerate masks and compare with plain
// evaluation.
#pragma once

#include <functional>
#include <vector>

#include "shufflempc/protocols/circuit/bmr_shamir.hpp"

namespace shufflempc::test {

struct BmrShamirRun {
  std::vector<std::uint8_t> output;
  std::vector<std::uint8_t> masked;               // Lambda of every wire
  std::vector<std::vector<std::uint8_t>> shares;  // each party's round-2 share
  std::vector<std::uint8_t> payload;              // their XOR
};

// `edit` may replace a garbler's secrets after they are drawn (a test's enumeration or bug); the
// garblers' seeds are `seeds` (one per garbler).
inline BmrShamirRun simulate_bmr_shamir(const circuit::bmr_shamir::Plan& p, std::span<const std::uint8_t> input_bits,
                                        const std::vector<circuit::Seed>& seeds, Rng& rng,
                                        const std::function<void(circuit::bmr::Garbler&)>& edit = {}) {
  using namespace circuit::bmr_shamir;
  std::vector<circuit::bmr::Garbler> g;
  std::vector<std::vector<std::vector<std::uint8_t>>> dealt;  // [garbler][party]
  for (std::size_t i = 0; i < p.garblers; ++i) {
    g.push_back(circuit::bmr::make_garbler(p.layout, static_cast<int>(i), seeds.at(i)));
    if (edit) edit(g.back());
    dealt.push_back(deal(p, g.back(), rng));
  }
  const auto x = share_bits(p, input_bits, rng);
  BmrShamirRun r;
  r.payload.assign(p.payload_bytes(), 0);
  for (PartyId k = 0; k < p.n; ++k) {
    Holdings h;
    h.k = k;
    for (std::size_t i = 0; i < p.garblers; ++i) h.dealt.push_back(dealt[i][k]);
    h.x = x[k];
    if (k < p.garblers) h.own = g[k];
    r.shares.push_back(round2_share(p, h));
    for (std::size_t b = 0; b < r.payload.size(); ++b) r.payload[b] ^= r.shares.back()[b];
  }
  r.output = evaluate(p, r.payload, &r.masked);
  return r;
}

}  // namespace shufflempc::test
