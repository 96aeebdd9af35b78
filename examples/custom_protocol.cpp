// Adding a protocol of your own, in one file: the walk-through of docs/EXTENDING.md.
//
// "parity": every user holds a bit; the analyzer learns the XOR of all bits. Each user splits its
// bit into `shares` random bits whose XOR is the bit and sends them through the shuffle, so the
// analyzer sees a multiset of random-looking bits whose XOR is the answer.
//
// In the library, the mechanism below would live in protocols/parity/ with a one-line CMakeLists.txt,
// and the generated registry would call register_parity() for you. Here we add it to a registry by
// hand and run it twice: all parties in this process, then over real TCP on 127.0.0.1.
//
//   build/bin/examples/custom_protocol [parties=1000] [shares=3]
#include <iostream>
#include <string>

#include "shufflempc/inputs.hpp"
#include "shufflempc/mechanism.hpp"
#include "shufflempc/inproc.hpp"
#include "shufflempc/net/loopback.hpp"
#include "shufflempc/registry.hpp"

namespace parity {

using namespace shufflempc;

// A one-round protocol is a mechanism: a plain class that says what one party's input is, what its
// randomizer sends and what the analyzer computes. make_one_round() turns it into a Protocol.
struct ParityMechanism {
  using Input = bool;
  using Output = int;
  unsigned shares = 3;

  // Every party sends exactly `shares` messages of 1 byte; only the analyzer sees them (ESA mode).
  RoundShape shape() const { return RoundShape::exactly(1, Delivery::analyzer_only, shares); }
  // One party's input from JSON (the CLI, input files): a bit, or a clear error naming the party.
  bool parse_input(PartyId id, const Value& v) const { return parse_bit(v, party_name(id)); }
  // --random-inputs: "", "bernoulli:P", "constant:B".
  bool random_input(std::string_view spec, Rng& rng) const { return random_bit(spec, rng); }
  Value input_value(bool x) const { return x ? 1 : 0; }

  // The randomizer: `shares` random bits whose XOR is x.
  void encode(bool x, Rng& rng, MessageBatch& out) const {
    bool last = x;
    for (unsigned i = 1; i < shares; ++i) {
      const bool share = rng.bit();
      out.append()[0] = share ? 1 : 0;
      last = last != share;
    }
    out.append()[0] = last ? 1 : 0;
  }
  // The analyzer: the XOR of every message it receives.
  int analyze(const MessageBatch& shuffled, const RoundOutcome&, Rng&) const {
    bool x = false;
    for (std::size_t i = 0; i < shuffled.count(); ++i) x = x != (shuffled[i][0] != 0);
    return x ? 1 : 0;
  }
  // What the analyzer estimates (reports show output, truth and error).
  int truth(std::span<const bool> xs) const {
    int x = 0;
    for (bool b : xs) x ^= b ? 1 : 0;
    return x;
  }
  // Derived facts shown with every run.
  Value describe() const { return {{"messages_per_party", shares}}; }
};

// The registry entry: name, declared parameters (they become CLI flags), factory.
void register_parity(Registry& registry) {
  registry.add({.name = "parity",
                .summary = "XOR of all users' bits, each bit split into random XOR shares",
                .params = {{.name = "shares", .type = ParamType::integer, .default_value = "3",
                            .help = "messages per user", .min = 1.0, .max = 64.0}},
                .input_help = bit_input_help,
                .random_inputs = bit_forms(),
                .create = [](const Params& p, const Population&) -> std::unique_ptr<Protocol> {
                  return make_one_round(ParityMechanism{.shares = static_cast<unsigned>(p.integer("shares"))});
                }});
}

}  // namespace parity

int main(int argc, char** argv) {
  using namespace shufflempc;
  try {
    const std::size_t parties = argc > 1 ? std::stoul(argv[1]) : 1000;
    const std::string shares = argc > 2 ? argv[2] : "3";
    Registry registry = builtin_registry();
    parity::register_parity(registry);
    // Parameters are validated against the declaration: try shares = 0.
    auto protocol = registry.create("parity", {{"shares", shares}}, parties);

    SystemRng rng;
    std::vector<Value> inputs;
    for (std::size_t i = 0; i < parties; ++i) inputs.push_back(protocol->random_input(i, "", rng));
    const int truth = protocol->truth(inputs)->get<int>();

    const RunResult local = run_in_process(*protocol, inputs, rng);
    std::cout << "in-process:  XOR = " << local.output << " (truth " << truth << "), " << local.messages << " messages\n";
    const RunResult tcp = net::run_over_loopback(*protocol, inputs, rng);
    std::cout << "TCP loopback: XOR = " << tcp.output << " (truth " << truth << "), " << tcp.messages << " messages, "
              << tcp.seconds << " s\n";
    return local.output == truth && tcp.output == truth ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "custom_protocol: " << e.what() << "\nusage: custom_protocol [parties >= 1] [shares in 1..64]\n";
    return 2;
  }
}
