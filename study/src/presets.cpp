// The presets: the experiments of the survey of shuffle-model DP (Wang and Meng, "ESA: a novel
// privacy preserving framework", Journal of Computer Research and Development, 2022) (error, time
// and messages per user of counting, histogram and sum protocols against epsilon, n, the data and
// the domain; local, shuffle and central side by side), and the demo. Any of their settings can be
// overridden on the command line (`shufflempc study --preset counting-epsilon --trials 50`).
#include <stdexcept>

#include "shufflempc/study/study.hpp"
#include "shufflempc/suggest.hpp"

namespace shufflempc::study {
namespace {

// Each series with its legend in words, the model first (local, shuffle, central); tables and CSV
// name it by its label, the protocol and its fixed parameters.
Series randomized_response() { return {"", "randomized-response", {}, "local: randomized response"}; }
Series counting(const char* noise) {
  return {"", "counting", {{"noise", noise}},
          std::string(noise) == "lecture" ? "shuffle: counting, the lectures' noise rate" : "shuffle: counting, noise calibrated exactly"};
}
Series balcer_cheu() { return {"", "counting-balcer-cheu", {}, "shuffle: Balcer-Cheu counting"}; }
Series rr_amplified() { return {"", "counting-rr-amplified", {}, "shuffle: randomized response amplified by shuffling"}; }
Series correlated() { return {"", "counting-correlated", {}, "shuffle: correlated noise"}; }
Series split_mix_dp() { return {"", "split-mix-dp-sum", {}, "shuffle: split and mix (RSum_DSG)"}; }
Series central_laplace() { return {"", "central-laplace", {}, "central: discrete Laplace"}; }

std::vector<Series> counting_series() {
  // The lectures' noise rate beside the calibrated one (the protocols' default), each named.
  return {randomized_response(), counting("lecture"), counting("calibrated"), balcer_cheu(), rr_amplified(), correlated(), central_laplace()};
}
std::vector<Series> histogram_series() {
  return {{"", "histogram-rr-amplified", {{"model", "local"}}, "local: k-ary randomized response"},
          {"", "histogram", {{"noise", "lecture"}}, "shuffle: histogram, inverted counting (the lectures' noise)"},
          {"", "histogram", {{"variant", "parallel"}, {"noise", "lecture"}}, "shuffle: histogram, parallel counting (the lectures' noise)"},
          {"", "histogram-rr-amplified", {}, "shuffle: k-ary randomized response amplified by shuffling"},
          {"", "histogram-central-laplace", {}, "central: discrete Laplace per bin"}};
}
// The survey's sum comparison: its LDP baseline (Harmony), RSum_KR (sum-blanket), RSum_RM with 2 and
// 3 messages (sum-recursive), RSum_DSG (split-mix-dp-sum) and the central model.
std::vector<Series> sum_series() {
  return {{"", "sum-harmony", {}, "local: Harmony"},
          {"", "sum-local-laplace", {}, "local: Laplace"},
          {"", "sum-blanket", {}, "shuffle: one message, the blanket (RSum_KR)"},
          {"", "sum-recursive", {{"messages", "2"}}, "shuffle: recursive, 2 messages (RSum_RM)"},
          {"", "sum-recursive", {{"messages", "3"}}, "shuffle: recursive, 3 messages (RSum_RM)"},
          split_mix_dp(),
          {"", "sum-central-laplace", {}, "central: discrete Laplace"}};
}

Axis axis(std::string key, const std::vector<std::string>& values, bool geometric = false) {
  return {std::move(key), {values.begin(), values.end()}, geometric};
}
const std::vector<std::string> epsilons = {"0.2", "0.4", "0.6", "0.8", "1"};

struct Preset {
  const char* name;
  Spec (*make)();
};

const Preset presets[] = {
    {"demo",
     [] {
       Spec s;
       s.title = "Counting bits: local, shuffle and central on the same data";
       s.note = "the demo's table: every counting protocol at one setting";
       s.series = counting_series();
       s.fixed = {{"epsilon", "1"}, {"delta", "1e-6"}};
       s.parties = 100000;
       s.inputs = "bernoulli:0.3";
       s.trials = 5;
       return s;
     }},
    {"counting-epsilon",
     [] {
       Spec s;
       s.title = "Counting bits: error against epsilon (survey Fig. 8)";
       s.note = "every shuffle protocol sits between the local and the central baseline; error falls as 1/epsilon";
       s.series = counting_series();
       s.axes = {axis("epsilon", epsilons)};
       s.fixed = {{"delta", "1e-6"}};
       s.parties = 1000000;
       s.inputs = "bernoulli:0.5";
       return s;
     }},
    {"counting-parties",
     [] {
       Spec s;
       s.title = "Counting bits: error against the number of parties (survey Fig. 9)";
       s.note = "local error grows as sqrt(n); shuffle and central errors stay flat";
       s.series = counting_series();
       s.axes = {axis("parties", {"10000", "31623", "100000", "316228", "1000000"}, true)};
       s.fixed = {{"epsilon", "0.9"}, {"delta", "1e-6"}};
       s.inputs = "bernoulli:0.5";
       return s;
     }},
    {"counting-ones",
     [] {
       Spec s;
       s.title = "Counting bits: error against the fraction of ones q (survey Fig. 10)";
       s.note = "the error does not depend on the data; Balcer-Cheu's exact zero shows at q near 0";
       s.series = counting_series();
       s.axes = {axis("inputs", {"bernoulli:0.01", "bernoulli:0.1", "bernoulli:0.3", "bernoulli:0.5", "bernoulli:0.7", "bernoulli:0.9"})};
       s.fixed = {{"epsilon", "0.9"}, {"delta", "1e-6"}};
       s.parties = 1000000;
       s.trials = 10;
       return s;
     }},
    {"counting-honest",
     [] {
       Spec s;
       s.title = "Counting bits: error against the fraction of honest parties (robust shuffle privacy)";
       s.note = "noise calibrated for min-parties = honest n, every party submits: robust protocols pay about 1/sqrt(honest) in error";
       s.series = {randomized_response(), counting("calibrated"), balcer_cheu(), rr_amplified(), correlated(), split_mix_dp(), central_laplace()};
       s.axes = {axis("honest", {"0.1", "0.2", "0.3", "0.5", "0.7", "1"})};
       s.fixed = {{"epsilon", "1"}, {"delta", "1e-6"}};
       s.parties = 100000;
       s.trials = 50;  // each protocol's default inputs: fair bits, and uniform reals for the split-mix sum
       return s;
     }},
    {"counting-dropouts",
     [] {
       Spec s;
       s.title = "Counting bits: error against the fraction of parties that drop out (calibrated for half)";
       s.note = "min-parties = n/2: up to half may vanish and the guarantee holds for whoever submits; the noise shrinks with them";
       s.series = {counting("calibrated"), correlated(), split_mix_dp(), central_laplace()};
       s.axes = {axis("dropouts", {"0", "0.1", "0.2", "0.3", "0.4", "0.5"})};
       s.fixed = {{"epsilon", "1"}, {"delta", "1e-6"}};
       s.honest = 0.5;
       s.parties = 100000;
       s.trials = 50;  // each protocol's default inputs
       return s;
     }},
    {"histogram-epsilon",
     [] {
       Spec s;
       s.title = "Histograms over 16 elements: error per bin against epsilon (survey Fig. 11)";
       s.note = "k-ary randomized response amplified by shuffling against the lectures' histograms and both baselines";
       s.series = histogram_series();
       s.axes = {axis("epsilon", epsilons)};
       s.fixed = {{"delta", "1e-6"}, {"domain", "16"}};
       s.parties = 100000;
       s.inputs = "normal:8:3";
       s.trials = 10;
       return s;
     }},
    {"histogram-domain",
     [] {
       Spec s;
       s.title = "Histograms: error per bin against the domain size d (survey Fig. 12)";
       s.note = "randomized response degrades with d, the counting-based histograms do not";
       s.series = histogram_series();
       s.axes = {axis("domain", {"4", "8", "16", "32", "64"}, true)};
       s.fixed = {{"delta", "1e-6"}, {"epsilon", "1"}};
       s.parties = 100000;
       s.trials = 10;
       return s;
     }},
    {"sum-epsilon",
     [] {
       Spec s;
       s.title = "Sums of reals in [0, 1]: error against epsilon (survey Fig. 7(c) and 14)";
       s.note = "local (Harmony, Laplace) > one message (RSum_KR) > two or three (RSum_RM) > split-mix and central; error falls as 1/epsilon";
       s.series = sum_series();
       s.axes = {axis("epsilon", epsilons)};
       s.parties = 100000;
       s.inputs = "normal:0.57:0.1";
       s.trials = 20;
       return s;
     }},
    {"sum-parties",
     [] {
       Spec s;
       s.title = "Sums of reals in [0, 1]: error against the number of parties (survey Fig. 15)";
       s.note = "local error grows as sqrt(n), RSum_KR and RSum_RM slowly (n^(1/6), n^(1/18) in theory), split-mix and central stay flat";
       s.series = sum_series();
       s.axes = {axis("parties", {"10000", "31623", "100000", "316228", "1000000"}, true)};
       s.fixed = {{"epsilon", "1"}};
       s.inputs = "uniform";
       s.trials = 10;
       return s;
     }},
};

}  // namespace

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& p : presets) names.emplace_back(p.name);
  return names;
}

Spec preset(const std::string& name) {
  for (const auto& p : presets)
    if (name == p.name) {
      Spec s = p.make();
      s.name = name;
      return s;
    }
  std::string names;
  for (const auto& p : presets) names += (names.empty() ? "" : ", ") + std::string(p.name);
  throw std::invalid_argument("--preset: unknown preset '" + name + "'" + did_you_mean(name, preset_names()) + " (presets: " + names + ")");
}

}  // namespace shufflempc::study
