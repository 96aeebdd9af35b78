// `shufflempc wedding --alice yes --bob no`: the six-card AND on a simulated table, drawn step by
// step. Cards stay face down until turned over; the coin of the bisection cut is never shown.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>

#include "shufflempc/protocols/cards/card_and.hpp"
#include "shufflempc/protocols/cards/gates.hpp"
#include "shufflempc/protocols/cards/table.hpp"
#include "commands.hpp"
#include "common.hpp"

namespace shufflempc::cli {
namespace {

struct Drawing {
  bool ascii = false;
};

// Three text lines per card plus its position underneath.
std::string draw_row(const cards::Table& t, const Drawing& d) {
  std::string top, middle, bottom, numbers;
  for (std::size_t i = 0; i < t.size(); ++i) {
    std::string face = d.ascii ? "###" : "\u2591\u2591\u2591";
    if (t.face_up(i)) {
      const bool clubs = t.face(i) == cards::Suit::clubs;
      face = d.ascii ? (clubs ? " C " : " H ") : std::string(" ") + cards::symbol(t.face(i)) + " ";
    }
    top += d.ascii ? "+---+ " : "\u250c\u2500\u2500\u2500\u2510 ";
    middle += (d.ascii ? "|" : "\u2502") + face + (d.ascii ? "| " : "\u2502 ");
    bottom += d.ascii ? "+---+ " : "\u2514\u2500\u2500\u2500\u2518 ";
    numbers += fmt::format("  {:<4}", i + 1);
  }
  return "    " + top + "\n    " + middle + "\n    " + bottom + "\n    " + numbers + "\n";
}

std::string who(cards::Actor a) { return a == 0 ? "Alice" : a == 1 ? "Bob" : "the table"; }

std::string positions(const std::vector<std::size_t>& ps) {
  std::string s;
  for (std::size_t p : ps) s += (s.empty() ? "" : ",") + std::to_string(p + 1);
  return s;
}

void describe(const cards::Table& t, const cards::Event& e, const Drawing& d, int& step) {
  std::cout << fmt::format("{:>2}. ", ++step);
  switch (e.op) {
    case cards::Op::lay_out:
      if (e.actor == cards::table_actor)
        std::cout << fmt::format("The table lays out {} face down at {} ({}).\n", e.faces.size() == 2 ? "a commitment to 0" : "a card",
                                 positions(e.positions), e.note);
      else
        std::cout << fmt::format("{} lays out {} answer face down at {} (clubs-hearts = no, hearts-clubs = yes).\n",
                                 who(e.actor), e.actor == 0 ? "her" : "his", positions(e.positions));
      break;
    case cards::Op::rearrange:
      std::cout << fmt::format("Everyone watches the cards {} being rearranged ({}).\n", positions(e.positions), e.note);
      break;
    case cards::Op::bisection_cut:
    case cards::Op::random_cut:
      std::cout << fmt::format("Random cut of {}: a coin is flipped behind the cards, keep or swap the halves; nobody sees which ({}).\n",
                               positions(e.positions), e.note);
      break;
    case cards::Op::turn_over:
      std::cout << fmt::format("Card {} is turned over: {} ({}).\n", e.positions[0] + 1,
                               d.ascii ? (e.faces[0] == cards::Suit::clubs ? "clubs" : "hearts") : cards::symbol(e.faces[0]), e.note);
      break;
  }
  std::cout << draw_row(t, d) << '\n';
}

}  // namespace

void add_wedding_command(CLI::App& app, const Registry&, Action& action) {
  auto* cmd = app.add_subcommand("wedding", "the six-card AND on a simulated table, drawn step by step: do both say yes?");
  struct Options {
    std::string alice, bob;
    std::optional<std::uint64_t> seed;
    Drawing drawing;
  };
  auto o = std::make_shared<Options>();  // owned by the callback, so it lives as long as the App
  cmd->add_option("--alice", o->alice, "Alice's answer: yes or no (1 or 0)")->required();
  cmd->add_option("--bob", o->bob, "Bob's answer: yes or no (1 or 0)")->required();
  cmd->add_option("--seed", o->seed, "seed the coin flips (a reproducible show)")->check(seed_check());
  cmd->add_flag("--ascii", o->drawing.ascii, "draw with ASCII characters only");
  cmd->callback([o, &action] {
    action = [o] {
      const Options& opt = *o;
      const bool a = parse_answer(Value(opt.alice), "--alice");
      const bool b = parse_answer(Value(opt.bob), "--bob");
      auto rng = make_rng(opt.seed);
      cards::RngCoins coins(*rng);
      cards::Table table;
      int step = 0;
      table.on_event([&step, &d = opt.drawing](const cards::Table& t, const cards::Event& e) { describe(t, e, d, step); });
      std::cout << "The wedding problem: Alice and Bob learn whether both said yes, and nothing else.\n\n";
      const cards::Commitment ca = table.commit(a, 0);
      const cards::Commitment cb = table.commit(b, 1);
      const cards::GateResult g = cards::six_card_and(table, ca, cb, coins);
      std::cout << fmt::format("Cards {} and {} showed {}: the answer lies face down at cards {} and {}.\n\n",
                               ca.left + 1, ca.right + 1, g.opened ? "hearts-clubs" : "clubs-hearts", g.output.left + 1,
                               g.output.right + 1)
                << "Turning the answer over:\n\n";
      const bool both = table.open(g.output, "the answer");
      std::cout << (both ? "Answer: hearts-clubs = yes. Both said yes.\n"
                         : "Answer: clubs-hearts = no. Not both said yes (and the one who said no learned nothing more).\n");
      return 0;
    };
  });
}

}  // namespace shufflempc::cli
