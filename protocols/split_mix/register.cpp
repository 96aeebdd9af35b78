// Registry entries of the split-mix family: split-mix-sum (secure summation in Z_q) and
// split-mix-dp-sum (differentially private summation of reals in [0, 1]).
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "shufflempc/registry.hpp"
#include "split_mix/dp_sum.hpp"
#include "split_mix/split_mix.hpp"

namespace shufflempc {
namespace split_mix {
namespace {

// A JSON number when it fits 64 bits, a decimal string otherwise.
Value big_value(const BigInt& x) {
  if (x >= 0 && x <= std::numeric_limits<std::uint64_t>::max()) return static_cast<std::uint64_t>(x);
  return x.str();
}

BigInt parse_element(PartyId id, const Value& v, const BigInt& bound) {
  BigInt x = -1;
  if (v.is_number_unsigned()) x = v.get<std::uint64_t>();
  else if (v.is_number_integer()) x = v.get<std::int64_t>();
  else if (v.is_string() && !v.get<std::string>().empty() && v.get<std::string>().size() <= 2500 &&
           v.get<std::string>().find_first_not_of("0123456789") == std::string::npos)
    x = BigInt(v.get<std::string>());
  if (x < 0 || x >= bound)
    throw std::invalid_argument("input of party " + std::to_string(id) + " must be an integer in [0, " + bound.str() +
                                ") (a JSON number or a decimal string), got " + v.dump());
  return x;
}

// The accepted inputs: [0, 2^input_bits), or all of Z_q when the modulus was given.
BigInt input_bound(const SumConfig& c) { return c.modulus_given ? c.modulus.value() : BigInt(1) << c.input_bits; }

Value split_description(const SumConfig& c) {
  return {{"q", big_value(c.modulus.value())},
          {"modulus", c.modulus_given ? "2^modulus-bits (the output is the sum mod q)" : "n 2^input-bits (holds every sum)"},
          {"log2_q", c.modulus.log2()},
          {"message_bytes", c.modulus.width()},
          {"messages_per_party", c.messages},
          {"messages_bbgn", c.messages_bbgn},
          {"messages_ikos_style", c.messages_ikos},
          {"sigma", c.sigma},
          {"sigma_guaranteed", c.sigma_guaranteed},
          {"below_bbgn_count", c.below_formula}};
}

class SumParty final : public Party {
 public:
  SumParty(const SumConfig& c, BigInt x) : c_(c), x_(std::move(x)) {}
  void send(std::uint32_t, Rng& rng, MessageBatch& out) override {
    if (c_.modulus.small()) c_.modulus.split(static_cast<std::uint64_t>(x_), c_.messages, rng, out);
    else c_.modulus.split(x_, c_.messages, rng, out);
  }

 private:
  const SumConfig& c_;
  BigInt x_;
};

class SumAnalyzer final : public Analyzer {
 public:
  explicit SumAnalyzer(const SumConfig& c) : c_(c) {}
  void receive(std::uint32_t, const MessageBatch& output, const RoundOutcome&, Rng&) override { sum_ = c_.modulus.sum(output); }
  Value result() override { return big_value(sum_); }

