// Near-central accuracy with about one message per party: counting-correlated beside the central
// Laplace baseline and the lectures' two-message counter, each over real TCP on 127.0.0.1.
//
// counting-correlated sends each party's bit (a dummy 0 when the bit is 0), plus Polya-distributed
// +1 and -1 messages whose difference, summed over the parties, is exactly discrete Laplace noise,
// plus (+1, -1) flooding pairs that hide each party's share of it. The analyzer returns
// (#+1) - (#-1): the error of a trusted curator's Laplace mechanism, from a shuffler that is trusted
// only to shuffle (docs/correlated-noise.md).
//
//   build/bin/examples/near_central_counting [parties=5000] [epsilon=1] [trials=3]
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>
#include <vector>
#include <iostream>
#include <string>

#include "shufflempc/net/loopback.hpp"
#include "shufflempc/registry.hpp"

int main(int argc, char** argv) {
  using namespace shufflempc;
  try {
    const std::size_t parties = argc > 1 ? std::stoul(argv[1]) : 5000;
    const std::string epsilon = argc > 2 ? argv[2] : "1";
    const std::size_t trials = argc > 3 ? std::stoul(argv[3]) : 3;
    if (trials < 1 || trials > 1000) throw std::invalid_argument("trials must be in [1, 1000]");
    const Registry registry = builtin_registry();
    SystemRng rng;
    std::vector<Value> inputs;  // about 30% of the parties hold a 1
    for (std::size_t i = 0; i < parties; ++i) inputs.push_back(rng.uniform(10) < 3 ? 1 : 0);

    std::printf("%-20s %12s %22s %15s\n", "protocol", "predicted sd", ("RMSE over " + std::to_string(trials) + " TCP runs").c_str(),
                "messages/party");
    bool ok = true;
    for (const auto& [name, params] : std::vector<std::pair<std::string, std::map<std::string, std::string>>>{
             {"counting-correlated", {{"epsilon", epsilon}, {"delta", "1e-6"}}},
             {"central-laplace", {{"epsilon", epsilon}}},
             {"counting", {{"epsilon", epsilon}, {"delta", "1e-6"}, {"noise", "calibrated"}}}}) {
      const auto protocol = registry.create(name, params, parties);
      const double truth = protocol->truth(inputs)->get<double>();
      double squares = 0;
      std::size_t messages = 0;
      for (std::size_t t = 0; t < trials; ++t) {
        const RunResult result = net::run_over_loopback(*protocol, inputs, rng);
        const double error = result.output.get<double>() - truth;
        squares += error * error;
        messages += result.messages;
      }
      const double rmse = std::sqrt(squares / static_cast<double>(trials));
      const double sd = protocol->predicted_sd().value_or(NAN);
      std::printf("%-20s %12.3f %22.3f %15.3f\n", name.c_str(), sd, rmse,
                  static_cast<double>(messages) / static_cast<double>(trials * parties));
      // Far outside the prediction is a bug: for these noise laws (discrete Laplace, Laplace,
      // binomial) an RMSE over 10 sd in a few runs has probability below 1e-9.
      ok = ok && rmse <= 10 * sd;
    }
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "near_central_counting: " << e.what()
              << "\nusage: near_central_counting [parties >= 2000] [epsilon in (0,1]] [trials in 1..1000]\n";
    return 2;
  }
}
