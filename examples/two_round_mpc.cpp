// Two-round MPC in the shuffle model, over real TCP on 127.0.0.1: any degree-2 functionality in
// exactly two shuffle rounds, with no key set up beforehand.
//
// Round 1: every pair of parties sends chaff under shared labels; an observer of the shuffle
// cannot tell whose chaff is whose, so each sender's chaff is a key only its peer can rebuild. The
// parties' Shamir shares travel encrypted under those keys in the same round. Round 2: each party
// publishes its point of the degree-2 output polynomial plus a share of zero; interpolation gives
// the output and nothing else (t < n/2 semi-honest parties learn nothing more).
//
//   build/bin/examples/two_round_mpc [parties=5] [length=1000]
#include <iostream>
#include <string>

#include "shufflempc/net/loopback.hpp"
#include "shufflempc/registry.hpp"

int main(int argc, char** argv) {
  using namespace shufflempc;
  try {
    const std::size_t parties = argc > 1 ? std::stoul(argv[1]) : 5;
    const std::size_t length = argc > 2 ? std::stoul(argv[2]) : 1000;
    const Registry registry = builtin_registry();
    SystemRng rng;

    // 1. Parties 0 and 1 each hold a vector; the others help compute their inner product (and
    //    learn only it). The functionality is a small program: inputs, then outputs.
    const std::string program = "input a[" + std::to_string(length) + "]@0, b[" + std::to_string(length) +
                                "]@1\noutput inner_product = dot(a, b)";
    auto ip = registry.create("mpc2", {{"function", program}}, parties);
    std::vector<Value> inputs(parties, nullptr);
    inputs[0] = Value::array();
    inputs[1] = Value::array();
    for (std::size_t i = 0; i < length; ++i) {
      inputs[0].push_back(rng.uniform_between(-100, 100));
      inputs[1].push_back(rng.uniform_between(-100, 100));
    }
    const RunResult r = net::run_over_loopback(*ip, inputs, rng);
    std::cout << "inner product " << r.output << ", truth " << *ip->truth(inputs) << "\n";
    for (const auto& round : r.details["rounds"])
      std::cout << "  round " << round["round"] << ": " << round["messages_per_party"] << " messages, "
                << round["bytes_per_party"] << " bytes per party\n";
    std::cout << "  the observer of round 1 is uncertain of " << r.details["observer"]["min_uncertain_labels"]
              << " chaff labels per pair (the key bits it would have to guess)\n";

    // 2. A built-in with the output to the analyzer only (ESA mode) and perfect (dealt) zero-sharing:
    //    the sample variance of every party's number.
    auto var = registry.create("mpc2", {{"function", "variance"}, {"delivery", "esa"}, {"zero-sharing", "dealt"}}, parties);
    std::vector<Value> xs;
    for (std::size_t i = 0; i < parties; ++i) xs.push_back(rng.uniform_between(0, 100));
    const RunResult v = net::run_over_loopback(*var, xs, rng);
    std::cout << "variance " << v.output << ", truth " << *var->truth(xs) << "\n";
    return r.output == *ip->truth(inputs) && v.output == *var->truth(xs) ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "two_round_mpc: " << e.what() << "\nusage: two_round_mpc [parties >= 3] [length >= 1]\n";
    return 2;
  }
}
