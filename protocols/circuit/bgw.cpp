// The circuit protocol's many-round variant, bgw: BGW over GF(2^8) with t < n/2 in AND-depth + 2
// rounds (circuit.hpp, docs/two-round-mpc.md "The many-round baseline").
//
//   round 0          OSM chaff for every pair and each input bit's degree-t shares, one byte per
//                    bit per peer; the pairwise OSM keys key the private channels of the rounds after.
//   round r, 1..L    the gates of AND-depth r. Party j multiplies its shares of each gate's inputs
//                    (a point of a degree-2t polynomial through the product), shares that product at
//                    degree t and seals share k to party k, one byte per gate per peer. Party k's new
//                    share of the gate's output is sum_j lambda_j h_j(k), lambda the Lagrange
//                    coefficients at 0 over every party's point (degree reduction; 2t < n).
//   round L + 1      every party's shares of the output bits; whoever receives them interpolates
//                    from t + 1 and checks that every other share lies on the same polynomial.
// XOR, NOT and constants cost nothing: they act on the shares locally.
#include <sodium.h>

#include <algorithm>

#include "shufflempc/protocols/circuit/gf256.hpp"
#include "setup.hpp"
#include "shufflempc/private_channel.hpp"
#include "shufflempc/shamir.hpp"

namespace shufflempc::circuit::detail {
namespace {

constexpr std::size_t max_layer_payload = 1024;  // bytes of shares per sealed message of a layer round
const gf256::Field field{};

const SessionId& bgw_session() {
  // The channels' keys come from the round's fresh OSM keys, so one public name serves every run.
  static const SessionId id = session_id_from_name("shufflempc/circuit/bgw/v1");
  return id;
}

class BgwParty final : public CircuitParty {
 public:
  BgwParty(std::shared_ptr<const Setup> s, PartyId id, std::vector<std::uint8_t> bits)
      : CircuitParty(std::move(s), id, std::move(bits)) {}
  ~BgwParty() override { wipe(); }
  BgwParty(const BgwParty&) = delete;
  BgwParty& operator=(const BgwParty&) = delete;

  void send(std::uint32_t round, Rng& rng, MessageBatch& out) override {
    const std::size_t layers = s_->and_depth;
    if (round == 0) send_inputs(rng, out);
    else if (round <= layers) send_layer(round, rng, out);
    else send_outputs(out);
  }

  void receive(std::uint32_t round, const MessageBatch& output, const RoundOutcome& outcome) override {
    if (round == 0) receive_inputs(output, outcome);
    else if (round <= s_->and_depth) receive_layer(round, output, outcome);
    else {
      result_ = output_value(s_->c(), evaluate_bgw(*s_, output, outcome));
      wipe();
    }
  }

 private:
  void send_inputs(Rng& rng, MessageBatch& out) {
    const Setup& s = *s_;
    osm_.emplace(s.osm, id_, rng);
    osm_->append_chaff(out);
    share_.assign(s.c().wires, 0);
    std::vector<std::vector<std::uint8_t>> to(s.n);
    std::vector<std::uint8_t> shares(s.n);
    for (std::size_t i = 0; i < bits_.size(); ++i) {
      shamir::share(field, bits_[i], s.t, rng, std::span<std::uint8_t>(shares), std::span<const std::uint8_t>(s.points256));
      for (PartyId q = 0; q < s.n; ++q) {
        if (q == id_) share_[s.wires[id_][i]] = shares[q];
        else to[q].push_back(shares[q]);
      }
    }
    send_plaintexts(to, out);
    for (auto& t : to) sodium_memzero(t.data(), t.size());
  }

  void receive_inputs(const MessageBatch& output, const RoundOutcome& outcome) {
    const Setup& s = *s_;
    receive_round1(output, outcome);
    open_round1([&](PartyId q, std::span<const std::uint8_t> msg) {
      for (std::size_t i = 0; i < msg.size(); ++i) share_[s.wires[q][i]] = msg[i];
      if (s.observe_bgw) s.observe_bgw(id_, 0, q, msg);
    });
    osm_.reset();
  }

