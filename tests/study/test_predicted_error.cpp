// Every protocol's predicted error is what the study measures: in every preset, the RMSE of many
// trials lies in the interval of the predicted RMSE (Summary::predicted_rmse: the mean over trials
// of E[error^2 | the trial's inputs], exact where a histogram's truncated bins make the error depend
// on the data), and where a protocol predicts only a bound (its describe() names it rmse_bound or
// noise_sd_at_most) the RMSE lies below it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "shufflempc/study/study.hpp"

using namespace shufflempc;

namespace {

// The RMSE's ratio to the predicted RMSE over T trials: the mean of T squared errors, each with
// mean sigma^2 and variance at most (kurtosis - 1) sigma^4, is within 6.1 of its sds of sigma^2
// except with probability 1e-9 under the normal approximation (T >= 400). Kurtosis 6 is the
// Laplace distribution's, the heaviest tail of any protocol's noise here (the central and
// correlated protocols' discrete Laplace; binomial and randomized response noise has about 3).
std::pair<double, double> ratio_bounds(std::size_t trials) {
  const double spread = 6.1 * std::sqrt(5.0 / static_cast<double>(trials));
  return {std::sqrt(std::max(0.0, 1 - spread)), std::sqrt(1 + spread)};
}

bool predicts_a_bound(const study::Cell& c) {
  for (const char* key : {"rmse_bound", "noise_sd_at_most"})
    if (c.describe.contains(key) && c.predicted_sd && c.describe[key].get<double>() == *c.predicted_sd) return true;
  return false;
}

}  // namespace

TEST_CASE("study: in every preset each protocol's RMSE lies in the interval of its predicted RMSE, or below its bound" *
          doctest::test_suite("slow")) {
  const Registry registry = builtin_registry();
  constexpr std::size_t trials = 400;
  const auto [lo, hi] = ratio_bounds(trials);
  for (const auto& name : study::preset_names()) {
    CAPTURE(name);
    study::Spec spec = study::preset(name);
    // The preset's series and settings at 10^4 parties or fewer, each axis at
    // its first and last value, so that every protocol and every extreme of the preset is checked.
    spec.parties = std::min<std::size_t>(spec.parties, 10000);
    for (auto& axis : spec.axes) {
      if (axis.key == "parties") axis.values = {"5000", "10000"};
      else if (axis.values.size() > 2) axis.values = {axis.values.front(), axis.values.back()};
    }
    spec.trials = trials;
    spec.seed = 7;
    study::validate(registry, spec);
    const auto cells = study::run(registry, spec);
    std::size_t checked = 0;
    for (const auto& c : cells) {
      if (!c.feasible || !c.summary.rmse || !c.summary.predicted_rmse) continue;
      std::string point;
      for (const auto& [k, v] : c.point) point += " " + k + "=" + v.text;
      INFO(spec.series[c.series].label << point << ": rmse " << *c.summary.rmse << ", predicted " << *c.summary.predicted_rmse);
      const double ratio = *c.summary.rmse / *c.summary.predicted_rmse;
      if (!predicts_a_bound(c)) CHECK(ratio >= lo);
      CHECK(ratio <= hi);
      ++checked;
    }
    // Every series of the preset is checked somewhere (none hides as infeasible or unpredicted).
    CHECK(checked >= spec.series.size());
  }
}
