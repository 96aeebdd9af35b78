// The survey's sums of reals from shuffled randomized response, over real TCP on 127.0.0.1: each
// user holds a real in [0, 1] (think a battery level), and three protocols estimate the total.
//
//   sum-harmony     one sign per user through local randomized response (the local baseline)
//   sum-blanket     one message: the real rounded to k + 1 levels, k-ary randomized response
//   sum-recursive   two labelled digits, each through its own randomized response
//
// Each prints its estimate, the truth and its error bound; the exit status is 1 if an error is
// beyond 6.5 times the bound (a correct run does that with probability below 1e-9).
//
//   build/bin/examples/survey_sums [parties=2000] [epsilon=1]
#include <cmath>
#include <iostream>
#include <string>

#include "shufflempc/net/loopback.hpp"
#include "shufflempc/registry.hpp"

int main(int argc, char** argv) {
  using namespace shufflempc;
  try {
    const std::size_t parties = argc > 1 ? std::stoul(argv[1]) : 2000;
    const std::string epsilon = argc > 2 ? argv[2] : "1";
    const Registry registry = builtin_registry();
    SystemRng rng;
    int status = 0;
    for (const char* name : {"sum-harmony", "sum-blanket", "sum-recursive"}) {
      // 1. Configure: the accountant picks each level's lying probability for (epsilon, 1/n^2).
      auto protocol = registry.create(name, {{"epsilon", epsilon}}, parties);
      // 2. Inputs: the protocol's own default, uniform reals in [0, 1].
      std::vector<Value> inputs;
      for (std::size_t i = 0; i < parties; ++i) inputs.push_back(protocol->random_input(static_cast<PartyId>(i), "", rng));
      // 3. Run: a TCP shuffler on 127.0.0.1 (port chosen by the OS), the reports to the analyzer only.
      const RunResult result = net::run_over_loopback(*protocol, inputs, rng);
      const double truth = protocol->truth(inputs)->get<double>(), estimate = result.output.get<double>();
      const double bound = *protocol->predicted_sd();
      std::cout << name << ": estimate " << estimate << ", truth " << truth << ", error " << estimate - truth << " (sd at most " << bound
                << "), " << result.messages << " messages over TCP in " << result.seconds << " s\n";
      if (std::fabs(estimate - truth) > 6.5 * bound) status = 1;
    }
    return status;
  } catch (const std::exception& e) {
    std::cerr << "survey_sums: " << e.what() << "\nusage: survey_sums [parties >= 2] [epsilon in (0, 20]]\n";
    return 2;
  }
}
