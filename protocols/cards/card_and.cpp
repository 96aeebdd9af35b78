#include "shufflempc/protocols/cards/card_and.hpp"

#include <algorithm>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>

#include "shufflempc/protocols/cards/gates.hpp"
#include "shufflempc/error.hpp"

namespace shufflempc::cards {
namespace {

std::size_t width_of(std::uint32_t round) {
  return header_bytes + (round == 1 || round == 2 || round == 3 ? ciphertext_bytes : point_bytes);
}

void put(MessageBatch& out, PartyId sender, Kind kind, std::size_t index, std::span<const std::uint8_t> payload) {
  auto m = out.append();
  m[0] = static_cast<std::uint8_t>(sender);
  m[1] = static_cast<std::uint8_t>(kind);
  m[2] = static_cast<std::uint8_t>(index);
  m[3] = 0;
  std::memcpy(m.data() + header_bytes, payload.data(), payload.size());
}

void put_card(MessageBatch& out, PartyId sender, std::size_t index, const Ciphertext& c) {
  std::array<std::uint8_t, ciphertext_bytes> bytes{};
  std::memcpy(bytes.data(), c.c1.data(), point_bytes);
  std::memcpy(bytes.data() + point_bytes, c.c2.data(), point_bytes);
  put(out, sender, Kind::card, index, bytes);
}

struct Parsed {
  PartyId sender;
  std::size_t index;
  std::span<const std::uint8_t> payload;
};

[[noreturn]] void violation(std::uint32_t round, const std::string& what) {
  throw_error(Errc::protocol_violation, "card-and round " + std::to_string(round) + ": " + what);
}

// Checks every message of a round: width, kind, sender in `senders`, index below `indices`, each
// (sender, index) at most once, and exactly `expected` messages.
std::vector<Parsed> parse(std::uint32_t round, const MessageBatch& batch, Kind kind, const std::set<PartyId>& senders,
                          std::size_t indices, std::size_t expected) {
  if (batch.count() > 0 && batch.width() != width_of(round)) violation(round, "messages of the wrong width");
  if (batch.count() != expected)
    violation(round, std::to_string(batch.count()) + " messages, expected " + std::to_string(expected));
  std::vector<Parsed> out;
  std::set<std::pair<PartyId, std::size_t>> seen;
  for (std::size_t i = 0; i < batch.count(); ++i) {
    const auto m = batch[i];
    Parsed p{m[0], m[2], m.subspan(header_bytes)};
    if (m[1] != static_cast<std::uint8_t>(kind) || m[3] != 0) violation(round, "a message of the wrong kind");
    if (senders.count(p.sender) == 0) violation(round, "a message from party " + std::to_string(p.sender) + ", who may not speak now");
    if (p.index >= indices) violation(round, "card index " + std::to_string(p.index) + " out of range");
    if (!seen.insert({p.sender, p.index}).second) violation(round, "a repeated message");
    out.push_back(p);
  }
  return out;
}

Point point_of(std::uint32_t round, std::span<const std::uint8_t> bytes) {
  Point p{};
  std::memcpy(p.data(), bytes.data(), point_bytes);
  if (!valid_point(p)) violation(round, "an invalid ristretto255 point");
  return p;
}

// The row of six cards of a card round, in index order.
std::vector<Ciphertext> row_of(std::uint32_t round, const std::vector<Parsed>& msgs) {
  std::vector<Ciphertext> row(6);
  for (const Parsed& p : msgs) row[p.index] = {point_of(round, p.payload.first(point_bytes)), point_of(round, p.payload.subspan(point_bytes))};
  return row;
}

// Both parties' shares for the cards at `first` and `first + 1`; the bit they show.
bool open_pair(std::uint32_t round, CardCrypto& crypto, const std::vector<Ciphertext>& row, const std::vector<Parsed>& msgs,
               std::size_t first) {
  std::array<std::array<Point, 2>, 2> shares{};  // [card][party]
  for (const Parsed& p : msgs) {
    if (p.index != first && p.index != first + 1) violation(round, "a decryption share for a card that is not being turned over");
    shares[p.index - first][p.sender] = point_of(round, p.payload);
  }
  const Suit l = crypto.decrypt(row[first], shares[0]);
  const Suit r = crypto.decrypt(row[first + 1], shares[1]);
  if (l == r) violation(round, "the turned-over pair is no commitment");
  return l == Suit::hearts;
}

}  // namespace

std::vector<Ciphertext> cut_and_rerandomize(CardCrypto& crypto, std::span<const Ciphertext> row, bool cut, const Point& key,
                                            Rng& rng) {
  if (row.empty() || row.size() % 2 != 0) throw std::invalid_argument("cut_and_rerandomize: the row needs a positive even number of cards");
  const std::size_t half = row.size() / 2;
  std::vector<Ciphertext> out;
  out.reserve(row.size());
  for (std::size_t i = 0; i < row.size(); ++i) out.push_back(crypto.rerandomize(row[cut ? (i + half) % row.size() : i], key, rng));
  return out;
}

std::pair<std::size_t, std::size_t> PublicCardTable::output_pair() const {
  if (!opened_) throw std::logic_error("card-and: the output pair is known after round 4");
  return and_output_pair(*opened_);
}

void PublicCardTable::absorb(std::uint32_t round, const MessageBatch& output) {
  switch (round) {
    case 0: {
      for (const Parsed& p : parse(round, output, Kind::key_share, {alice, bob}, 1, 2)) key_shares_[p.sender] = point_of(round, p.payload);
      joint_key_ = crypto_.joint_key(key_shares_);
      break;
    }
    case 1: {
      const auto msgs = parse(round, output, Kind::card, {alice, bob}, 6, 6);
      for (const Parsed& p : msgs)
        if ((p.index == 2 || p.index == 3) != (p.sender == bob)) violation(round, "a card laid out by the wrong party");
      std::set<std::size_t> indices;
      for (const Parsed& p : msgs) indices.insert(p.index);
      if (indices.size() != 6) violation(round, "a card position laid out twice");
      row_ = permuted<Ciphertext>(row_of(round, msgs), and_order);  // step 2
      break;
    }
    case 2:
    case 3: {
      row_ = row_of(round, parse(round, output, Kind::card, {round == 2 ? alice : bob}, 6, 6));
      if (round == 3) row_ = permuted<Ciphertext>(row_, and_inverse);  // step 4
      break;
    }
    case 4:
      opened_ = open_pair(round, crypto_, row_, parse(round, output, Kind::decryption_share, {alice, bob}, 6, 4), 0);
      break;
    case 5:
      result_ = open_pair(round, crypto_, row_, parse(round, output, Kind::decryption_share, {alice, bob}, 6, 4), output_pair().first);
      break;
    default:
      violation(round, "card-and has rounds 0 to 5 only");
  }
}

namespace {

class CardAndParty final : public Party {
 public:
  CardAndParty(PartyId id, bool answer) : id_(id), answer_(answer) {}

