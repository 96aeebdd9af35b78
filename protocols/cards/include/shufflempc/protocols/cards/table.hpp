// A simulated table of playing cards for card-based protocols (docs/cards.md).
//
// Cards lie face down in a row. A bit is committed with two cards: clubs-hearts (♣♥) = 0,
// hearts-clubs (♥♣) = 1, so negation is free (read the pair the other way round). The table offers
// the operations card protocols need: lay out, rearrange by a public permutation, random bisection
// cut (swap two halves or not), random cut (uniform cyclic shift) and turn over. Every operation is
// recorded; the view of an observer is everything public (who did what to which positions, the faces
// turned over, the constants laid out by the table) plus the hidden part of its own actions.
//
// The hidden randomness comes from a Coins source: an Rng in use, or a script in exhaustive tests
// (for_each_coin_path enumerates every outcome of every coin a run draws).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "shufflempc/random.hpp"

namespace shufflempc::cards {

enum class Suit : std::uint8_t { clubs = 0, hearts = 1 };
// "♣" or "♥".
[[nodiscard]] const char* symbol(Suit s);

// Two face-down cards at positions (left, right) of the table: ♣♥ = 0, ♥♣ = 1.
struct Commitment {
  std::size_t left = 0;
  std::size_t right = 0;
  friend bool operator==(const Commitment&, const Commitment&) = default;
};
// NOT costs nothing: the same two cards read the other way round.
[[nodiscard]] constexpr Commitment negate(Commitment c) { return {c.right, c.left}; }
// The faces encoding `bit`: ♣♥ for 0, ♥♣ for 1.
[[nodiscard]] constexpr std::pair<Suit, Suit> faces_of(bool bit) {
  return bit ? std::pair{Suit::hearts, Suit::clubs} : std::pair{Suit::clubs, Suit::hearts};
}

// `row` rearranged: element i of the result is row[order[i]] (order is a permutation of 0..n-1).
template <class T>
[[nodiscard]] std::vector<T> permuted(std::span<const T> row, std::span<const std::size_t> order) {
  std::vector<T> out;
  out.reserve(order.size());
  for (std::size_t i : order) out.push_back(row[i]);
  return out;
}

// Where the table's hidden randomness comes from.
class Coins {
 public:
  virtual ~Coins();
  // A uniform value in [0, bound), bound >= 1.
  [[nodiscard]] virtual std::uint64_t draw(std::uint64_t bound) = 0;
};

class RngCoins final : public Coins {
 public:
  explicit RngCoins(Rng& rng) : rng_(rng) {}
  [[nodiscard]] std::uint64_t draw(std::uint64_t bound) override { return rng_.uniform(bound); }

 private:
  Rng& rng_;
};

// Replays a fixed sequence of outcomes and extends it with zeros; for exhaustive enumeration.
class ScriptedCoins final : public Coins {
 public:
  explicit ScriptedCoins(std::vector<std::pair<std::uint64_t, std::uint64_t>> path = {}) : path_(std::move(path)) {}
  [[nodiscard]] std::uint64_t draw(std::uint64_t bound) override;
  // (outcome, bound) of every draw so far.
  [[nodiscard]] const std::vector<std::pair<std::uint64_t, std::uint64_t>>& path() const { return path_; }
  // The probability of the outcomes drawn so far: the product of 1/bound.
  [[nodiscard]] double probability() const;

 private:
  std::vector<std::pair<std::uint64_t, std::uint64_t>> path_;
  std::size_t used_ = 0;
};

// Calls `run` once for every sequence of outcomes of the coins it draws (depth-first, each run
// replaying a prefix and extending it). `run` must draw the same bounds whenever the outcomes so
// far are the same (std::logic_error otherwise). Read coins.probability() at the end of a run.
void for_each_coin_path(const std::function<void(ScriptedCoins&)>& run);

// Who performs an operation: a party id (>= 0) or the table itself. A layout by the table is a
// public constant; a cut by the table is known to nobody (as when everyone shuffles together).
using Actor = int;
inline constexpr Actor table_actor = -1;

enum class Op : std::uint8_t { lay_out, rearrange, bisection_cut, random_cut, turn_over };

struct Event {
  Op op = Op::lay_out;
  Actor actor = table_actor;
  std::vector<std::size_t> positions;  // the cards involved
  std::vector<std::size_t> order;      // rearrange: the card now at positions[i] was at positions[order[i]]
  std::uint64_t shift = 0;             // cuts: the hidden outcome (halves swapped: 1; cyclic shift: k)
  std::vector<Suit> faces;             // lay_out: the faces laid; turn_over: the faces shown
  std::string note;                    // what the step is for
};

class Table {
 public:
  using Listener = std::function<void(const Table&, const Event&)>;

  // Lays one card face down at the end of the row; returns its position.
  std::size_t lay_out(Suit face, Actor actor, std::string note = {});
  // Lays out a commitment to `bit` (two cards) at the end of the row.
  Commitment commit(bool bit, Actor actor, std::string note = {});
  // Public rearrangement of the cards at `positions`: the card now at positions[i] is the one that
  // was at positions[order[i]].
  void rearrange(const std::vector<std::size_t>& positions, const std::vector<std::size_t>& order, std::string note = {});
  // Random bisection cut of the cards at `positions` (even count): with probability 1/2 the first
  // half and the second half change places. The outcome is known to `actor` only.
  void bisection_cut(const std::vector<std::size_t>& positions, Coins& coins, Actor actor = table_actor,
                     std::string note = {});
  // Random cut: a uniform cyclic shift of the cards at `positions`, known to `actor` only.
  void random_cut(const std::vector<std::size_t>& positions, Coins& coins, Actor actor = table_actor,
                  std::string note = {});
  // Turns a card face up (for good) and returns its face.
  Suit turn_over(std::size_t position, std::string note = {});
  // Turns both cards of a commitment over and returns the bit; std::logic_error if the faces are equal.
  bool open(Commitment c, std::string note = {});

  [[nodiscard]] std::size_t size() const { return cards_.size(); }
  [[nodiscard]] bool face_up(std::size_t position) const { return cards_.at(position).face_up; }
  // The face of a card whatever its side: for drawing a finished table and for tests, never for a protocol step.
  [[nodiscard]] Suit face(std::size_t position) const { return cards_.at(position).face; }
  // The bit a commitment holds (same caveat as face()).
  [[nodiscard]] bool peek(Commitment c) const;
  [[nodiscard]] const std::vector<Event>& events() const { return events_; }
  // What `observer` (a party id, or table_actor for an outsider) sees, as one comparable string.
  [[nodiscard]] std::string view(Actor observer) const;
  // Called after every operation (to draw the table step by step).
  void on_event(Listener listener) { listener_ = std::move(listener); }

 private:
  struct Card {
    Suit face;
    bool face_up;
  };
  void record(Event e);
  void check_positions(const std::vector<std::size_t>& positions, const char* what) const;

  std::vector<Card> cards_;
  std::vector<Event> events_;
  Listener listener_;
};

}  // namespace shufflempc::cards
