#include "shufflempc/protocols/cards/table.hpp"

#include <algorithm>
#include <stdexcept>

namespace shufflempc::cards {

const char* symbol(Suit s) { return s == Suit::clubs ? "\u2663" : "\u2665"; }

Coins::~Coins() = default;

std::uint64_t ScriptedCoins::draw(std::uint64_t bound) {
  if (bound == 0) throw std::invalid_argument("coin bound must be at least 1");
  if (used_ < path_.size()) {
    if (path_[used_].second != bound) throw std::logic_error("scripted coins: the run drew a different bound on replay");
    return path_[used_++].first;
  }
  path_.emplace_back(0, bound);
  ++used_;
  return 0;
}

double ScriptedCoins::probability() const {
  double p = 1;
  for (std::size_t i = 0; i < used_; ++i) p /= static_cast<double>(path_[i].second);
  return p;
}

void for_each_coin_path(const std::function<void(ScriptedCoins&)>& run) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> path;
  for (;;) {
    ScriptedCoins coins(path);
    run(coins);
    path = coins.path();
    // Odometer: drop exhausted last draws, then advance the last one left.
    while (!path.empty() && path.back().first + 1 == path.back().second) path.pop_back();
    if (path.empty()) return;
    ++path.back().first;
  }
}

void Table::record(Event e) {
  events_.push_back(std::move(e));
  if (listener_) listener_(*this, events_.back());
}

void Table::check_positions(const std::vector<std::size_t>& positions, const char* what) const {
  for (std::size_t i = 0; i < positions.size(); ++i) {
    if (positions[i] >= cards_.size())
      throw std::invalid_argument(std::string(what) + ": position " + std::to_string(positions[i]) +
                                  " is not on the table (positions are in [0, " + std::to_string(cards_.size()) + "))");
    if (std::find(positions.begin(), positions.begin() + static_cast<std::ptrdiff_t>(i), positions[i]) !=
        positions.begin() + static_cast<std::ptrdiff_t>(i))
      throw std::invalid_argument(std::string(what) + ": position " + std::to_string(positions[i]) + " is given twice");
  }
}

std::size_t Table::lay_out(Suit face, Actor actor, std::string note) {
  cards_.push_back({face, false});
  record({.op = Op::lay_out, .actor = actor, .positions = {cards_.size() - 1}, .faces = {face}, .note = std::move(note)});
  return cards_.size() - 1;
}

Commitment Table::commit(bool bit, Actor actor, std::string note) {
  const auto [l, r] = faces_of(bit);
  cards_.push_back({l, false});
  cards_.push_back({r, false});
  const std::size_t left = cards_.size() - 2;
  record({.op = Op::lay_out, .actor = actor, .positions = {left, left + 1}, .faces = {l, r}, .note = std::move(note)});
  return {left, left + 1};
}

void Table::rearrange(const std::vector<std::size_t>& positions, const std::vector<std::size_t>& order, std::string note) {
  check_positions(positions, "rearrange");
  std::vector<std::size_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != i || order.size() != positions.size())
      throw std::invalid_argument("rearrange: order must be a permutation of 0.." + std::to_string(positions.size() - 1));
  std::vector<Card> before;
  for (std::size_t p : positions) before.push_back(cards_[p]);
  for (std::size_t i = 0; i < positions.size(); ++i) cards_[positions[i]] = before[order[i]];
  record({.op = Op::rearrange, .actor = table_actor, .positions = positions, .order = order, .note = std::move(note)});
}

void Table::bisection_cut(const std::vector<std::size_t>& positions, Coins& coins, Actor actor, std::string note) {
  check_positions(positions, "bisection cut");
  if (positions.empty() || positions.size() % 2 != 0)
    throw std::invalid_argument("bisection cut: needs a positive even number of cards, got " + std::to_string(positions.size()));
  const std::uint64_t swap = coins.draw(2);
  const std::size_t half = positions.size() / 2;
  if (swap != 0)
    for (std::size_t i = 0; i < half; ++i) std::swap(cards_[positions[i]], cards_[positions[i + half]]);
  record({.op = Op::bisection_cut, .actor = actor, .positions = positions, .shift = swap, .note = std::move(note)});
}

void Table::random_cut(const std::vector<std::size_t>& positions, Coins& coins, Actor actor, std::string note) {
  check_positions(positions, "random cut");
  if (positions.empty()) throw std::invalid_argument("random cut: needs at least one card");
  const std::uint64_t k = coins.draw(positions.size());
  std::vector<Card> before;
  for (std::size_t p : positions) before.push_back(cards_[p]);
  for (std::size_t i = 0; i < positions.size(); ++i) cards_[positions[i]] = before[(i + k) % positions.size()];
  record({.op = Op::random_cut, .actor = actor, .positions = positions, .shift = k, .note = std::move(note)});
}

Suit Table::turn_over(std::size_t position, std::string note) {
  check_positions({position}, "turn over");
  cards_[position].face_up = true;
  record({.op = Op::turn_over, .actor = table_actor, .positions = {position}, .faces = {cards_[position].face},
          .note = std::move(note)});
  return cards_[position].face;
}

bool Table::open(Commitment c, std::string note) {
  const Suit l = turn_over(c.left, note);
  const Suit r = turn_over(c.right, std::move(note));
  if (l == r) throw std::logic_error("open: positions " + std::to_string(c.left) + ", " + std::to_string(c.right) + " are no commitment");
  return l == Suit::hearts;
}

bool Table::peek(Commitment c) const {
  if (face(c.left) == face(c.right)) throw std::logic_error("peek: the two cards are no commitment");
  return face(c.left) == Suit::hearts;
}

std::string Table::view(Actor observer) const {
  std::string v;
  const auto list = [&v](const std::vector<std::size_t>& xs) {
    v += '[';
    for (std::size_t x : xs) v += std::to_string(x) + ',';
    v += ']';
  };
  const auto faces = [&v](const std::vector<Suit>& fs) {
    for (Suit s : fs) v += s == Suit::clubs ? 'C' : 'H';
  };
  for (const Event& e : events_) {
    const bool own = e.actor == observer && observer != table_actor;
    switch (e.op) {
      case Op::lay_out:
        v += 'L';
        v += std::to_string(e.actor);
        list(e.positions);
        if (own || e.actor == table_actor) faces(e.faces);  // table layouts are public constants
        else v += '?';
        break;
      case Op::rearrange:
        v += 'R';
        list(e.positions);
        list(e.order);
        break;
      case Op::bisection_cut:
      case Op::random_cut:
        v += e.op == Op::bisection_cut ? 'B' : 'C';
        v += std::to_string(e.actor);
        list(e.positions);
        v += own ? std::to_string(e.shift) : "?";
        break;
      case Op::turn_over:
        v += 'T';
        list(e.positions);
        faces(e.faces);
        break;
    }
    v += ';';
  }
  return v;
}

}  // namespace shufflempc::cards