 private:
  const SumConfig& c_;
  BigInt sum_ = 0;
};

class SumProtocol final : public Protocol {
 public:
  explicit SumProtocol(SumConfig c) : c_(std::move(c)) {}
  std::uint32_t rounds() const override { return 1; }
  RoundShape round(std::uint32_t) const override { return {c_.modulus.width(), Delivery::analyzer_only}; }
  std::unique_ptr<Party> make_party(PartyId id, const Value& input) const override {
    return std::make_unique<SumParty>(c_, parse_element(id, input, input_bound(c_)));
  }
  std::unique_ptr<Analyzer> make_analyzer() const override { return std::make_unique<SumAnalyzer>(c_); }
  Value random_input(PartyId, std::string_view spec, Rng& rng) const override {
    // "" or "uniform": uniform over the accepted inputs; "max": the largest; "constant:V".
    const std::string s(spec);
    const BigInt bound = input_bound(c_);
    if (s.empty() || s == "uniform") return big_value(ZqBig(bound).uniform(rng));
    if (s == "max") return big_value(bound - 1);
    if (s.rfind("constant:", 0) == 0) return big_value(parse_element(0, Value(s.substr(9)), bound));
    throw std::invalid_argument("--random-inputs '" + s + "' is not understood: use uniform, max or constant:V");
  }
  std::optional<Value> truth(std::span<const Value> inputs) const override {
    BigInt total = 0;
    for (std::size_t i = 0; i < inputs.size(); ++i) total += parse_element(static_cast<PartyId>(i), inputs[i], input_bound(c_));
    return big_value(total % c_.modulus.value());
  }
  Value describe() const override { return split_description(c_); }

 private:
  SumConfig c_;
};

// ---- DP sum ----

double parse_real(PartyId id, const Value& v) {
  if (v.is_number() && v.get<double>() >= 0 && v.get<double>() <= 1) return v.get<double>();
  throw std::invalid_argument("input of party " + std::to_string(id) + " must be a real number in [0, 1], got " + v.dump());
}

class DpParty final : public Party {
 public:
  DpParty(const DpConfig& c, double x) : c_(c), x_(x) {}
  void send(std::uint32_t, Rng& rng, MessageBatch& out) override { encode_dp(x_, c_, rng, out); }

 private:
  const DpConfig& c_;
  double x_;
};

class DpAnalyzer final : public Analyzer {
 public:
  explicit DpAnalyzer(const DpConfig& c) : c_(c) {}
  void receive(std::uint32_t, const MessageBatch& output, const RoundOutcome&, Rng&) override { estimate_ = analyze_dp(output, c_); }
  Value result() override { return estimate_; }

 private:
  const DpConfig& c_;
  double estimate_ = 0;
};

class DpSumProtocol final : public Protocol {
 public:
  explicit DpSumProtocol(DpConfig c) : c_(std::move(c)) {}
  std::uint32_t rounds() const override { return 1; }
  RoundShape round(std::uint32_t) const override { return {c_.split.modulus.width(), Delivery::analyzer_only}; }
  std::unique_ptr<Party> make_party(PartyId id, const Value& input) const override {
    return std::make_unique<DpParty>(c_, parse_real(id, input));
  }
  std::unique_ptr<Analyzer> make_analyzer() const override { return std::make_unique<DpAnalyzer>(c_); }
  Value random_input(PartyId, std::string_view spec, Rng& rng) const override {
    // "" or "uniform": uniform in [0, 1); "constant:X".
    const std::string s(spec);
    if (s.empty() || s == "uniform") return rng.uniform01();
    if (s.rfind("constant:", 0) == 0) return parse_real(0, Value(std::stod(s.substr(9))));
    throw std::invalid_argument("--random-inputs '" + s + "' is not understood: use uniform or constant:X");
  }
  std::optional<Value> truth(std::span<const Value> inputs) const override {
    double total = 0;
    for (std::size_t i = 0; i < inputs.size(); ++i) total += parse_real(static_cast<PartyId>(i), inputs[i]);
    return total;
  }
  Value describe() const override {
    const double n = static_cast<double>(c_.parties);
    const double p = static_cast<double>(c_.precision);
    Value d = split_description(c_.split);
    d["epsilon"] = c_.epsilon;
    d["delta"] = c_.delta;
    d["guarantee"] = "(epsilon, delta)-DP with delta = (1 + e^epsilon) 2^-sigma_guaranteed, when every party submits";
    d["precision"] = c_.precision;
    d["alpha"] = c_.alpha;
    d["noise_sd"] = std::sqrt(c_.noise_variance());
    d["rounding_sd_at_most"] = std::sqrt(n) / (2 * p);
    d["rmse_at_most"] = std::sqrt(c_.noise_variance() + n / (4 * p * p));
    d["modulus"] = "2^k > 2 (n p + T): the lifted sum is right unless |noise| > T";
    d["noise_tail_T"] = c_.tail;
    d["wrap_probability"] = std::exp2(-c_.split.sigma);  // at most: P(|noise| > T)
    return d;
  }

