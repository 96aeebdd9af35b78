// Registry entries of the counting family: counting, histogram, counting-balcer-cheu,
// randomized-response (local baseline) and central-laplace (central baseline).
#include <cmath>

#include "counting/bit_protocol.hpp"
#include "counting/counting.hpp"
#include "shufflempc/privacy.hpp"

namespace shufflempc {
namespace counting {

bool input_bit(PartyId id, const Value& v) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number_integer() && (v.get<std::int64_t>() == 0 || v.get<std::int64_t>() == 1)) return v.get<std::int64_t>() == 1;
  if (v.is_string() && (v == "0" || v == "1")) return v == "1";
  throw std::invalid_argument("input of party " + std::to_string(id) + " must be 0 or 1, got " + v.dump());
}

Value random_bit(std::string_view spec, Rng& rng) {
  const std::string s(spec);
  if (s.empty() || s == "bernoulli") return rng.uniform01() < 0.5 ? 1 : 0;
  if (s.rfind("bernoulli:", 0) == 0) {
    const double p = std::stod(s.substr(10));
    if (!(p >= 0 && p <= 1)) throw std::invalid_argument("--random-inputs bernoulli:P needs P in [0, 1]");
    return rng.uniform01() < p ? 1 : 0;
  }
  if (s == "constant:0") return 0;
  if (s == "constant:1") return 1;
  throw std::invalid_argument("--random-inputs '" + s + "' is not understood: use bernoulli:P or constant:B");
}

namespace {

class BitParty final : public Party {
 public:
  BitParty(const BitProtocol& protocol, bool x) : protocol_(protocol), x_(x) {}
  void send(std::uint32_t, Rng& rng, MessageBatch& out) override { protocol_.encode(x_, rng, out); }

 private:
  const BitProtocol& protocol_;
  bool x_;
};

class BitAnalyzer final : public Analyzer {
 public:
  explicit BitAnalyzer(const BitProtocol& protocol) : protocol_(protocol) {}
  void receive(std::uint32_t, const MessageBatch& output, const RoundOutcome& outcome, Rng& rng) override {
    estimate_ = protocol_.estimate(output, outcome.submitted.size(), rng);
  }
  Value result() override { return estimate_; }

 private:
  const BitProtocol& protocol_;
  double estimate_ = 0;
};

}  // namespace

std::unique_ptr<Party> BitProtocol::make_party(PartyId id, const Value& input) const {
  return std::make_unique<BitParty>(*this, input_bit(id, input));
}
std::unique_ptr<Analyzer> BitProtocol::make_analyzer() const { return std::make_unique<BitAnalyzer>(*this); }
std::optional<Value> BitProtocol::truth(std::span<const Value> inputs) const {
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) sum += input_bit(static_cast<PartyId>(i), inputs[i]) ? 1 : 0;
  return Value(sum);
}

namespace {

class CountingProtocol final : public BitProtocol {
 public:
  explicit CountingProtocol(Config c) : c_(c) {}
  void encode(bool x, Rng& rng, MessageBatch& out) const override { counting::encode(x, c_.p, rng, out); }
  double estimate(const MessageBatch& shuffled, std::uint64_t submitted, Rng&) const override {
    return analyze(shuffled, submitted, c_.p);
  }
  Value describe() const override {
    const auto d = binomial_noise_delta(c_.parties, c_.p, c_.epsilon);
    return {{"noise", c_.rule == NoiseRule::lecture ? "lecture" : "calibrated"},
            {"p", c_.p},
            {"p_lecture", c_.p_lecture},
            {"p_calibrated", c_.p_calibrated},
            {"noise_sd", noise_sd(c_.parties, c_.p)},
            {"noise_sd_lecture", noise_sd(c_.parties, c_.p_lecture)},
            {"noise_sd_calibrated", noise_sd(c_.parties, c_.p_calibrated)},
            {"exact_log10_delta", d.log10_delta()},
            {"epsilon", c_.epsilon},
            {"delta", c_.delta}};
  }

 private:
  Config c_;
};

class BalcerCheuProtocol final : public BitProtocol {
 public:
  BalcerCheuProtocol(std::uint64_t n, double eps, double delta)
      : n_(n), eps_(eps), gamma_(balcer_cheu_gamma(n, eps, delta)) {}
  void encode(bool x, Rng& rng, MessageBatch& out) const override { encode_balcer_cheu(x, gamma_, rng, out); }
  double estimate(const MessageBatch& shuffled, std::uint64_t submitted, Rng&) const override {
    return analyze_balcer_cheu(shuffled, submitted, gamma_);
  }
  Value describe() const override {
    return {{"gamma", gamma_}, {"noise_sd", noise_sd(n_, gamma_)}, {"exact_log10_delta", binomial_noise_delta(n_, gamma_, eps_).log10_delta()}};
  }

