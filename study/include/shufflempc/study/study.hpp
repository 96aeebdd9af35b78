// Studies: a grid of protocols and parameters, repeated seeded trials on every core, and the
// figures a paper reports (mean error, RMSE with its confidence interval, time, messages and bytes
// per user) as CSV, JSON and gnuplot figures. `shufflempc study` is the command; docs/study.md the
// guide.
//
// A study has series (a registered protocol, possibly with some parameters fixed: one line of a
// figure) and axes (a parameter, `parties`, `inputs`, `honest` or `dropouts`, with a list of
// values). `honest` is the fraction of the n parties the protocols may count on (they calibrate
// for min-parties = ceil(honest n)); `dropouts` the fraction that vanish in every trial (the
// others submit; without `honest`, the protocols calibrate for them, as `run --dropouts` does). Every series is run
// at every point of the grid (the cartesian product of the axes); an axis or fixed parameter
// applies to the series whose protocol declares it. A cell the protocol refuses (too few parties
// for its noise rule, a value out of its range) is reported infeasible with the protocol's reason.
//
// One-round protocols run through Protocol::trial (typed inputs, one shuffle, no driver); the
// others through the in-process RoundDriver. Trial t at grid point g draws from
// SeededRng(seed).fork(g << 24 | t) for every series (common random numbers: protocols that read
// their inputs alike see the same data), so a study gives the same numbers whatever --jobs is.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "shufflempc/registry.hpp"

