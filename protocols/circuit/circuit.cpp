#include "shufflempc/protocols/circuit/circuit.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "shufflempc/protocols/circuit/bmr.hpp"
#include "shufflempc/protocols/circuit/gf128.hpp"
#include "shufflempc/protocols/circuit/gf256.hpp"
#include "shufflempc/protocols/circuit/half_gates.hpp"
#include "setup.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/inputs.hpp"
#include "shufflempc/private_channel.hpp"
#include "shufflempc/shamir.hpp"

namespace shufflempc::circuit {
namespace {

using namespace detail;

class CircuitAnalyzer final : public Analyzer {
 public:
  explicit CircuitAnalyzer(std::shared_ptr<const Setup> s) : s_(std::move(s)) {}
  void receive(std::uint32_t round, const MessageBatch& output, const RoundOutcome& outcome, Rng&) override {
    const std::size_t senders = std::max<std::size_t>(1, outcome.submitted.size());
    traffic_.push_back({{"round", round + 1},
                        {"messages", outcome.messages},
                        {"bytes", output.size_bytes()},
                        {"messages_per_party", static_cast<double>(outcome.messages) / static_cast<double>(senders)},
                        {"bytes_per_party", static_cast<double>(output.size_bytes()) / static_cast<double>(senders)}});
    if (round == 0) {
      check_round1(*s_, output, outcome);
      observer_ = osm::observe(s_->osm, output, outcome.submitted);
      if (s_->variant == Variant::designated_garbler) gc_ = public_circuit(*s_, output);
      return;
    }
    if (round + 1 < s_->rounds()) return;  // bgw's layer rounds: private messages among the parties
    const auto t0 = std::chrono::steady_clock::now();
    const auto bits = s_->variant == Variant::two_garblers         ? evaluate_two_garblers(*s_, output, outcome)
                      : s_->variant == Variant::many_garblers      ? evaluate_many_garblers(*s_, output, outcome)
                      : s_->variant == Variant::designated_garbler ? evaluate_designated_garbler(*s_, gc_, output, outcome)
                                                                   : evaluate_bgw(*s_, output, outcome);
    evaluate_ms_ = ms_since(t0);
    result_ = output_value(s_->c(), bits);
  }
  Value result() override { return result_; }
  Value details() const override {
    return {{"rounds", traffic_},
            {"evaluate_ms", evaluate_ms_},
            {"observer",
             {{"pairs", observer_.pairs},
              {"chaff_labels", s_->osm.chaff},
              {"min_uncertain_labels", observer_.min_uncertain_labels},
              {"collided_labels", observer_.collided_labels}}}};
  }

 private:
  std::shared_ptr<const Setup> s_;
  std::vector<std::uint8_t> gc_;
  osm::ObserverView observer_;
  Value traffic_ = Value::array();
  double evaluate_ms_ = 0;
  Value result_;
};

class CircuitProtocol final : public Protocol {
 public:
  explicit CircuitProtocol(std::shared_ptr<const Setup> s) : s_(std::move(s)) {}
  std::uint32_t rounds() const override { return s_->rounds(); }
  RoundShape round(std::uint32_t r) const override {
    if (r == 0) return {s_->osm.width, Delivery::all_parties, s_->round1_min, s_->round1_max};
    if (r + 1 < s_->rounds())  // bgw, layer r: sealed private messages, the same count from every party
      return RoundShape::exactly(private_channel::sealed_width(s_->layer_payload[r]), Delivery::all_parties,
                                 (s_->n - 1) * s_->layer_chunks[r]);
    const std::size_t min = s_->variant == Variant::two_garblers && s_->n > bmr::computing_parties ? 0 : s_->round2_chunks;
    return {s_->round2_width, s_->delivery, min, s_->round2_chunks};
  }
  std::unique_ptr<Party> make_party(PartyId id, const Value& input) const override {
    if (id >= s_->n) throw std::invalid_argument(fmt::format("circuit: party {} is outside [0, {})", id, s_->n));
    auto bits = parse_input(*s_, id, input);
    if (s_->variant == Variant::two_garblers) return make_two_garblers_party(s_, id, std::move(bits));
    if (s_->variant == Variant::bgw) return make_bgw_party(s_, id, std::move(bits));
    if (s_->variant == Variant::many_garblers) return make_many_garblers_party(s_, id, std::move(bits));
    return make_designated_garbler_party(s_, id, std::move(bits));
  }
  std::unique_ptr<Analyzer> make_analyzer() const override { return std::make_unique<CircuitAnalyzer>(s_); }
  Value random_input(PartyId id, std::string_view spec, Rng& rng) const override {
    (void)InputSpec::parse(spec, input_forms());
    const auto& groups = s_->groups[id];
    if (groups.empty()) return nullptr;
    Value a = Value::array();
    for (auto g : groups) {
      std::vector<std::uint8_t> bits(s_->c().inputs[g]);
      for (auto& b : bits) b = rng.bit() ? 1 : 0;
      a.push_back(hex_from_bits(bits));
    }
    return groups.size() == 1 ? a[0] : a;
  }
  std::optional<Value> truth(std::span<const Value> inputs) const override {
    std::vector<std::uint8_t> x(s_->c().input_bits(), 0);
    for (PartyId p = 0; p < inputs.size() && p < s_->n; ++p) {
      const auto bits = parse_input(*s_, p, inputs[p]);
      for (std::size_t i = 0; i < bits.size(); ++i) x[s_->wires[p][i]] = bits[i];
    }
    return output_value(s_->c(), evaluate(s_->c(), x));
  }
  bool has_error() const override { return false; }
  // AES-128's 6,400 AND gates are milliseconds of garbling and sharing per party; adder64's 63 are not.
  bool heavy_parties() const override { return s_->c().and_gates >= 1024; }
  Value describe() const override;

