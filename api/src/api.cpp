#include "shufflempc/api/api.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "shufflempc/files.hpp"
#include "shufflempc/inproc.hpp"
#include "shufflempc/mixnet/channel.hpp"
#include "shufflempc/net/mix_chain.hpp"
#include "shufflempc/numbers.hpp"
#include "shufflempc/accounting/pld.hpp"
#include "shufflempc/accounting/privacy.hpp"
#include "shufflempc/random_inputs.hpp"

namespace shufflempc::api {
namespace {

Value optional_number(const std::optional<double>& v) { return v ? Value(*v) : Value(nullptr); }

// `name` must lie in [lo, hi]; the error names it and the range, as the command line's checks do.
template <class T>
void check_range(const char* name, T value, T lo, T hi) {
  if (!(value >= lo && value <= hi)) {
    const auto text = [](T v) {
      if constexpr (std::is_floating_point_v<T>) return format_real(v);
      else return std::to_string(v);
    };
    throw std::invalid_argument(fmt::format("{} must be in [{}, {}], got {}", name, text(lo), text(hi), text(value)));
  }
}

}  // namespace

Value protocol_list(const Registry& registry) {
  Value all = Value::array();
  for (const auto& p : registry.all()) {
    Value params = Value::array();
    for (const auto& s : p.params)
      params.push_back({{"name", s.name}, {"default", s.default_value}, {"range", s.range_text()}, {"help", s.help}});
    all.push_back({{"name", p.name},
                   {"summary", p.summary},
                   {"min_parties", p.min_parties},
                   {"max_parties", p.max_parties},
                   {"inputs", p.input_help},
                   {"random_inputs", describe(p.random_inputs)},
                   {"params", params}});
  }
  return all;
}

RunReport run_report(const Registry& registry, const RunRequest& req) {
  if (req.dropouts >= req.parties && req.dropouts > 0) throw std::invalid_argument("--dropouts must be below --parties");
  const net::ChainSpec& chain = req.chain;
  const bool verifiable = chain.verifiable();
  if (!verifiable && !req.transcript.empty()) throw std::invalid_argument("--transcript needs --mix verifiable");
  prepare_output_file(req.transcript, "--transcript");
  if (req.inputs && !req.random_inputs.empty()) throw std::invalid_argument("inputs and random inputs exclude each other");
  if (req.inputs && req.inputs->size() != req.parties)
    throw std::invalid_argument("the inputs hold " + std::to_string(req.inputs->size()) + " values for " + std::to_string(req.parties) +
                                " parties");
  RunOptions options;
  options.min_parties = req.min_parties;
  if (req.dropouts > 0 && options.min_parties == 0) options.min_parties = req.parties - req.dropouts;
  // The protocol calibrates for the parties guaranteed to submit.
  auto protocol = registry.create(req.protocol, req.params, req.parties, options.min_parties);
  auto rng = make_rng(req.seed);
  const std::vector<Value> inputs = req.inputs ? *req.inputs : draw_random_inputs(*protocol, req.parties, req.random_inputs, *rng);
  auto drop_rng = rng->fork(rng_labels::dropouts);
  while (options.dropouts.size() < req.dropouts) options.dropouts[static_cast<PartyId>(drop_rng->uniform(req.parties))] = 0;
  if (verifiable) {
    if (auto why = mixnet::protocol_fit(*protocol); !why.empty())
      throw std::invalid_argument(req.protocol + " cannot run over the verifiable mix: " + why + "; use --mix decryption");
    const auto run = mixnet::run_over_verifiable_mix(*protocol, inputs, *rng, chain.servers(), options, chain.decryption_threshold());
    RunReport report = run_report_of(req.protocol, *protocol, req.parties, run.result, inputs);
    report.verifiable_mix = verifiable_mix_report(run.transcript, req.transcript);
    if (!req.transcript.empty()) run.transcript.save(req.transcript);
    return report;
  }
  if (!chain.chained()) return run_report_of(req.protocol, *protocol, req.parties, run_in_process(*protocol, inputs, *rng, options), inputs);
  const auto chained = net::run_over_mix_chain(*protocol, inputs, *rng, chain.servers(), options);
  RunReport report = run_report_of(req.protocol, *protocol, req.parties, chained.result, inputs);
  std::map<std::uint32_t, std::vector<net::HopReport>> rounds;
  for (std::size_t r = 0; r < chained.reports.size(); ++r) rounds[static_cast<std::uint32_t>(r)] = chained.reports[r];
  report.mix_chain = mix_chain_report(chain.servers(), rounds);
  return report;
}

namespace {

void check_common(std::uint64_t parties, double delta, std::uint64_t k) {
  check_range("parties", parties, std::uint64_t{2}, max_accounting_parties);
  check_range("delta", delta, 1e-300, 0.5);
  check_range("k", k, std::uint64_t{2}, std::uint64_t{1} << 30);
}

}  // namespace

Value account_amplify(const AmplifyQuery& q, const AccountingProgress& progress) {
  check_common(q.parties, q.delta, q.k);
  check_range("epsilon0", q.epsilon0, 1e-6, 50.0);
  check_range("rounds", q.rounds, std::uint64_t{1}, std::uint64_t{1000});
  check_range("pld step", q.pld_step, 1e-6, 0.1);
  Value bounds = Value::array();
  for (const auto& b : amplification_bounds(q.parties, q.epsilon0, q.delta, q.k, progress))
    bounds.push_back({{"name", b.name}, {"epsilon", optional_number(b.epsilon)}, {"source", b.source}, {"validity", b.validity}});
  // How far from the truth the bounds can be (a lower bound, so not one of them).
  Value lower = Value::array();
  lower.push_back({{"name", "rr-exact"},
                   {"epsilon", rr_exact_epsilon(q.parties, q.epsilon0, q.delta)},
                   {"source", "exact curve of shuffled binary randomized response, all-zero dataset and its neighbour"},
                   {"validity", "always (a lower bound: every bound valid for all eps0-LDP randomizers is at least this)"}});
  if (q.k > 2)
    lower.push_back({{"name", "rr-exact-k"},
                     {"epsilon", rr_exact_epsilon(q.parties, q.epsilon0, q.delta, q.k)},
                     {"source", "exact curve of shuffled k-ary randomized response (k = " + std::to_string(q.k) +
                                    "), every user on one value and its neighbour"},
                     {"validity", "always (a lower bound: every bound valid for k-ary randomized response is at least this)"}});
  Value out = {{"parties", q.parties}, {"epsilon0", q.epsilon0}, {"delta", q.delta}, {"bounds", bounds}, {"lower_bound", lower}};
  if (q.rounds > 1) {
    // T rounds: the privacy-loss distribution of each numeric bound's pair, convolved T times,
    // beside basic composition (T times the one-round epsilon at delta / T).
    const auto fmt_one = fmt_pld(q.parties, q.epsilon0, q.pld_step);
    const auto exact = blanket_exact_pld(q.parties, q.epsilon0, q.k, q.pld_step);
    const auto ldp = q.k > 2 ? ldp_blanket_pld(q.parties, q.epsilon0, q.pld_step) : exact;
    // The work of composing, estimated before it starts: T rounds by squaring cost about 2 T S^2
    // multiply-adds for a one-round grid of S points (the composed grid grows about as sqrt(T) S
    // once its far tails are trimmed; measured from T = 8 to 100 at eps0 = 4 and 8).
    double per_round = 0;
    for (const auto* one : {&fmt_one, &exact, &ldp}) per_round += 2 * static_cast<double>(one->pmf().size()) * static_cast<double>(one->pmf().size());
    if (per_round * static_cast<double>(q.rounds) > max_composition_work) {
      const auto allowed = static_cast<std::uint64_t>(max_composition_work / per_round);
      throw std::invalid_argument(fmt::format(
          "rounds = {} at pld step {:g} and epsilon0 = {:g} would take minutes: the one-round privacy-loss distributions span {} grid "
          "points, and composing them {} times costs about {:.2g} multiply-adds; use a coarser --pld-step (each round may add one "
          "step to epsilon){}",
          q.rounds, q.pld_step, q.epsilon0, fmt_one.pmf().size(), q.rounds, per_round * static_cast<double>(q.rounds),
          allowed >= 2 ? fmt::format(" or at most {} rounds at this step", allowed) : std::string()));
    }
    Value composed = Value::array();
    const auto add = [&](const std::string& name, const PrivacyLossDistribution& one, const std::string& valid) {
      const double t = static_cast<double>(q.rounds);
      const double basic = t * one.epsilon(q.delta / t);
      composed.push_back({{"name", name},
                          {"epsilon", one.self_compose(q.rounds).epsilon(q.delta)},
                          {"basic_composition", basic},
                          {"source", fmt::format("privacy-loss distribution over {} rounds (basic composition: {:.6g})", q.rounds, basic)},
                          {"validity", valid}});
    };
    add("fmt-numeric", fmt_one, "every eps0-LDP randomizer");
    add("blanket-exact", exact, "k-ary randomized response");
    add("ldp-blanket", ldp, "every eps0-LDP randomizer");
    // The tightest composed bound for k-ary randomized response: the smallest of the three composed
    // numbers at this grid, compared after composing, never by the one-round order (rounding each
    // loss up to the grid costs the pairs differently, so a coarse grid can reverse that order over
    // many rounds). Each is an upper bound, so their minimum is one too.
    const auto tightest = std::min_element(composed.begin(), composed.end(), [](const Value& a, const Value& b) {
      return a["epsilon"].get<double>() < b["epsilon"].get<double>();
    });
    composed.push_back({{"name", "tightest"},
                        {"epsilon", (*tightest)["epsilon"]},
                        {"basic_composition", (*tightest)["basic_composition"]},
                        {"source", "the smallest composed epsilon above, at this grid: " + (*tightest)["name"].get<std::string>()},
                        {"validity", "k-ary randomized response (the smallest of valid upper bounds)"}});
    out["rounds"] = q.rounds;
    out["composed"] = composed;
  }
  return out;
}

Value account_local(const LocalQuery& q, const AccountingProgress& fmt_progress, const AccountingProgress& exact_progress,
                    const AccountingProgress& ldp_progress, const AccountingProgress& exact_all_progress) {
  check_common(q.parties, q.delta, q.k);
  check_range("epsilon", q.epsilon, 1e-6, 50.0);
  const double fmt_eps0 = fmt_local_epsilon(q.parties, q.epsilon, q.delta, fmt_progress);
  const double exact_eps0 = blanket_exact_local_epsilon(q.parties, q.epsilon, q.delta, q.k, exact_progress);
  // With k = 2 the worst case over every randomizer is this very computation.
  const double ldp_eps0 = q.k > 2 ? ldp_blanket_local_epsilon(q.parties, q.epsilon, q.delta, ldp_progress) : exact_eps0;
  const auto blanket = blanket_local_epsilon(q.parties, q.epsilon, q.delta, q.k);
  // Binary randomized response's exact value (not a bound; none for k > 2).
  std::optional<double> exact_all;
  if (q.k == 2 && q.parties <= rr_exact_all_max_parties) exact_all = rr_exact_all_local_epsilon(q.parties, q.epsilon, q.delta, exact_all_progress);
  const double k = static_cast<double>(q.k);
  return {{"parties", q.parties},
          {"epsilon", q.epsilon},
          {"delta", q.delta},
          {"fmt_numeric_epsilon0", fmt_eps0},
          {"fmt_numeric_rr_uniform_probability", k / (std::exp(fmt_eps0) + k - 1)},
          {"blanket_epsilon0", optional_number(blanket)},
          {"blanket_rr_uniform_probability", blanket ? Value(k / (std::exp(*blanket) + k - 1)) : Value(nullptr)},
          {"blanket_exact_epsilon0", exact_eps0},
          {"blanket_exact_rr_uniform_probability", k / (std::exp(exact_eps0) + k - 1)},
          {"ldp_blanket_epsilon0", ldp_eps0},
          {"ldp_blanket_rr_uniform_probability", k / (std::exp(ldp_eps0) + k - 1)},
          {"rr_exact_all_epsilon0", optional_number(exact_all)},
          {"rr_exact_all_rr_uniform_probability", exact_all ? Value(k / (std::exp(*exact_all) + k - 1)) : Value(nullptr)}};
}

Value account_noise(const NoiseQuery& q) {
  if (q.noise != "binomial" && q.noise != "discrete-laplace" && q.noise != "polya")
    throw std::invalid_argument("noise must be binomial, discrete-laplace or polya, got '" + q.noise + "'");
  check_range("parties", q.parties, std::uint64_t{1}, std::uint64_t{10'000'000'000});
  check_range("epsilon", q.epsilon, 1e-6, 50.0);
  if (q.delta) check_range("delta", *q.delta, 1e-300, 0.5);
  if (q.p) check_range("p", *q.p, 1e-300, 0.5);
  if (q.scale) check_range("scale", *q.scale, 1e-6, 50.0);
  check_range("shape", q.shape, 1e-6, 1.0);
  check_range("sensitivity", q.sensitivity, std::uint64_t{1}, std::uint64_t{1} << 20);
  Value out = {{"noise", q.noise}, {"epsilon", q.epsilon}};
  const auto report = [&out](const DeltaReport& d) {
    out["delta"] = d.delta();
    out["log10_delta"] = d.log10_delta();
  };
  if (q.noise == "binomial") {
    if (q.scale || q.sensitivity != 1 || q.shape != 1)
      throw std::invalid_argument("--scale, --shape and --sensitivity apply to discrete-laplace and polya, not to binomial noise");
    out["parties"] = q.parties;
    if (q.p) {
      out["p"] = *q.p;
      report(binomial_noise_delta(q.parties, *q.p, q.epsilon));
    } else if (q.delta) {
      const double p = calibrate_binomial_p(q.parties, q.epsilon, *q.delta);
      out["target_delta"] = *q.delta;
      out["p"] = p;
      out["p_lecture"] = lecture_noise_rate(q.parties, q.epsilon, *q.delta);
      out["noise_sd"] = std::sqrt(static_cast<double>(q.parties) * p * (1 - p));
      report(binomial_noise_delta(q.parties, p, q.epsilon));
    } else {
      throw std::invalid_argument("binomial noise needs --p (to get its delta) or --delta (to get the least p)");
    }
    return out;
  }
  if (q.p) throw std::invalid_argument("--p applies to binomial noise only");
  out["sensitivity"] = q.sensitivity;
  double scale = 0;
  if (q.scale) {
    scale = *q.scale;
  } else if (q.delta && q.noise == "discrete-laplace") {
    scale = calibrate_discrete_laplace(q.epsilon, *q.delta, q.sensitivity);
    out["target_delta"] = *q.delta;
  } else {
    throw std::invalid_argument(q.noise == "polya" ? "polya noise needs --scale" : "discrete-laplace noise needs --scale or --delta");
  }
  const double a = std::exp(-scale);
  out["scale"] = scale;
  out["alpha"] = a;
  if (q.noise == "polya") {
    out["shape"] = q.shape;
    report(polya_difference_delta(q.shape, scale, q.epsilon, q.sensitivity));
    out["noise_sd"] = std::sqrt(2 * q.shape * a) / (1 - a);
  } else {
    report(discrete_laplace_delta(scale, q.epsilon, q.sensitivity));
    out["noise_sd"] = std::sqrt(2 * a) / (1 - a);
  }
  return out;
}

Value protocol_choice(const Registry& registry, const std::string& name, const LocalQuery& q) {
  const ProtocolInfo* info = registry.find(name);
  const auto declares = [info](std::string_view param) {
    return info != nullptr && std::any_of(info->params.begin(), info->params.end(), [&](const ParamSpec& p) { return p.name == param; });
  };
  if (!declares("epsilon") || !declares("delta"))
    throw std::invalid_argument("protocol " + name + ": " + (info == nullptr ? "no such protocol" : "it has no epsilon and delta parameters") +
                                " (give a protocol whose local epsilon0 the accountant chooses, such as counting-rr-amplified)");
  const auto protocol = registry.create(name, {{"epsilon", fmt::format("{:.17g}", q.epsilon)}, {"delta", fmt::format("{:.17g}", q.delta)}}, q.parties);
  const Value d = protocol->describe();
  if (!d.contains("epsilon0") || !d.contains("bound"))
    throw std::invalid_argument("protocol " + name + ": it does not choose a local epsilon0 by an amplification bound (its describe() names no epsilon0 and bound)");
  const double eps0 = d["epsilon0"].get<double>();
  const std::uint64_t k = d.contains("domain") ? d["domain"].get<std::uint64_t>() : 2;
  Value out = {{"name", name},
               {"epsilon0", eps0},
               {"bound", d["bound"]},
               {"central_epsilon", q.epsilon},
               {"central_epsilon_at_least", rr_exact_epsilon(q.parties, eps0, q.delta, k)}};
  if (d.contains("bound_choice")) out["bound_choice"] = d["bound_choice"];
  if (const auto sd = protocol->predicted_sd()) out["predicted_sd"] = *sd;
  return out;
}


}  // namespace shufflempc::api
