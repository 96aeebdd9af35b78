#include "shufflempc/study/study.hpp"
#include "shufflempc/suggest.hpp"

#include "shufflempc/numbers.hpp"
#include "shufflempc/study/csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <boost/math/distributions/chi_squared.hpp>
#include <chrono>
#include <cmath>
#include <mutex>
#include <ostream>
#include <set>
#include <stdexcept>

#include "shufflempc/inputs.hpp"
#include "shufflempc/inproc.hpp"
#include "shufflempc/random_inputs.hpp"
#include "shufflempc/parallel.hpp"

namespace shufflempc::study {
namespace {

const ParamSpec* find_param(const ProtocolInfo& info, const std::string& key) {
  for (const auto& p : info.params)
    if (p.name == key) return &p;
  return nullptr;
}

std::string param_names(const ProtocolInfo& info) {
  std::string s;
  for (const auto& p : info.params) s += (s.empty() ? "" : ", ") + p.name;
  return s.empty() ? "none" : s;
}

// The value rounded to a whole number, as text and number.
AxisValue whole(const AxisValue& value) {
  const auto w = std::llround(*value.number);
  return {fmt::format("{}", w), static_cast<double>(w)};
}

// Type checks only: a value out of a protocol's range makes an infeasible cell, not an error.
AxisValue checked_value(const ParamSpec& p, const AxisValue& value, const std::string& where) {
  const std::string& text = value.text;
  switch (p.type) {
    case ParamType::real:
    case ParamType::integer:
      if (!value.number) throw std::invalid_argument(where + ": '" + text + "' is not a number (" + p.name + " is " + p.range_text() + ")");
      return p.type == ParamType::integer ? whole(value) : value;
    case ParamType::choice:
      if (std::find(p.choices.begin(), p.choices.end(), text) == p.choices.end())
        throw std::invalid_argument(where + ": '" + text + "' is not " + p.range_text());
      return value;
    case ParamType::boolean:
      if (!bool_from_text(text)) throw std::invalid_argument(where + ": '" + text + "' is not true or false");
      return value;
    case ParamType::text:
      return value;
  }
  return value;
}

AxisValue parties_value(const AxisValue& value, const std::string& where) {
  if (!value.number || *value.number < 1 || *value.number > 1e9)
    throw std::invalid_argument(where + ": parties must be a number in [1, 1e9], got '" + value.text + "'");
  return whole(value);
}

AxisValue fraction_value(const AxisValue& value, const std::string& where, bool zero_allowed) {
  const bool ok = value.number && (zero_allowed ? *value.number >= 0 && *value.number < 1 : *value.number > 0 && *value.number <= 1);
  if (!ok)
    throw std::invalid_argument(where + ": must be a fraction in " + (zero_allowed ? "[0, 1)" : "(0, 1]") + ", got '" + value.text + "'");
  return value;
}

// Parameters given for every series (the fixed ones and the axes) apply where declared; the key
// must be declared by at least one series.
void check_key(const Registry& registry, Spec& spec, const std::string& key, std::vector<AxisValue>& values, const std::string& where) {
  if (key == "parties") {
    for (auto& v : values) v = parties_value(v, where);
    return;
  }
  if (key == "honest" || key == "dropouts") {
    for (auto& v : values) v = fraction_value(v, where, key == "dropouts");
    return;
  }
  if (key == "inputs") {
    // An inputs spec's number on the x axis is its last field (bernoulli:0.3 -> 0.3).
    for (auto& v : values)
      if (const std::size_t colon = v.text.rfind(':'); colon != std::string::npos) v.number = parse_real(std::string_view(v.text).substr(colon + 1));
    return;
  }
  bool declared = false;
  for (const auto& s : spec.series) {
    const auto& info = registry.get(s.protocol);
    if (const ParamSpec* p = find_param(info, key)) {
      declared = true;
      for (auto& v : values) v = checked_value(*p, v, where);
    }
  }
  if (!declared) {
    std::string known;
    for (const auto& s : spec.series) known += (known.empty() ? "" : "; ") + s.protocol + " has " + param_names(registry.get(s.protocol));
    throw std::invalid_argument(where + ": no chosen protocol has a parameter '" + key + "' (" + known +
                                "; every study has parties, inputs, honest and dropouts)");
  }
}

}  // namespace

AxisValue::AxisValue(std::string t) : text(std::move(t)) {
  number = parse_real(text);
}

Axis parse_axis(const std::string& text) {
  const std::string where = "--vary " + text;
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw std::invalid_argument(where + ": expected KEY=V1,V2,... or KEY=lin:A:B:K or KEY=geom:A:B:K");
  Axis axis;
  axis.key = text.substr(0, eq);
  const std::string rest = text.substr(eq + 1);
  if (rest.starts_with("lin:") || rest.starts_with("geom:")) {
    axis.geometric = rest.starts_with("geom:");
    const auto parts = split_items(rest.substr(rest.find(':') + 1), ':');
    // A, B and K as plain numbers (optionals here made GCC 12 warn of uninitialised reads).
    std::array<double, 3> abk{};
    bool numbers = parts.size() == 3;
    for (std::size_t i = 0; numbers && i < 3; ++i) {
      const auto x = parse_real(parts[i]);
      numbers = x.has_value();
      if (numbers) abk[i] = *x;
    }
    const auto [a, b, k] = abk;
    if (!numbers || !(k >= 2 && k <= 1000) || k != std::floor(k))
      throw std::invalid_argument(where + ": a range is lin:A:B:K or geom:A:B:K with numbers A, B and K in [2, 1000] points");
    if (axis.geometric && (a <= 0 || b <= 0)) throw std::invalid_argument(where + ": a geometric range needs A > 0 and B > 0");
    const auto count = static_cast<int>(k);
    for (int i = 0; i < count; ++i) {
      const double t = static_cast<double>(i) / (count - 1);
      axis.values.emplace_back(format_real(axis.geometric ? a * std::pow(b / a, t) : a + (b - a) * t));
    }
    return axis;
  }
  for (auto& v : split_items(rest, ',')) {
    if (v.empty()) throw std::invalid_argument(where + ": an empty value in the list");
    axis.values.emplace_back(std::move(v));
  }
  return axis;
}

Series parse_series(const std::string& text) {
  const auto parts = split_items(text, ':');
  if (parts[0].empty()) throw std::invalid_argument("--protocol '" + text + "': expected NAME or NAME:KEY=V:KEY=V");
  Series s;
  s.protocol = parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::size_t eq = parts[i].find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == parts[i].size())
      throw std::invalid_argument("--protocol '" + text + "': '" + parts[i] + "' is not KEY=VALUE");
    s.params[parts[i].substr(0, eq)] = parts[i].substr(eq + 1);
  }
  return s;
}

