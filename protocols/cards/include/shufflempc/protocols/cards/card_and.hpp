// card-and: the six-card AND between two parties with no trusted table (docs/cards.md).
//
// The cards are ElGamal ciphertexts on ristretto255 under a key the two parties hold jointly. The
// table's public updates travel through the channel (MPC mode: every party and the analyzer see
// every round's output), one round at a time:
//   round 0  both      key shares x_i G                           -> joint key Y
//   round 1  both      Alice lays out a (cards 0,1) and the constant ♣♥ (4,5); Bob lays out b (2,3)
//                      everyone applies step 2: rearrange into order (1,3,4,2,5,6)
//   round 2  Alice     her secret bisection cut of the row, every card re-randomized
//   round 3  Bob       his secret bisection cut, every card re-randomized
//                      everyone applies step 4: rearrange into order (1,4,2,3,5,6)
//   round 4  both      decryption shares of cards 0 and 1 -> everyone sees a XOR rA XOR rB
//   round 5  both      decryption shares of the output pair -> everyone sees a AND b
// Nothing else is ever decrypted. A message carries its sender's id (a card or share must be
// attributed), its kind and the card's index: [sender u8][kind u8][index u8][0][payload].
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "shufflempc/protocols/cards/elgamal.hpp"
#include "shufflempc/inputs.hpp"
#include "shufflempc/registry.hpp"

namespace shufflempc::cards {

inline constexpr PartyId alice = 0;
inline constexpr PartyId bob = 1;
inline constexpr std::uint32_t card_and_rounds = 6;
inline constexpr std::size_t header_bytes = 4;
enum class Kind : std::uint8_t { key_share = 1, card = 2, decryption_share = 3 };

// Answers are read by shufflempc::parse_answer (shufflempc/inputs.hpp): "yes"/"no", "1"/"0",
// true/false, 1/0.

// One party's turn at the table: its secret bisection cut of the whole row (the halves change
// places when `cut`), then every card re-randomized.
[[nodiscard]] std::vector<Ciphertext> cut_and_rerandomize(CardCrypto& crypto, std::span<const Ciphertext> row, bool cut,
                                                          const Point& key, Rng& rng);

// The public state of the table, tracked by every party and by the analyzer from the rounds'
// outputs. absorb() validates every message (kind, sender, index, valid points, nothing missing or
// repeated) and throws std::system_error(Errc::protocol_violation) otherwise.
class PublicCardTable {
 public:
  void absorb(std::uint32_t round, const MessageBatch& output);

  [[nodiscard]] const Point& joint_key() const { return joint_key_; }
  [[nodiscard]] const std::vector<Ciphertext>& row() const { return row_; }
  // After round 4: the bit cards 0 and 1 showed. After round 5: a AND b.
  [[nodiscard]] std::optional<bool> opened() const { return opened_; }
  [[nodiscard]] std::optional<bool> result() const { return result_; }
  // The positions opened in round 5 (valid after round 4).
  [[nodiscard]] std::pair<std::size_t, std::size_t> output_pair() const;
  [[nodiscard]] CardCrypto& crypto() { return crypto_; }
  [[nodiscard]] const CardCrypto& crypto() const { return crypto_; }

 private:
  CardCrypto crypto_;
  std::array<Point, 2> key_shares_{};
  Point joint_key_{};
  std::vector<Ciphertext> row_;
  std::optional<bool> opened_;
  std::optional<bool> result_;
};

// The registered protocol. `alice`/`bob` (when set) are the parties' answers used as their inputs
// by random_input, so that `--alice yes --bob no` works wherever the generic runner draws inputs.
[[nodiscard]] std::unique_ptr<Protocol> make_card_and(std::optional<bool> alice_answer = std::nullopt,
                                                      std::optional<bool> bob_answer = std::nullopt);

// The --random-inputs forms: uniform (a fair coin) or constant:ANSWER (yes or no, 1 or 0).
[[nodiscard]] const std::vector<InputForm>& answer_forms();

}  // namespace shufflempc::cards
