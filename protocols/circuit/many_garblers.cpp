// v2 of the circuit protocol: multi-party BMR with t + 1 garblers (parties 0..t), every party
// computing, t = floor((n - 1) / 3) by default (circuit.hpp, bmr_shamir.hpp, docs/two-round-mpc.md).
//
//   round 1  OSM chaff for every pair; each garbler's degree-t shares of its mask bits and of the
//            bytes of its Delta, and each owner's shares of its input bits, one byte per value per peer.
//   round 2  every party's L_k-weighted share of the garbled circuit (bmr_shamir::round2_share) under
//            the XOR of a PRF pad per pad pair (bmr_shamir::pad_pair: the peers within ceil((t+1)/2)
//            on the ring): each pair's pad appears in both payloads, so the pads cancel, and because
//            no t parties disconnect that graph, the honest payloads are uniform given their XOR and
//            the coalition's view (a plain ring would let t >= 2 parties cut the honest ones into arcs
//            whose XORs open).
#include <sodium.h>

#include "setup.hpp"

namespace shufflempc::circuit::detail {
namespace {

class ManyGarblersParty final : public CircuitParty {
 public:
  using CircuitParty::CircuitParty;
  ~ManyGarblersParty() override { wipe(); }
  ManyGarblersParty(const ManyGarblersParty&) = delete;
  ManyGarblersParty& operator=(const ManyGarblersParty&) = delete;

  void send(std::uint32_t round, Rng& rng, MessageBatch& out) override {
    if (round == 0) send_round1(rng, out);
    else send_round2(out);
  }

  void receive(std::uint32_t round, const MessageBatch& output, const RoundOutcome& outcome) override {
    if (round == 0) {
      receive_round1(output, outcome);
      take_round1();
      osm_.reset();
    } else {
      result_ = output_value(s_->c(), evaluate_many_garblers(*s_, output, outcome));
    }
  }

 private:
  void send_round1(Rng& rng, MessageBatch& out) {
    const Setup& s = *s_;
    const bmr_shamir::Plan& p = *s.plan;
    osm_.emplace(s.osm, id_, rng);
    osm_->append_chaff(out);
    std::vector<std::vector<std::uint8_t>> to(s.n);
    h_.k = id_;
    h_.dealt.assign(p.garblers, {});
    if (id_ < p.garblers) {
      Seed master = random_seed(rng);
      h_.own = bmr::make_garbler(p.layout, static_cast<int>(id_), master);
      sodium_memzero(master.data(), master.size());
      auto dealt = bmr_shamir::deal(p, *h_.own, rng);
      for (PartyId q = 0; q < s.n; ++q) to[q] = std::move(dealt[q]);
      h_.dealt[id_] = std::move(to[id_]);
    }
    auto x = bmr_shamir::share_bits(p, bits_, rng);
    h_.x.assign(p.layout.inputs, 0);
    for (PartyId q = 0; q < s.n; ++q) {
      if (q == id_) place_x(id_, x[q]);
      else to[q].insert(to[q].end(), x[q].begin(), x[q].end());
      sodium_memzero(x[q].data(), x[q].size());
    }
    to[id_].clear();
    send_plaintexts(to, out);
    for (auto& t : to) sodium_memzero(t.data(), t.size());
  }

  void place_x(PartyId owner, std::span<const std::uint8_t> shares) {
    const auto& w = s_->wires[owner];
    for (std::size_t i = 0; i < w.size(); ++i) h_.x[w[i]] = shares[i];
  }

  void take_round1() {
    const Setup& s = *s_;
    const bmr_shamir::Plan& p = *s.plan;
    open_round1([&](PartyId q, std::span<const std::uint8_t> msg) {
      std::size_t at = 0;
      if (q < p.garblers) {
        h_.dealt[q].assign(msg.begin(), msg.begin() + static_cast<std::ptrdiff_t>(p.dealt_bytes()));
        at = p.dealt_bytes();
      }
      place_x(q, msg.subspan(at));
    });
  }

  void send_round2(MessageBatch& out) {
    auto share = bmr_shamir::round2_share(*s_->plan, h_);
    const std::size_t reach = bmr_shamir::pad_reach(s_->t);
    for (PartyId q = 0; q < s_->n; ++q)
      if (bmr_shamir::pad_pair(s_->n, reach, id_, q)) xor_pad(keys_[q], share);
    wipe();
    append_round2(*s_, id_, share, out);
  }

  void wipe() {
    wipe_keys();
    for (auto& d : h_.dealt) sodium_memzero(d.data(), d.size());
    sodium_memzero(h_.x.data(), h_.x.size());
    if (h_.own) {
      sodium_memzero(h_.own->lambda.data(), h_.own->lambda.size());
      sodium_memzero(h_.own->key.data(), h_.own->key.size() * sizeof(Block));
      sodium_memzero(&h_.own->delta, sizeof(Block));
    }
    h_ = {};
  }

  bmr_shamir::Holdings h_;
};

}  // namespace

// v2: XOR of the n payloads, evaluated.
std::vector<std::uint8_t> evaluate_many_garblers(const Setup& s, const MessageBatch& output, const RoundOutcome& outcome) {
  return bmr_shamir::evaluate(*s.plan, xor_round2(s, output, outcome));
}

std::unique_ptr<Party> make_many_garblers_party(std::shared_ptr<const Setup> s, PartyId id, std::vector<std::uint8_t> bits) {
  return std::make_unique<ManyGarblersParty>(std::move(s), id, std::move(bits));
}

}  // namespace shufflempc::circuit::detail