  // The gates of depth `depth` other than AND, on the shares (circuit order keeps their inputs set).
  void evaluate_linear(std::size_t depth) {
    for (const std::uint32_t g : s_->c().layers.linear[depth]) {
      const Gate& gate = s_->c().gates[g];
      switch (gate.type) {
        case GateType::xor_gate: share_[gate.out] = share_[gate.a] ^ share_[gate.b]; break;
        case GateType::inv: share_[gate.out] = share_[gate.a] ^ 1; break;  // the polynomial plus the constant 1
        case GateType::eq: share_[gate.out] = static_cast<std::uint8_t>(gate.a); break;  // the constant polynomial
        case GateType::eqw: share_[gate.out] = share_[gate.a]; break;
        case GateType::and_gate: break;  // never in a linear layer
      }
    }
  }

  void send_layer(std::uint32_t r, Rng& rng, MessageBatch& out) {
    const Setup& s = *s_;
    evaluate_linear(r - 1);
    const auto& gates = s.c().layers.ands[r];
    const std::size_t width = s.layer_payload[r], chunks = s.layer_chunks[r];
    std::vector<std::vector<std::uint8_t>> to(s.n, std::vector<std::uint8_t>(chunks * width, 0));
    own_.assign(gates.size(), 0);
    std::vector<std::uint8_t> shares(s.n);
    for (std::size_t i = 0; i < gates.size(); ++i) {
      const Gate& gate = s.c().gates[gates[i]];
      const std::uint8_t product = gf256::mul(share_[gate.a], share_[gate.b]);  // on a polynomial of degree 2t
      if (s.bgw_fault_fixed_reshare) std::fill(shares.begin(), shares.end(), product);  // the negative control of the tests
      else shamir::share(field, product, s.t, rng, std::span<std::uint8_t>(shares), std::span<const std::uint8_t>(s.points256));
      for (PartyId q = 0; q < s.n; ++q) {
        if (q == id_) own_[i] = shares[q];
        else to[q][i] = shares[q];
      }
    }
    channels_.emplace(bgw_session(), id_, width);
    for (PartyId q = 0; q < s.n; ++q) {
      if (q == id_) continue;
      channels_->add_peer(q, keys_[q]);
      for (std::size_t c = 0; c < chunks; ++c)
        channels_->seal(q, r, static_cast<std::uint32_t>(c), std::span<const std::uint8_t>(to[q]).subspan(c * width, width), out);
      sodium_memzero(to[q].data(), to[q].size());
    }
  }

  void receive_layer(std::uint32_t r, const MessageBatch& output, const RoundOutcome& outcome) {
    const Setup& s = *s_;
    if (outcome.submitted.size() != s.n)
      throw_error(Errc::too_few_parties, fmt::format("circuit: {} of {} parties sent round {}; bgw's degree reduction needs every party",
                                                     outcome.submitted.size(), s.n, r + 1));
    const auto& gates = s.c().layers.ands[r];
    const std::size_t width = s.layer_payload[r], chunks = s.layer_chunks[r];
    const auto got = channels_->open_all(r, output, static_cast<std::uint32_t>(chunks));
    std::vector<std::size_t> count(s.n, 0);
    std::vector<std::uint8_t> z(gates.size());
    for (std::size_t i = 0; i < gates.size(); ++i) z[i] = gf256::mul(s.lagrange256[id_], own_[i]);
    for (const auto& m : got) {
      ++count[m.sender];
      const std::size_t first = m.seq * width, last = std::min(gates.size(), first + width);
      for (std::size_t i = first; i < last; ++i) z[i] ^= gf256::mul(s.lagrange256[m.sender], m.payload[i - first]);
      if (s.observe_bgw) s.observe_bgw(id_, r, m.sender, std::span<const std::uint8_t>(m.payload).first(last - first));
    }
    for (PartyId q = 0; q < s.n; ++q)
      if (q != id_ && count[q] != chunks)
        throw_error(Errc::protocol_violation, fmt::format("circuit: party {} sent {} of the {} private messages of round {} to party {}", q,
                                                          count[q], chunks, r + 1, id_));
    for (std::size_t i = 0; i < gates.size(); ++i) share_[s.c().gates[gates[i]].out] = z[i];
    sodium_memzero(own_.data(), own_.size());
    sodium_memzero(z.data(), z.size());
    channels_.reset();
  }

