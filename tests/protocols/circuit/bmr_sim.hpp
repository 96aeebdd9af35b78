// Runs V1's three computing parties' local computations in one place (no channel): the dealing of
// round 1, each party's round-2 share, their XOR and the evaluation. The protocol runs the same
// functions; tests use this to enumerate masks and compare with plain evaluation.
#pragma once

#include <array>
#include <functional>
#include <vector>

#include "shufflempc/protocols/circuit/bmr.hpp"

namespace shufflempc::test {

struct BmrRun {
  std::vector<std::uint8_t> output;
  std::vector<std::uint8_t> masked;                       // Lambda of every wire
  std::array<std::vector<std::uint8_t>, 3> shares;        // each party's round-2 share
  std::vector<std::uint8_t> payload;                      // their XOR
};

// `garbler` may replace a garbler's secrets after they are drawn (a test's enumeration or bug).
inline BmrRun simulate_bmr(const circuit::bmr::Layout& l, std::span<const std::uint8_t> input_bits, const circuit::Seed& m1,
                           const circuit::Seed& m2, Rng& rng,
                           const std::function<void(circuit::bmr::Garbler&)>& edit = {}) {
  using namespace circuit::bmr;
  // With an edit, the dealt values are recomputed from the edited garblers (the seeds' streams stay).
  Garbler g[2] = {make_garbler(l, 0, m1), make_garbler(l, 1, m2)};
  std::array<Holdings, 3> h;
  if (!edit) {
    h[0].dealt = {g1_shares_from_master(l, 0, m1), g2_shares_of_g1(l, G2Seeds::of(m2))};
    h[1].dealt = {g1_shares_of_g2(l, G1Seeds::of(m1)), g2_own_shares(l, m2)};
    h[2].dealt = {g1_shares_from_master(l, 2, m1), g2_shares_of_helper(l, g2_own_shares(l, m2).second, G2Seeds::of(m2))};
  } else {
    for (auto& gj : g) edit(gj);
    for (int j = 0; j < 2; ++j) {
      std::array<Dealt, 3> s = {stream_dealt(l, circuit::random_seed(rng)), stream_dealt(l, circuit::random_seed(rng)),
                                dealt_values(l, g[j])};
      s[2] ^= s[0];
      s[2] ^= s[1];
      for (PartyId k = 0; k < 3; ++k) h[k].dealt[j] = {s[k], s[(k + 1) % 3]};
    }
  }
  h[0].own = g[0];
  h[1].own = g[1];
  const auto x = circuit::bmr::rss_split(input_bits, rng);
  BmrRun r;
  r.payload.assign(l.payload_bytes(), 0);
  for (PartyId k = 0; k < 3; ++k) {
    h[k].k = k;
    h[k].x = {x[k], x[(k + 1) % 3]};
    r.shares[k] = round2_share(l, h[k]);
    for (std::size_t i = 0; i < r.payload.size(); ++i) r.payload[i] ^= r.shares[k][i];
  }
  r.output = evaluate(l, r.payload, &r.masked);
  return r;
}

}  // namespace shufflempc::test
