// Registry entry of card-and: the six-card AND with cryptographic cards between two parties
// (card_and.hpp). The simulated table and its gates (table.hpp, gates.hpp) are a library, not a
// registered protocol: `shufflempc wedding` draws them.
#include <string>

#include "shufflempc/protocols/cards/card_and.hpp"
#include "shufflempc/inputs.hpp"
#include "shufflempc/registry.hpp"

namespace shufflempc::cards {
namespace {

// A party's answer as the --alice / --bob parameter gives it (random: drawn like any input).
std::optional<bool> answer_param(const Params& p, const std::string& name) {
  const std::string& v = p.text(name);
  if (v == "random") return std::nullopt;
  return parse_answer(Value(v), "--" + name);
}

}  // namespace
}  // namespace shufflempc::cards

namespace shufflempc::protocols {

void register_cards(Registry& registry) {
  using namespace cards;
  const auto answer = [](const std::string& name, const std::string& who) {
    return ParamSpec{.name = name, .type = ParamType::choice, .default_value = "random",
                     .help = who + "'s answer, used as that party's input (random: drawn as --random-inputs says)",
                     .choices = {"yes", "no", "1", "0", "random"}};
  };
  registry.add({.name = "card-and",
                .summary = "six-card AND with cryptographic cards (ElGamal on ristretto255): Alice and Bob learn a AND b and nothing else",
                .params = {answer("alice", "Alice (party 0)"), answer("bob", "Bob (party 1)")},
                .min_parties = 2,
                .max_parties = 2,
                .input_help = "yes or no (1 or 0) per party, or --alice/--bob",
                .random_inputs = answer_forms(),
                .create = [](const Params& p, const Population&) -> std::unique_ptr<Protocol> {
                  return make_card_and(answer_param(p, "alice"), answer_param(p, "bob"));
                }});
}

}  // namespace shufflempc::protocols
