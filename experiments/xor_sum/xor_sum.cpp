// The XOR-sum experiment: tasks, runs on every core, aggregation, tables, CSV and figure.
#include "shufflempc/experiments/xor_sum.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <ostream>

#include "shufflempc/attacks/labels.hpp"
#include "shufflempc/numbers.hpp"
#include "shufflempc/parallel.hpp"
#include "shufflempc/accounting/privacy.hpp"
#include "shufflempc/study/csv.hpp"
#include "shufflempc/protocols/xor_sum/xor_sum.hpp"

namespace shufflempc::experiments {
namespace {

// The generators of the study's runs: cell c's run r draws from root.fork(label(c, r)).
[[nodiscard]] std::uint64_t one_round_label(std::size_t cell, std::size_t run) { return attacks::labels::tag("ONE") + cell * 1000 + run; }
[[nodiscard]] std::uint64_t two_round_label(std::size_t cell, std::size_t run) { return attacks::labels::tag("TWO") + cell * 1000 + run; }

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

std::vector<attacks::Decoder> decoders_of(const std::string& name) {
  if (name == "both") return {attacks::Decoder::least_squares, attacks::Decoder::lp};
  return {attacks::parse_decoder(name)};
}

std::size_t max_queries(const XorSumStudyOptions& o) {
  std::size_t m = 0;
  for (auto q : o.queries) m = std::max(m, q);
  return m;
}

// A cell of table 1 (a protocol at (n, alpha)) with every run's results at every m and decoder.
struct OneRoundCell {
  std::string protocol;
  std::size_t n = 0;
  double alpha = 0;  // asked (0 for the exact endpoint)
  double epsilon0 = 0;
  std::vector<attacks::ReplayResult> results;  // runs x (m, decoder)
};

// The attack's data for one run of a cell, and the local epsilon of what the secret half sent.
attacks::ReplayData replay_run(const OneRoundCell& c, std::size_t queries, const Rng& rng, double& epsilon0) {
  const auto n = c.n;
  const auto b = static_cast<std::uint32_t>(n);
  if (c.protocol == "rr") {
    const xor_sum::RrMechanism m{.buckets = b, .flip = xor_sum::rr_flip_for_alpha(c.alpha), .alpha = c.alpha};
    epsilon0 = randomized_response_epsilon(m.flip);
    return attacks::replay_queries(m, n, queries, rng);
  }
  if (c.protocol == "noise-ids") {
    const xor_sum::NoiseIdsMechanism m{.buckets = b, .parties = n, .rate = xor_sum::noise_rate_for_alpha(c.alpha, n, b), .alpha = c.alpha};
    epsilon0 = randomized_response_epsilon(xor_sum::noise_parity_flip(m.rate, n / 2, b));  // G's parities
    return attacks::replay_queries(m, n, queries, rng);
  }
  const xor_sum::ExactMechanism m{.buckets = b, .shares = 2};
  epsilon0 = std::numeric_limits<double>::infinity();
  return attacks::replay_queries(m, n, queries, rng);
}

}  // namespace

std::size_t executions_of(const std::string& text, std::size_t n) {
  const std::size_t h = n / 2;
  if (text == "h/2") return std::max<std::size_t>(h / 2, 1);
  if (text == "h") return h;
  const bool times_n = text.ends_with("n");
  const std::string digits = times_n ? text.substr(0, text.size() - 1) : text;
  const auto k = parse_unsigned(digits, 1'000'000);
  if (!k || *k == 0) throw std::invalid_argument("--executions " + text + ": use K, h/2, h or Kn (K in [1, 1000000])");
  return times_n ? *k * n : *k;
}

void validate(const XorSumStudyOptions& o) {
  for (auto n : o.parties)
    if (n < 4 || n % 2 || n > 4096) throw std::invalid_argument(fmt::format("--parties {} is out of range: even n in [4, 4096]", n));
  for (const auto& p : o.protocols)
    if (p != "rr" && p != "noise-ids" && p != "exact")
      throw std::invalid_argument("--protocols " + p + " is unknown: use rr, noise-ids or exact");
  for (double a : o.alphas)
    if (!(a > 0 && a <= 100)) throw std::invalid_argument(fmt::format("--alpha {} is out of range: (0, 100]", a));
  for (auto q : o.queries)
    if (q < 1 || q > 64) throw std::invalid_argument(fmt::format("--queries {} is out of range: multiples of n in [1, 64]", q));
  if (o.runs < 1 || o.runs > 1000) throw std::invalid_argument("--runs is out of range: [1, 1000]");
  (void)decoders_of(o.decoder);
  if (o.epsilon > 0)
    for (auto n : o.parties)
      for (const auto& e : o.executions) (void)executions_of(e, n);
}

XorSumStudy run_xor_sum_study(const XorSumStudyOptions& o, const study::Progress& progress) {
  validate(o);
  const auto decoders = decoders_of(o.decoder);
  const std::size_t max_q = max_queries(o);

  // The cells, and the runs as tasks weighted by the work they do (queries x users for the attack,
  // executions x users^2 / 64 for the escape).
  std::vector<OneRoundCell> one;
  for (const auto& p : o.protocols)
    for (auto n : o.parties)
      for (double a : p == "exact" ? std::vector<double>{0} : o.alphas) one.push_back({.protocol = p, .n = n, .alpha = a});
  std::vector<std::size_t> two;  // n per cell
  if (o.epsilon > 0) two = o.parties;
  struct Task {
    std::size_t cell, run;
    bool escape;
    double weight;
  };
  std::vector<Task> tasks;
  double total = 0;
  for (std::size_t c = 0; c < one.size(); ++c)
    for (std::size_t r = 0; r < o.runs; ++r) tasks.push_back({c, r, false, static_cast<double>(max_q * one[c].n * one[c].n)});
  for (std::size_t c = 0; c < two.size(); ++c) {
    std::size_t k = 0;
    for (const auto& e : o.executions) k = std::max(k, executions_of(e, two[c]));
    for (std::size_t r = 0; r < o.runs; ++r)
      tasks.push_back({c, r, true, static_cast<double>(k) * static_cast<double>(two[c] * two[c]) * (o.mpc ? 40.0 : 4.0)});
  }
  for (const auto& t : tasks) total += t.weight;
  for (auto& c : one) c.results.resize(o.runs * (o.queries.size() + 1) * decoders.size());
  std::vector<std::vector<std::vector<EscapeRow>>> escapes(two.size(), std::vector<std::vector<EscapeRow>>(o.runs));

  std::mutex progress_mutex;
  double done = 0;
  std::size_t finished = 0;
  const SeededRng root(o.seed);
  parallel_for(tasks.size(), jobs_or_cores(o.jobs), [&](std::size_t i) {
    const Task& t = tasks[i];
    if (!t.escape) {
      OneRoundCell& c = one[t.cell];
      double epsilon0 = 0;
      const auto data = replay_run(c, max_q * c.n, *root.fork(one_round_label(t.cell, t.run)), epsilon0);
      std::size_t slot = t.run * (o.queries.size() + 1) * decoders.size();
      for (std::size_t qi = 0; qi <= o.queries.size(); ++qi)
        for (auto d : decoders) c.results[slot++] = attacks::reconstruct(data, qi == 0 ? 0 : o.queries[qi - 1] * c.n, d);
      const std::lock_guard lock(progress_mutex);
      c.epsilon0 = epsilon0;
    } else {
      EscapeStudyOptions e{.parties = two[t.cell], .epsilon = o.epsilon, .mpc = o.mpc, .decoder = decoders.front()};
      for (const auto& k : o.executions) e.executions.push_back(executions_of(k, two[t.cell]));
      escapes[t.cell][t.run] = escape_study(e, *root.fork(two_round_label(t.cell, t.run)));
    }
    const std::lock_guard lock(progress_mutex);
    done += t.weight;
    ++finished;
    if (progress) progress(done, total, finished, tasks.size());
  });

  XorSumStudy s{.options = o};
  for (const auto& c : one)
    for (std::size_t di = 0; di < decoders.size(); ++di) {
      const auto at = [&](std::size_t run, std::size_t qi) -> const attacks::ReplayResult& {
        return c.results[(run * (o.queries.size() + 1) + qi) * decoders.size() + di];
      };
      ReplayRow row{.protocol = c.protocol, .n = c.n, .alpha = c.protocol == "exact" ? "0" : fmt::format("{:g}", c.alpha),
                    .epsilon0 = c.epsilon0, .decoder = decoders[di]};
      std::vector<double> alpha_m, ceiling;
      for (std::size_t r = 0; r < o.runs; ++r) {
        alpha_m.push_back(at(r, o.queries.size()).alpha());
        ceiling.push_back(at(r, 0).ceiling);
      }
      row.alpha_measured = mean(alpha_m);
      row.ceiling = mean(ceiling);
      for (std::size_t qi = 0; qi <= o.queries.size(); ++qi) {
        std::vector<double> rec, enc;
        for (std::size_t r = 0; r < o.runs; ++r) {
          rec.push_back(at(r, qi).recovered);
          enc.push_back(at(r, qi).of_encoded);
        }
        row.at.push_back({.queries = qi == 0 ? 0 : o.queries[qi - 1] * c.n, .recovered = mean(rec),
                          .recovered_min = *std::min_element(rec.begin(), rec.end()),
                          .recovered_max = *std::max_element(rec.begin(), rec.end()), .of_encoded = mean(enc)});
      }
      s.one_round.push_back(std::move(row));
    }
  for (std::size_t c = 0; c < two.size(); ++c) {
    const auto& runs = escapes[c];
    for (std::size_t row = 0; row < runs.front().size(); ++row) {
      std::vector<double> rec, rmse;
      for (const auto& r : runs) {
        rec.push_back(r[row].recovered);
        rmse.push_back(r[row].answer_rmse);
      }
      s.two_rounds.push_back({.n = two[c], .row = runs.front()[row], .recovered = mean(rec),
                              .recovered_min = *std::min_element(rec.begin(), rec.end()),
                              .recovered_max = *std::max_element(rec.begin(), rec.end()),
                              .alpha = mean(rmse) / std::sqrt(static_cast<double>(two[c]))});
    }
  }
  return s;
}

void print_tables(std::ostream& out, const XorSumStudy& s) {
  const auto& o = s.options;
  out << fmt::format("One round: the pause-and-replay attack, {} secret(s) per row, decoder {}; recovered fraction of x\n", o.runs, o.decoder);
  out << fmt::format("{:<10} {:>5} {:>6} {:>9} {:>9} {:>8} {:>8}", "protocol", "n", "alpha", "measured", "epsilon", "decoder", "ceiling");
  out << fmt::format(" {:>8}", "read");
  for (auto q : o.queries) out << fmt::format(" {:>8}", fmt::format("m={}n", q));
  out << fmt::format(" {:>10}\n", "of G @max");
  out << "(read: G's output read directly, the analyzer's own estimate of x, no replay; m=kn: k*n replay queries)\n";
  for (const auto& r : s.one_round) {
    out << fmt::format("{:<10} {:>5} {:>6} {:>9.3f} {:>9.3g} {:>8} {:>8.3f}", r.protocol, r.n, r.alpha, r.alpha_measured, r.epsilon0,
                       r.decoder == attacks::Decoder::lp ? "lp" : "ls", r.ceiling);
    for (const auto& a : r.at) out << fmt::format(" {:>8.3f}", a.recovered);
    out << fmt::format(" {:>10.3f}\n", r.at.back().of_encoded);
  }
  if (s.two_rounds.empty()) return;
  out << fmt::format("\nTwo rounds: the escape by circuit MPC (V1), epsilon = {:g} per execution, {} secret(s) per row; {}\n", o.epsilon,
                     o.runs, o.mpc ? "re-runs through the garbled circuit" : "re-runs by the circuit in the clear (--mpc: garbled)");
  out << fmt::format("{:>5} {:<8} {:>10} {:>8} {:>10} {:>10} {:>10}  {}\n", "n", "strategy", "executions", "answers", "eps total", "recovered",
                     "rmse/sqrtn", "note");
  for (const auto& t : s.two_rounds) {
    const auto& e = t.row;
    out << fmt::format("{:>5} {:<8} {:>10} {:>8} {:>10.4g} {:>10.3f} {:>10.3f}  {}\n", t.n, e.strategy, e.executions, e.answers,
                       e.epsilon_total, t.recovered, t.alpha, e.note);
  }
}

std::vector<study::Column> table(const XorSumStudy& s) {
  using K = study::Column::Kind;
  using N = study::CsvWriter;
  const auto& o = s.options;
  std::vector<study::Column> cols;
  for (const auto& [name, kind] : std::initializer_list<std::pair<const char*, K>>{
           {"rounds", K::integer}, {"protocol", K::text}, {"parties", K::integer}, {"alpha", K::text}, {"alpha_measured", K::real},
           {"epsilon", K::real}, {"ceiling", K::real}, {"decoder", K::text}, {"queries", K::integer}, {"strategy", K::text},
           {"executions", K::integer}, {"epsilon_total", K::real}, {"recovered", K::real}, {"recovered_min", K::real},
           {"recovered_max", K::real}, {"of_encoded", K::real}, {"runs", K::integer}})
    cols.push_back(study::Column{kind, name, {}, {}});
  // One row: per column its text as the CSV writes it, and its value for a number (none: empty).
  using Field = std::pair<std::string, std::optional<double>>;
  const auto row = [&cols](const std::vector<Field>& fields) {
    for (std::size_t c = 0; c < cols.size(); ++c) {
      cols[c].text.push_back(fields[c].first);
      cols[c].number.push_back(fields[c].second);
    }
  };
  const auto real = [](double v) { return Field{N::number(v), v}; };
  const auto whole = [](std::size_t v) { return Field{std::to_string(v), static_cast<double>(v)}; };
  const Field none{"", std::nullopt};
  for (const auto& r : s.one_round)
    for (const auto& a : r.at)
      row({whole(1), {r.protocol, {}}, whole(r.n), {r.alpha, {}}, real(r.alpha_measured), real(r.epsilon0), real(r.ceiling),
           {attacks::to_string(r.decoder), {}}, whole(a.queries), {a.queries == 0 ? "read directly" : "replay", {}}, none, none,
           real(a.recovered), real(a.recovered_min), real(a.recovered_max), real(a.of_encoded), whole(o.runs)});
  const auto decoder = decoders_of(o.decoder).front();
  for (const auto& t : s.two_rounds) {
    const auto& e = t.row;
    row({whole(2), {"circuit-v1", {}}, whole(t.n), none, real(t.alpha), real(o.epsilon), none, {attacks::to_string(decoder), {}}, none,
         {e.strategy, {}}, whole(e.executions), real(e.epsilon_total), real(t.recovered), real(t.recovered_min), real(t.recovered_max), none,
         whole(o.runs)});
  }
  return cols;
}

void write_csv(std::ostream& out, const XorSumStudy& s) { study::write_columns(out, table(s)); }

std::vector<study::Line> figure_lines(const XorSumStudy& s) {
  const auto& o = s.options;
  const auto first_decoder = decoders_of(o.decoder).front();
  std::vector<study::Line> lines;
  for (const auto& r : s.one_round) {
    if (r.decoder != first_decoder) continue;
    const std::string title = fmt::format("one round, {}, n = {}, m = {}n", r.protocol, r.n, max_queries(o));
    auto it = std::find_if(lines.begin(), lines.end(), [&](const study::Line& l) { return l.title == title; });
    if (it == lines.end()) {
      lines.push_back({.title = title});
      it = lines.end() - 1;
    }
    it->points.emplace_back(r.alpha_measured, r.at.back().recovered);
  }
  // The exact protocol recovers everything with no error at every n: its points coincide at (0, 1),
  // under the others'. Drawn last, as open markers of growing size, each stays visible.
  std::stable_partition(lines.begin(), lines.end(), [](const study::Line& l) { return l.title.find(", exact,") == std::string::npos; });
  int size = 0;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (lines[i].title.find(", exact,") != std::string::npos) {
      lines[i].points_only = true;
      lines[i].point_type = 6;  // an open circle
      lines[i].point_size = 1.6 + 1.1 * size++;
      lines[i].colour = i;
    }
  if (s.two_rounds.empty()) return lines;
  // Per n: the replay's recovery at the error of one execution (measured over the most re-runs).
  study::Line replay{.title = fmt::format("two rounds, one execution replayed, eps = {:g}", o.epsilon), .points_only = false};
  for (std::size_t i = 0; i < s.two_rounds.size();) {
    const std::size_t n = s.two_rounds[i].n;
    double replay_recovered = 0, rerun_alpha = 0;
    for (; i < s.two_rounds.size() && s.two_rounds[i].n == n; ++i) {
      if (s.two_rounds[i].row.strategy == "replay") replay_recovered = s.two_rounds[i].recovered;
      if (s.two_rounds[i].row.strategy == "re-run") rerun_alpha = s.two_rounds[i].alpha;
    }
    replay.points.emplace_back(rerun_alpha, replay_recovered);
  }
  lines.push_back(replay);
  return lines;
}

std::string figure_title(const XorSumStudy& s) {
  return fmt::format("XOR-sum replay attack: one round against two (seed {}, {} runs per point)", s.options.seed, s.options.runs);
}

}  // namespace shufflempc::experiments
