// Any Boolean circuit in two shuffle rounds, over real TCP on 127.0.0.1: AES-128 (the bundled
// Bristol Fashion circuit) on one party's key and another's plaintext, in the three two-round variants.
//
//   v1: parties 0 and 1 garble (BMR), party 2 helps; round 1 replicated-shares the garblers' values
//       and the input bits through one-round secret messages, round 2 publishes masked shares of
//       the garbled circuit. One corrupted computing party learns nothing, even seeing both rounds.
//   v2: with four parties, parties 0 and 1 garble (BMR with t + 1 garblers), all four compute their
//       Shamir points of the degree-3 garbled rows; any one party learns nothing, even seeing both rounds.
//   v3: party 0 garbles alone (half-gates), round 2 goes to the analyzer only; cheapest, but the
//       garbler and the analyzer together would learn every input.
//
//   build/bin/examples/garbled_aes [key hex] [plaintext hex]
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "shufflempc/net/loopback.hpp"
#include "shufflempc/registry.hpp"

int main(int argc, char** argv) {
  using namespace shufflempc;
  try {
    // FIPS-197 C.1 by default: the ciphertext is 69c4e0d86a7b0430d8cdb78070b4c55a.
    const std::string key = argc > 1 ? argv[1] : "000102030405060708090a0b0c0d0e0f";
    const std::string plaintext = argc > 2 ? argv[2] : "00112233445566778899aabbccddeeff";
    const Registry registry = builtin_registry();
    SystemRng rng;
    bool ok = true;
    // v1 and v3 with three parties; v2 with four (any one of them corrupted). Parties 2.. own no input.
    for (const auto& [variant, n] : {std::pair<std::string, std::size_t>{"v1", 3}, {"v2", 4}, {"v3", 3}}) {
      std::vector<Value> inputs(n, nullptr);
      inputs[0] = key;
      inputs[1] = plaintext;
      auto aes = registry.create("circuit", {{"circuit", "aes_128"}, {"variant", variant}}, n);
      const RunResult r = net::run_over_loopback(*aes, inputs, rng);
      std::cout << variant << ": AES-128 = " << r.output << " (truth " << *aes->truth(inputs) << ")\n";
      const Value facts = aes->describe();
      for (const auto& p : facts["per_party"])
        std::cout << "  party " << p["party"] << " (" << p["role"].get<std::string>() << "): round 1 " << p["round_1"]["bytes"]
                  << " bytes, round 2 " << p["round_2"]["bytes"] << " bytes\n";
      std::cout << "  " << facts["threat_model"].get<std::string>() << "\n";
      ok = ok && r.output == *aes->truth(inputs);
    }
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "garbled_aes: " << e.what() << "\nusage: garbled_aes [key: 32 hex digits] [plaintext: 32 hex digits]\n";
    return 2;
  }
}