namespace shufflempc::study {

struct Series {
  std::string label;     // its name in tables, CSV and JSON: the protocol's name, plus any parameters fixed for it
  std::string protocol;
  std::map<std::string, std::string> params;
  std::string legend;    // its name in a figure's key, in words (empty: the label)
};

// One value of an axis: the text the protocol is given (its own schema types it) and the number
// the study reads from it once (type checks, party counts, the plot's x): the value itself, or
// after validate() for an inputs spec such as bernoulli:0.3 its last field; none for a choice.
struct AxisValue {
  AxisValue() = default;
  AxisValue(std::string text);  // NOLINT(google-explicit-constructor): presets list values as text
  AxisValue(const char* text) : AxisValue(std::string(text)) {}  // NOLINT(google-explicit-constructor)
  AxisValue(std::string text, double number) : text(std::move(text)), number(number) {}
  std::string text;
  std::optional<double> number;
};

struct Axis {
  std::string key;  // a protocol parameter, "parties", "inputs", "honest" or "dropouts"
  std::vector<AxisValue> values;
  bool geometric = false;  // given as geom:A:B:K (a log axis on the plot)
};

struct Spec {
  std::string name;   // the preset's name, or "study"
  std::string title;  // of the figure
  std::vector<Series> series;
  std::vector<Axis> axes;
  std::map<std::string, std::string> fixed;  // parameters for every series that declares them
  std::size_t parties = 10000;
  std::string inputs;  // the protocols' --random-inputs spec ("" = each protocol's default)
  std::optional<double> honest;  // in (0, 1]: min-parties = ceil(honest n); none: all, or the submitters
  double dropouts = 0;           // in [0, 1): floor(dropouts n) parties do not submit in a trial
  std::size_t trials = 20;
  std::uint64_t seed = 1;
  unsigned jobs = 0;  // 0: every core
  // The figure: x is an axis key (default: the first axis); y one of rmse, bias, max_error,
  // seconds, messages_per_user, bytes_per_user.
  std::string x;
  std::string y = "rmse";
  std::optional<bool> log_x, log_y;  // default: log x on geometric axes, log y for errors and costs
  std::string note;  // what the preset shows (docs, --list-presets)
};

// Parsers for the command line. Each throws std::invalid_argument naming the option and what it
// accepts. An axis is KEY=V1,V2,... or KEY=lin:A:B:K or KEY=geom:A:B:K (K points from A to B); a
// series is NAME or NAME:KEY=V:KEY=V.
[[nodiscard]] Axis parse_axis(const std::string& text);
[[nodiscard]] Series parse_series(const std::string& text);
// Checks names and types against the registry: unknown protocols, keys no series declares,
// values that are not numbers or not among a choice's values; fills x and the labels.
void validate(const Registry& registry, Spec& spec);

struct TrialRecord {
  std::optional<double> error, max_error;
  std::optional<double> predicted_mse;  // TrialResult::predicted_mse (the trial path), else none
  Value output;
  double seconds = 0;
  std::size_t messages = 0, bytes = 0;
};

struct Summary {
  std::size_t trials = 0;
  std::optional<double> bias, rmse, rmse_low, rmse_high, max_error;  // over trials with an error
  std::optional<double> predicted_sd;  // the protocol's own prediction (Protocol::predicted_sd)
  // What the RMSE estimates: sqrt of the mean of the trials' predicted_mse (exact given each trial's
  // inputs) where every trial has one, else predicted_sd. The figure to compare the RMSE with.
  std::optional<double> predicted_rmse;
  double seconds = 0, seconds_sd = 0;  // per trial
  double messages_per_user = 0, bytes_per_user = 0;
};

struct Cell {
  std::size_t series = 0;
  std::map<std::string, AxisValue> point;  // the axes' values at this cell
  std::map<std::string, std::string> params;  // what the protocol was given
  std::map<std::string, std::string> settings;  // every parameter it declares: as given, else its default
  std::size_t parties = 0;
  std::size_t min_parties = 0;  // what the protocols were calibrated for (0: every party)
  std::size_t submitters = 0;   // parties that submit in each trial
  std::string inputs;
  bool feasible = true;
  std::string reason;  // why not
  std::string path;    // "trial" (Protocol::trial) or "driver" (the in-process RoundDriver)
  Value describe;
  std::optional<double> predicted_sd;        // Protocol::predicted_sd
  TrustModel model = TrustModel::shuffle;    // Protocol::trust_model
  std::vector<TrialRecord> trials;
  Summary summary;
};

// The 95% interval of the RMSE from T trials, for errors ~ N(0, sigma^2): T mse / sigma^2 is
// chi-square with T degrees of freedom.
[[nodiscard]] std::pair<double, double> rmse_interval(double rmse, std::size_t trials);
[[nodiscard]] Summary summarize(const std::vector<TrialRecord>& trials, std::size_t parties, std::optional<double> predicted_sd);

// Called after every trial from the worker that ran it (serialized): done and total are weighted
// by the cells' party counts, so that the estimate of the time left is fair across n.
using Progress = std::function<void(double done, double total, std::size_t trials_done, std::size_t trials_total)>;

// One study spread over processes (the ranks of an MPI job: `mpirun -np N shufflempc study ...`).
// Rank r of `size` runs the trials whose index in the study's list of (cell, trial) is r modulo
// size; `gather` then brings every rank's records to rank 0. A trial's generator depends only on
// (seed, grid point, trial), so rank 0 ends with the numbers a single process would have computed.
struct Ranks {
  int rank = 0, size = 1;
  // Called once on every rank with that rank's records (bytes the study writes and reads); returns
  // on rank 0 every rank's bytes, in rank order (what it returns elsewhere is ignored).
  std::function<std::vector<std::string>(const std::string& mine)> gather;
};

// Runs the grid. With ranks.size > 1, only rank 0's cells hold every trial and a summary; the
// other ranks get the cells without them (write output on rank 0 only). Progress counts this
// rank's trials.
[[nodiscard]] std::vector<Cell> run(const Registry& registry, const Spec& spec, const Progress& progress = {}, const Ranks& ranks = {});

// The grid's results as typed columns, in the CSV's order (docs/study.md has them): one row per
// cell, or per trial. The CSV writes their text; the Python module hands them over as arrays.
struct Column {
  enum class Kind { text, integer, real, boolean };
  Kind kind = Kind::text;
  std::string name;
  std::vector<std::string> text;              // every row, as the CSV writes it
  std::vector<std::optional<double>> number;  // every row's value for a number (none: empty)
};
[[nodiscard]] std::vector<Column> table(const Spec& spec, const std::vector<Cell>& cells, bool per_trial);
// Any study's columns as CSV: the names, then every row's texts (the one path every study's CSV takes).
void write_columns(std::ostream& out, const std::vector<Column>& cols);

// One row per cell (or per trial) with a header; columns in docs/study.md.
void write_csv(std::ostream& out, const Spec& spec, const std::vector<Cell>& cells, bool per_trial);
[[nodiscard]] Value to_json(const Spec& spec, const std::vector<Cell>& cells, bool with_trials);

// Draws spec.y against spec.x, one line per series with its interval as error bars, through
// gnuplot; the terminal follows the extension (.png: pngcairo, .svg: svg, .pdf: pdfcairo, 7 by 4.1
// inches for a paper's page). A log axis that reaches 10^5 is labelled 10⁰, 10¹, ... Throws
// std::runtime_error when gnuplot is missing or fails.
void plot(const Spec& spec, const std::vector<Cell>& cells, const std::string& path);
[[nodiscard]] bool gnuplot_available();
// Throws std::invalid_argument naming --plot PATH unless it ends in a figure's extension (.png,
// .svg, .pdf): what every command checks before it runs anything.
void check_plot_path(const std::string& path);

// One colour for one thing in every figure of shufflempc: a protocol (`mpc2`, `circuit bgw`) or a
// study's series (its label, `counting noise=lecture`) has the same colour in every preset and
// every study. The built-in protocols and the presets' series have fixed colours, chosen so that
// those a figure draws together differ; any other name gets one from a hash of it. "#rrggbb".
[[nodiscard]] std::string colour_of(const std::string& name);
// The colours of one figure's names, in order: each its colour_of, except that a name whose colour
// an earlier, different name of the same figure took gets the first colour of the palette still
// free there (so no two things of one figure share a colour). A name given as "#rrggbb" is itself.
[[nodiscard]] std::vector<std::string> figure_colours(const std::vector<std::string>& names);
// The grey of a key entry that stands for a kind of marker, not for a thing.
inline constexpr const char* neutral_colour = "#555555";

// A figure of plain lines (the studies that are not grids of trials, e.g. `study xor-sum`).
struct Line {
  std::string title;
  std::vector<std::pair<double, double>> points;  // sorted by x when drawn
  bool points_only = false;                       // markers, no line
  bool dashed = false;                            // a dashed line (a model beside what was measured)
  std::string colour;                             // what its colour stands for (a protocol's name, or "#rrggbb"): lines
                                                  // that name one thing share its colour; empty: its title
  std::optional<int> point_type;                  // gnuplot's pt (a marker shared by lines of one kind); default: its own place
  double point_size = 1.3;
  bool key_only = false;                          // no points: an entry of the key alone (a colour, or a marker with points_only)
};
// An empty title leaves a line out of the key.
struct Axes {
  bool log_x = false, log_y = false;
  bool padded = false;  // a margin inside the axes, so that no point sits on the border
  std::string key = "inside right top";  // where the key goes (gnuplot's `set key` position; "below ...": under the x label, unboxed)
};
void plot_lines(const std::vector<Line>& lines, const std::string& title, const std::string& x_label, const std::string& y_label,
                const std::string& path, const Axes& axes = {});
// One panel of a figure of several (plot_panels).
struct Panel {
  std::vector<Line> lines;
  std::string title, x_label, y_label;
  Axes axes;
};
// Several panels in one file, `columns` a row, under one title (`study rounds --rtt`: a panel a
// function). A thing named in two panels has one colour in both.
void plot_panels(const std::vector<Panel>& panels, const std::string& title, const std::string& path, std::size_t columns = 2);

// A count as a figure shows it: 10⁶ for a power of ten from 1000, 250,000 with separators from
// 10^4, else its digits.
[[nodiscard]] std::string figure_count(std::uint64_t n);

// The presets: the survey's experiments and the demo.
[[nodiscard]] std::vector<std::string> preset_names();
[[nodiscard]] Spec preset(const std::string& name);  // std::invalid_argument listing the names

}  // namespace shufflempc::study
