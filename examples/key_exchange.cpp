// Example: secret keys from anonymity alone, then a private message through the shuffle.
//
//   key_exchange [PARTIES=4] [K=128]
//
// Round 0 is the IKOS key exchange (protocols/ikos_key_exchange): every pair of parties agrees on
// a K-bit key although everything they send is public, because the shuffle hides who sent which
// bit. Round 1 uses those keys as private channels (shufflempc/private_channel.hpp): each party
// seals a greeting for the next party; all greetings travel through the same shuffle, and only
// the addressee can find and read its own. This two-round pattern is what an MPC protocol over
// the shuffle is built on. The parties run over real TCP on this machine (net/loopback).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "shufflempc/protocols/ikos_key_exchange/ikos.hpp"
#include "shufflempc/net/loopback.hpp"
#include "shufflempc/private_channel.hpp"

namespace {

using namespace shufflempc;
constexpr std::size_t greeting_bytes = 32;

class GreetingParty final : public Party {
 public:
  GreetingParty(const ikos::Config& c, const SessionId& session, PartyId id)
      : exchange_(c, id), channels_(session, id, greeting_bytes), next_((id + 1) % c.parties) {}

  void send(std::uint32_t round, Rng& rng, MessageBatch& out) override {
    if (round == 0) return exchange_.send(rng, out);  // 3k labelled random bits per peer
    std::vector<std::uint8_t> text(greeting_bytes, 0);
    const std::string hello = "hello from party " + std::to_string(exchange_.self());
    std::copy(hello.begin(), hello.end(), text.begin());
    if (channels_.has_peer(next_)) channels_.seal(next_, 1, 0, text, out);
    else append_cover_message(rng, out);  // the pair's exchange failed: send cover traffic instead
  }

  void receive(std::uint32_t round, const MessageBatch& output, const RoundOutcome&) override {
    if (round == 0) {
      exchange_.receive(output);
      // Each agreed IKOS key becomes the secret of a private channel with that peer.
      for (const auto& pk : exchange_.keys())
        if (pk.agreed) channels_.add_peer(pk.peer, pk.key);
      return;
    }
    for (const auto& msg : channels_.open_all(1, output, 1)) {
      const auto end = std::find(msg.payload.begin(), msg.payload.end(), std::uint8_t{0});
      greeting_ = "from " + std::to_string(msg.sender) + ": " + std::string(msg.payload.begin(), end);
    }
  }

  Value output() const override {
    std::size_t agreed = 0;
    for (const auto& pk : exchange_.keys()) agreed += pk.agreed ? 1 : 0;
    return {{"keys_agreed", agreed}, {"greeting", greeting_}};
  }

 private:
  ikos::KeyExchange exchange_;
  PrivateChannels channels_;
  PartyId next_;
  std::string greeting_ = "(none)";
};

class Observer final : public Analyzer {
 public:
  void receive(std::uint32_t round, const MessageBatch& output, const RoundOutcome&, Rng&) override {
    std::printf("round %u: the observer sees %zu messages of %zu bytes\n", round, output.count(), output.width());
  }
  Value result() override { return nullptr; }
};

class KeysThenGreetings final : public Protocol {
 public:
  KeysThenGreetings(ikos::Config c, SessionId session) : c_(c), session_(session) {}
  std::uint32_t rounds() const override { return 2; }
  RoundShape round(std::uint32_t r) const override {
    if (r == 0) return RoundShape::exactly(ikos::message_width, Delivery::all_parties, c_.messages_per_party());
    return RoundShape::exactly(private_channel::sealed_width(greeting_bytes), Delivery::all_parties, 1);  // one greeting or cover
  }
  std::unique_ptr<Party> make_party(PartyId id, const Value&) const override {
    return std::make_unique<GreetingParty>(c_, session_, id);
  }
  std::unique_ptr<Analyzer> make_analyzer() const override { return std::make_unique<Observer>(); }
  Value random_input(PartyId, std::string_view, Rng&) const override { return nullptr; }

 private:
  ikos::Config c_;
  SessionId session_;
};

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc > 3) throw std::invalid_argument("too many arguments");
    const std::size_t parties = argc > 1 ? std::stoul(argv[1]) : 4;
    const long k = argc > 2 ? std::stol(argv[2]) : 128;
    if (k < 128) throw std::invalid_argument("K must be at least 128: a private channel needs a 128-bit key");
    const ikos::Config config = ikos::configure(parties, k);
    const auto p = ikos::success_probability(config.key_bits, config.labels);
    std::printf("%zu parties, %u-bit keys from %u labelled bits per pair; each pair succeeds with probability 1 - %.3g\n",
                parties, config.key_bits, config.labels, p.failure);

    SystemRng rng;  // real keys: the system's CSPRNG, never a seed
    const KeysThenGreetings protocol(config, random_session_id(rng));
    const std::vector<Value> inputs(parties, nullptr);
    const RunResult result = net::run_over_loopback(protocol, inputs, rng);
    for (const auto& [id, out] : result.party_outputs)
      std::printf("party %u: %zu keys agreed, greeting %s\n", id, out["keys_agreed"].get<std::size_t>(),
                  out["greeting"].get<std::string>().c_str());
    std::printf("%zu messages, %zu bytes, %.3f s over TCP on 127.0.0.1\n", result.messages, result.bytes, result.seconds);
    return 0;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "key_exchange: %s\nusage: key_exchange [PARTIES=4] [K=128]\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "key_exchange: %s\n", e.what());
    return 1;
  }
}
