// v3 of the circuit protocol: a designated garbler (party 0) garbles alone with half-gates and
// publishes the garbled circuit in round 1; labels are selected by GF(2^128) Shamir sharings in
// round 2, ESA mode only (circuit.hpp, docs/two-round-mpc.md).
#include <sodium.h>

#include "shufflempc/protocols/circuit/gf128.hpp"
#include "shufflempc/protocols/circuit/half_gates.hpp"
#include "setup.hpp"
#include "shufflempc/shamir.hpp"

namespace shufflempc::circuit::detail {
namespace {

class DesignatedGarblerParty final : public CircuitParty {
 public:
  using CircuitParty::CircuitParty;

  void send(std::uint32_t round, Rng& rng, MessageBatch& out) override {
    if (round == 0) send_round1(rng, out);
    else send_round2(out);
  }

  void receive(std::uint32_t round, const MessageBatch& output, const RoundOutcome& outcome) override {
    if (round != 0) return;  // round 2 goes to the analyzer only
    receive_round1(output, outcome);
    take_round1();
    osm_.reset();
  }

 private:
  void send_round1(Rng& rng, MessageBatch& out) {
    const Setup& s = *s_;
    osm_.emplace(s.osm, id_, rng);
    osm_->append_chaff(out);
    std::vector<std::vector<std::uint8_t>> to(s.n);
    const auto put = [&](PartyId q, const Block& b) {
      std::uint8_t buf[block_bytes];
      b.store(buf);
      to[q].insert(to[q].end(), buf, buf + block_bytes);
    };
    if (id_ == garbler) {
      garbled_ = half_gates::garble(s.c(), rng, s.hash);
      std::vector<Block> shares(s.n);
      shamir::share(gf128::Field{}, garbled_->delta, s.t, rng, std::span<Block>(shares));
      for (PartyId q = 0; q < s.n; ++q) {
        if (q == id_) delta_ = shares[q];
        else put(q, shares[q]);
      }
      // The public garbled circuit, in chunks of the round's payload.
      const auto gc = half_gates::encode_public(*garbled_);
      const std::size_t pb = s.osm.payload_bytes();
      for (std::size_t c = 0; c < s.gc_chunks; ++c) {
        auto m = out.append();
        osm::write_header(m, {gc_kind, garbler, 0, static_cast<std::uint32_t>(c)});
        std::fill(m.begin() + osm::header_bytes, m.end(), std::uint8_t{0});
        std::copy_n(gc.begin() + static_cast<std::ptrdiff_t>(c * pb), std::min(pb, gc.size() - c * pb), m.begin() + osm::header_bytes);
      }
    }
    x_.assign(s.c().input_bits(), Block{});
    std::vector<Block> shares(s.n);
    for (std::size_t i = 0; i < bits_.size(); ++i) {
      shamir::share(gf128::Field{}, Block{bits_[i], 0}, s.t, rng, std::span<Block>(shares));
      for (PartyId q = 0; q < s.n; ++q) {
        if (q == id_) x_[s.wires[id_][i]] = shares[q];
        else put(q, shares[q]);
      }
    }
    send_plaintexts(to, out);
  }

  void take_round1() {
    const Setup& s = *s_;
    for (PartyId q = 0; q < s.n; ++q) {
      const std::size_t bytes = s.plaintext(q, id_);
      if (bytes == 0) continue;
      const auto msg = osm_->open(q, bytes);
      std::size_t at = 0;
      if (q == garbler) {
        delta_ = Block::load(msg.data());
        at = block_bytes;
      }
      for (std::uint32_t w : s.wires[q]) {
        x_[w] = Block::load(msg.data() + at);
        at += block_bytes;
      }
    }
    // alpha_w = sum over peers of F(K_{self,peer})_w: every pad appears twice, so sum_j alpha_j = 0.
    alpha_.assign(s.round2_bytes, 0);
    for (PartyId q = 0; q < s.n; ++q)
      if (q != id_) xor_pad(osm_->pair_key(q), alpha_);
  }

  void send_round2(MessageBatch& out) {
    const Setup& s = *s_;
    const Block inv_self = gf128::inverse(s.lagrange[id_]);
    std::vector<std::uint8_t> payload(s.round2_bytes);
    for (std::size_t w = 0; w < x_.size(); ++w) {
      // y = [x]_j [Delta]_j + ([j = G] k_{w,0} + alpha_w) / L_j
      Block extra = Block::load(alpha_.data() + w * block_bytes);
      if (id_ == garbler) extra ^= garbled_->zero_labels[w];
      const Block y = gf128::mul(x_[w], delta_) ^ gf128::mul(extra, inv_self);
      y.store(payload.data() + w * block_bytes);
    }
    append_round2(s, id_, payload, out);
    garbled_.reset();
    x_.clear();
    alpha_.clear();
  }

  std::optional<half_gates::Garbled> garbled_;
  Block delta_{};
  std::vector<Block> x_;  // this party's share of every input bit
  std::vector<std::uint8_t> alpha_;
};

}  // namespace

// v3: the active labels by interpolation at 0 over every party, then the garbled circuit.
std::vector<std::uint8_t> evaluate_designated_garbler(const Setup& s, std::span<const std::uint8_t> gc, const MessageBatch& output, const RoundOutcome& outcome) {
  const auto& l = s.lagrange;
  std::vector<Block> labels(s.c().input_bits());
  read_round2(s, output, outcome, [&](PartyId j, std::size_t at, std::span<const std::uint8_t> bytes) {
    for (std::size_t off = 0; off < bytes.size(); off += block_bytes)
      labels[(at + off) / block_bytes] ^= gf128::mul(l[j], Block::load(bytes.data() + off));
  });
  return half_gates::evaluate(s.c(), gc, labels, s.hash);
}

std::unique_ptr<Party> make_designated_garbler_party(std::shared_ptr<const Setup> s, PartyId id, std::vector<std::uint8_t> bits) {
  return std::make_unique<DesignatedGarblerParty>(std::move(s), id, std::move(bits));
}

}  // namespace shufflempc::circuit::detail
