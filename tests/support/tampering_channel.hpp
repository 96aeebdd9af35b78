// A channel that lets a test rewrite one party's batch before the shuffle (a corrupt party with a
// valid seat), and append `junk` messages of an unknown kind (99) to the last party's round-1
// batch; and a run of a protocol over it with every party and the analyzer hosted here.
#pragma once

#include <functional>
#include <vector>

#include "shufflempc/inproc.hpp"
#include "shufflempc/runtime.hpp"

namespace shufflempc::test {

class TamperingChannel final : public AnonymousChannel {
 public:
  using Tamper = std::function<void(std::uint32_t round, PartyId party, MessageBatch& all, std::size_t first, std::size_t count)>;
  TamperingChannel(Rng& rng, Tamper t, std::size_t junk) : inner_(rng), tamper_(std::move(t)), junk_(junk) {}
  RoundOutcome exchange(const RoundRules& rules, Submissions local) override {
    for (const auto& s : local.parties) tamper_(rules.round, s.party, local.messages, s.first, s.count);
    if (rules.round == 0)
      for (std::size_t i = 0; i < junk_; ++i) {
        local.messages.append()[0] = 99;
        ++local.parties.back().count;
      }
    return inner_.exchange(rules, std::move(local));
  }

 private:
  InProcessChannel inner_;
  Tamper tamper_;
  std::size_t junk_;
};

inline RunResult run_tampered(const Protocol& p, const std::vector<Value>& inputs, TamperingChannel::Tamper tamper, std::uint64_t seed,
                              std::size_t junk = 0, const RunOptions& options = {}) {
  SeededRng rng(seed);
  TamperingChannel channel(rng, std::move(tamper), junk);
  RoundDriver driver(p, channel, rng, inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) driver.add_party(static_cast<PartyId>(i), inputs[i]);
  driver.host_analyzer();
  return driver.run(options);
}

}  // namespace shufflempc::test
