#include "shufflempc/net/inproc.hpp"

namespace shufflempc::net {

RoundOutcome InProcessChannel::exchange(const RoundSpec& spec, Submissions local) {
  return complete_round(spec, std::move(local), rng_);
}

RunResult run_in_process(const Protocol& protocol, std::span<const Value> inputs, Rng& rng, const RunOptions& options) {
  auto shuffle_rng = rng.fork(shuffle_label);
  InProcessChannel channel(*shuffle_rng);
  Session session(protocol, channel, rng, inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) session.add_party(static_cast<PartyId>(i), inputs[i]);
  session.host_analyzer();
  return session.run(options);
}

}  // namespace shufflempc::net
