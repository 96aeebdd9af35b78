// The XOR-sum experiment (`shufflempc study xor-sum`, docs/xor-sum.md): the lower bound executed.
//   Table 1: the pause-and-replay attack on the one-round protocols, the fraction of the secret
//            recovered against the error (alpha = RMSE / sqrt n) and the number of queries, beside
//            what the frozen half encodes (the ceiling).
//   Table 2: the two-round escape, the fraction recovered against the executions of the honest
//            parties and the epsilon they cost.
//   A figure of recovered fraction against error / sqrt n, one line per one-round protocol and n.
// Every run draws from SeededRng(seed) forked by a named label (cell and run), so the numbers are
// the same whatever the number of jobs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "shufflempc/attacks/xor_sum.hpp"
#include "shufflempc/random.hpp"
#include "shufflempc/study/study.hpp"

namespace shufflempc::experiments {

// --- The escape's study: x fixed, then the attacker's best with each strategy ---------------------

struct EscapeStudyOptions {
  std::size_t parties = 0;
  double epsilon = 1;
  std::vector<std::size_t> executions;  // k for strategy (c)
  bool mpc = false;                     // (c) through the garbled circuit (else the clear functionality)
  attacks::Decoder decoder = attacks::Decoder::least_squares;
};
struct EscapeRow {
  std::string strategy;        // "replay", "forge" or "re-run"
  std::size_t executions = 0;  // executions of the honest parties
  std::size_t answers = 0;     // distinct answers the attacker obtained
  double epsilon_total = 0;    // what the accountant charges (basic composition)
  double recovered = 0;        // mean(x-hat == x)
  double answer_rmse = 0;      // of the answers against d_H(x, y)
  std::string note;
};
using EscapeProgress = std::function<void(std::size_t done, std::size_t total)>;
[[nodiscard]] std::vector<EscapeRow> escape_study(const EscapeStudyOptions& o, const Rng& rng, const EscapeProgress& progress = {});

// --- The whole experiment ------------------------------------------------------------------------

struct XorSumStudyOptions {
  std::vector<std::size_t> parties = {64, 128, 256};
  std::vector<std::string> protocols = {"rr", "noise-ids", "exact"};
  std::vector<double> alphas = {0.1, 0.5, 1, 2};
  std::vector<std::size_t> queries = {1, 4, 16};  // multiples of n
  std::string decoder = "ls";                      // ls, lp or both
  std::size_t runs = 3;
  double epsilon = 1;  // the escape's, per execution; 0: no table 2
  std::vector<std::string> executions = {"h/2", "h", "4n"};
  bool mpc = false;
  std::uint64_t seed = 1;
  unsigned jobs = 0;  // 0: every core
};

// Checks every option; throws std::invalid_argument naming the option and its accepted range.
void validate(const XorSumStudyOptions& o);
// The executions an --executions entry names at n users: K, h/2, h or Kn (h = n / 2).
[[nodiscard]] std::size_t executions_of(const std::string& text, std::size_t n);

// One row of table 1: a protocol at (n, alpha) and a decoder, means over the runs.
struct ReplayRow {
  std::string protocol;
  std::size_t n = 0;
  std::string alpha;  // as asked ("0" for the exact endpoint)
  double alpha_measured = 0, epsilon0 = 0, ceiling = 0;
  attacks::Decoder decoder = attacks::Decoder::least_squares;
  struct AtQueries {
    std::size_t queries = 0;  // m (0: G's parities read directly)
    double recovered = 0, recovered_min = 0, recovered_max = 0, of_encoded = 0;
  };
  std::vector<AtQueries> at;  // m = 0, then each of the options' queries
};
// One row of table 2: a strategy at n, means over the runs.
struct EscapeSummary {
  std::size_t n = 0;
  EscapeRow row;  // strategy, executions, answers, epsilon_total, note of the first run
  double recovered = 0, recovered_min = 0, recovered_max = 0;
  double alpha = 0;  // mean answer RMSE / sqrt n
};
struct XorSumStudy {
  XorSumStudyOptions options;
  std::vector<ReplayRow> one_round;
  std::vector<EscapeSummary> two_rounds;
};

// Runs the experiment on `jobs` threads; `progress` (may be empty) is called after each run with
// work weighted by its cost.
[[nodiscard]] XorSumStudy run_xor_sum_study(const XorSumStudyOptions& o, const study::Progress& progress = {});

// The two tables as text, the CSV (17 columns, docs/xor-sum.md; table() has them typed, one row per
// one-round protocol, n, alpha, decoder and query count, then one per two-round strategy) and the
// figure's lines.
void print_tables(std::ostream& out, const XorSumStudy& s);
[[nodiscard]] std::vector<study::Column> table(const XorSumStudy& s);
void write_csv(std::ostream& out, const XorSumStudy& s);
[[nodiscard]] std::vector<study::Line> figure_lines(const XorSumStudy& s);
[[nodiscard]] std::string figure_title(const XorSumStudy& s);

}  // namespace shufflempc::experiments
