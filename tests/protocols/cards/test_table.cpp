// The simulated card table and its protocols, exhaustively over inputs and coin flips: every
// output is right, and what is turned over has the same distribution for all inputs with the same
// output (exact enumeration, so the privacy checks are equalities of finite distributions).
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "shufflempc/protocols/cards/gates.hpp"
#include "shufflempc/protocols/cards/table.hpp"

using namespace shufflempc;
using namespace shufflempc::cards;

namespace {

using Dist = std::map<std::string, double>;  // view -> probability

bool same(const Dist& x, const Dist& y) {
  if (x.size() != y.size()) return false;
  for (const auto& [view, p] : x) {
    const auto it = y.find(view);
    if (it == y.end() || std::fabs(it->second - p) > 1e-12) return false;
  }
  return true;
}

double total(const Dist& d) {
  double t = 0;
  for (const auto& [v, p] : d) t += p;
  return t;
}

const Actor two_cutters[] = {0, 1};

}  // namespace

TEST_CASE("cards: the table records operations and checks its arguments") {
  Table t;
  const Commitment a = t.commit(true, 0);
  CHECK(a == Commitment{0, 1});
  CHECK(t.peek(a));
  CHECK(t.peek(negate(a)) == false);
  t.rearrange({0, 1}, {1, 0});
  CHECK(t.peek(a) == false);  // swapping the two cards is NOT
  ScriptedCoins coins({{1, 2}});
  t.bisection_cut({0, 1}, coins);
  CHECK(t.peek(a));  // the halves (one card each) changed places
  CHECK(t.face(0) == Suit::hearts);
  CHECK_FALSE(t.face_up(0));
  CHECK(t.turn_over(0) == Suit::hearts);
  CHECK(t.face_up(0));
  CHECK(t.events().size() == 4);
  CHECK(t.view(table_actor) == "L0[0,1,]?;R[0,1,][1,0,];B-1[0,1,]?;T[0,]H;");
  CHECK(t.view(0) == "L0[0,1,]HC;R[0,1,][1,0,];B-1[0,1,]?;T[0,]H;");
  CHECK_THROWS_AS(t.rearrange({0, 5}, {1, 0}), std::invalid_argument);
  CHECK_THROWS_AS(t.rearrange({0, 0}, {1, 0}), std::invalid_argument);
  CHECK_THROWS_AS(t.rearrange({0, 1}, {0, 0}), std::invalid_argument);
  CHECK_THROWS_AS(t.bisection_cut({0}, coins), std::invalid_argument);
  CHECK_THROWS_AS((void)t.open({0, 0}), std::logic_error);
}

TEST_CASE("cards: for_each_coin_path enumerates every outcome once, with its probability") {
  std::map<std::string, double> seen;
  for_each_coin_path([&](ScriptedCoins& coins) {
    const auto x = coins.draw(2);
    const auto y = x == 0 ? coins.draw(5) : coins.draw(3);
    seen[std::to_string(x) + std::to_string(y)] += coins.probability();
  });
  CHECK(seen.size() == 8);
  CHECK(seen["04"] == doctest::Approx(0.1));
  CHECK(seen["12"] == doctest::Approx(1.0 / 6));
  CHECK(total(seen) == doctest::Approx(1.0));
}

namespace {

// AND or OR of a (party 0) and b (party 1), cut by the table or by both parties in turn.
GateResult run_gate(Table& t, bool is_and, bool by_parties, bool a, bool b, Coins& coins) {
  const Commitment ca = t.commit(a, 0), cb = t.commit(b, 1);
  const Cutters cutters = by_parties ? Cutters(two_cutters) : Cutters{};
  return is_and ? six_card_and(t, ca, cb, coins, cutters) : six_card_or(t, ca, cb, coins, cutters);
}

// The distribution of `observer`'s view when the gate's output is turned over at the end.
Dist gate_views(bool is_and, bool by_parties, bool a, bool b, Actor observer) {
  Dist d;
  for_each_coin_path([&](ScriptedCoins& coins) {
    Table t;
    (void)t.open(run_gate(t, is_and, by_parties, a, b, coins).output);
    d[t.view(observer)] += coins.probability();
  });
  return d;
}

}  // namespace

TEST_CASE("cards: six-card AND and OR are right on every input and coin, and reveal only the output") {
  for (const bool is_and : {true, false}) {
    for (const bool by_parties : {false, true}) {
      CAPTURE(is_and);
      CAPTURE(by_parties);
      for (const bool a : {false, true}) {
        for (const bool b : {false, true}) {
          const bool want = is_and ? (a && b) : (a || b);
          Dist opened;
          for_each_coin_path([&](ScriptedCoins& coins) {
            Table t;
            const GateResult g = run_gate(t, is_and, by_parties, a, b, coins);
            CHECK(t.peek(g.output) == want);
            if (is_and) CHECK(t.peek(g.leftover) == (!a && b));  // spec: the leftover pair is (NOT a) AND b
            std::uint64_t r = 0;
            for (const auto& [v, bound] : coins.path()) r ^= v;
            CHECK(g.opened == (a != (r != 0)));  // the opened pair is a XOR r
            opened[g.opened ? "1" : "0"] += coins.probability();
          });
          CHECK(opened["0"] == doctest::Approx(0.5));  // uniform whatever the inputs
          CHECK(opened["1"] == doctest::Approx(0.5));
          // Same output, same outsider view (compared with the input (want, want), whose output is want).
          CHECK(same(gate_views(is_and, by_parties, a, b, table_actor), gate_views(is_and, by_parties, want, want, table_actor)));
        }
      }
      CHECK(total(gate_views(is_and, by_parties, false, true, table_actor)) == doctest::Approx(1.0));
      // The output itself is visible: the test can tell different outputs apart.
      CHECK_FALSE(same(gate_views(is_and, by_parties, false, false, table_actor), gate_views(is_and, by_parties, true, true, table_actor)));
      // A party who answered "no" to AND (or "yes" to OR) learns nothing about the other answer: its
      // view has the same distribution for both of the other party's inputs.
      const bool forcing = !is_and;
      CHECK(same(gate_views(is_and, by_parties, forcing, false, 0), gate_views(is_and, by_parties, forcing, true, 0)));
      CHECK(same(gate_views(is_and, by_parties, false, forcing, 1), gate_views(is_and, by_parties, true, forcing, 1)));
      // ... while the other input does change what the other party sees (its own layout).
      CHECK_FALSE(same(gate_views(is_and, by_parties, forcing, false, 1), gate_views(is_and, by_parties, forcing, true, 1)));
    }
  }
}