  void send(std::uint32_t round, Rng& rng, MessageBatch& out) override {
    CardCrypto& crypto = table_.crypto();
    switch (round) {
      case 0:
        key_ = crypto.key_share(rng);
        put(out, id_, Kind::key_share, 0, key_.public_share);
        break;
      case 1: {
        const auto [l, r] = faces_of(answer_);
        if (id_ == alice) {
          put_card(out, id_, 0, crypto.encrypt(l, table_.joint_key(), rng));
          put_card(out, id_, 1, crypto.encrypt(r, table_.joint_key(), rng));
          put_card(out, id_, 4, crypto.encrypt(Suit::clubs, table_.joint_key(), rng));  // the constant 0
          put_card(out, id_, 5, crypto.encrypt(Suit::hearts, table_.joint_key(), rng));
        } else {
          put_card(out, id_, 2, crypto.encrypt(l, table_.joint_key(), rng));
          put_card(out, id_, 3, crypto.encrypt(r, table_.joint_key(), rng));
        }
        break;
      }
      case 2:
      case 3:
        if (id_ == (round == 2 ? alice : bob)) {
          const auto row = cut_and_rerandomize(crypto, table_.row(), rng.bit(), table_.joint_key(), rng);
          for (std::size_t i = 0; i < row.size(); ++i) put_card(out, id_, i, row[i]);
        }
        break;
      case 4:
      case 5: {
        const std::size_t first = round == 4 ? 0 : table_.output_pair().first;
        for (std::size_t i = first; i < first + 2; ++i)
          put(out, id_, Kind::decryption_share, i, crypto.decryption_share(table_.row()[i], key_.secret));
        break;
      }
      default:
        break;
    }
  }
  void receive(std::uint32_t round, const MessageBatch& output, const RoundOutcome&) override { table_.absorb(round, output); }
  Value output() const override {
    if (!table_.result()) return nullptr;
    const GroupOps& ops = table_.crypto().ops();
    return {{"and", *table_.result() ? 1 : 0},
            {"opened", *table_.opened() ? 1 : 0},
            {"group_ops", ops.total()},
            {"scalar_mults", ops.base_mults + ops.mults}};
  }