 private:
  std::uint64_t n_;
  double eps_;
  double gamma_;
};

class RandomizedResponseProtocol final : public BitProtocol {
 public:
  RandomizedResponseProtocol(std::uint64_t n, double eps) : n_(n), eps_(eps) {}
  void encode(bool x, Rng& rng, MessageBatch& out) const override { encode_randomized_response(x, eps_, rng, out); }
  double estimate(const MessageBatch& shuffled, std::uint64_t submitted, Rng&) const override {
    return analyze_randomized_response(shuffled, submitted, eps_);
  }
  Value describe() const override {
    const double q = randomized_response_flip(eps_);
    return {{"flip_probability", q}, {"noise_sd", std::sqrt(static_cast<double>(n_) * q * (1 - q)) / (1 - 2 * q)}};
  }

 private:
  std::uint64_t n_;
  double eps_;
};

class CentralLaplaceProtocol final : public BitProtocol {
 public:
  explicit CentralLaplaceProtocol(double eps) : eps_(eps) {}
  void encode(bool x, Rng&, MessageBatch& out) const override { out.append()[0] = x ? 1 : 0; }
  double estimate(const MessageBatch& shuffled, std::uint64_t submitted, Rng& rng) const override {
    return static_cast<double>(central_count(static_cast<std::int64_t>(analyze(shuffled, submitted, 0)), eps_, rng));
  }
  Value describe() const override {
    const double a = std::exp(-eps_);
    return {{"noise", "discrete Laplace"}, {"noise_sd", std::sqrt(2 * a) / (1 - a)}};
  }

 private:
  double eps_;
};

// ---- Histogram ----

class HistogramProtocol final : public Protocol {
 public:
  HistogramProtocol(Config c, std::uint32_t domain, HistogramVariant v) : c_(c), domain_(domain), variant_(v) {}
  std::uint32_t rounds() const override { return 1; }
  RoundShape round(std::uint32_t) const override { return {histogram_width, Delivery::analyzer_only}; }
  std::unique_ptr<Party> make_party(PartyId id, const Value& input) const override {
    if (!input.is_number_integer() || input.get<std::int64_t>() < 0 || input.get<std::int64_t>() >= domain_)
      throw std::invalid_argument("input of party " + std::to_string(id) + " must be an element in [0, " +
                                  std::to_string(domain_) + "), got " + input.dump());
    return std::make_unique<HistParty>(*this, static_cast<std::uint32_t>(input.get<std::int64_t>()));
  }
  std::unique_ptr<Analyzer> make_analyzer() const override { return std::make_unique<HistAnalyzer>(*this); }
  Value random_input(PartyId, std::string_view spec, Rng& rng) const override {
    // "" or "uniform:K": uniform over the first K elements (default: half the domain, so that
    // some bins are empty), "constant:E".
    const std::string s(spec);
    std::uint32_t k = std::max<std::uint32_t>(1, domain_ / 2);
    if (s.rfind("uniform:", 0) == 0) k = static_cast<std::uint32_t>(std::stoul(s.substr(8)));
    else if (s.rfind("constant:", 0) == 0) return std::stoul(s.substr(9));
    else if (!s.empty() && s != "uniform") throw std::invalid_argument("--random-inputs '" + s + "' is not understood: use uniform:K or constant:E");
    if (k < 1 || k > domain_) throw std::invalid_argument("--random-inputs uniform:K needs K in [1, domain]");
    return rng.uniform(k);
  }
  std::optional<Value> truth(std::span<const Value> inputs) const override {
    std::vector<std::int64_t> counts(domain_, 0);
    for (const auto& v : inputs) counts.at(v.get<std::size_t>()) += 1;
    return Value(counts);
  }
  Value describe() const override {
    return {{"variant", variant_ == HistogramVariant::parallel ? "parallel" : "inverted"},
            {"p", c_.p},
            {"p_lecture", c_.p_lecture},
            {"p_calibrated", c_.p_calibrated},
            {"noise_sd_per_bin", noise_sd(c_.parties, c_.p)},
            {"privacy", "each bin is a counting instance at (epsilon, delta); one user changes two bins, so the "
                        "histogram is (2 epsilon, 2 delta)-DP"}};
  }

 private:
  class HistParty final : public Party {
   public:
    HistParty(const HistogramProtocol& h, std::uint32_t x) : h_(h), x_(x) {}
    void send(std::uint32_t, Rng& rng, MessageBatch& out) override { encode_histogram(x_, h_.domain_, h_.variant_, h_.c_.p, rng, out); }

