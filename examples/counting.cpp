// Counting bits with differential privacy in the shuffle model, over real TCP on 127.0.0.1.
//
// Every party holds one bit and sends two 1-byte messages: its bit and a Bernoulli(p) noise bit.
// The shuffler permutes all messages with the CSPRNG and hands them to the analyzer only (ESA mode,
// each message sealed to the analyzer's key), which returns sum - n p.
//
//   build/bin/examples/counting [parties=2000] [epsilon=1] [delta=1e-6]
#include <cmath>
#include <iostream>
#include <string>

#include "shufflempc/protocols/counting/counting.hpp"
#include "shufflempc/net/loopback.hpp"
#include "shufflempc/registry.hpp"

int main(int argc, char** argv) {
  using namespace shufflempc;
  try {
    const std::size_t parties = argc > 1 ? std::stoul(argv[1]) : 2000;
    const std::string epsilon = argc > 2 ? argv[2] : "1";
    const std::string delta = argc > 3 ? argv[3] : "1e-6";

    // 1. Configure the protocol from the registry: parameters are checked against their ranges.
    const Registry registry = builtin_registry();
    auto protocol = registry.create("counting", {{"epsilon", epsilon}, {"delta", delta}, {"noise", "lecture"}}, parties);

    // 2. Inputs: about 30% of the parties hold a 1.
    SystemRng rng;
    std::vector<Value> inputs;
    for (std::size_t i = 0; i < parties; ++i) inputs.push_back(rng.uniform(10) < 3 ? 1 : 0);

    // 3. Run: a TCP shuffler on 127.0.0.1 (port chosen by the OS), one authenticated connection per party.
    const RunResult result = net::run_over_loopback(*protocol, inputs, rng);

    // 4. Compare with the truth and with the predicted noise.
    const double truth = protocol->truth(inputs)->get<double>();
    const Value details = protocol->describe();
    std::cout << "estimate " << result.output.get<double>() << ", truth " << truth << ", error "
              << result.output.get<double>() - truth << " (noise sd " << details["noise_sd"].get<double>() << ", p "
              << details["p"].get<double>() << ")\n"
              << result.messages << " messages over TCP in " << result.seconds << " s\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "counting: " << e.what() << "\nusage: counting [parties] [epsilon in (0,1]] [delta in (0,1)]\n";
    return 2;
  }
}