  void send_outputs(MessageBatch& out) {
    const Setup& s = *s_;
    evaluate_linear(s.and_depth);
    const std::uint32_t first = s.c().output_wire(0);
    append_round2(s, id_, std::span<const std::uint8_t>(share_).subspan(first, s.c().output_bits()), out);
  }

  void wipe() {
    wipe_keys();
    if (!share_.empty()) sodium_memzero(share_.data(), share_.size());
  }

  std::vector<std::uint8_t> share_;      // this party's share of every wire set so far
  std::vector<std::uint8_t> own_;        // this party's own share of each product of the layer
  std::optional<PrivateChannels> channels_;
};

}  // namespace

void plan_layer_rounds(Setup& s) {
  const std::size_t most = s.c().layers.depth();
  s.and_depth = most;
  s.layer_payload.assign(most + 1, 0);
  s.layer_chunks.assign(most + 1, 0);
  for (std::size_t r = 1; r <= most; ++r) {
    const std::size_t gates = s.c().layers.ands[r].size();  // never 0: a gate at depth r reads one at depth r - 1
    s.layer_payload[r] = std::min(gates, max_layer_payload);
    s.layer_chunks[r] = (gates + s.layer_payload[r] - 1) / s.layer_payload[r];
  }
}

std::unique_ptr<Party> make_bgw_party(std::shared_ptr<const Setup> s, PartyId id, std::vector<std::uint8_t> bits) {
  return std::make_unique<BgwParty>(std::move(s), id, std::move(bits));
}

std::vector<std::uint8_t> evaluate_bgw(const Setup& s, const MessageBatch& output, const RoundOutcome& outcome) {
  const std::size_t bits = s.c().output_bits();
  std::vector<std::vector<std::uint8_t>> y(s.n, std::vector<std::uint8_t>(bits, 0));
  read_round2(s, output, outcome, [&](PartyId sender, std::size_t at, std::span<const std::uint8_t> bytes) {
    std::copy(bytes.begin(), bytes.end(), y[sender].begin() + static_cast<std::ptrdiff_t>(at));
  });
  // Interpolate from parties 0..t; every further share must lie on the same polynomial.
  std::vector<std::uint32_t> base(s.t + 1);
  for (std::uint32_t j = 0; j <= s.t; ++j) base[j] = j;
  const auto at_zero = shamir::lagrange_at_zero(field, std::span<const std::uint32_t>(base));
  std::vector<std::vector<std::uint8_t>> at_party(s.n);
  for (PartyId j = static_cast<PartyId>(s.t + 1); j < s.n; ++j)
    at_party[j] = shamir::lagrange_at(field, std::span<const std::uint32_t>(base), shamir::point(field, j));
  const auto combine = [&](const std::vector<std::uint8_t>& l, std::size_t bit) {
    std::uint8_t v = 0;
    for (std::size_t i = 0; i < l.size(); ++i) v ^= gf256::mul(l[i], y[i][bit]);
    return v;
  };
  std::vector<std::uint8_t> out(bits);
  for (std::size_t bit = 0; bit < bits; ++bit) {
    for (PartyId j = static_cast<PartyId>(s.t + 1); j < s.n; ++j)
      if (combine(at_party[j], bit) != y[j][bit])
        throw_error(Errc::protocol_violation,
                    fmt::format("circuit: output bit {}: the last round's shares do not lie on one polynomial of degree {} (a party sent a wrong share)",
                                bit, s.t));
    const std::uint8_t v = combine(at_zero, bit);
    if (v > 1) throw_error(Errc::protocol_violation, fmt::format("circuit: output bit {} interpolates to {}, not a bit", bit, v));
    out[bit] = v;
  }
  return out;
}

}  // namespace shufflempc::circuit::detail
