#include "anonymous_poll.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "shufflempc/inputs.hpp"
#include "shufflempc/mechanism.hpp"

namespace poll {

using namespace shufflempc;

struct PollMechanism {
  using Input = std::uint32_t;               // the answer, 0 .. options - 1
  using Output = std::vector<std::int64_t>;  // votes per answer
  std::uint32_t options = 2;

  // One 1-byte message per party, for the analyzer only.
  RoundShape shape() const { return RoundShape::exactly(1, Delivery::analyzer_only, 1); }
  Input parse_input(PartyId id, const Value& v) const { return parse_element(id, v, options); }
  Input random_input(std::string_view spec, Rng& rng) const { return random_element(spec, options, rng); }
  void encode(Input x, Rng&, MessageBatch& out) const { out.append()[0] = static_cast<std::uint8_t>(x); }
  // A byte no honest party sends (an answer out of range) is discarded and counted, not fatal.
  bool valid(std::span<const std::uint8_t> message) const { return message[0] < options; }
  Output analyze(const MessageBatch& shuffled, const RoundOutcome&, Rng&) const {
    Output votes(options, 0);
    for (std::size_t i = 0; i < shuffled.count(); ++i) ++votes[shuffled[i][0]];
    return votes;
  }
  Value truth(std::span<const Input> xs) const { return element_counts(xs, options); }
  Value describe() const { return {{"messages_per_party", 1}, {"noise", "none (anonymity only)"}}; }
};

void register_anonymous_poll(Registry& registry) {
  registry.add({.name = "anonymous-poll",
                .summary = "exact tally of answers in 0..options-1; the shuffle hides who gave which (no noise)",
                .params = {{.name = "options", .type = ParamType::integer, .default_value = "3",
                            .help = "number of possible answers", .min = 2.0, .max = 256.0}},
                .input_help = "one answer per party, an integer in 0..options-1",
                .random_inputs = element_forms(),
                .create = [](const Params& p, const Population&) -> std::unique_ptr<Protocol> {
                  return make_one_round(PollMechanism{.options = static_cast<std::uint32_t>(p.integer("options"))});
                }});
}

}  // namespace poll