void validate(const Registry& registry, Spec& spec) {
  if (spec.series.empty()) throw std::invalid_argument("--protocol: a study needs at least one protocol");
  if (spec.trials < 1 || spec.trials > 1'000'000) throw std::invalid_argument("--trials must be in [1, 1000000]");
  if (spec.parties < 1 || spec.parties > 1'000'000'000) throw std::invalid_argument("--parties must be in [1, 1e9]");
  std::set<std::string> labels;
  for (auto& s : spec.series) {
    const ProtocolInfo* info = registry.find(s.protocol);
    if (info == nullptr) {
      std::string names;
      std::vector<std::string> all;
      for (const auto& p : registry.all()) {
        names += (names.empty() ? "" : ", ") + p.name;
        all.push_back(p.name);
      }
      throw std::invalid_argument("--protocol: unknown protocol '" + s.protocol + "'" + did_you_mean(s.protocol, all) + " (protocols: " + names + ")");
    }
    std::string label = s.protocol;
    for (auto& [key, value] : s.params) {
      const ParamSpec* p = find_param(*info, key);
      if (p == nullptr)
        throw std::invalid_argument("--protocol " + s.protocol + ": it has no parameter '" + key + "' (it has " + param_names(*info) + ")");
      value = checked_value(*p, AxisValue(value), "--protocol " + s.protocol + ":" + key).text;
      label += " " + key + "=" + value;
    }
    if (s.label.empty()) s.label = label;
    if (!labels.insert(s.label).second) throw std::invalid_argument("--protocol: '" + s.label + "' is given twice");
  }
  std::set<std::string> keys;
  for (auto& axis : spec.axes) {
    if (!keys.insert(axis.key).second) throw std::invalid_argument("--vary " + axis.key + ": the key is varied twice");
    check_key(registry, spec, axis.key, axis.values, "--vary " + axis.key);
  }
  for (auto& [key, value] : spec.fixed) {
    if (keys.count(key)) throw std::invalid_argument("--set " + key + ": the key is also varied");
    if (key == "parties" || key == "inputs" || key == "honest" || key == "dropouts")
      throw std::invalid_argument("--set " + key + ": use --" + key);
    std::vector<AxisValue> one{AxisValue(value)};
    check_key(registry, spec, key, one, "--set " + key);
    value = one[0].text;
  }
  if (spec.x.empty() && !spec.axes.empty()) spec.x = spec.axes[0].key;
  if (!spec.x.empty() && !keys.count(spec.x)) throw std::invalid_argument("--x " + spec.x + ": not a varied key");
  static const std::set<std::string> ys = {"rmse", "bias", "max_error", "seconds", "messages_per_user", "bytes_per_user"};
  if (!ys.count(spec.y)) throw std::invalid_argument("--y " + spec.y + ": must be one of rmse, bias, max_error, seconds, messages_per_user, bytes_per_user");
  if (spec.honest) (void)fraction_value(AxisValue(std::to_string(*spec.honest), *spec.honest), "--honest", false);
  (void)fraction_value(AxisValue(std::to_string(spec.dropouts), spec.dropouts), "--dropouts", true);
  if (spec.title.empty()) spec.title = spec.name.empty() ? "study" : spec.name;
}

std::pair<double, double> rmse_interval(double rmse, std::size_t trials) {
  const auto t = static_cast<double>(trials);
  const boost::math::chi_squared chi(t);
  return {rmse * std::sqrt(t / boost::math::quantile(chi, 0.975)), rmse * std::sqrt(t / boost::math::quantile(chi, 0.025))};
}

Summary summarize(const std::vector<TrialRecord>& trials, std::size_t parties, std::optional<double> predicted_sd) {
  Summary s;
  s.trials = trials.size();
  if (trials.empty()) return s;
  double sum = 0, sq = 0, worst = 0, secs = 0, secs_sq = 0, msgs = 0, bytes = 0;
  std::size_t with_error = 0;
  for (const auto& t : trials) {
    if (t.error) {
      ++with_error;
      sum += *t.error;
      sq += *t.error * *t.error;
      worst += t.max_error.value_or(std::fabs(*t.error));
    }
    secs += t.seconds;
    secs_sq += t.seconds * t.seconds;
    msgs += static_cast<double>(t.messages);
    bytes += static_cast<double>(t.bytes);
  }
  const auto n = static_cast<double>(trials.size());
  if (with_error > 0) {
    const auto m = static_cast<double>(with_error);
    s.bias = sum / m;
    s.rmse = std::sqrt(sq / m);
    s.max_error = worst / m;
    const auto [lo, hi] = rmse_interval(*s.rmse, with_error);
    s.rmse_low = lo;
    s.rmse_high = hi;
  }
  s.seconds = secs / n;
  s.seconds_sd = trials.size() > 1 ? std::sqrt(std::max(0.0, (secs_sq - n * s.seconds * s.seconds) / (n - 1))) : 0.0;
  s.messages_per_user = msgs / n / static_cast<double>(parties);
  s.bytes_per_user = bytes / n / static_cast<double>(parties);
  s.predicted_sd = predicted_sd;
  s.predicted_rmse = predicted_sd;
  if (with_error > 0) {
    double mse = 0;
    std::size_t predicted = 0;
    for (const auto& t : trials)
      if (t.error && t.predicted_mse) {
        mse += *t.predicted_mse;
        ++predicted;
      }
    if (predicted == with_error) s.predicted_rmse = std::sqrt(mse / static_cast<double>(predicted));
  }
  return s;
}

namespace {

Value optional_value(const std::optional<double>& v) { return v ? Value(*v) : Value(nullptr); }

// One trial as the JSON output lists it, and as ranks send it to rank 0: doubles go through JSON's
// shortest round-trip form, so they arrive bit for bit.
Value trial_to_json(const TrialRecord& r) {
  return {{"error", optional_value(r.error)}, {"max_error", optional_value(r.max_error)}, {"predicted_mse", optional_value(r.predicted_mse)},
          {"output", r.output}, {"seconds", r.seconds}, {"messages", r.messages}, {"bytes", r.bytes}};
}

TrialRecord trial_from_json(const Value& j) {
  const auto opt = [](const Value& v) { return v.is_null() ? std::optional<double>() : std::optional<double>(v.get<double>()); };
  return {.error = opt(j.at("error")), .max_error = opt(j.at("max_error")), .predicted_mse = opt(j.at("predicted_mse")),
          .output = j.at("output"), .seconds = j.at("seconds").get<double>(),
          .messages = j.at("messages").get<std::size_t>(), .bytes = j.at("bytes").get<std::size_t>()};
}

// What a rank sends: [cell, trial, path (of trial 0), the trial].
void merge_records(const std::string& bytes, std::vector<Cell>& cells, std::vector<std::string>& paths) {
  for (const auto& j : Value::parse(bytes)) {
    const auto c = j.at(0).get<std::size_t>(), t = j.at(1).get<std::size_t>();
    if (c >= cells.size() || t >= cells[c].trials.size())
      throw std::runtime_error(fmt::format("study ranks: a record of cell {} trial {}, which this study does not have", c, t));
    if (t == 0) paths[c] = j.at(2).get<std::string>();
    cells[c].trials[t] = trial_from_json(j.at(3));
  }
}

}  // namespace

namespace {

// Every point of the product of the axes (one empty point without axes).
std::vector<std::map<std::string, AxisValue>> grid_points(const std::vector<Axis>& axes) {
  std::vector<std::map<std::string, AxisValue>> points(1);
  for (const auto& axis : axes) {
    std::vector<std::map<std::string, AxisValue>> next;
    for (const auto& p : points)
      for (const auto& v : axis.values) {
        auto q = p;
        q[axis.key] = v;
        next.push_back(std::move(q));
      }
    points = std::move(next);
  }
  return points;
}

// The cell of series `s` at grid point `point`: who submits, what the protocol may count on, its
// parameters and settings, and its protocol (null when the cell is infeasible, with the reason).
// Throws std::invalid_argument for an input spec the protocol refuses: the user's error, said
// before any trial.
std::pair<Cell, std::unique_ptr<Protocol>> make_cell(const Registry& registry, const Spec& spec, std::size_t s,
                                                     const std::map<std::string, AxisValue>& point) {
  const Series& series = spec.series[s];
  const ProtocolInfo& info = registry.get(series.protocol);
  Cell cell;
  cell.series = s;
  cell.point = point;
  cell.parties = point.count("parties") ? static_cast<std::size_t>(point.at("parties").number.value()) : spec.parties;
  cell.inputs = point.count("inputs") ? point.at("inputs").text : spec.inputs;
  // Who submits and what the protocols may count on.
  const double dropouts = point.count("dropouts") ? point.at("dropouts").number.value() : spec.dropouts;
  const std::optional<double> honest = point.count("honest") ? point.at("honest").number : spec.honest;
  const auto gone = static_cast<std::size_t>(std::floor(dropouts * static_cast<double>(cell.parties)));
  cell.submitters = std::max<std::size_t>(1, cell.parties - std::min(gone, cell.parties));
  if (honest)
    cell.min_parties = std::min(cell.parties, static_cast<std::size_t>(std::ceil(*honest * static_cast<double>(cell.parties) - 1e-9)));
  else
    cell.min_parties = cell.submitters < cell.parties ? cell.submitters : 0;
  for (const auto& [k, v] : spec.fixed)
    if (find_param(info, k)) cell.params[k] = v;
  for (const auto& [k, v] : series.params) cell.params[k] = v;
  for (const auto& [k, v] : point)
    if (find_param(info, k)) cell.params[k] = v.text;
  for (const auto& p : info.params) {
    const auto given = cell.params.find(p.name);
    cell.settings[p.name] = given != cell.params.end() ? given->second : p.default_value;
  }
  std::unique_ptr<Protocol> protocol;
  try {
    if (cell.min_parties > cell.submitters)
      throw std::invalid_argument(fmt::format("honest = {} needs {} submitters, and dropouts = {} leaves {}", honest.value_or(1),
                                              cell.min_parties, dropouts, cell.submitters));
    protocol = registry.create(series.protocol, cell.params, cell.parties, cell.min_parties);
    cell.describe = protocol->describe();
    cell.predicted_sd = protocol->predicted_sd();
    // A protocol predicts its error for all of its parties submitting; with dropouts, ask the
    // same calibration (the same min-parties) about the submitters.
    if (cell.submitters < cell.parties)
      cell.predicted_sd = registry.create(series.protocol, cell.params, cell.submitters, cell.min_parties)->predicted_sd();
    cell.model = protocol->trust_model();
  } catch (const std::invalid_argument& e) {
    cell.feasible = false;
    cell.reason = e.what();
  }
  if (protocol) {
    // A bad input spec is the user's error, not an infeasible cell: say so before any trial.
    SeededRng probe(0);
    try {
      (void)protocol->random_input(0, cell.inputs, probe);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("--inputs '" + cell.inputs + "' for " + series.protocol + ": " + e.what());
    }
    cell.trials.resize(spec.trials);
  }
  return {std::move(cell), std::move(protocol)};
}

// One trial of `cell`'s protocol with `rng`: its fast path (Protocol::trial) where it has one, else
// a whole run in process with the last parties dropping before the first round. `path` says which.
TrialRecord run_trial(const Protocol& protocol, const Cell& cell, Rng& rng, std::string& path) {
  TrialRecord record;
  const auto start = std::chrono::steady_clock::now();
  if (auto r = protocol.trial(cell.submitters, cell.inputs, rng)) {
    record.error = r->error;
    record.max_error = r->max_error;
    record.predicted_mse = r->predicted_mse;
    record.output = std::move(r->output);
    record.messages = r->messages;
    record.bytes = r->bytes;
    path = "trial";
  } else {
    const std::vector<Value> inputs = draw_random_inputs(protocol, cell.parties, cell.inputs, rng);
    // The last parties drop before the first round; the truth is the submitters'.
    RunOptions options;
    options.min_parties = cell.min_parties;
    for (std::size_t p = cell.submitters; p < cell.parties; ++p) options.dropouts[static_cast<PartyId>(p)] = 0;
    const RunResult result = run_in_process(protocol, inputs, rng, options);
    if (protocol.has_error())
      if (const auto truth = protocol.truth(std::span<const Value>(inputs).first(cell.submitters)))
        if (const auto e = trial_errors(result.output, *truth)) {
          record.error = e->first;
          record.max_error = e->second;
        }
    record.output = result.output;
    record.messages = result.messages;
    record.bytes = result.bytes;
    path = "driver";
  }
  record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return record;
}

}  // namespace

std::vector<Cell> run(const Registry& registry, const Spec& spec, const Progress& progress, const Ranks& ranks) {
  if (ranks.size < 1 || ranks.rank < 0 || ranks.rank >= ranks.size || (ranks.size > 1 && !ranks.gather))
    throw std::invalid_argument(fmt::format("study ranks: rank {} of {} (needs 0 <= rank < size and a gather when size > 1)", ranks.rank, ranks.size));
  // The grid: every series at every point of the product of the axes.
  const auto points = grid_points(spec.axes);
  std::vector<Cell> cells;
  std::vector<std::size_t> cell_point;  // the index of each cell's grid point
  std::vector<std::unique_ptr<Protocol>> protocols;
  for (std::size_t s = 0; s < spec.series.size(); ++s) {
    for (std::size_t pi = 0; pi < points.size(); ++pi) {
      cell_point.push_back(pi);
      auto [cell, protocol] = make_cell(registry, spec, s, points[pi]);
      cells.push_back(std::move(cell));
      protocols.push_back(std::move(protocol));
    }
  }

  struct Task {
    std::size_t cell, trial;
  };
  std::vector<Task> tasks;  // this rank's share of the study's (cell, trial) list
  double total_weight = 0;
  std::size_t index = 0;
  for (std::size_t c = 0; c < cells.size(); ++c)
    if (cells[c].feasible)
      for (std::size_t t = 0; t < spec.trials; ++t, ++index)
        if (index % static_cast<std::size_t>(ranks.size) == static_cast<std::size_t>(ranks.rank)) {
          tasks.push_back({c, t});
          total_weight += static_cast<double>(cells[c].parties);
        }
  const SeededRng root(spec.seed);
  std::mutex mutex;
  double done_weight = 0;
  std::size_t done = 0;
  std::vector<std::string> paths(cells.size());
  parallel_for(tasks.size(), jobs_or_cores(spec.jobs), [&](std::size_t i) {
    const auto [c, t] = tasks[i];
    Cell& cell = cells[c];
    const Protocol& protocol = *protocols[c];
    // Common random numbers: every series at one grid point and trial draws from the same
    // generator, so protocols that read their inputs alike are compared on the same data.
    auto rng = root.fork((std::uint64_t{cell_point[c]} << 24) | t);
    std::string path;
    cell.trials[t] = run_trial(protocol, cell, *rng, path);
    if (t == 0) paths[c] = path;
    const std::lock_guard lock(mutex);
    done_weight += static_cast<double>(cell.parties);
    ++done;
    if (progress) progress(done_weight, total_weight, done, tasks.size());
  });
  if (ranks.size > 1) {
    Value mine = Value::array();
    for (const auto& [c, t] : tasks) mine.push_back(Value::array({c, t, t == 0 ? paths[c] : std::string(), trial_to_json(cells[c].trials[t])}));
    const auto all = ranks.gather(mine.dump());
    if (ranks.rank != 0) {
      for (auto& cell : cells) cell.trials.clear();
      return cells;
    }
    if (all.size() != static_cast<std::size_t>(ranks.size))
      throw std::runtime_error(fmt::format("study ranks: gathered {} ranks' records, expected {}", all.size(), ranks.size));
    for (std::size_t r = 1; r < all.size(); ++r) merge_records(all[r], cells, paths);
  }
  for (std::size_t c = 0; c < cells.size(); ++c) {
    cells[c].path = paths[c];
    if (cells[c].feasible) cells[c].summary = summarize(cells[c].trials, cells[c].submitters, cells[c].predicted_sd);
  }
  return cells;
}

namespace {

std::vector<std::string> axis_columns(const Spec& spec) {
  std::vector<std::string> keys;
  for (const auto& a : spec.axes)
    if (a.key != "parties" && a.key != "inputs" && a.key != "honest" && a.key != "dropouts") keys.push_back(a.key);
  return keys;
}

}  // namespace

std::vector<Column> table(const Spec& spec, const std::vector<Cell>& cells, bool per_trial) {
  using K = Column::Kind;
  using N = CsvWriter;
  std::vector<Column> cols;
  const auto column = [&cols](std::string name, K kind) {
    cols.push_back(Column{kind, std::move(name), {}, {}});
    return cols.size() - 1;
  };
  const auto keys = axis_columns(spec);
  const std::size_t series = column("series", K::text), protocol = column("protocol", K::text);
  std::vector<std::size_t> axis;
  // A varied parameter is a real column when every value is a number (epsilon), else text (a choice).
  for (const auto& k : keys) {
    const bool numeric = std::all_of(cells.begin(), cells.end(), [&k](const Cell& c) { return c.point.count(k) && c.point.at(k).number; });
    axis.push_back(column(k, numeric ? K::real : K::text));
  }
  const std::size_t parties = column("parties", K::integer), min_parties = column("min_parties", K::integer),
                    submitters = column("submitters", K::integer), inputs = column("inputs", K::text);
  // A row's field: its text as the CSV writes it and, for a number, its value.
  const auto put = [&cols](std::size_t c, std::string text, std::optional<double> number = std::nullopt) {
    cols[c].text.push_back(std::move(text));
    cols[c].number.push_back(number);
  };
  const auto real = [&put](std::size_t c, const std::optional<double>& v, int digits) { put(c, N::number(v, digits), v); };
  const auto whole = [&put](std::size_t c, std::size_t v) { put(c, std::to_string(v), static_cast<double>(v)); };
  const auto head = [&](const Cell& c) {
    const Series& s = spec.series[c.series];
    put(series, s.label);
    put(protocol, s.protocol);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const auto at = c.point.find(keys[i]);
      if (at == c.point.end()) put(axis[i], std::string());
      else put(axis[i], at->second.text, at->second.number);
    }
    whole(parties, c.parties);
    whole(min_parties, c.min_parties == 0 ? c.parties : c.min_parties);
    whole(submitters, c.submitters);
    put(inputs, c.inputs);
  };
  if (per_trial) {
    const std::size_t trial = column("trial", K::integer), error = column("error", K::real), max_error = column("max_error", K::real),
                      output = column("output", K::real), seconds = column("seconds", K::real), messages = column("messages", K::integer),
                      bytes = column("bytes", K::integer), settings = column("settings", K::text), seed = column("seed", K::integer);
    for (const auto& c : cells) {
      // Every parameter of the protocol, defaults included, so that a row says all it ran with.
      const std::string set = Value(c.settings).dump();
      for (std::size_t t = 0; t < c.trials.size(); ++t) {
        const auto& r = c.trials[t];
        head(c);
        whole(trial, t);
        real(error, r.error, 10);
        real(max_error, r.max_error, 10);
        real(output, r.output.is_number() ? std::optional<double>(r.output.get<double>()) : std::nullopt, 10);
        real(seconds, r.seconds, 6);
        whole(messages, r.messages);
        whole(bytes, r.bytes);
        put(settings, set);
        put(seed, std::to_string(spec.seed), static_cast<double>(spec.seed));
      }
    }
    return cols;
  }
  const std::size_t feasible = column("feasible", K::boolean), reason = column("reason", K::text), trials = column("trials", K::integer),
                    bias = column("bias", K::real), rmse = column("rmse", K::real), rmse_low = column("rmse_low", K::real),
                    rmse_high = column("rmse_high", K::real), predicted_sd = column("predicted_sd", K::real),
                    predicted_rmse = column("predicted_rmse", K::real),
                    max_error = column("max_error", K::real), seconds = column("seconds", K::real), seconds_sd = column("seconds_sd", K::real),
                    messages = column("messages_per_user", K::real), bytes = column("bytes_per_user", K::real),
                    path = column("path", K::text), settings = column("settings", K::text), seed = column("seed", K::integer);
  for (const auto& c : cells) {
    const Summary& m = c.summary;
    head(c);
    put(feasible, c.feasible ? "true" : "false", c.feasible ? 1.0 : 0.0);
    put(reason, c.reason);
    whole(trials, m.trials);
    real(bias, m.bias, 10);
    real(rmse, m.rmse, 10);
    real(rmse_low, m.rmse_low, 10);
    real(rmse_high, m.rmse_high, 10);
    real(predicted_sd, m.predicted_sd, 10);
    real(predicted_rmse, m.predicted_rmse, 10);
    real(max_error, m.max_error, 10);
    const auto cost = [&](double v) { return c.feasible ? std::optional<double>(v) : std::nullopt; };
    real(seconds, cost(m.seconds), 6);
    real(seconds_sd, cost(m.seconds_sd), 6);
    real(messages, cost(m.messages_per_user), 6);
    real(bytes, cost(m.bytes_per_user), 6);
    put(path, c.path);
    put(settings, Value(c.settings).dump());
    put(seed, std::to_string(spec.seed), static_cast<double>(spec.seed));
  }
  return cols;
}

