// What the commands compute: one definition shared by the command line (which prints it) and the
// Python module (which hands it to Python as dicts): a run as a typed report (reports.hpp), the
// protocol list and the accountant's tables as JSON values. Each throws
// std::invalid_argument naming the parameter and its accepted range on bad input, and
// std::system_error (shufflempc::Errc) when a run fails.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "shufflempc/accounting/amplification.hpp"
#include "shufflempc/api/reports.hpp"
#include "shufflempc/net/chain.hpp"
#include "shufflempc/registry.hpp"

namespace shufflempc::api {

// `list --json`: every registered protocol with its parameters, defaults and ranges.
[[nodiscard]] Value protocol_list(const Registry& registry);

// One run with every party in this process (`run PROTOCOL`).
struct RunRequest {
  std::string protocol;
  std::map<std::string, std::string> params;  // only those given; the others take their defaults
  std::size_t parties = 0;
  std::optional<std::vector<Value>> inputs;    // one per party; else drawn as random_inputs says
  std::string random_inputs;                   // the protocol's --random-inputs spec ("" = its default)
  std::optional<std::uint64_t> seed;           // none: the system's randomness
  std::size_t min_parties = 0;                 // 0: every party must submit
  std::size_t dropouts = 0;                    // parties that vanish (chosen from the seed)
  net::ChainSpec chain;                        // the servers the records cross (ChainSpec::make); none: the plain in-process shuffle
  std::string transcript;                      // with a verifiable chain: write it here ("" = none)
};
// The report `run --json` prints: protocol, parties, rounds, output, truth, error, messages, bytes,
// seconds, dropped, party_outputs, details, run, and mix_chain or verifiable_mix with a chain.
[[nodiscard]] RunReport run_report(const Registry& registry, const RunRequest& request);

// The most parties `account amplify` and `account local` take: their numeric bounds sum about 32
// standard deviations of a binomial over n, a few incomplete beta functions a term, some 24 times;
// 10^9 parties take about 20 s on a 2-core machine (10^10 took two minutes).
inline constexpr std::uint64_t max_accounting_parties = 1'000'000'000;
// The most multiply-adds `account amplify --rounds` may spend composing its privacy-loss
// distributions (about a minute on a 2-core machine): a query that would need more is refused up
// front with the rounds its step allows.
inline constexpr double max_composition_work = 2e11;

// `account amplify`: the central epsilon of n shuffled eps0-LDP reports by every bound, the exact
// lower bound, and with rounds > 1 the bounds composed over the rounds.
struct AmplifyQuery {
  std::uint64_t parties = 100000;
  double epsilon0 = 1;
  double delta = 1e-6;
  std::uint64_t k = 2;
  std::uint64_t rounds = 1;
  double pld_step = 1e-4;
};
[[nodiscard]] Value account_amplify(const AmplifyQuery& q, const AccountingProgress& progress = {});

// `account local`: the largest eps0 a randomizer may have for a central (eps, delta), by each bound
// (ldp-blanket holds for every eps0-LDP randomizer; with k > 2 it is a search of its own), and for
// binary randomized response (k = 2, up to rr_exact_all_max_parties) by its exact value.
struct LocalQuery {
  std::uint64_t parties = 100000;
  double epsilon = 1;
  double delta = 1e-6;
  std::uint64_t k = 2;
};
[[nodiscard]] Value account_local(const LocalQuery& q, const AccountingProgress& fmt_progress = {},
                                  const AccountingProgress& exact_progress = {}, const AccountingProgress& ldp_progress = {},
                                  const AccountingProgress& exact_all_progress = {});

// What `account local --protocol NAME` puts first (and Python's account_local(protocol=NAME)): the
// protocol built at (n, epsilon, delta), the local epsilon0 it chose and by which bound (its describe()'s
// epsilon0 and bound), the error it predicts, and the lower bound on the central epsilon of that
// epsilon0 (the exact curve of shuffled randomized response) beside the epsilon its bound certifies.
// Throws std::invalid_argument naming the protocol for a protocol without epsilon and delta
// parameters, or one that does not say which epsilon0 it chose.
[[nodiscard]] Value protocol_choice(const Registry& registry, const std::string& name, const LocalQuery& q);

// `account noise`: the exact delta of binomial, discrete Laplace or Polya-difference noise, or the
// least noise that meets (epsilon, delta).
struct NoiseQuery {
  std::string noise = "binomial";  // binomial, discrete-laplace or polya
  std::uint64_t parties = 100000;
  double epsilon = 1;
  std::optional<double> delta, p, scale;
  double shape = 1;
  std::uint64_t sensitivity = 1;
};
[[nodiscard]] Value account_noise(const NoiseQuery& q);

}  // namespace shufflempc::api