TEST_CASE("cards: four-card XOR and COPY are right on every input and coin, and reveal only the output") {
  std::map<bool, std::vector<Dist>> xor_views;
  for (int a = 0; a < 2; ++a) {
    for (int b = 0; b < 2; ++b) {
      Dist d;
      for_each_coin_path([&](ScriptedCoins& coins) {
        Table t;
        const Commitment out = four_card_xor(t, t.commit(a != 0, 0), t.commit(b != 0, 1), coins);
        CHECK(t.size() == 4);  // no extra card
        CHECK(t.open(out) == (a != b));
        d[t.view(table_actor)] += coins.probability();
      });
      xor_views[a != b].push_back(d);
    }
  }
  CHECK(same(xor_views[false][0], xor_views[false][1]));
  CHECK(same(xor_views[true][0], xor_views[true][1]));
  CHECK_FALSE(same(xor_views[false][0], xor_views[true][0]));

  std::vector<Dist> copy_views;
  for (int a = 0; a < 2; ++a) {
    Dist d;
    for_each_coin_path([&](ScriptedCoins& coins) {
      Table t;
      const auto [c1, c2] = copy_commitment(t, t.commit(a != 0, 0), coins);
      CHECK(t.peek(c1) == (a != 0));
      CHECK(t.peek(c2) == (a != 0));
      d[t.view(table_actor)] += coins.probability();
    });
    copy_views.push_back(d);
  }
  CHECK(same(copy_views[0], copy_views[1]));  // copying reveals nothing about a
}

TEST_CASE("cards: the five-card trick opens the cyclic classes of the spec, uniformly rotated") {
  // Spec section 3: the opened cyclic class is CHCHH for (0,0), (0,1), (1,0) and CCHHH for (1,1).
  std::map<bool, std::vector<Dist>> views;
  for (int a = 0; a < 2; ++a) {
    for (int b = 0; b < 2; ++b) {
      Dist d;
      for_each_coin_path([&](ScriptedCoins& coins) {
        Table t;
        const Commitment ca = t.commit(a != 0, 0), cb = t.commit(b != 0, 1);
        CHECK(five_card_trick(t, ca, cb, coins) == (a && b));
        std::vector<Suit> faces;
        for (const Event& e : t.events())
          if (e.op == Op::turn_over) faces.push_back(e.faces[0]);
        REQUIRE(faces.size() == 5);
        CHECK(cyclic_class(faces) == (a && b ? "CCHHH" : "CHCHH"));
        CHECK(coins.path().size() == 1);
        CHECK(coins.path()[0].second == 5);
        d[t.view(table_actor)] += coins.probability();
      });
      CHECK(d.size() == 5);  // the five rotations, 1/5 each
      views[a && b].push_back(d);
    }
  }
  CHECK(same(views[false][0], views[false][1]));
  CHECK(same(views[false][0], views[false][2]));
  CHECK_FALSE(same(views[false][0], views[true][0]));
}

TEST_CASE("cards: n-party AND by composition, and committed outputs feed the next protocol") {
  for (std::size_t n = 1; n <= 4; ++n) {
    std::map<bool, std::vector<Dist>> views;
    for (std::uint32_t x = 0; x < (1u << n); ++x) {
      Dist d;
      for_each_coin_path([&](ScriptedCoins& coins) {
        Table t;
        std::vector<Commitment> bits;
        for (std::size_t i = 0; i < n; ++i) bits.push_back(t.commit(((x >> i) & 1) != 0, static_cast<Actor>(i)));
        const Commitment out = and_of_all(t, bits, coins);
        CHECK(t.size() == 2 * n + 2 * (n - 1));  // one fresh pair per six-card AND
        CHECK(t.open(out) == (x + 1 == (1u << n)));
        d[t.view(table_actor)] += coins.probability();
      });
      views[x + 1 == (1u << n)].push_back(d);
    }
    for (const auto& ds : views[false]) CHECK(same(ds, views[false][0]));
  }
  CHECK_THROWS_AS((void)([] {
                    Table t;
                    ScriptedCoins c;
                    return and_of_all(t, {}, c);
                  })(),
                  std::invalid_argument);

  // (a AND b) XOR c, and two copies of a AND b, on every input and coin.
  for (std::uint32_t x = 0; x < 8; ++x) {
    const bool a = x & 1, b = x & 2, c = x & 4;
    for_each_coin_path([&](ScriptedCoins& coins) {
      Table t;
      const Commitment ab = six_card_and(t, t.commit(a, 0), t.commit(b, 1), coins).output;
      const auto [k1, k2] = copy_commitment(t, ab, coins);
      const Commitment y = four_card_xor(t, k1, t.commit(c, 2), coins);
      CHECK(t.peek(k2) == (a && b));
      CHECK(t.open(y) == ((a && b) != c));
    });
  }
}
