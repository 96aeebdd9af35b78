// `shufflempc account`: (epsilon, delta) accounting without running anything.
//   account amplify  the central epsilon of n shuffled eps0-LDP reports, by every bound
//   account local    the largest eps0 a randomizer may have for a central (eps, delta)
//   account noise    the exact delta of the library's discrete noises, or the least noise for a target
// Each prints a table, or JSON with --json. The numbers come from shufflempc/accounting/amplification.hpp and
// shufflempc/accounting/privacy.hpp (docs/accounting.md).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "common.hpp"
#include "shufflempc/accounting/amplification.hpp"
#include "shufflempc/api/api.hpp"
#include "shufflempc/registry.hpp"
#include "shufflempc/study/progress.hpp"

namespace shufflempc::cli {

using api::account_amplify;
using api::account_local;
using api::account_noise;
using api::AmplifyQuery;
using api::LocalQuery;
using api::max_accounting_parties;
using api::NoiseQuery;
namespace {

// Progress of a numeric search on stderr, once it has run a second (at n = 10^9 one evaluation
// takes about a second; the usual settings finish before anything is drawn).
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
        std::cout << "   " << row.value("source", std::string()) << " [valid: " << row.value("validity", std::string()) << "]\n";
      }
    } else {
      std::cout << fmt::format("{:<22} {}\n", key, value.is_string() ? value.get<std::string>() : value.dump());
    }
  }
}

// The options of `amplify` and `local`: a query of shufflempc/api/api.hpp and --json.
template <class Query>
struct Options : Query {
  bool json = false;
};

template <class Query>
void add_common(CLI::App* cmd, Options<Query>& c) {
  cmd->add_option("--parties,-n", c.parties, "number of users n")->check(CLI::Range(std::uint64_t{2}, max_accounting_parties));
  cmd->add_option("--delta", c.delta, "delta of the central guarantee")->check(CLI::Range(1e-300, 0.5));
  cmd->add_option("--k", c.k, "domain size of the k-ary randomized response, for the privacy blanket")->check(CLI::Range(2, 1 << 30));
  cmd->add_flag("--json", c.json, "print JSON");
}

void print_choice(const Value& c) {
  std::cout << fmt::format("=> {} uses epsilon0 = {:.6g}, from {}{}\n", c["name"].get<std::string>(), c["epsilon0"].get<double>(),
                           c["bound"].get<std::string>(),
                           c.contains("bound_choice") ? " (" + c["bound_choice"].get<std::string>() + ")" : std::string());
  if (c.contains("predicted_sd"))
    std::cout << fmt::format("   predicted error: {:.6g} (the standard deviation of its estimate)\n", c["predicted_sd"].get<double>());
  std::cout << fmt::format("   its central epsilon: at most {:.6g} by that bound, at least {:.6g} (the exact curve of shuffled randomized "
                           "response, a lower bound)\n\n",
                           c["central_epsilon"].get<double>(), c["central_epsilon_at_least"].get<double>());
}

}  // namespace

void add_account_command(CLI::App& app, const Registry& registry, Action& action) {
  auto* account = app.add_subcommand("account", "privacy accounting: amplification by shuffling and the exact delta of discrete noise");
  account->require_subcommand(1);

  {
    auto* cmd = account->add_subcommand("amplify", "central epsilon of n shuffled reports of an eps0-LDP randomizer, by every bound");
    auto o = std::make_shared<Options<AmplifyQuery>>();
    add_common(cmd, *o);
    cmd->add_option("--epsilon0", o->epsilon0, "the local randomizer's epsilon")->required()->check(CLI::Range(1e-6, 50.0));
    cmd->add_option("--rounds", o->rounds,
                    "also compose the numeric bounds over this many rounds (each a fresh shuffle of fresh reports) by their privacy-loss "
                    "distributions")
        ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1000}));
    cmd->add_option("--pld-step", o->pld_step, "grid of the privacy-loss distributions (each round may add up to one step to epsilon)")
        ->check(CLI::Range(1e-6, 0.1));
    cmd->callback([o, &action] {
      action = [o] {
        const Value out = account_amplify(*o, progress_after_a_second("numeric bounds"));
        print(out, o->json);
        return 0;
      };
    });
  }
  {
    auto* cmd = account->add_subcommand("local", "the largest eps0 a local randomizer may have so that n shuffled reports are (eps, delta)-DP");
    auto o = std::make_shared<Options<LocalQuery>>();
    auto protocol = std::make_shared<std::string>();
    add_common(cmd, *o);
    cmd->add_option("--epsilon", o->epsilon, "the central epsilon wanted")->required()->check(CLI::Range(1e-6, 50.0));
    cmd->add_option("--protocol,-p", *protocol,
                    "a registered protocol whose local epsilon0 the accountant chooses (counting-rr-amplified, histogram-rr-amplified): "
                    "its choice first, marked, with the error it predicts and the lower bound on its central epsilon");
    cmd->callback([o, protocol, &registry, &action] {
      action = [o, protocol, &registry] {
        std::optional<Value> choice;
        try {
          if (!protocol->empty()) choice = api::protocol_choice(registry, *protocol, *o);
        } catch (const std::invalid_argument& e) {
          throw std::invalid_argument(std::string("--") + e.what());  // "protocol NAME: ...", named as the option here
        }
        Value out = account_local(*o, progress_after_a_second("fmt-numeric"), progress_after_a_second("blanket-exact"),
                                  progress_after_a_second("ldp-blanket"), progress_after_a_second("rr-exact-all"));
        if (choice) {
          if (o->json) out["protocol"] = *choice;
          else print_choice(*choice);
        }
        print(out, o->json);
        return 0;
      };
    });
  }
  {
    auto* cmd = account->add_subcommand(
        "noise", "exact delta of a sum released with binomial, discrete Laplace or Polya-difference noise; with --delta and no noise "
                 "level, the least noise that meets (epsilon, delta)");
    auto o = std::make_shared<Options<NoiseQuery>>();
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
        const Value out = account_noise(*o);
        print(out, o->json);
        return 0;
      };
    });
  }
}

}  // namespace shufflempc::cli
