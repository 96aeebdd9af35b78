// `shufflempc study xor-sum`: the XOR-sum lower bound, executed (docs/xor-sum.md). Table 1: the
// pause-and-replay attack on the one-round protocols, the fraction of the secret recovered against
// the error (alpha = RMSE / sqrt n) and the number of queries, beside what the frozen half encodes.
// Table 2: the two-round escape, the fraction recovered against the executions of the honest
// parties and the epsilon they cost. A figure of recovered fraction against error / sqrt n.
#include <fmt/format.h>

#include <atomic>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include "commands.hpp"
#include "common.hpp"
#include "progress.hpp"
#include "shufflempc/attacks/escape.hpp"
#include "shufflempc/attacks/xor_sum.hpp"
#include "shufflempc/privacy.hpp"
#include "shufflempc/study/study.hpp"
#include "xor_sum/xor_sum.hpp"

namespace shufflempc::cli {
namespace {

struct Options {
  std::vector<std::size_t> parties = {64, 128, 256};
  std::vector<std::string> protocols = {"rr", "noise-ids", "exact"};
  std::vector<double> alphas = {0.1, 0.5, 1, 2};
  std::vector<std::size_t> queries = {1, 4, 16};  // multiples of n
  std::string decoder = "ls";
  std::size_t runs = 3;
  double epsilon = 1;
  std::vector<std::string> executions = {"h/2", "h", "4n"};
  bool mpc = false, quiet = false;
  std::uint64_t seed = 1;
  unsigned jobs = 0;
  std::string csv;
  std::vector<std::string> plots;
};

// One cell of table 1: a protocol at (n, alpha), `runs` secrets, each decoded at every m.
struct OneRound {
  std::string protocol;
  std::size_t n = 0;
  double alpha = 0;  // asked (0 for the exact endpoint)
  double epsilon0 = 0;
  std::vector<attacks::ReplayResult> results;  // runs x (m, decoder)
};

struct TwoRound {
  std::size_t n = 0;
  std::vector<std::vector<attacks::EscapeRow>> runs;
};

std::size_t executions_of(const std::string& text, std::size_t n) {
  const std::size_t h = n / 2;
  if (text == "h/2") return std::max<std::size_t>(h / 2, 1);
  if (text == "h") return h;
  const bool times_n = text.ends_with("n");
  const std::string digits = times_n ? text.substr(0, text.size() - 1) : text;
  std::size_t used = 0, k = 0;
  try {
    k = std::stoull(digits, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (digits.empty() || used != digits.size() || k == 0 || k > 1'000'000)
    throw std::invalid_argument("--executions " + text + ": use K, h/2, h or Kn (K in [1, 1000000])");
  return times_n ? k * n : k;
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

// Runs f(i) for i < count on `jobs` threads; the first exception is rethrown.
template <class F>
void parallel(std::size_t count, unsigned jobs, F&& f) {
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex m;
  auto work = [&] {
    for (std::size_t i; (i = next++) < count;) {
      try {
        f(i);
      } catch (...) {
        std::lock_guard lock(m);
        if (!error) error = std::current_exception();
        next = count;
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

int run(const Options& o) {
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
  std::vector<attacks::Decoder> decoders;
  if (o.decoder == "both") decoders = {attacks::Decoder::least_squares, attacks::Decoder::lp};
  else decoders = {attacks::parse_decoder(o.decoder)};
  for (const auto& path : o.plots)
    if (!path.ends_with(".png") && !path.ends_with(".svg")) throw std::invalid_argument("--plot " + path + ": the file must end in .png or .svg");
  std::size_t max_q = 0;
  for (auto q : o.queries) max_q = std::max(max_q, q);

  // The tasks, weighted by the work they do (queries x users, executions x users^2 / 64).
  std::vector<OneRound> one;
  for (const auto& p : o.protocols)
    for (auto n : o.parties)
      for (double a : p == "exact" ? std::vector<double>{0} : o.alphas) one.push_back({.protocol = p, .n = n, .alpha = a});
  std::vector<TwoRound> two;
  if (o.epsilon > 0)
    for (auto n : o.parties) two.push_back({.n = n});
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
    for (const auto& e : o.executions) k = std::max(k, executions_of(e, two[c].n));
    for (std::size_t r = 0; r < o.runs; ++r)
      tasks.push_back({c, r, true, static_cast<double>(k) * static_cast<double>(two[c].n * two[c].n) * (o.mpc ? 40.0 : 4.0)});
  }
  for (auto& t : tasks) total += t.weight;
  for (auto& c : one) c.results.resize(o.runs * (o.queries.size() + 1) * decoders.size());
  for (auto& c : two) c.runs.resize(o.runs);

  ProgressBar bar("study xor-sum", "runs");
  std::mutex progress_mutex;
  double done = 0;
  std::size_t finished = 0;
  const SeededRng root(o.seed);
  const unsigned jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  parallel(tasks.size(), jobs, [&](std::size_t i) {
    const Task& t = tasks[i];
    if (!t.escape) {
      OneRound& c = one[t.cell];
      const auto rng = root.fork(0x4f4e450000000000ULL + t.cell * 1000 + t.run);  // "ONE"
      const auto n = c.n;
      const auto b = static_cast<std::uint32_t>(n);
      attacks::ReplayData data;
      if (c.protocol == "rr") {
        const xor_sum::RrMechanism m{.buckets = b, .flip = xor_sum::rr_flip_for_alpha(c.alpha), .alpha = c.alpha};
        c.epsilon0 = randomized_response_epsilon(m.flip);
        data = attacks::replay_queries(m, n, max_q * n, *rng);
      } else if (c.protocol == "noise-ids") {
        const xor_sum::NoiseIdsMechanism m{.buckets = b, .parties = n, .rate = xor_sum::noise_rate_for_alpha(c.alpha, n, b), .alpha = c.alpha};
        c.epsilon0 = randomized_response_epsilon(xor_sum::noise_parity_flip(m.rate, n / 2, b));  // G's parities
        data = attacks::replay_queries(m, n, max_q * n, *rng);
      } else {
        const xor_sum::ExactMechanism m{.buckets = b, .shares = 2};
        c.epsilon0 = std::numeric_limits<double>::infinity();
        data = attacks::replay_queries(m, n, max_q * n, *rng);
      }
      std::size_t slot = t.run * (o.queries.size() + 1) * decoders.size();
      for (std::size_t qi = 0; qi <= o.queries.size(); ++qi)
        for (auto d : decoders) c.results[slot++] = attacks::reconstruct(data, qi == 0 ? 0 : o.queries[qi - 1] * n, d);
    } else {
      TwoRound& c = two[t.cell];
      attacks::EscapeStudyOptions e{.parties = c.n, .epsilon = o.epsilon, .mpc = o.mpc, .decoder = decoders.front()};
      for (const auto& k : o.executions) e.executions.push_back(executions_of(k, c.n));
      c.runs[t.run] = attacks::escape_study(e, *root.fork(0x54574f0000000000ULL + t.cell * 1000 + t.run));  // "TWO"
    }
    std::lock_guard lock(progress_mutex);
    done += t.weight;
    ++finished;
    if (!o.quiet) bar(done, total, finished, tasks.size());
  });

  // Table 1.
  std::ostringstream t1;
  t1 << fmt::format("One round: the pause-and-replay attack, {} secret(s) per row, decoder {}; recovered fraction of x\n", o.runs,
                    o.decoder);
  t1 << fmt::format("{:<10} {:>5} {:>6} {:>9} {:>9} {:>8} {:>8}", "protocol", "n", "alpha", "measured", "epsilon", "decoder", "ceiling");
  t1 << fmt::format(" {:>8}", "m=0");
  for (auto q : o.queries) t1 << fmt::format(" {:>8}", fmt::format("m={}n", q));
  t1 << fmt::format(" {:>10}\n", "of G @max");
  std::ofstream csv_file;
  std::ostream* csv = nullptr;
  if (!o.csv.empty()) {
    if (o.csv == "-") {
      csv = &std::cout;
    } else {
      csv_file.open(o.csv);
      if (!csv_file) throw std::invalid_argument("--csv: cannot write " + o.csv);
      csv = &csv_file;
    }
    *csv << "rounds,protocol,parties,alpha,alpha_measured,epsilon,ceiling,decoder,queries,strategy,executions,epsilon_total,recovered,"
            "recovered_min,recovered_max,of_encoded,runs\n";
  }
  std::vector<study::Line> lines;
  for (const auto& c : one) {
    for (std::size_t di = 0; di < decoders.size(); ++di) {
      const auto at = [&](std::size_t run, std::size_t qi) -> const attacks::ReplayResult& {
        return c.results[(run * (o.queries.size() + 1) + qi) * decoders.size() + di];
      };
      std::vector<double> alpha_m, ceiling;
      for (std::size_t r = 0; r < o.runs; ++r) {
        alpha_m.push_back(at(r, o.queries.size()).alpha());
        ceiling.push_back(at(r, 0).ceiling);
      }
      const std::string alpha_text = c.protocol == "exact" ? "0" : fmt::format("{:g}", c.alpha);
      t1 << fmt::format("{:<10} {:>5} {:>6} {:>9.3f} {:>9.3g} {:>8} {:>8.3f}", c.protocol, c.n, alpha_text, mean(alpha_m), c.epsilon0,
                        attacks::to_string(decoders[di]) == std::string("lp") ? "lp" : "ls", mean(ceiling));
      for (std::size_t qi = 0; qi <= o.queries.size(); ++qi) {
        std::vector<double> rec, enc;
        for (std::size_t r = 0; r < o.runs; ++r) {
          rec.push_back(at(r, qi).recovered);
          enc.push_back(at(r, qi).of_encoded);
        }
        t1 << fmt::format(" {:>8.3f}", mean(rec));
        if (qi == o.queries.size()) t1 << fmt::format(" {:>10.3f}", mean(enc));
        if (csv)
          *csv << fmt::format("1,{},{},{},{:.6g},{:.6g},{:.6g},{},{},,,,{:.6g},{:.6g},{:.6g},{:.6g},{}\n", c.protocol, c.n, alpha_text, mean(alpha_m),
                              c.epsilon0, mean(ceiling), attacks::to_string(decoders[di]), qi == 0 ? 0 : o.queries[qi - 1] * c.n, mean(rec),
                              *std::min_element(rec.begin(), rec.end()), *std::max_element(rec.begin(), rec.end()), mean(enc), o.runs);
      }
      t1 << '\n';
      if (di == 0) {
        const std::string title = fmt::format("one round, {}, n = {}, m = {}n", c.protocol, c.n, max_q);
        auto it = std::find_if(lines.begin(), lines.end(), [&](const study::Line& l) { return l.title == title; });
        if (it == lines.end()) {
          lines.push_back({.title = title});
          it = lines.end() - 1;
        }
        std::vector<double> rec;
        for (std::size_t r = 0; r < o.runs; ++r) rec.push_back(at(r, o.queries.size()).recovered);
        it->points.emplace_back(mean(alpha_m), mean(rec));
      }
    }
  }
  // Table 2.
  std::ostringstream t2;
  if (!two.empty()) {
    t2 << fmt::format("\nTwo rounds: the escape by circuit MPC (V1), epsilon = {:g} per execution, {} secret(s) per row; {}\n", o.epsilon,
                      o.runs, o.mpc ? "re-runs through the garbled circuit" : "re-runs by the circuit in the clear (--mpc: garbled)");
    t2 << fmt::format("{:>5} {:<8} {:>10} {:>8} {:>10} {:>10} {:>10}  {}\n", "n", "strategy", "executions", "answers", "eps total", "recovered",
                      "rmse/sqrtn", "note");
    study::Line replay_line{.title = fmt::format("two rounds, one execution replayed, eps = {:g}", o.epsilon), .points_only = false};
    for (const auto& c : two) {
      double replay_recovered = 0, rerun_alpha = 0;
      for (std::size_t row = 0; row < c.runs.front().size(); ++row) {
        std::vector<double> rec, rmse;
        for (const auto& r : c.runs) {
          rec.push_back(r[row].recovered);
          rmse.push_back(r[row].answer_rmse);
        }
        const auto& e = c.runs.front()[row];
        const double a = mean(rmse) / std::sqrt(static_cast<double>(c.n));
        t2 << fmt::format("{:>5} {:<8} {:>10} {:>8} {:>10.4g} {:>10.3f} {:>10.3f}  {}\n", c.n, e.strategy, e.executions, e.answers, e.epsilon_total,
                          mean(rec), a, e.note);
        if (csv)
          *csv << fmt::format("2,circuit-v1,{},,{:.6g},{:.6g},,{},,{},{},{:.6g},{:.6g},{:.6g},{:.6g},,{}\n", c.n, a, o.epsilon,
                              attacks::to_string(decoders.front()), e.strategy, e.executions, e.epsilon_total, mean(rec),
                              *std::min_element(rec.begin(), rec.end()), *std::max_element(rec.begin(), rec.end()), o.runs);
        if (e.strategy == "replay") replay_recovered = mean(rec);
        if (e.strategy == "re-run") rerun_alpha = a;  // the error of one execution, measured over the most executions
      }
      replay_line.points.emplace_back(rerun_alpha, replay_recovered);
    }
    lines.push_back(replay_line);
  }
  if (o.csv != "-") std::cout << t1.str() << t2.str() << std::flush;
  for (const auto& path : o.plots) {
    study::plot_lines(lines,
                      fmt::format("XOR-sum replay attack: one round against two (seed {}, {} runs per point)", o.seed, o.runs),
                      "error / sqrt(n) (measured RMSE of one answer)", "fraction of the secret half recovered", path);
    std::cerr << "study xor-sum: wrote " << path << '\n';
  }
  return 0;
}

}  // namespace

CLI::App* add_xor_sum_study(CLI::App& study, Action& action) {
  auto* cmd = study.add_subcommand("xor-sum",
                                   "the XOR-sum lower bound, executed: the pause-and-replay attack on one-round protocols and the two-round "
                                   "escape (docs/xor-sum.md)");
  auto o = std::make_shared<Options>();
  cmd->add_option("--parties,-n", o->parties, "users n (even; half of them hold the secret), a list")->delimiter(',')->capture_default_str();
  cmd->add_option("--protocols", o->protocols, "one-round protocols: rr, noise-ids, exact")->delimiter(',')->capture_default_str();
  cmd->add_option("--alpha", o->alphas, "the one-round protocols' error, RMSE / sqrt(n), a list")->delimiter(',')->capture_default_str();
  cmd->add_option("--queries", o->queries, "queries as multiples of n, a list")->delimiter(',')->capture_default_str();
  cmd->add_option("--decoder", o->decoder, "least-squares (ls), lp or both")->capture_default_str();
  cmd->add_option("--runs", o->runs, "secrets per row (the table shows the mean)")->capture_default_str();
  cmd->add_option("--epsilon", o->epsilon, "the escape's epsilon per execution (0: no two-round table)")
      ->check(CLI::Range(0.0, 50.0))
      ->capture_default_str();
  cmd->add_option("--executions", o->executions, "the escape's re-executions: K, h/2, h or Kn, a list")->delimiter(',')->capture_default_str();
  cmd->add_flag("--mpc", o->mpc, "re-run through the garbled circuit instead of the circuit in the clear (slower; the same answers)");
  cmd->add_option("--seed", o->seed, "seed of the whole study")->capture_default_str()->check(seed_check());
  cmd->add_option("--jobs,-j", o->jobs, "runs at once (default: every core)")->check(CLI::Range(0, 256));
  cmd->add_option("--csv", o->csv, "write the CSV here (- for standard output)");
  cmd->add_option("--plot", o->plots, "draw recovered fraction against error / sqrt(n) to FILE.png or FILE.svg (repeat for both)");
  cmd->add_flag("--quiet,-q", o->quiet, "no progress bar");
  cmd->callback([o, &action] { action = [o] { return run(*o); }; });
  return cmd;
}

}  // namespace shufflempc::cli
