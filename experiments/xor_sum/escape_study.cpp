// The escape's study (docs/xor-sum.md): the secret half x fixed, then the attacker's best with each
// strategy against the two-round circuit MPC, through attacks::EscapeHarness.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "shufflempc/attacks/escape.hpp"
#include "shufflempc/attacks/labels.hpp"
#include "shufflempc/experiments/xor_sum.hpp"

namespace shufflempc::experiments {

using namespace attacks;

std::vector<EscapeRow> escape_study(const EscapeStudyOptions& o, const Rng& rng, const EscapeProgress& progress) {
  const EscapeHarness harness({.parties = o.parties, .epsilon = o.epsilon});
  const std::size_t h = harness.half();
  std::vector<std::uint8_t> x(h);
  {
    auto xr = rng.fork(labels::secret);
    for (auto& b : x) b = xr->bit() ? 1 : 0;
  }
  std::size_t k_max = 1;
  for (auto k : o.executions) k_max = std::max(k_max, k);
  const std::size_t forgeries = std::min<std::size_t>(h, 64);
  const std::size_t total = k_max + 1 + forgeries;
  std::size_t done = 0;
  const auto tick = [&] {
    if (progress) progress(++done, total);
  };
  const auto random_y = [&](std::uint64_t label) {
    auto yr = rng.fork(label);
    std::vector<std::uint8_t> y(h);
    for (auto& b : y) b = yr->bit() ? 1 : 0;
    return y;
  };
  std::vector<EscapeRow> rows;

  // (a) one recorded execution, replayed as often as the attacker likes.
  const auto y0 = random_y(labels::query(0));
  auto exec_rng = rng.fork(labels::execution);
  const Recording rec = harness.execute(x, y0, *exec_rng);
  tick();
  {
    Queries q;
    q.h = h;
    const std::size_t replays = 4 * o.parties;
    bool same = true;
    for (std::size_t k = 0; k < replays; ++k) {
      const auto a = harness.replay(rec);
      same = same && a == rec.answer;
      q.bits.insert(q.bits.end(), y0.begin(), y0.end());
      q.answers.push_back(static_cast<double>(a));
    }
    const double err = static_cast<double>(rec.answer) - static_cast<double>(hamming(x, y0));
    rows.push_back({.strategy = "replay",
                    .executions = 1,
                    .answers = 1,
                    .epsilon_total = o.epsilon,
                    .recovered = agreement(decode(q, o.decoder), x),
                    .answer_rmse = std::abs(err),
                    .note = fmt::format("{} replays of the recorded garbled circuit, {}", replays,
                                        same ? "every one the same answer" : "ANSWERS DIFFER")});
  }
  // (b) forged labels for new y' on the recorded execution.
  {
    Queries q;
    q.h = h;
    std::size_t detected = 0, correct = 0;
    double se = 0;
    auto forge_rng = rng.fork(labels::forgery);
    for (std::size_t k = 0; k < forgeries; ++k) {
      const auto y = random_y(labels::query(1 + k));
      const Forgery f = harness.forge(rec, x, y, *forge_rng);
      detected += f.detected() ? 1 : 0;
      correct += f.output == f.wanted ? 1 : 0;
      const double e = static_cast<double>(f.output) - static_cast<double>(hamming(x, y));
      se += e * e;
      q.bits.insert(q.bits.end(), y.begin(), y.end());
      q.answers.push_back(static_cast<double>(f.output));
      tick();
    }
    rows.push_back({.strategy = "forge",
                    .executions = 1,
                    .answers = 0,
                    .epsilon_total = o.epsilon,
                    .recovered = agreement(decode(q, o.decoder), x),
                    .answer_rmse = std::sqrt(se / static_cast<double>(forgeries)),
                    .note = fmt::format("{} forged label sets: G1 saw invalid keys in {}, {} decoded to the wanted answer", forgeries,
                                        detected, correct)});
  }
  // (c) honest re-executions: k fresh answers for k epsilon.
  Queries all;
  all.h = h;
  std::vector<double> distances;
  for (std::size_t k = 0; k < k_max; ++k) {
    const auto y = random_y(labels::rerun_input(k));
    auto run_rng = rng.fork(labels::rerun(k));
    const std::int64_t a = o.mpc ? harness.execute(x, y, *run_rng).answer : harness.ideal(x, y, *run_rng);
    all.bits.insert(all.bits.end(), y.begin(), y.end());
    all.answers.push_back(static_cast<double>(a));
    distances.push_back(static_cast<double>(hamming(x, y)));
    tick();
  }
  for (auto k : o.executions) {
    Queries q;
    q.h = h;
    q.bits.assign(all.bits.begin(), all.bits.begin() + static_cast<std::ptrdiff_t>(k * h));
    q.answers.assign(all.answers.begin(), all.answers.begin() + static_cast<std::ptrdiff_t>(k));
    double se = 0;
    for (std::size_t i = 0; i < k; ++i) se += (q.answers[i] - distances[i]) * (q.answers[i] - distances[i]);
    rows.push_back({.strategy = "re-run",
                    .executions = k,
                    .answers = k,
                    .epsilon_total = static_cast<double>(k) * o.epsilon,
                    .recovered = k ? agreement(decode(q, o.decoder), x) : 0.5,
                    .answer_rmse = k ? std::sqrt(se / static_cast<double>(k)) : 0,
                    .note = o.mpc ? "each through the garbled circuit" : "each by the circuit in the clear (the same function)"});
  }
  return rows;
}

}  // namespace shufflempc::experiments
