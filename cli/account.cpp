// `shufflempc account`: (epsilon, delta) accounting without running anything.
//   account amplify  the central epsilon of n shuffled eps0-LDP reports, by every bound
//   account local    the largest eps0 a randomizer may have for a central (eps, delta)
//   account noise    the exact delta of the library's discrete noises, or the least noise for a target
// Each prints a table, or JSON with --json. The numbers come from shufflempc/amplification.hpp and
// shufflempc/privacy.hpp (docs/accounting.md).
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "common.hpp"
#include "shufflempc/amplification.hpp"
#include "shufflempc/pld.hpp"
#include "shufflempc/privacy.hpp"
#include "shufflempc/study/progress.hpp"

namespace shufflempc::cli {
namespace {

Value optional_number(const std::optional<double>& v) { return v ? Value(*v) : Value(nullptr); }

// Progress of a numeric search on stderr, once it has run a second (at n = 10^10 one evaluation
// takes seconds; the usual settings finish before anything is drawn).
AccountingProgress progress_after_a_second(const std::string& label) {
  const auto start = std::chrono::steady_clock::now();
  auto bar = std::make_shared<std::optional<study::ProgressBar>>();
  auto last = std::make_shared<double>(-1);
  return [start, bar, last, label](double done, std::size_t total) {
    if (done == *last) return;  // an evaluation's last block, then the evaluation: one report
    *last = done;
    if (!*bar) {
      if (std::chrono::steady_clock::now() - start < std::chrono::seconds(1)) return;
      bar->emplace(label, "evaluations");
    }
    (**bar)(done, static_cast<double>(total), static_cast<std::size_t>(done), total);
  };
}

void print(const Value& out, bool json) {
  if (json) {
    std::cout << out.dump(2) << '\n';
    return;
  }
  for (const auto& [key, value] : out.items()) {
    if (value.is_array()) {
      std::cout << key << ":\n";
      for (const auto& row : value) {
        std::cout << "  " << fmt::format("{:<13}", row.value("name", std::string()));
        std::cout << fmt::format(" {:>12}", row["epsilon"].is_null() ? "n/a" : fmt::format("{:.6g}", row["epsilon"].get<double>()));
        std::cout << "   " << row.value("source", std::string()) << " [holds when " << row.value("validity", std::string()) << "]\n";
      }
    } else {
      std::cout << fmt::format("{:<22} {}\n", key, value.is_string() ? value.get<std::string>() : value.dump());
    }
  }
}

struct Common {
  std::uint64_t parties = 100000;
  double delta = 1e-6;
  std::uint64_t k = 2;
  bool json = false;
};

void add_common(CLI::App* cmd, Common& c) {
  cmd->add_option("--parties,-n", c.parties, "number of users n")->check(CLI::Range(std::uint64_t{2}, std::uint64_t{10'000'000'000}));
  cmd->add_option("--delta", c.delta, "delta of the central guarantee")->check(CLI::Range(1e-300, 0.5));
  cmd->add_option("--k", c.k, "domain size of the k-ary randomized response, for the privacy blanket")->check(CLI::Range(2, 1 << 30));
  cmd->add_flag("--json", c.json, "print JSON");
}

}  // namespace

void add_account_command(CLI::App& app, const Registry&, Action& action) {
  auto* account = app.add_subcommand("account", "privacy accounting: amplification by shuffling and the exact delta of discrete noise");
  account->require_subcommand(1);

  {
    auto* cmd = account->add_subcommand("amplify", "central epsilon of n shuffled reports of an eps0-LDP randomizer, by every bound");
    struct Options : Common {
      double epsilon0 = 1;
      std::uint64_t rounds = 1;
      double step = 1e-4;
    };
    auto o = std::make_shared<Options>();
    add_common(cmd, *o);
    cmd->add_option("--epsilon0", o->epsilon0, "the local randomizer's epsilon")->required()->check(CLI::Range(1e-6, 50.0));
    cmd->add_option("--rounds", o->rounds,
                    "also compose the numeric bounds over this many rounds (each a fresh shuffle of fresh reports) by their privacy-loss "
                    "distributions")
        ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1000}));
    cmd->add_option("--pld-step", o->step, "grid of the privacy-loss distributions (each round may add up to one step to epsilon)")
        ->check(CLI::Range(1e-6, 0.1));
    cmd->callback([o, &action] {
      action = [o] {
        Value bounds = Value::array();
        for (const auto& b : amplification_bounds(o->parties, o->epsilon0, o->delta, o->k, progress_after_a_second("numeric bounds")))
          bounds.push_back({{"name", b.name}, {"epsilon", optional_number(b.epsilon)}, {"source", b.source}, {"validity", b.validity}});
        // How far from the truth the bounds can be (a lower bound, so not one of them).
        Value lower = Value::array();
        lower.push_back({{"name", "rr-exact"},
                         {"epsilon", rr_exact_epsilon(o->parties, o->epsilon0, o->delta)},
                         {"source", "exact curve of shuffled binary randomized response, all-zero dataset and its neighbour"},
                         {"validity", "always (a lower bound: every bound valid for all eps0-LDP randomizers is at least this)"}});
        if (o->k > 2)
          lower.push_back({{"name", "rr-exact-k"},
                           {"epsilon", rr_exact_epsilon(o->parties, o->epsilon0, o->delta, o->k)},
                           {"source", "exact curve of shuffled k-ary randomized response (k = " + std::to_string(o->k) +
                                          "), every user on one value and its neighbour"},
                           {"validity", "always (a lower bound: every bound valid for k-ary randomized response is at least this)"}});
        Value out = {{"parties", o->parties}, {"epsilon0", o->epsilon0}, {"delta", o->delta}, {"bounds", bounds}, {"lower_bound", lower}};
        if (o->rounds > 1) {
          // T rounds: the privacy-loss distribution of each numeric bound's pair, convolved T
          // times, beside basic composition (T times the one-round epsilon at delta / T).
          Value composed = Value::array();
          const auto add = [&](const std::string& name, const PrivacyLossDistribution& one, const std::string& valid) {
            const double t = static_cast<double>(o->rounds);
            const double basic = t * one.epsilon(o->delta / t);
            composed.push_back({{"name", name},
                                {"epsilon", one.self_compose(o->rounds).epsilon(o->delta)},
                                {"basic_composition", basic},
                                {"source", fmt::format("privacy-loss distribution over {} rounds (basic composition: {:.6g})", o->rounds, basic)},
                                {"validity", valid}});
          };
          add("fmt-numeric", fmt_pld(o->parties, o->epsilon0, o->step), "every eps0-LDP randomizer");
          add("blanket-exact", blanket_exact_pld(o->parties, o->epsilon0, o->k, o->step), "k-ary randomized response");
          out["rounds"] = o->rounds;
          out["composed"] = composed;
        }
        print(out, o->json);
        return 0;
      };
    });
  }
  {
    auto* cmd = account->add_subcommand("local", "the largest eps0 a local randomizer may have so that n shuffled reports are (eps, delta)-DP");
    struct Options : Common {
      double epsilon = 1;
    };
    auto o = std::make_shared<Options>();
    add_common(cmd, *o);
    cmd->add_option("--epsilon", o->epsilon, "the central epsilon wanted")->required()->check(CLI::Range(1e-6, 50.0));
    cmd->callback([o, &action] {
      action = [o] {
        const double fmt_eps0 = fmt_local_epsilon(o->parties, o->epsilon, o->delta, progress_after_a_second("fmt-numeric"));
        const double exact_eps0 = blanket_exact_local_epsilon(o->parties, o->epsilon, o->delta, o->k, progress_after_a_second("blanket-exact"));
        const auto blanket = blanket_local_epsilon(o->parties, o->epsilon, o->delta, o->k);
        const double k = static_cast<double>(o->k);
        Value out = {{"parties", o->parties},
                     {"epsilon", o->epsilon},
                     {"delta", o->delta},
                     {"fmt_numeric_epsilon0", fmt_eps0},
                     {"fmt_numeric_rr_uniform_probability", k / (std::exp(fmt_eps0) + k - 1)},
                     {"blanket_epsilon0", optional_number(blanket)},
                     {"blanket_rr_uniform_probability", blanket ? Value(k / (std::exp(*blanket) + k - 1)) : Value(nullptr)},
                     {"blanket_exact_epsilon0", exact_eps0},
                     {"blanket_exact_rr_uniform_probability", k / (std::exp(exact_eps0) + k - 1)}};
        print(out, o->json);
        return 0;
      };
    });
  }
  {
    auto* cmd = account->add_subcommand(
        "noise", "exact delta of a sum released with binomial, discrete Laplace or Polya-difference noise; with --delta and no noise "
                 "level, the least noise that meets (epsilon, delta)");
    struct Options {
      std::string noise = "binomial";
      std::uint64_t parties = 100000;
      double epsilon = 1;
      std::optional<double> delta, p, scale;
      double shape = 1;
      std::uint64_t sensitivity = 1;
      bool json = false;
    };
    auto o = std::make_shared<Options>();
    cmd->add_option("--noise", o->noise, "binomial (the counting protocols' Bin(n, p)), discrete-laplace, or polya (Polya(r, a) - Polya(r, a))")
        ->check(CLI::IsMember({"binomial", "discrete-laplace", "polya"}));
    cmd->add_option("--parties,-n", o->parties, "number of users n (binomial)")->check(CLI::Range(std::uint64_t{1}, std::uint64_t{10'000'000'000}));
    cmd->add_option("--epsilon", o->epsilon, "epsilon at which delta is computed")->check(CLI::Range(1e-6, 50.0));
    cmd->add_option("--delta", o->delta, "target delta: find the least noise that meets it")->check(CLI::Range(1e-300, 0.5));
    cmd->add_option("--p", o->p, "the binomial noise rate p")->check(CLI::Range(1e-300, 0.5));
    cmd->add_option("--scale", o->scale, "the discrete Laplace / Polya scale lambda, a = exp(-lambda)")->check(CLI::Range(1e-6, 50.0));
    cmd->add_option("--shape", o->shape, "the Polya shape r: the fraction of noise shares that arrive (1: discrete Laplace)")
        ->check(CLI::Range(1e-6, 1.0));
    cmd->add_option("--sensitivity", o->sensitivity, "how far one user moves the sum (discrete Laplace, Polya)")->check(CLI::Range(1, 1 << 20));
    cmd->add_flag("--json", o->json, "print JSON");
    cmd->callback([o, &action] {
      action = [o] {
        Value out = {{"noise", o->noise}, {"epsilon", o->epsilon}};
        const auto report = [&out](const DeltaReport& d) {
          out["delta"] = d.delta();
          out["log10_delta"] = d.log10_delta();
        };
        if (o->noise == "binomial") {
          if (o->scale || o->sensitivity != 1 || o->shape != 1)
            throw std::invalid_argument("--scale, --shape and --sensitivity apply to discrete-laplace and polya, not to binomial noise");
          out["parties"] = o->parties;
          if (o->p) {
            out["p"] = *o->p;
            report(binomial_noise_delta(o->parties, *o->p, o->epsilon));
          } else if (o->delta) {
            const double p = calibrate_binomial_p(o->parties, o->epsilon, *o->delta);
            out["target_delta"] = *o->delta;
            out["p"] = p;
            out["p_lecture"] = lecture_noise_rate(o->parties, o->epsilon, *o->delta);
            out["noise_sd"] = std::sqrt(static_cast<double>(o->parties) * p * (1 - p));
            report(binomial_noise_delta(o->parties, p, o->epsilon));
          } else {
            throw std::invalid_argument("binomial noise needs --p (to get its delta) or --delta (to get the least p)");
          }
        } else {
          if (o->p) throw std::invalid_argument("--p applies to binomial noise only");
          out["sensitivity"] = o->sensitivity;
          double scale = 0;
          if (o->scale) {
            scale = *o->scale;
          } else if (o->delta && o->noise == "discrete-laplace") {
            scale = calibrate_discrete_laplace(o->epsilon, *o->delta, o->sensitivity);
            out["target_delta"] = *o->delta;
          } else {
            throw std::invalid_argument(o->noise == "polya" ? "polya noise needs --scale" : "discrete-laplace noise needs --scale or --delta");
          }
          const double a = std::exp(-scale);
          out["scale"] = scale;
          out["alpha"] = a;
          if (o->noise == "polya") {
            out["shape"] = o->shape;
            report(polya_difference_delta(o->shape, scale, o->epsilon, o->sensitivity));
            out["noise_sd"] = std::sqrt(2 * o->shape * a) / (1 - a);
          } else {
            report(discrete_laplace_delta(scale, o->epsilon, o->sensitivity));
            out["noise_sd"] = std::sqrt(2 * a) / (1 - a);
          }
        }
        print(out, o->json);
        return 0;
      };
    });
  }
}

}  // namespace shufflempc::cli
