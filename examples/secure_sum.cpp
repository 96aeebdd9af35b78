// Secure summation in the shuffle model (split and mix), over real TCP on 127.0.0.1.
//
// Every party holds a 32-bit number. It splits it into m random additive shares modulo
// q = n 2^32 (any m - 1 of them are uniform noise) and sends all m. The shuffler mixes every
// party's shares together, so the analyzer sees n m numbers that add up to the exact sum, while
// two input vectors with the same sum give views within statistical distance 2^-sigma.
// m comes from the Balle-Bell-Gascon-Nissim bound; fewer shares are refused unless asked for.
//
//   build/bin/examples/secure_sum [parties=200] [sigma=40]
#include <iostream>
#include <string>

#include "shufflempc/net/loopback.hpp"
#include "shufflempc/registry.hpp"

int main(int argc, char** argv) {
  using namespace shufflempc;
  try {
    const std::size_t parties = argc > 1 ? std::stoul(argv[1]) : 200;
    const std::string sigma = argc > 2 ? argv[2] : "40";

    // 1. Configure: the protocol picks q and m from n, the input range and sigma.
    const Registry registry = builtin_registry();
    auto protocol = registry.create("split-mix-sum", {{"sigma", sigma}, {"input-bits", "32"}}, parties);
    const Value details = protocol->describe();
    std::cout << "q = " << details["q"] << ", " << details["messages_per_party"] << " shares of "
              << details["message_bytes"] << " bytes per party (IKOS-style count "
              << details["messages_ikos_style"] << "), sigma guaranteed " << details["sigma_guaranteed"] << "\n";

    // 2. The library's guard, shown on purpose: one share fewer than the bound would let the
    //    analyzer learn more than 2^-sigma, so asking for it is refused by name (a user who means
    //    it opts in with accept-input-leakage). Not refusing would be the bug.
    if (const auto m = details["messages_per_party"].get<std::size_t>(); m > 1) {
      std::cout << "the guard against too few shares, shown on purpose: asking for " << m - 1 << " shares is ";
      try {
        (void)registry.create("split-mix-sum", {{"sigma", sigma}, {"input-bits", "32"}, {"messages", std::to_string(m - 1)}}, parties);
        std::cout << "accepted, which it must not be\n";
        return 1;
      } catch (const std::invalid_argument& e) {
        std::cout << "refused, as it must be (\"" << e.what() << "\")\n";
      }
    }

    // 3. Inputs: random 32-bit numbers (think salaries in cents).
    SystemRng rng;
    std::vector<Value> inputs;
    for (std::size_t i = 0; i < parties; ++i) inputs.push_back(rng.next_u32());

    // 4. Run: a TCP shuffler on 127.0.0.1 (port chosen by the OS), one authenticated connection
    //    per party; the shuffled shares go to the analyzer only.
    const RunResult result = net::run_over_loopback(*protocol, inputs, rng);

    // 5. The sum is exact.
    std::cout << "sum " << result.output << ", truth " << *protocol->truth(inputs) << "\n"
              << result.messages << " messages over TCP in " << result.seconds << " s\n";
    return result.output == *protocol->truth(inputs) ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "secure_sum: " << e.what() << "\nusage: secure_sum [parties >= 3] [sigma in [1, 1024]]\n";
    return 2;
  }
}