 private:
  std::shared_ptr<const Setup> s_;
};

Value CircuitProtocol::describe() const {
  const Setup& s = *s_;
  const auto role = [&](PartyId p) -> std::string {
    if (s.variant == Variant::bgw) return "party";
    if (s.variant == Variant::designated_garbler) return p == garbler ? "garbler" : "party";
    if (s.variant == Variant::many_garblers) return p < s.plan->garblers ? "garbler" : "party";
    return p == 0 ? "garbler G1" : p == 1 ? "garbler G2" : p == 2 ? "helper" : "client";
  };
  Value parties = Value::array();
  for (PartyId p = 0; p < s.n && p < 8; ++p) {
    const bool sends2 = s.computes(p);
    parties.push_back({{"party", p},
                       {"role", role(p)},
                       {"owns_groups", s.groups[p]},
                       {"round_1", {{"messages", s.round1_messages[p]}, {"bytes", s.round1_messages[p] * s.osm.width}}},
                       {"round_2", {{"messages", sends2 ? s.round2_chunks : 0}, {"bytes", sends2 ? s.round2_chunks * s.round2_width : 0}}}});
  }
  Value d = {{"circuit", {{"name", s.c().name}, {"inputs", s.c().inputs}, {"outputs", s.c().outputs}, {"and_gates", s.c().and_gates},
                          {"xor_gates", s.c().xor_gates}, {"inv_gates", s.c().inv_gates}, {"wires", s.c().wires}}},
             {"variant", to_string(s.variant)},
             {"garbling_hash", to_string(s.hash)},
             {"round_2", to_string(s.delivery)},
             {"osm", {{"chaff_per_pair", s.osm.chaff}, {"message_bytes", s.osm.width}, {"hubs", s.osm.hubs}}},
             {"round_2_message_bytes", s.round2_width},
             {"per_party", parties}};
  d["shuffle_rounds"] = s.rounds();
  if (s.variant == Variant::bgw) {
    d["threshold"] = s.t;
    d["and_depth"] = s.and_depth;
    d["threat_model"] = fmt::format(
        "semi-honest; private against any {} part{} even when everyone sees every round (the layer rounds' shares travel "
        "through private channels keyed in round 1)",
        s.t, s.t == 1 ? "y" : "ies");
    Value layers = Value::array();
    for (std::size_t r = 1; r <= s.and_depth; ++r)
      layers.push_back({{"round", r + 1}, {"and_gates", s.c().layers.ands[r].size()}, {"messages_per_party", (s.n - 1) * s.layer_chunks[r]},
                        {"bytes_per_party", (s.n - 1) * s.layer_chunks[r] * private_channel::sealed_width(s.layer_payload[r])}});
    d["layer_rounds"] = layers;
  } else if (s.variant == Variant::many_garblers) {
    d["threshold"] = s.t;
    d["garblers"] = s.plan->garblers;
    d["threat_model"] = fmt::format(
        "semi-honest; private against any {} part{} (3t <= n - 1) even when everyone sees both rounds; parties 0..{} garble, "
        "one honest garbler suffices",
        s.t, s.t == 1 ? "y" : "ies", s.t);
  } else if (s.variant == Variant::two_garblers) {
    d["threshold"] = 1;
    d["threat_model"] =
        "semi-honest; private against one corrupted computing party (0, 1 or 2) plus any number of input-only clients, "
        "even when everyone sees both rounds";
  } else {
    d["threshold"] = s.t;
    d["threat_model"] = fmt::format(
        "semi-honest; round 2 reaches the analyzer only; private against the analyzer plus {} parties other than the garbler "
        "(party 0); the garbler and the analyzer together learn every input",
        s.t);
    d["garbled_circuit_bytes"] = s.gc_bytes;
  }
  return d;
}

}  // namespace

const char* to_string(Variant v) {
  switch (v) {
    case Variant::two_garblers: return "v1";
    case Variant::many_garblers: return "v2";
    case Variant::designated_garbler: return "v3";
    case Variant::bgw: return "bgw";
  }
  return "?";
}

const std::vector<InputForm>& input_forms() {
  static const std::vector<InputForm> forms{{"uniform", {}}};
  return forms;
}

std::unique_ptr<Protocol> make_protocol(std::shared_ptr<const Circuit> circuit, std::size_t n, const Options& o, std::size_t min_parties) {
  auto s = std::make_shared<Setup>();
  const Circuit& c = *circuit;
  s->circuit = std::move(circuit);
  s->variant = o.variant;
  s->hash = o.hash;
  s->n = n;
  if (n < 3) throw std::invalid_argument(fmt::format("circuit needs at least 3 parties, got {}", n));
  if (min_parties != 0 && min_parties != n)
    throw std::invalid_argument(fmt::format("--min-parties {}: circuit needs every party in both rounds (give {} or leave it unset)", min_parties, n));
  if (o.variant == Variant::two_garblers) {
    if (o.threshold > 1)
      throw std::invalid_argument(fmt::format("parameter 'threshold' = {}: variant v1 tolerates one corrupted computing party (threshold 1); "
                                              "v3 tolerates up to floor((n - 1) / 2) = {} parties other than its garbler",
                                              o.threshold, (n - 1) / 2));
    s->t = 1;
    s->delivery = o.delivery;
    s->layout.emplace(c);
    s->layout->hash = o.hash;
  } else if (o.variant == Variant::many_garblers) {
    if (n < 4)
      throw std::invalid_argument(fmt::format("variant v2 needs at least 4 parties (t = floor((n - 1) / 3) >= 1), got {}; at n = 3 use v1", n));
    if (n > 255) throw std::invalid_argument(fmt::format("variant v2 shares over GF(2^8), whose points name at most 255 parties, got {}", n));
    const std::size_t max_t = (n - 1) / 3;
    if (o.threshold > max_t)
      throw std::invalid_argument(fmt::format("parameter 'threshold' = {}: variant v2 tolerates at most floor((n - 1) / 3) = {} parties for n = {} "
                                              "(its garbled rows have degree 3t); bgw reaches floor((n - 1) / 2) in more rounds",
                                              o.threshold, max_t, n));
    s->t = o.threshold == 0 ? max_t : o.threshold;
    s->delivery = o.delivery;
    s->plan.emplace(c, n, s->t, o.hash);
  } else if (o.variant == Variant::bgw) {
    const std::size_t max_t = (n - 1) / 2;
    if (o.threshold > max_t)
      throw std::invalid_argument(fmt::format("parameter 'threshold' = {}: variant bgw tolerates at most floor((n - 1) / 2) = {} parties for n = {}",
                                              o.threshold, max_t, n));
    if (n > 255) throw std::invalid_argument(fmt::format("variant bgw shares over GF(2^8), whose points name at most 255 parties, got {}", n));
    s->t = o.threshold == 0 ? max_t : o.threshold;
    s->delivery = o.delivery;
    s->observe_bgw = o.observe_bgw;
    s->bgw_fault_fixed_reshare = o.bgw_fault_fixed_reshare;
  } else {
    const std::size_t max_t = (n - 1) / 2;
    if (o.threshold > max_t)
      throw std::invalid_argument(fmt::format("parameter 'threshold' = {}: variant v3 tolerates at most floor((n - 1) / 2) = {} parties for n = {}",
                                              o.threshold, max_t, n));
    if (o.delivery != Delivery::analyzer_only)
      throw std::invalid_argument("parameter 'delivery' = mpc: variant v3's round 2 would hand the garbler every input label; it runs in esa mode only");
    s->t = o.threshold == 0 ? max_t : o.threshold;
    s->delivery = Delivery::analyzer_only;
  }
  // Owners of the input groups.
  s->owners = o.owners;
  if (s->owners.empty())
    for (std::size_t g = 0; g < c.inputs.size(); ++g) s->owners.push_back(static_cast<PartyId>(g % n));
  if (s->owners.size() != c.inputs.size())
    throw std::invalid_argument(fmt::format("parameter 'owners': circuit {} has {} input groups, {} owners given", c.name, c.inputs.size(), s->owners.size()));
  s->groups.resize(n);
  s->wires.resize(n);
  for (std::size_t g = 0; g < c.inputs.size(); ++g) {
    const PartyId p = s->owners[g];
    if (p >= n) throw std::invalid_argument(fmt::format("parameter 'owners': input group {}'s owner {} is outside [0, {})", g, p, n));
    s->groups[p].push_back(g);
    for (std::uint32_t w = c.input_wire(g); w < c.input_wire(g) + c.inputs[g]; ++w) s->wires[p].push_back(w);
  }
  // Round 2 (bgw: the last round): one payload per sender in 4 KiB messages.
  s->round2_bytes = o.variant == Variant::two_garblers    ? s->layout->payload_bytes()
                    : o.variant == Variant::many_garblers ? s->plan->payload_bytes()
                    : o.variant == Variant::bgw           ? std::size_t{c.output_bits()}
                                                     : std::size_t{c.input_bits()} * block_bytes;
  s->round2_chunks = std::max<std::size_t>(1, (s->round2_bytes + round2_max_payload - 1) / round2_max_payload);
  s->round2_width = osm::header_bytes + (s->round2_bytes + s->round2_chunks - 1) / s->round2_chunks;
  if (s->round2_width < osm::header_bytes + 1) s->round2_width = osm::header_bytes + 1;
  if (o.variant == Variant::bgw) {
    plan_layer_rounds(*s);
    std::vector<std::uint32_t> all(n);
    for (PartyId j = 0; j < n; ++j) all[j] = j;
    s->points256 = shamir::points(gf256::Field{}, n);
    s->lagrange256 = shamir::lagrange_at_zero(gf256::Field{}, std::span<const std::uint32_t>(all));
  }
  if (o.variant == Variant::designated_garbler) {
    s->gc_bytes = half_gates::public_bytes(c);
    std::vector<std::uint32_t> all(n);
    for (PartyId j = 0; j < n; ++j) all[j] = j;
    s->lagrange = shamir::lagrange_at_zero(gf128::Field{}, std::span<const std::uint32_t>(all));
  }
  // Round 1's width: the one that moves the fewest bytes in all (chaff is as wide as a chunk).
  osm::Config base{.parties = n, .width = 0, .chaff = o.chaff == 0 ? osm::default_chaff : o.chaff, .mode = osm::KeyMode::kdf,
                   .hubs = o.variant == Variant::two_garblers && n > bmr::computing_parties ? bmr::computing_parties : 0};
  if (base.chaff < 128) throw std::invalid_argument(fmt::format("parameter 'chaff' = {}: kdf keys need at least 128 labels per pair", base.chaff));
  std::size_t best = SIZE_MAX;
  for (std::size_t width = 48; width <= 4096; width += 16) {
    osm::Config cfg = base;
    cfg.width = width;
    std::size_t total = 0;
    for (PartyId p = 0; p < n; ++p) total += s->count_round1(p, cfg) * width;
    if (total < best) {
      best = total;
      s->osm = cfg;
    }
  }
  s->osm.validate();
  if (o.variant == Variant::designated_garbler) s->gc_chunks = (s->gc_bytes + s->osm.payload_bytes() - 1) / s->osm.payload_bytes();
  s->round1_messages.resize(n);
  s->round1_min = SIZE_MAX;
  for (PartyId p = 0; p < n; ++p) {
    s->round1_messages[p] = s->count_round1(p, s->osm);
    s->round1_min = std::min(s->round1_min, s->round1_messages[p]);
    s->round1_max = std::max(s->round1_max, s->round1_messages[p]);
  }
  return std::make_unique<CircuitProtocol>(std::move(s));
}

}  // namespace shufflempc::circuit
