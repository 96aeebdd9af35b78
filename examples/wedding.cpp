// The wedding problem: Alice and Bob learn whether both said yes, and nothing else.
//
// Part 1 plays the six-card AND (Mizuki-Sone) on a simulated table of face-down cards.
// Part 2 plays the same protocol with cryptographic cards (ElGamal on ristretto255) between two
// parties talking through a real TCP shuffler on 127.0.0.1, with no trusted table.
//
//   wedding --alice yes --bob no
// The same protocol runs across processes with `shufflempc local card-and --parties 2 --alice yes --bob no`.
#include <cstring>
#include <iostream>
#include <string>
#include <system_error>

#include "shufflempc/protocols/cards/card_and.hpp"
#include "shufflempc/protocols/cards/gates.hpp"
#include "shufflempc/net/loopback.hpp"

int main(int argc, char** argv) {
  using namespace shufflempc;
  std::string alice_answer, bob_answer;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--alice") == 0) alice_answer = argv[i + 1];
    else if (std::strcmp(argv[i], "--bob") == 0) bob_answer = argv[i + 1];
  }
  if (argc != 5 || alice_answer.empty() || bob_answer.empty()) {
    std::cerr << "usage: wedding --alice yes|no --bob yes|no\n";
    return 2;
  }
  try {
    const bool a = parse_answer(Value(alice_answer), "--alice");
    const bool b = parse_answer(Value(bob_answer), "--bob");
    SystemRng rng;  // real randomness: the cut must be unpredictable

    // Part 1. Each party commits with two cards (clubs-hearts = no, hearts-clubs = yes); the table
    // adds a commitment to "no", rearranges, cuts at random, rearranges back and turns two cards over.
    cards::Table table;
    const cards::Commitment ca = table.commit(a, 0);
    const cards::Commitment cb = table.commit(b, 1);
    cards::RngCoins coins(rng);
    const cards::GateResult g = cards::six_card_and(table, ca, cb, coins);
    // The two turned-over cards show a XOR r: a fair coin whatever the answers. The result is still
    // face down at g.output; turning it over tells both whether they both said yes.
    std::cout << "simulated table: cards 1,2 showed " << (g.opened ? "hearts-clubs" : "clubs-hearts")
              << "; the answer is " << (table.open(g.output) ? "yes" : "no") << " (" << table.events().size()
              << " operations on " << table.size() << " cards)\n";

    // Part 2. The cryptographic version: every party runs its own state machine; the public table
    // travels through the channel round by round: here a TCP shuffler on 127.0.0.1, with Alice and
    // Bob on their own authenticated connections.
    auto protocol = cards::make_card_and();
    const Value inputs[] = {alice_answer, bob_answer};
    const RunResult result = net::run_over_loopback(*protocol, inputs, rng);
    std::cout << "cryptographic cards: the answer is " << (result.output == 1 ? "yes" : "no") << " ("
              << result.messages << " messages in " << result.rounds.size() << " rounds, "
              << result.party_outputs.at(0)["group_ops"].get<int>() + result.party_outputs.at(1)["group_ops"].get<int>()
              << " group operations)\n";
    return 0;
  } catch (const std::invalid_argument& e) {
    std::cerr << "wedding: " << e.what() << "\nusage: wedding --alice yes|no --bob yes|no\n";
    return 2;
  } catch (const std::system_error& e) {
    std::cerr << "wedding: " << e.what() << "\n";
    return 1;
  }
}