   private:
    const HistogramProtocol& h_;
    std::uint32_t x_;
  };
  class HistAnalyzer final : public Analyzer {
   public:
    explicit HistAnalyzer(const HistogramProtocol& h) : h_(h) {}
    void receive(std::uint32_t, const MessageBatch& output, const RoundOutcome& outcome, Rng&) override {
      counts_ = analyze_histogram(output, h_.domain_, h_.variant_, outcome.submitted.size(), h_.c_.p);
    }
    Value result() override { return counts_; }

   private:
    const HistogramProtocol& h_;
    std::vector<double> counts_;
  };

  Config c_;
  std::uint32_t domain_;
  HistogramVariant variant_;
};

ParamSpec epsilon_param(double max) {
  return {.name = "epsilon", .type = ParamType::real, .default_value = "1", .help = "privacy parameter epsilon",
          .min = 0.0, .max = max, .min_exclusive = true};
}
ParamSpec delta_param() {
  return {.name = "delta", .type = ParamType::real, .default_value = "1e-6", .help = "privacy parameter delta",
          .min = 0.0, .max = 1.0, .min_exclusive = true, .max_exclusive = true};
}
ParamSpec noise_param() {
  return {.name = "noise", .type = ParamType::choice, .default_value = "lecture",
          .help = "noise rate: the lectures' p = 48 ln(2/delta)/(eps^2 n), or the smallest p the exact oracle accepts",
          .choices = {"lecture", "calibrated"}};
}
NoiseRule rule_of(const Params& p) { return p.text("noise") == "calibrated" ? NoiseRule::calibrated : NoiseRule::lecture; }

}  // namespace
}  // namespace counting

namespace protocols {

void register_counting(Registry& registry) {
  using namespace counting;
  registry.add({.name = "counting",
                .summary = "counting bits as in the lectures: each user sends its bit and a Bernoulli(p) noise bit",
                .params = {epsilon_param(1), delta_param(), noise_param()},
                .min_parties = 1,
                .input_help = bit_input_help,
                .create = [](const Params& p, std::size_t n) -> std::unique_ptr<Protocol> {
                  return std::make_unique<CountingProtocol>(configure(n, p.real("epsilon"), p.real("delta"), rule_of(p)));
                }});
  registry.add({.name = "histogram",
                .summary = "histogram over {0..domain-1}: one counting instance per element (parallel) or the inverted encoding with exact empty bins",
                .params = {epsilon_param(1), delta_param(), noise_param(),
                           {.name = "domain", .type = ParamType::integer, .default_value = "16", .help = "domain size d", .min = 2.0, .max = 65536.0},
                           {.name = "variant", .type = ParamType::choice, .default_value = "inverted",
                            .help = "parallel: bit [x == e] per element; inverted: bit [x != e], empty bins exactly 0",
                            .choices = {"parallel", "inverted"}}},
                .input_help = "one element in [0, domain) per party; --random-inputs uniform:K (default K = domain/2) or constant:E",
                .create = [](const Params& p, std::size_t n) -> std::unique_ptr<Protocol> {
                  const auto variant = p.text("variant") == "parallel" ? HistogramVariant::parallel : HistogramVariant::inverted;
                  return std::make_unique<HistogramProtocol>(configure(n, p.real("epsilon"), p.real("delta"), rule_of(p)),
                                                             static_cast<std::uint32_t>(p.integer("domain")), variant);
                }});
  registry.add({.name = "counting-balcer-cheu",
                .summary = "literature version (Balcer-Cheu, ITC 2020): x + Bernoulli(1-gamma) unit messages, all-zero data gives exactly 0",
                .params = {epsilon_param(1), delta_param()},
                .input_help = bit_input_help,
                .create = [](const Params& p, std::size_t n) -> std::unique_ptr<Protocol> {
                  return std::make_unique<BalcerCheuProtocol>(n, p.real("epsilon"), p.real("delta"));
                }});
  registry.add({.name = "randomized-response",
                .summary = "local-model baseline: each user sends its bit flipped with probability 1/(1+e^eps)",
                .params = {epsilon_param(20)},
                .input_help = bit_input_help,
                .create = [](const Params& p, std::size_t n) -> std::unique_ptr<Protocol> {
                  return std::make_unique<RandomizedResponseProtocol>(n, p.real("epsilon"));
                }});
  registry.add({.name = "central-laplace",
                .summary = "central-model baseline: a trusted analyzer adds exact discrete Laplace noise to the true count",
                .params = {epsilon_param(20)},
                .input_help = bit_input_help,
                .create = [](const Params& p, std::size_t) -> std::unique_ptr<Protocol> {
                  return std::make_unique<CentralLaplaceProtocol>(p.real("epsilon"));
                }});
}

}  // namespace protocols
}  // namespace shufflempc
