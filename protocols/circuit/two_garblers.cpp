// v1 of the circuit protocol: BMR with two garblers (parties 0 and 1) and a helper (party 2), the
// other parties input-only clients (circuit.hpp, docs/two-round-mpc.md).
#include <sodium.h>

#include "setup.hpp"

namespace shufflempc::circuit::detail {
namespace {

class TwoGarblersParty final : public CircuitParty {
 public:
  using CircuitParty::CircuitParty;

  void send(std::uint32_t round, Rng& rng, MessageBatch& out) override {
    if (round == 0) send_round1(rng, out);
    else if (s_->computes(id_)) send_round2(out);
  }

  void receive(std::uint32_t round, const MessageBatch& output, const RoundOutcome& outcome) override {
    if (round == 0) {
      receive_round1(output, outcome);
      if (s_->computes(id_)) take_round1();
      osm_.reset();
    } else {
      result_ = output_value(s_->c(), evaluate_two_garblers(*s_, output, outcome));
    }
  }

 private:
  void send_round1(Rng& rng, MessageBatch& out) {
    const Setup& s = *s_;
    const bmr::Layout& l = *s.layout;
    osm_.emplace(s.osm, id_, rng);
    osm_->append_chaff(out);
    std::vector<std::vector<std::uint8_t>> to(s.n);
    const auto put = [&](PartyId q, std::span<const std::uint8_t> bytes) { to[q].insert(to[q].end(), bytes.begin(), bytes.end()); };
    if (id_ == 0) {
      master_ = random_seed(rng);
      const auto seeds = bmr::G1Seeds::of(master_);
      put(1, seeds.s1);
      put(1, seeds.s2);
      put(2, master_);
    } else if (id_ == 1) {
      master_ = random_seed(rng);
      const auto seeds = bmr::G2Seeds::of(master_);
      put(0, seeds.s0);
      put(0, seeds.s1);
      own_g2_ = bmr::g2_own_shares(l, master_);
      put(2, seeds.s0);
      put(2, bmr::encode(l, own_g2_->second));
    }
    // Replicated shares of the own input bits: s_0, s_1 fresh (never from a garbler's seed), s_2.
    if (!bits_.empty()) {
      const auto sh = bmr::rss_split(bits_, rng);
      for (PartyId k = 0; k < bmr::computing_parties; ++k) {
        if (k == id_) {
          own_x_ = {sh[k], sh[(k + 1) % 3]};
          continue;
        }
        put(k, pack_bits(sh[k]));
        put(k, pack_bits(sh[(k + 1) % 3]));
      }
    }
    send_plaintexts(to, out);
  }

  void take_round1() {
    const Setup& s = *s_;
    const bmr::Layout& l = *s.layout;
    h_.k = id_;
    h_.x.first.assign(l.inputs, 0);
    h_.x.second.assign(l.inputs, 0);
    const auto place_x = [&](PartyId owner, std::span<const std::uint8_t> first, std::span<const std::uint8_t> second) {
      const auto& w = s.wires[owner];
      for (std::size_t i = 0; i < w.size(); ++i) {
        h_.x.first[w[i]] = first[i];
        h_.x.second[w[i]] = second[i];
      }
    };
    if (!bits_.empty()) place_x(id_, own_x_.first, own_x_.second);
    // What the garblers deal (bmr.hpp): G2 gets G1's two sub-seeds, the helper G1's master seed;
    // G1 gets G2's two seeds, the helper G2's s_0 seed and its explicit share.
    bmr::G1Seeds g1_seeds{};
    Seed g1_master{};
    bmr::G2Seeds g2_seeds{};
    std::optional<bmr::Dealt> explicit_s2;
    for (PartyId q = 0; q < s.n; ++q) {
      const std::size_t bytes = s.plaintext(q, id_);
      if (bytes == 0) continue;
      const auto msg = osm_->open(q, bytes);
      std::size_t at = 0;
      const auto take = [&](std::span<std::uint8_t> dst) {
        std::copy_n(msg.begin() + static_cast<std::ptrdiff_t>(at), dst.size(), dst.begin());
        at += dst.size();
      };
      if (q == 0 && id_ == 1) {
        take(g1_seeds.s1);
        take(g1_seeds.s2);
      } else if (q == 0 && id_ == 2) {
        take(g1_master);
      } else if (q == 1 && id_ == 0) {
        take(g2_seeds.s0);
        take(g2_seeds.s1);
      } else if (q == 1 && id_ == 2) {
        take(g2_seeds.s0);
        explicit_s2 = bmr::decode(l, std::span(msg).subspan(at, l.dealt_bytes()));
        at += l.dealt_bytes();
      }
      const std::size_t nb = s.wires[q].size();
      if (nb == 0) continue;
      std::vector<std::uint8_t> first(nb), second(nb);
      const std::size_t packed = (nb + 7) / 8;
      unpack_bits(std::span(msg).subspan(at, packed), first);
      unpack_bits(std::span(msg).subspan(at + packed, packed), second);
      place_x(q, first, second);
    }
    if (id_ == 0) {
      h_.dealt = {bmr::g1_shares_from_master(l, 0, master_), bmr::g2_shares_of_g1(l, g2_seeds)};
      h_.own = bmr::make_garbler(l, 0, master_);
    } else if (id_ == 1) {
      h_.dealt = {bmr::g1_shares_of_g2(l, g1_seeds), std::move(*own_g2_)};
      h_.own = bmr::make_garbler(l, 1, master_);
    } else {
      h_.dealt = {bmr::g1_shares_from_master(l, 2, g1_master), bmr::g2_shares_of_helper(l, std::move(*explicit_s2), g2_seeds)};
      sodium_memzero(g1_master.data(), g1_master.size());
    }
    sodium_memzero(master_.data(), master_.size());
    // The zero-sum pad: F(K_{k,k+1}) ^ F(K_{k-1,k}); each pair's pad appears twice over the three.
    next_key_ = osm_->pair_key((id_ + 1) % 3);
    previous_key_ = osm_->pair_key((id_ + 2) % 3);
  }

  void send_round2(MessageBatch& out) {
    auto share = bmr::round2_share(*s_->layout, h_);
    xor_pad(next_key_, share);
    xor_pad(previous_key_, share);
    sodium_memzero(next_key_.data(), next_key_.size());
    sodium_memzero(previous_key_.data(), previous_key_.size());
    append_round2(*s_, id_, share, out);
    h_ = {};
  }

  Seed master_{};
  std::optional<bmr::Pair<bmr::Dealt>> own_g2_;
  bmr::Pair<std::vector<std::uint8_t>> own_x_;
  bmr::Holdings h_;
  osm::Key next_key_{}, previous_key_{};  // with parties k + 1 and k - 1: the zero-sum pad
};

}  // namespace

// v1: XOR of the three computing parties' payloads, evaluated.
std::vector<std::uint8_t> evaluate_two_garblers(const Setup& s, const MessageBatch& output, const RoundOutcome& outcome) {
  return bmr::evaluate(*s.layout, xor_round2(s, output, outcome));
}

std::unique_ptr<Party> make_two_garblers_party(std::shared_ptr<const Setup> s, PartyId id, std::vector<std::uint8_t> bits) {
  return std::make_unique<TwoGarblersParty>(std::move(s), id, std::move(bits));
}

}  // namespace shufflempc::circuit::detail