 private:
  DpConfig c_;
};

ParamSpec sigma_param() {
  return {.name = "sigma", .type = ParamType::integer, .default_value = "40",
          .help = "statistical security: views of inputs with equal sums within distance 2^-sigma", .min = 1.0, .max = 1024.0};
}
ParamSpec messages_param() {
  return {.name = "messages", .type = ParamType::integer, .default_value = "0",
          .help = "shares per party; 0: the BBGN count max(3, ceil((2 sigma + log2 q)/(log2 n - log2 e) + 1))",
          .min = 0.0, .max = 4096.0};
}
ParamSpec leakage_param() {
  return {.name = "accept-input-leakage", .type = ParamType::boolean, .default_value = "false",
          .help = "allow --messages below the BBGN count, although the analyzer's view may then reveal individual inputs"};
}

}  // namespace
}  // namespace split_mix

namespace protocols {

void register_split_mix(Registry& registry) {
  using namespace split_mix;
  registry.add({.name = "split-mix-sum",
                .summary = "secure summation (IKOS split and mix): each party sends m additive shares in Z_q, the analyzer adds them up",
                .params = {sigma_param(),
                           {.name = "input-bits", .type = ParamType::integer, .default_value = "32",
                            .help = "inputs are integers in [0, 2^input-bits); q = n 2^input-bits", .min = 1.0, .max = 4096.0},
                           {.name = "modulus-bits", .type = ParamType::integer, .default_value = "0",
                            .help = "0: q = n 2^input-bits; K: q = 2^K, inputs in Z_q, the output is the sum mod q",
                            .min = 0.0, .max = 8192.0},
                           messages_param(), leakage_param()},
                .min_parties = 3,
                .input_help = "an integer in [0, 2^input-bits) per party (JSON number or decimal string); --random-inputs uniform, max or constant:V",
                .create = [](const Params& p, std::size_t n) -> std::unique_ptr<Protocol> {
                  return std::make_unique<SumProtocol>(configure_sum(
                      n, static_cast<double>(p.integer("sigma")), static_cast<std::size_t>(p.integer("input-bits")),
                      static_cast<std::size_t>(p.integer("modulus-bits")), static_cast<std::size_t>(p.integer("messages")),
                      p.boolean("accept-input-leakage")));
                }});
  registry.add({.name = "split-mix-dp-sum",
                .summary = "DP sum of reals in [0, 1]: randomized rounding, Polya noise shares (discrete Laplace in total), then split-mix",
                .params = {{.name = "epsilon", .type = ParamType::real, .default_value = "1", .help = "privacy parameter epsilon",
                            .min = 0.01, .max = 10.0},
                           sigma_param(),
                           {.name = "precision", .type = ParamType::integer, .default_value = "0",
                            .help = "fixed-point precision p; 0: ceil(sqrt(n))", .min = 0.0, .max = 1e6},
                           messages_param(), leakage_param()},
                .min_parties = 3,
                .input_help = "a real number in [0, 1] per party; --random-inputs uniform or constant:X",
                .create = [](const Params& p, std::size_t n) -> std::unique_ptr<Protocol> {
                  return std::make_unique<DpSumProtocol>(configure_dp_sum(
                      n, p.real("epsilon"), static_cast<double>(p.integer("sigma")), static_cast<std::uint64_t>(p.integer("precision")),
                      static_cast<std::size_t>(p.integer("messages")), p.boolean("accept-input-leakage")));
                }});
}

}  // namespace protocols
}  // namespace shufflempc