 private:

  PartyId id_;
  bool answer_;
  KeyShare key_;
  PublicCardTable table_;
};

class CardAndAnalyzer final : public Analyzer {
 public:
  void receive(std::uint32_t round, const MessageBatch& output, const RoundOutcome&, Rng&) override { table_.absorb(round, output); }
  Value result() override { return table_.result() ? Value(*table_.result() ? 1 : 0) : Value(nullptr); }

 private:
  PublicCardTable table_;
};

class CardAndProtocol final : public Protocol {
 public:
  CardAndProtocol(std::optional<bool> a, std::optional<bool> b) : answers_{a, b} {}
  std::uint32_t rounds() const override { return card_and_rounds; }
  RoundShape round(std::uint32_t r) const override {
    // Messages per party: one key share; Alice's four cards and Bob's two; one cut of six cards
    // (the other party silent); two decryption shares, twice. They depend on the role, never the answer.
    static constexpr std::array<std::pair<std::size_t, std::size_t>, card_and_rounds> counts = {
        {{1, 1}, {2, 4}, {0, 6}, {0, 6}, {2, 2}, {2, 2}}};
    return {width_of(r), Delivery::all_parties, counts.at(r).first, counts.at(r).second};
  }
  std::unique_ptr<Party> make_party(PartyId id, const Value& input) const override {
    if (id > bob) throw std::invalid_argument("card-and has two parties (0 = Alice, 1 = Bob), not party " + std::to_string(id));
    return std::make_unique<CardAndParty>(id, parse_answer(input, id == alice ? "Alice (party 0)" : "Bob (party 1)"));
  }
  std::unique_ptr<Analyzer> make_analyzer() const override { return std::make_unique<CardAndAnalyzer>(); }
  Value random_input(PartyId id, std::string_view spec, Rng& rng) const override {
    if (id <= bob && answers_[id]) return *answers_[id] ? "yes" : "no";
    const auto s = InputSpec::parse(spec, answer_forms());
    if (s.is("constant")) return s.bit(0) ? "yes" : "no";
    return rng.bit() ? "yes" : "no";
  }
  std::optional<Value> truth(std::span<const Value> inputs) const override {
    if (inputs.size() != 2) return std::nullopt;
    return Value(parse_answer(inputs[0], "Alice (party 0)") && parse_answer(inputs[1], "Bob (party 1)") ? 1 : 0);
  }
  Value describe() const override {
    return {{"cards", "6 ElGamal ciphertexts on ristretto255 under a joint key; clubs = G, hearts = 2G"},
            {"rounds", "0 key shares; 1 layout; 2 Alice cuts; 3 Bob cuts; 4 open cards 1,2; 5 open the output pair"},
            {"revealed", "a XOR rA XOR rB (uniform) and a AND b; nothing else is decrypted"}};
  }
  bool has_error() const override { return false; }

 private:
  std::array<std::optional<bool>, 2> answers_;
};

}  // namespace

const std::vector<InputForm>& answer_forms() {
  static const std::vector<InputForm> forms{{"uniform", {}}, {"constant", {"ANSWER"}}};
  return forms;
}

std::unique_ptr<Protocol> make_card_and(std::optional<bool> alice_answer, std::optional<bool> bob_answer) {
  return std::make_unique<CardAndProtocol>(alice_answer, bob_answer);
}

}  // namespace shufflempc::cards
