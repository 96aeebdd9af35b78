// Adding a protocol of your own, in one file: the walk-through of docs/EXTENDING.md.
//
// "parity": every user holds a bit; the analyzer learns the XOR of all bits. Each user splits its
// bit into `shares` random bits whose XOR is the bit and sends them through the shuffle, so the
// analyzer sees a multiset of random-looking bits whose XOR is the answer.
//
// In the library, the classes below would live in protocols/parity/ with a one-line CMakeLists.txt,
// and the generated registry would call register_parity() for you. Here we add it to a registry by
// hand and run it twice: all parties in this process, then over real TCP on 127.0.0.1.
//
//   build/bin/examples/custom_protocol [parties=1000] [shares=3]
#include <iostream>
#include <string>

#include "shufflempc/net/inproc.hpp"
#include "shufflempc/net/loopback.hpp"
#include "shufflempc/registry.hpp"

namespace parity {

using namespace shufflempc;

// The typed API: what a library user calls without any JSON.
void encode(bool x, unsigned shares, Rng& rng, MessageBatch& out) {
  bool last = x;
  for (unsigned i = 1; i < shares; ++i) {
    const bool share = rng.bit();
    out.append()[0] = share ? 1 : 0;
    last = last != share;
  }
  out.append()[0] = last ? 1 : 0;
}

bool analyze(const MessageBatch& shuffled) {
  bool x = false;
  for (std::size_t i = 0; i < shuffled.count(); ++i) x = x != (shuffled[i][0] != 0);
  return x;
}

// The adapters to the runtime.
class ParityParty final : public Party {
 public:
  ParityParty(bool x, unsigned shares) : x_(x), shares_(shares) {}
  void send(std::uint32_t, Rng& rng, MessageBatch& out) override { encode(x_, shares_, rng, out); }

 private:
  bool x_;
  unsigned shares_;
};

class ParityAnalyzer final : public Analyzer {
 public:
  void receive(std::uint32_t, const MessageBatch& out, const RoundOutcome&, Rng&) override { result_ = analyze(out); }
  Value result() override { return result_ ? 1 : 0; }

 private:
  bool result_ = false;
};

class ParityProtocol final : public Protocol {
 public:
  explicit ParityProtocol(unsigned shares) : shares_(shares) {}
  std::uint32_t rounds() const override { return 1; }
  RoundShape round(std::uint32_t) const override { return {1, Delivery::analyzer_only}; }
  std::unique_ptr<Party> make_party(PartyId id, const Value& input) const override {
    if (input != 0 && input != 1)
      throw std::invalid_argument("input of party " + std::to_string(id) + " must be 0 or 1, got " + input.dump());
    return std::make_unique<ParityParty>(input == 1, shares_);
  }
  std::unique_ptr<Analyzer> make_analyzer() const override { return std::make_unique<ParityAnalyzer>(); }
  Value random_input(PartyId, std::string_view, Rng& rng) const override { return rng.bit() ? 1 : 0; }
  std::optional<Value> truth(std::span<const Value> inputs) const override {
    int x = 0;
    for (const auto& v : inputs) x ^= v.get<int>();
    return Value(x);
  }

 private:
  unsigned shares_;
};

// The registry entry: name, declared parameters (they become CLI flags), factory.
void register_parity(Registry& registry) {
  registry.add({.name = "parity",
                .summary = "XOR of all users' bits, each bit split into random XOR shares",
                .params = {{.name = "shares", .type = ParamType::integer, .default_value = "3",
                            .help = "messages per user", .min = 1.0, .max = 64.0}},
                .input_help = "one bit per party",
                .create = [](const Params& p, std::size_t) -> std::unique_ptr<Protocol> {
                  return std::make_unique<ParityProtocol>(static_cast<unsigned>(p.integer("shares")));
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

    const RunResult local = net::run_in_process(*protocol, inputs, rng);
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
