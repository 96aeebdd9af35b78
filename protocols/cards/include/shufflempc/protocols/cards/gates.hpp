// Card protocols on the simulated table (docs/cards.md; Mizuki and Sone, FAW 2009): the six-card AND
// (Mizuki-Sone, FAW 2009; the lectures' "wedding" protocol), OR, four-card XOR, COPY, the
// five-card trick (den Boer) and an n-party AND built from six-card ANDs. Committed outputs are
// commitments on the same table, so they feed the next protocol directly.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <utility>

#include "shufflempc/protocols/cards/table.hpp"

namespace shufflempc::cards {

// The six-card AND works on a0 a1 b0 b1 z0 z1 (z a commitment to 0).
// Step 2: rearrange into order (1,3,4,2,5,6), i.e. a0 b0 b1 | a1 z0 z1.
inline constexpr std::array<std::size_t, 6> and_order = {0, 2, 3, 1, 4, 5};
// Step 4: rearrange into order (1,4,2,3,5,6), the inverse of step 2.
inline constexpr std::array<std::size_t, 6> and_inverse = {0, 3, 1, 2, 4, 5};
// Step 5: cards (0,1) turned over show a XOR r. ♣♥ (0): a AND b is the pair (4,5); ♥♣ (1): the pair (2,3).
[[nodiscard]] constexpr std::pair<std::size_t, std::size_t> and_output_pair(bool opened) {
  return opened ? std::pair<std::size_t, std::size_t>{2, 3} : std::pair<std::size_t, std::size_t>{4, 5};
}

// Who performs the bisection cuts of a protocol. Empty: one cut by the table, whose outcome nobody
// knows. {0, 1}: party 0 cuts, then party 1 (each knows only its own cut; the composition is one cut
// nobody knows), as in the cryptographic version.
using Cutters = std::span<const Actor>;

struct GateResult {
  Commitment output;    // the committed result, face down
  Commitment leftover;  // the other face-down pair (six-card AND: a commitment to (NOT a) AND b)
  bool opened = false;  // the bit shown by the turned-over pair: a XOR r, uniform whatever the inputs
};

// Six-card AND: lays a commitment to 0 (a public constant) next to a and b, then steps 2-5.
GateResult six_card_and(Table& table, Commitment a, Commitment b, Coins& coins, Cutters cutters = {});
// OR: the same steps with a commitment to 1, the output pairs swapped.
GateResult six_card_or(Table& table, Commitment a, Commitment b, Coins& coins, Cutters cutters = {});
// Four-card XOR: a0 b0 | a1 b1 bisection cut, turn b XOR r over; a XOR b is the first pair (read
// reversed when r = 1). No extra cards.
[[nodiscard]] Commitment four_card_xor(Table& table, Commitment a, Commitment b, Coins& coins, Cutters cutters = {});
// COPY (six cards): two fresh commitments to 0, a bisection cut of a0 z0 z0' | a1 z1 z1', turn a XOR r
// over; the two fresh pairs then hold r, so they are copies of a, read reversed when a XOR r = 1.
[[nodiscard]] std::pair<Commitment, Commitment> copy_commitment(Table& table, Commitment a, Coins& coins,
                                                                Cutters cutters = {});
// den Boer's five-card trick: NOT a (a read reversed), one ♥, b; a random cut; all five cards
// turned over. a AND b = 1 iff the three ♥ are cyclically consecutive. Opens a and b's cards: no
// committed output.
[[nodiscard]] bool five_card_trick(Table& table, Commitment a, Commitment b, Coins& coins);
// AND of n >= 1 commitments: six-card ANDs in a chain, each one's output fed to the next.
[[nodiscard]] Commitment and_of_all(Table& table, std::span<const Commitment> bits, Coins& coins);

// The faces of a five-card opening rotated to their smallest cyclic form (♣ < ♥), e.g. "CHCHH".
[[nodiscard]] std::string cyclic_class(std::span<const Suit> faces);

}  // namespace shufflempc::cards
