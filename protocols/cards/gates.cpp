#include "shufflempc/protocols/cards/gates.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace shufflempc::cards {
namespace {

const Actor table_only[] = {table_actor};

void cut_by_all(Table& table, const std::vector<std::size_t>& positions, Coins& coins, Cutters cutters,
                const std::string& note) {
  if (cutters.empty()) cutters = table_only;
  for (Actor a : cutters) table.bisection_cut(positions, coins, a, note);
}

std::vector<std::size_t> order_of(std::span<const std::size_t> order) { return {order.begin(), order.end()}; }

// Steps 2-5 of the six-card AND and OR, with z a commitment to `constant`.
GateResult six_card_gate(Table& table, Commitment a, Commitment b, bool constant, Coins& coins, Cutters cutters) {
  const Commitment z = table.commit(constant, table_actor, std::string("step 1: a commitment to ") + (constant ? "1" : "0"));
  const std::vector<std::size_t> p = {a.left, a.right, b.left, b.right, z.left, z.right};
  table.rearrange(p, order_of(and_order), "step 2: rearrange into order (1,3,4,2,5,6)");
  cut_by_all(table, p, coins, cutters, "step 3: random bisection cut (keep, or swap the halves)");
  table.rearrange(p, order_of(and_inverse), "step 4: rearrange into order (1,4,2,3,5,6)");
  GateResult g;
  g.opened = table.open({p[0], p[1]}, "step 5: turn over cards 1 and 2");
  // AND: ♣♥ -> pair (4,5), ♥♣ -> pair (2,3); OR the other way round.
  const auto out = and_output_pair(g.opened != constant);
  const auto rest = and_output_pair(g.opened == constant);
  g.output = {p[out.first], p[out.second]};
  g.leftover = {p[rest.first], p[rest.second]};
  return g;
}

}  // namespace

GateResult six_card_and(Table& table, Commitment a, Commitment b, Coins& coins, Cutters cutters) {
  return six_card_gate(table, a, b, false, coins, cutters);
}

GateResult six_card_or(Table& table, Commitment a, Commitment b, Coins& coins, Cutters cutters) {
  return six_card_gate(table, a, b, true, coins, cutters);
}

Commitment four_card_xor(Table& table, Commitment a, Commitment b, Coins& coins, Cutters cutters) {
  const std::vector<std::size_t> p = {a.left, a.right, b.left, b.right};
  const std::vector<std::size_t> swap_middle = {0, 2, 1, 3};  // its own inverse
  table.rearrange(p, swap_middle, "rearrange into order (1,3,2,4)");
  cut_by_all(table, p, coins, cutters, "random bisection cut");
  table.rearrange(p, swap_middle, "rearrange into order (1,3,2,4)");
  const bool s = table.open({p[2], p[3]}, "turn over cards 3 and 4 (b XOR r)");
  const Commitment out{p[0], p[1]};
  return s ? negate(out) : out;
}

std::pair<Commitment, Commitment> copy_commitment(Table& table, Commitment a, Coins& coins, Cutters cutters) {
  const Commitment z1 = table.commit(false, table_actor, "a commitment to 0");
  const Commitment z2 = table.commit(false, table_actor, "a commitment to 0");
  const std::vector<std::size_t> p = {a.left, a.right, z1.left, z1.right, z2.left, z2.right};
  table.rearrange(p, {0, 2, 4, 1, 3, 5}, "rearrange into order (1,3,5,2,4,6)");
  cut_by_all(table, p, coins, cutters, "random bisection cut");
  table.rearrange(p, {0, 3, 1, 4, 2, 5}, "rearrange into order (1,4,2,5,3,6)");
  const bool s = table.open({p[0], p[1]}, "turn over cards 1 and 2 (a XOR r)");
  const Commitment c1{p[2], p[3]}, c2{p[4], p[5]};
  return s ? std::pair{negate(c1), negate(c2)} : std::pair{c1, c2};
}

bool five_card_trick(Table& table, Commitment a, Commitment b, Coins& coins) {
  const std::size_t heart = table.lay_out(Suit::hearts, table_actor, "one heart between the two commitments");
  const std::vector<std::size_t> p = {a.right, a.left, heart, b.left, b.right};  // NOT a, heart, b
  table.random_cut(p, coins, table_actor, "random cut (uniform cyclic shift)");
  std::vector<Suit> faces;
  for (std::size_t q : p) faces.push_back(table.turn_over(q, "turn all five cards over"));
  return cyclic_class(faces) == "CCHHH";
}

Commitment and_of_all(Table& table, std::span<const Commitment> bits, Coins& coins) {
  if (bits.empty()) throw std::invalid_argument("and_of_all: needs at least one commitment");
  Commitment out = bits[0];
  for (std::size_t i = 1; i < bits.size(); ++i) out = six_card_and(table, out, bits[i], coins).output;
  return out;
}

std::string cyclic_class(std::span<const Suit> faces) {
  std::string s;
  for (Suit f : faces) s += f == Suit::clubs ? 'C' : 'H';
  std::string best = s;
  for (std::size_t k = 1; k < s.size(); ++k) best = std::min(best, s.substr(k) + s.substr(0, k));
  return best;
}

}  // namespace shufflempc::cards
