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
//   sha-256        the same on SHA-256's compression function, bgw 1609 rounds (asked for by name only)
// circuit v2 (t < n/3) runs from n = 4.
//
// Every trial draws fresh inputs from SeededRng(seed) forked by (row, trial), so the table is the
// same for a seed except the time column. The functions run in process; the bytes and messages are
// what crosses the shuffle, the same as over TCP. The rounds are those each run took (the most over
// the trials), not what the protocol declares.
//
// With round-trip times (--rtt), every row runs over the TCP transport instead, its links shaped
// to half the round trip each way (and to --mbps), once per RTT: the measured wall time beside the
// model (rounds + the session's round trips) x RTT + bytes per party / bandwidth + the time
// measured at RTT 0, and their ratio.
// experiments never include net/, so the program supplies that run (set_network_runner; the
// `shufflempc study` command does).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/runtime.hpp"
#include "shufflempc/study/study.hpp"

namespace shufflempc::experiments {

struct RoundsStudyOptions {
  std::size_t parties = 5;  // n (card-and always runs with its two)
  std::size_t trials = 20;  // per row: inputs drawn afresh each time
  std::vector<std::string> functions = {"sum", "xor-sum", "and", "inner-product", "aes-128"};
  std::size_t length = 16;  // inner-product's vectors, elements of 8 bits
  std::uint64_t seed = 1;
  std::vector<double> rtt_ms;  // empty: in process; else every row over TCP at each round-trip time (0 is added: the model's compute)
  double mbps = 0;             // with rtt_ms: every link's rate (0: unlimited)
};

// One run of `protocol` over a network whose links delay every frame by rtt_ms / 2 and carry at
// most `mbps` (0: unlimited).
using NetworkRun = std::function<RunResult(const Protocol& protocol, std::span<const Value> inputs, Rng& rng, double rtt_ms, double mbps)>;
// What study rounds --rtt runs over (the program sets it once, before any study runs), and the
// round trips each of its runs waits beside one a round (its handshakes and its close: the model's).
void set_network_runner(NetworkRun run, double session_round_trips);

// The function names and their one-line descriptions, for --help and the errors.
[[nodiscard]] const std::vector<std::pair<std::string, std::string>>& rounds_functions();
// Throws std::invalid_argument naming the option and its accepted range.
void validate(const RoundsStudyOptions& o);

struct RoundsRow {
  std::string function, protocol;
  std::size_t parties = 0, rounds = 0;  // rounds: the most any trial ran
  double rmse = 0;             // of the output against the truth, over the trials (0: exact in every trial)
  std::size_t wrong = 0;       // trials whose output differs from the truth (exact protocols: 0 expected)
  double bytes_per_party = 0;  // through the shuffle, all rounds
  double messages_per_party = 0;
  double milliseconds = 0;     // median of the trials' wall time (in process, or over the shaped network)
  std::string threat_model;
  std::optional<double> rtt_ms;    // over the network: its round-trip time
  double model_milliseconds = 0;   // over the network: (rounds + session round trips) x RTT + bytes per party / rate + the row's time at RTT 0
  // Of its rounds, those delivered to the analyzer only: over a network every message of them is
  // sealed to the analyzer (a public-key box to make and one to open), work the in-process run and
  // a round delivered to the parties do not do.
  std::size_t sealed_rounds = 0;
};
struct RoundsStudy {
  RoundsStudyOptions options;
  std::vector<RoundsRow> rows;
  double session_round_trips = 0;  // with rtt_ms: what the network runner waits beside the rounds
};

using RoundsProgress = std::function<void(std::size_t done, std::size_t total)>;
[[nodiscard]] RoundsStudy run_rounds_study(const RoundsStudyOptions& o, const RoundsProgress& progress = {});
void print_table(std::ostream& out, const RoundsStudy& s);
// The CSV's columns (and the Python front end's), one row per protocol and function.
[[nodiscard]] std::vector<study::Column> table(const RoundsStudy& s);
void write_csv(std::ostream& out, const RoundsStudy& s);
// Bytes per party against rounds: a protocol's colour (study::colour_of, as in every figure), a
// function's marker.
[[nodiscard]] std::vector<study::Line> figure_lines(const RoundsStudy& s);
[[nodiscard]] std::string figure_title(const RoundsStudy& s);
// With round-trip times: function `function`'s wall time against the RTT (above 0), one line per
// protocol in its colour, named with its rounds, its messages a party and whether they are sealed
// (what the time at RTT 0 pays), its model dashed in the same colour.
[[nodiscard]] std::vector<study::Line> rtt_lines(const RoundsStudy& s, const std::string& function);
[[nodiscard]] std::string rtt_title(const RoundsStudy& s, const std::string& function);
// All of them, a panel a function, under one title: what `--plot FILE` draws with --rtt.
[[nodiscard]] std::vector<study::Panel> rtt_panels(const RoundsStudy& s);
[[nodiscard]] std::string rtt_figure_title(const RoundsStudy& s);

}  // namespace shufflempc::experiments
