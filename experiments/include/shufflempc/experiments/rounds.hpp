// What each round buys (`shufflempc study rounds`, docs/study.md): the same functions computed in
// one round where a one-round protocol exists, in two rounds, and in many (the BGW baseline, one
// round per layer of AND gates, and the six-round card protocol), with the error, the bytes and
// messages per party, the time and the threat model of each.
//
//   sum            split-mix-sum (1), mpc2 (2), circuit v1 and v2 (2) and bgw on an adder tree
//   xor-sum        xor-sum-rr and xor-sum-exact (1), circuit v1 and v2 (2), bgw (2: XOR is free)
//   and            mpc2 (2), circuit v1 and v2 (2), bgw (3), card-and (6, two parties)
//   inner-product  mpc2 (2), circuit v1 and v2 (2) and bgw on a multiplier-adder circuit
//   aes-128        circuit v1, v2 and v3 (2), bgw (AND-depth + 2 = 62)
// circuit v2 (t < n/3) runs from n = 4.
//
// Every trial draws fresh inputs from SeededRng(seed) forked by (row, trial), so the table is the
// same for a seed except the time column. The functions run in process; the bytes and messages are
// what crosses the shuffle, the same as over TCP.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "shufflempc/study/study.hpp"

namespace shufflempc::experiments {

struct RoundsStudyOptions {
  std::size_t parties = 5;  // n (card-and always runs with its two)
  std::size_t trials = 20;  // per row: inputs drawn afresh each time
  std::vector<std::string> functions = {"sum", "xor-sum", "and", "inner-product", "aes-128"};
  std::size_t length = 16;  // inner-product's vectors, elements of 8 bits
  std::uint64_t seed = 1;
};

// The function names and their one-line descriptions, for --help and the errors.
[[nodiscard]] const std::vector<std::pair<std::string, std::string>>& rounds_functions();
// Throws std::invalid_argument naming the option and its accepted range.
void validate(const RoundsStudyOptions& o);

struct RoundsRow {
  std::string function, protocol;
  std::size_t parties = 0, rounds = 0;
  double rmse = 0;             // of the output against the truth, over the trials (0: exact in every trial)
  std::size_t wrong = 0;       // trials whose output differs from the truth (exact protocols: 0 expected)
  double bytes_per_party = 0;  // through the shuffle, all rounds
  double messages_per_party = 0;
  double milliseconds = 0;     // median of the trials, in process
  std::string threat_model;
};
struct RoundsStudy {
  RoundsStudyOptions options;
  std::vector<RoundsRow> rows;
};

using RoundsProgress = std::function<void(std::size_t done, std::size_t total)>;
[[nodiscard]] RoundsStudy run_rounds_study(const RoundsStudyOptions& o, const RoundsProgress& progress = {});
void print_table(std::ostream& out, const RoundsStudy& s);
// The CSV's columns (and the Python front end's), one row per protocol and function.
[[nodiscard]] std::vector<study::Column> table(const RoundsStudy& s);
void write_csv(std::ostream& out, const RoundsStudy& s);
// Bytes per party against rounds, one series of markers per function (its exact protocols).
[[nodiscard]] std::vector<study::Line> figure_lines(const RoundsStudy& s);
[[nodiscard]] std::string figure_title(const RoundsStudy& s);

}  // namespace shufflempc::experiments
