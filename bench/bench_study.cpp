// What one study trial costs against the bare shuffle of its messages, on one thread (a study
// runs one trial per core). For each protocol: Protocol::trial (inputs drawn, every party encoded,
// one shuffle, the analyzer, the truth), the bare shuffle of a batch of the same width and count,
// std::shuffle of the same records, and the generic path (Values, RoundDriver, in-process channel)
// that `demo` used before studies had their own.
//   build/bin/bench/bench_study [parties=1000000] [repetitions=3] [protocols=counting,...]
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <iostream>
#include <random>
#include <sstream>

#include "shufflempc/inproc.hpp"
#include "shufflempc/registry.hpp"
#include "shufflempc/shuffle.hpp"

using namespace shufflempc;
using Clock = std::chrono::steady_clock;

namespace {
template <class F>
double best_of(int reps, F&& f) {
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}
}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::stoull(argv[1]) : 1'000'000;
  const int reps = argc > 2 ? std::stoi(argv[2]) : 3;
  std::vector<std::string> names = {"counting", "randomized-response", "central-laplace", "counting-balcer-cheu", "histogram", "counting-correlated"};
  if (argc > 3) {
    names.clear();
    std::istringstream list(argv[3]);
    for (std::string s; std::getline(list, s, ',');) names.push_back(s);
  }
  keep_freed_buffers();  // as the CLI does
  const Registry registry = builtin_registry();
  SeededRng rng(1);
  std::cout << fmt::format("{} parties, one thread, best of {}\n", n, reps);
  std::cout << fmt::format("{:<22} {:>10} {:>6} {:>10} {:>10} {:>10} {:>8} {:>12}\n", "protocol", "messages", "width", "trial s",
                           "shuffle s", "std::shuf", "ratio", "generic s");
  for (const auto& name : names) {
    std::map<std::string, std::string> params;
    if (name == "histogram") params.emplace("domain", "8");  // constructed in place: assigning a literal makes GCC 12 warn (-Wrestrict)
    auto protocol = registry.create(name, params, n);
    std::cerr << fmt::format("{}: trials\n", name);
    TrialResult last;
    const double t_trial = best_of(reps, [&] { last = *protocol->trial(n, "", rng); });
    const std::size_t width = protocol->round(0).width;
    MessageBatch bare(width, last.messages);
    rng.fill(bare.data(), bare.size_bytes());
    Shuffler shuffler(Shuffler::default_leaf_bytes, 1);
    std::cerr << fmt::format("{}: bare shuffles\n", name);
    const double t_shuffle = best_of(reps, [&] { shuffler.shuffle(bare, rng); });
    // std::shuffle of the same records (width-byte arrays), with a std::mt19937_64.
    std::mt19937_64 mt(1);
    double t_std = 0;
    if (width == 1) {
      std::vector<std::uint8_t> v(bare.data(), bare.data() + bare.size_bytes());
      t_std = best_of(reps, [&] { std::shuffle(v.begin(), v.end(), mt); });
    } else if (width == 3) {
      std::vector<std::array<std::uint8_t, 3>> v(last.messages);
      t_std = best_of(reps, [&] { std::shuffle(v.begin(), v.end(), mt); });
    }
    double t_generic = 0;
    if (n <= 1'000'000) {
      std::cerr << fmt::format("{}: the generic path\n", name);
      auto input_rng = rng.fork(1);
      std::vector<Value> inputs(n);
      for (std::size_t i = 0; i < n; ++i) inputs[i] = protocol->random_input(static_cast<PartyId>(i), "", *input_rng);
      t_generic = best_of(1, [&] { (void)run_in_process(*protocol, inputs, rng); });
    }
    std::cout << fmt::format("{:<22} {:>10} {:>6} {:>10.4f} {:>10.4f} {:>10.4f} {:>8.2f} {:>12.3f}\n", name, last.messages, width, t_trial,
                             t_shuffle, t_std, t_trial / t_shuffle, t_generic);
  }
  return 0;
}