void write_csv(std::ostream& out, const Spec& spec, const std::vector<Cell>& cells, bool per_trial) {
  write_columns(out, table(spec, cells, per_trial));
}

void write_columns(std::ostream& out, const std::vector<Column>& cols) {
  std::vector<std::string> names;
  for (const auto& c : cols) names.push_back(c.name);
  CsvWriter csv(out, std::move(names));
  const std::size_t rows = cols.empty() ? 0 : cols.front().text.size();
  std::vector<std::string> row(cols.size());
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols.size(); ++c) row[c] = cols[c].text[r];
    csv.row(row);
  }
}

Value to_json(const Spec& spec, const std::vector<Cell>& cells, bool with_trials) {
  const auto opt = optional_value;
  Value series = Value::array();
  for (const auto& s : spec.series)
    series.push_back({{"label", s.label}, {"protocol", s.protocol}, {"params", s.params}, {"legend", s.legend.empty() ? s.label : s.legend}});
  Value axes = Value::array();
  for (const auto& a : spec.axes) {
    Value values = Value::array();
    for (const auto& v : a.values) values.push_back(v.text);
    axes.push_back({{"key", a.key}, {"values", values}});
  }
  // The caption a figure's title leaves out: what the preset shows (its note).
  Value out = {{"study", spec.name},   {"title", spec.title},   {"caption", spec.note}, {"series", series}, {"axes", axes},
               {"fixed", spec.fixed},  {"parties", spec.parties}, {"inputs", spec.inputs},
               {"honest", spec.honest ? Value(*spec.honest) : Value(nullptr)}, {"dropouts", spec.dropouts},
               {"trials", spec.trials}, {"seed", spec.seed},     {"cells", Value::array()}};
  for (const auto& c : cells) {
    const Summary& m = c.summary;
    Value point = Value::object();
    for (const auto& [k, v] : c.point) point[k] = v.text;
    Value cell = {{"series", spec.series[c.series].label},
                  {"protocol", spec.series[c.series].protocol},
                  {"point", point},
                  {"params", c.params},
                  {"settings", c.settings},
                  {"parties", c.parties},
                  {"min_parties", c.min_parties == 0 ? c.parties : c.min_parties},
                  {"submitters", c.submitters},
                  {"inputs", c.inputs},
                  {"feasible", c.feasible}};
    if (!c.feasible) {
      cell["reason"] = c.reason;
    } else {
      cell["path"] = c.path;
      cell["describe"] = c.describe;
      cell["summary"] = {{"trials", m.trials},         {"bias", opt(m.bias)},
                         {"rmse", opt(m.rmse)},        {"rmse_low", opt(m.rmse_low)},
                         {"rmse_high", opt(m.rmse_high)}, {"predicted_sd", opt(m.predicted_sd)}, {"predicted_rmse", opt(m.predicted_rmse)},
                         {"max_error", opt(m.max_error)}, {"seconds", m.seconds},
                         {"seconds_sd", m.seconds_sd}, {"messages_per_user", m.messages_per_user},
                         {"bytes_per_user", m.bytes_per_user}};
      if (with_trials) {
        Value trials = Value::array();
        for (const auto& r : c.trials) trials.push_back(trial_to_json(r));
        cell["trials"] = std::move(trials);
      }
    }
    out["cells"].push_back(std::move(cell));
  }
  return out;
}

}  // namespace shufflempc::study
