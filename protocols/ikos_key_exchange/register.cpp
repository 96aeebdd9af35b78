// Registry entry of ikos-key-exchange: every pair of parties agrees on a k-bit key in one round of
// the shuffle (MPC mode: every party sees the output). The analyzer is the eavesdropper.
#include <cmath>
#include <memory>

#include "shufflempc/protocols/ikos_key_exchange/ikos.hpp"
#include "shufflempc/registry.hpp"

namespace shufflempc {
namespace ikos {
namespace {

class IkosParty final : public Party {
 public:
  IkosParty(const Config& c, PartyId id, bool show_keys) : exchange_(c, id), show_keys_(show_keys) {}
  void send(std::uint32_t, Rng& rng, MessageBatch& out) override { exchange_.send(rng, out); }
  void receive(std::uint32_t, const MessageBatch& output, const RoundOutcome&) override {
    exchange_.receive(output);
    received_ = true;
  }
  Value output() const override {
    Value agreed = Value::array();
    Value failed = Value::array();
    Value keys = Value::object();
    for (const auto& pk : exchange_.keys()) {
      (pk.agreed ? agreed : failed).push_back(pk.peer);
      if (pk.agreed && show_keys_) keys[std::to_string(pk.peer)] = to_hex(pk.key);
    }
    Value out = {{"key_bits", exchange_.config().key_bits}, {"received", received_}, {"agreed_with", agreed}, {"failed_with", failed}};
    if (show_keys_) out["keys"] = keys;
    return out;
  }

 private:
  KeyExchange exchange_;
  bool show_keys_;
  bool received_ = false;
};

// The eavesdropper: reports, from the public output alone, which keys exist and what it knows of them.
class IkosAnalyzer final : public Analyzer {
 public:
  IkosAnalyzer(const Config& c, double success_probability, bool show_view)
      : eve_(c), success_probability_(success_probability), show_view_(show_view) {}
  void receive(std::uint32_t, const MessageBatch& output, const RoundOutcome&, Rng&) override { eve_.observe(output); }
  Value result() override {
    const Config& c = eve_.config();
    std::uint64_t agreed = 0, differing = 0, known = 0, key_bits_known = 0;
    Value failed = Value::array();
    Value views = Value::array();
    for (PartyId i = 0; i < c.parties; ++i)
      for (PartyId j = i + 1; j < c.parties; ++j) {
        const PairView v = eve_.view(i, j);
        if (show_view_) {
          Value known = Value::object();
          for (auto [l, bit] : v.known) known[std::to_string(l)] = bit ? 1 : 0;
          views.push_back({{"pair", {i, j}}, {"success", v.success}, {"differing_labels", v.differing},
                           {"key_labels", v.key_labels}, {"known_bits", known}, {"key_bits_known", v.key_bits_known()}});
        }
        if (v.success) ++agreed;
        else failed.push_back({i, j});
        differing += v.differing.size();
        known += v.known.size();
        key_bits_known += v.key_bits_known();
      }
    Value result = {{"success", agreed == c.pairs()},
            {"key_bits", c.key_bits},
            {"pairs", c.pairs()},
            {"pairs_agreed", agreed},
            {"failed_pairs", failed},
            {"success_probability", success_probability_},
            {"eavesdropper",
             {{"labels_differing", differing},
              {"labels_with_known_bits", known},
              {"key_bits_known", key_bits_known},
              {"note", "on differing labels the observer sees {0, 1}: every key bit is uniform given its view"}}}};
    if (show_view_) result["eavesdropper"]["pairs"] = views;
    return result;
  }

 private:
  Eavesdropper eve_;
  double success_probability_;
  bool show_view_;
};

class IkosProtocol final : public Protocol {
 public:
  IkosProtocol(Config c, bool show_keys, bool show_view)
      : c_(c), show_keys_(show_keys), show_view_(show_view), p_(success_probability(c.key_bits, c.labels)) {}
  std::uint32_t rounds() const override { return 1; }
  RoundShape round(std::uint32_t) const override {
    return RoundShape::exactly(message_width, Delivery::all_parties, c_.messages_per_party());
  }
  std::unique_ptr<Party> make_party(PartyId id, const Value& input) const override {
    if (!input.is_null())
      throw std::invalid_argument("ikos-key-exchange takes no input: party " + std::to_string(id) + " was given " +
                                  input.dump() + " (use null)");
    return std::make_unique<IkosParty>(c_, id, show_keys_);
  }
  std::unique_ptr<Analyzer> make_analyzer() const override { return std::make_unique<IkosAnalyzer>(c_, p_.success, show_view_); }
  Value random_input(PartyId, std::string_view spec, Rng&) const override {
    (void)InputSpec::parse(spec, {});  // no forms: only "" (no input)
    return nullptr;
  }
  Value describe() const override {
    // Pairs draw independent bits, so all pairs succeed with probability p^pairs.
    const double all = std::exp(static_cast<double>(c_.pairs()) * std::log1p(-p_.failure));
    return {{"key_bits", c_.key_bits},
            {"labels_per_pair", c_.labels},
            {"pairs", c_.pairs()},
            {"messages_per_party", c_.messages_per_party()},
            {"success_probability", p_.success},
            {"failure_probability", p_.failure},
            {"success_formula", "P[Bin(" + std::to_string(c_.labels) + ", 1/2) >= " + std::to_string(c_.key_bits) + "]"},
            {"all_pairs_success_probability", all},
            {"show_keys", show_keys_}};
  }
  bool has_error() const override { return false; }

 private:
  Config c_;
  bool show_keys_;
  bool show_view_;
  SuccessProbability p_;
};

}  // namespace
}  // namespace ikos

namespace protocols {

void register_ikos_key_exchange(Registry& registry) {
  registry.add({.name = "ikos-key-exchange",
                .summary = "IKOS key exchange: every pair of parties agrees on a k-bit key in one shuffle round (MPC mode)",
                .params = {{.name = "k", .type = ParamType::integer, .default_value = "128", .help = "key length in bits",
                            .min = 1.0, .max = static_cast<double>(ikos::max_key_bits)},
                           {.name = "labels", .type = ParamType::integer, .default_value = "0",
                            .help = "labelled bits per pair, at least k (0: 3k; --k 1 --labels 1 is the one-bit protocol)",
                            .min = 0.0, .max = static_cast<double>(ikos::max_labels)},
                           {.name = "show-keys", .type = ParamType::boolean, .default_value = "false",
                            .help = "include the agreed keys (hex) in the parties' outputs"},
                           {.name = "show-view", .type = ParamType::boolean, .default_value = "false",
                            .help = "list, per pair, what the eavesdropper knows: differing labels, key labels, known bits"}},
                .min_parties = 2,
                .max_parties = 4096,
                .input_help = "none (every party's input is null)",
                .create = [](const Params& p, const Population& pop) -> std::unique_ptr<Protocol> {
                  return std::make_unique<ikos::IkosProtocol>(ikos::configure(pop.parties, p.integer("k"), p.integer("labels")),
                                                              p.boolean("show-keys"), p.boolean("show-view"));
                }});
}

}  // namespace protocols
}  // namespace shufflempc
