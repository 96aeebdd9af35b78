#include "circuit/circuit.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>
#include <sodium.h>

#include "circuit/bmr.hpp"
#include "circuit/gf128.hpp"
#include "circuit/half_gates.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/inputs.hpp"
#include "shufflempc/shamir.hpp"

namespace shufflempc::circuit {
namespace {

constexpr std::uint8_t gc_kind = osm::first_protocol_kind;         // v3, round 1: the public garbled circuit
constexpr std::uint8_t share_kind = osm::first_protocol_kind + 1;  // round 2: a party's payload
constexpr std::size_t round2_max_payload = 4083;                  // 4 KiB messages in round 2
constexpr PartyId garbler = 0;                                     // v3's designated garbler

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Everything the parties and the analyzer share.
struct Setup {
  std::shared_ptr<const Circuit> circuit;
  Variant variant = Variant::v1;
  std::optional<bmr::Layout> layout;  // v1
  std::size_t n = 0, t = 0;
  Delivery delivery = Delivery::all_parties;
  std::vector<PartyId> owners;                     // per input group
  std::vector<std::vector<std::size_t>> groups;    // per party: the groups it owns, in order
  std::vector<std::vector<std::uint32_t>> wires;   // per party: its input wires, ascending
  osm::Config osm;
  std::size_t gc_bytes = 0, gc_chunks = 0;         // v3
  std::vector<Block> lagrange;                     // v3: at 0 over every party's point
  std::size_t round2_bytes = 0, round2_chunks = 0, round2_width = 0;
  std::vector<std::size_t> round1_messages;        // per party
  std::size_t round1_min = 0, round1_max = 0;

  [[nodiscard]] const Circuit& c() const { return *circuit; }
  [[nodiscard]] bool computes(PartyId p) const { return variant == Variant::v3 || p < bmr::computing_parties; }
  [[nodiscard]] std::size_t round2_senders() const { return variant == Variant::v3 ? n : bmr::computing_parties; }
  [[nodiscard]] std::size_t input_share_bytes(PartyId from) const {
    const std::size_t bits = wires[from].size();
    return variant == Variant::v1 ? 2 * ((bits + 7) / 8) : bits * block_bytes;
  }
  // Bytes of the round-1 plaintext `from` sends `to` (0: nothing).
  [[nodiscard]] std::size_t plaintext(PartyId from, PartyId to) const {
    if (from == to) return 0;
    if (variant == Variant::v3) return (from == garbler ? block_bytes : 0) + input_share_bytes(from);
    if (!computes(to)) return 0;
    std::size_t bytes = input_share_bytes(from);
    if (from == 0) bytes += to == 1 ? 2 * sizeof(Seed) : to == 2 ? sizeof(Seed) : 0;
    if (from == 1) bytes += to == 0 ? 2 * sizeof(Seed) : to == 2 ? sizeof(Seed) + layout->dealt_bytes() : 0;
    return bytes;
  }
  [[nodiscard]] std::size_t count_round1(PartyId p, const osm::Config& o) const {
    std::size_t m = o.chaff * o.peers(p);
    for (PartyId q = 0; q < n; ++q) m += o.linked(p, q) ? o.chunks(plaintext(p, q)) : 0;
    if (variant == Variant::v3 && p == garbler) m += (gc_bytes + o.payload_bytes() - 1) / o.payload_bytes();
    return m;
  }
};

// Party `id`'s input bits (over its wires, ascending) from its hex text(s).
std::vector<std::uint8_t> parse_input(const Setup& s, PartyId id, const Value& input) {
  const auto& groups = s.groups[id];
  if (groups.empty()) {
    if (!input.is_null())
      throw std::invalid_argument(fmt::format("{} owns no input group of circuit {}: give null, got {}", party_name(id), s.c().name, input.dump()));
    return {};
  }
  std::vector<std::string> hex;
  if (groups.size() == 1 && input.is_string()) hex.push_back(input.get<std::string>());
  else if (input.is_array() && input.size() == groups.size() && std::all_of(input.begin(), input.end(), [](const Value& v) { return v.is_string(); }))
    for (const auto& v : input) hex.push_back(v.get<std::string>());
  else
    throw std::invalid_argument(fmt::format("{} owns input group{} {} of circuit {}: give {}, got {}", party_name(id), groups.size() > 1 ? "s" : "",
                                            fmt::join(groups, ", "), s.c().name,
                                            groups.size() == 1 ? "one hex string" : fmt::format("an array of {} hex strings", groups.size()),
                                            input.dump().substr(0, 200)));
  std::vector<std::uint8_t> bits;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const auto b = bits_from_hex(hex[i], s.c().inputs[groups[i]],
                                 fmt::format("{}: input group {} ({} bits)", party_name(id), groups[i], s.c().inputs[groups[i]]));
    bits.insert(bits.end(), b.begin(), b.end());
  }
  return bits;
}

Value output_value(const Circuit& c, std::span<const std::uint8_t> bits) {
  if (c.outputs.size() == 1) return hex_from_bits(bits);
  Value a = Value::array();
  std::size_t at = 0;
  for (auto w : c.outputs) {
    a.push_back(hex_from_bits(bits.subspan(at, w)));
    at += w;
  }
  return a;
}

void check_round1(const Setup& s, const MessageBatch& output, const RoundOutcome& outcome) {
  if (outcome.submitted.size() != s.n)
    throw_error(Errc::too_few_parties, fmt::format("circuit: {} of {} parties sent round 1; every party's inputs are needed",
                                                   outcome.submitted.size(), s.n));
  std::size_t declared = 0;
  for (PartyId p : outcome.submitted) declared += s.round1_messages[p];
  const std::uint8_t gc[] = {gc_kind};
  osm::check_declared(output, declared, outcome.submitted.size(), "circuit",
                      s.variant == Variant::v3 ? std::span<const std::uint8_t>(gc) : std::span<const std::uint8_t>());
}

// v3: the garbled circuit's public part from round 1's gc messages.
std::vector<std::uint8_t> public_circuit(const Setup& s, const MessageBatch& output) {
  const std::size_t pb = s.osm.payload_bytes();
  std::vector<std::uint8_t> gc(s.gc_chunks * pb, 0);
  std::vector<bool> seen(s.gc_chunks, false);
  std::size_t found = 0;
  for (std::size_t i = 0; i < output.count(); ++i) {
    const auto m = output[i];
    if (m[0] != gc_kind) continue;
    const osm::Header h = osm::read_header(m);
    if (h.a != garbler || h.b != 0 || h.index >= s.gc_chunks || seen[h.index])
      throw_error(Errc::protocol_violation, fmt::format("circuit: a garbled-circuit chunk names index {}, duplicated or outside [0, {})", h.index, s.gc_chunks));
    seen[h.index] = true;
    ++found;
    std::copy(m.begin() + osm::header_bytes, m.end(), gc.begin() + static_cast<std::ptrdiff_t>(h.index * pb));
  }
  if (found != s.gc_chunks)
    throw_error(Errc::protocol_violation, fmt::format("circuit: round 1 holds {} garbled-circuit chunks, expected {}", found, s.gc_chunks));
  gc.resize(s.gc_bytes);
  return gc;
}

// Round 2, checked (count, kinds, senders, chunk indices): each chunk's payload goes to `take`
// with its sender and its offset in the sender's payload.
template <class Take>
void read_round2(const Setup& s, const MessageBatch& output, const RoundOutcome& outcome, Take take) {
  if (output.width() != s.round2_width)
    throw_error(Errc::protocol_violation, fmt::format("circuit: round 2's messages are {} bytes wide, expected {}", output.width(), s.round2_width));
  for (PartyId p = 0; p < s.round2_senders(); ++p)
    if (!std::binary_search(outcome.submitted.begin(), outcome.submitted.end(), p))
      throw_error(Errc::too_few_parties, fmt::format("circuit: party {} did not send round 2; the {} needs all {} of its round-2 senders", p,
                                                     to_string(s.variant), s.round2_senders()));
  const std::size_t expected = s.round2_senders() * s.round2_chunks;
  if (output.count() != expected)
    throw_error(Errc::protocol_violation,
                fmt::format("circuit: round 2 holds {} messages, expected {} ({} senders x {} chunks)", output.count(), expected, s.round2_senders(), s.round2_chunks));
  const std::size_t pb = s.round2_width - osm::header_bytes;
  std::vector<bool> seen(expected, false);
  for (std::size_t i = 0; i < output.count(); ++i) {
    const auto m = output[i];
    const osm::Header h = osm::read_header(m);
    if (h.kind != share_kind || h.a != 0 || h.b >= s.round2_senders() || h.index >= s.round2_chunks || seen[h.b * s.round2_chunks + h.index])
      throw_error(Errc::protocol_violation, fmt::format("circuit: a round-2 message names sender {} chunk {}: unknown, out of range or duplicated", h.b, h.index));
    seen[h.b * s.round2_chunks + h.index] = true;
    const std::size_t at = h.index * pb;
    take(h.b, at, m.subspan(osm::header_bytes, std::min(pb, s.round2_bytes - at)));
  }
}

void append_round2(const Setup& s, PartyId id, std::span<const std::uint8_t> payload, MessageBatch& out) {
  const std::size_t pb = s.round2_width - osm::header_bytes;
  for (std::size_t c = 0; c < s.round2_chunks; ++c) {
    auto m = out.append();
    osm::write_header(m, {share_kind, 0, id, static_cast<std::uint32_t>(c)});
    const std::size_t len = std::min(pb, payload.size() - c * pb);
    std::fill(m.begin() + osm::header_bytes, m.end(), std::uint8_t{0});
    std::copy_n(payload.begin() + static_cast<std::ptrdiff_t>(c * pb), len, m.begin() + osm::header_bytes);
  }
}

// XORs into `out` the PRF pad under a pairwise OSM key.
void xor_pad(const osm::Key& pair_key, std::span<std::uint8_t> out) {
  Seed k;
  std::copy(pair_key.begin(), pair_key.end(), k.begin());
  KeyedRng rng(derive_seed(k, "circuit/zero-sum-pad"));
  sodium_memzero(k.data(), k.size());
  std::array<std::uint8_t, 4096> buf;
  for (std::size_t at = 0; at < out.size(); at += buf.size()) {
    const std::size_t len = std::min(buf.size(), out.size() - at);
    rng.fill(std::span(buf).first(len));
    for (std::size_t i = 0; i < len; ++i) out[at + i] ^= buf[i];
  }
}

// v1: XOR of the three computing parties' payloads, evaluated.
std::vector<std::uint8_t> evaluate_v1(const Setup& s, const MessageBatch& output, const RoundOutcome& outcome) {
  std::vector<std::uint8_t> payload(s.round2_bytes, 0);
  read_round2(s, output, outcome, [&](PartyId, std::size_t at, std::span<const std::uint8_t> bytes) {
    for (std::size_t i = 0; i < bytes.size(); ++i) payload[at + i] ^= bytes[i];
  });
  return bmr::evaluate(*s.layout, payload);
}

// v3: the active labels by interpolation at 0 over every party, then the garbled circuit.
std::vector<std::uint8_t> evaluate_v3(const Setup& s, std::span<const std::uint8_t> gc, const MessageBatch& output, const RoundOutcome& outcome) {
  const auto& l = s.lagrange;
  std::vector<Block> labels(s.c().input_bits());
  read_round2(s, output, outcome, [&](PartyId j, std::size_t at, std::span<const std::uint8_t> bytes) {
    for (std::size_t off = 0; off < bytes.size(); off += block_bytes)
      labels[(at + off) / block_bytes] ^= gf128::mul(l[j], Block::load(bytes.data() + off));
  });
  return half_gates::evaluate(s.c(), gc, labels);
}

class CircuitParty : public Party {
 public:
  CircuitParty(std::shared_ptr<const Setup> s, PartyId id, std::vector<std::uint8_t> bits) : s_(std::move(s)), id_(id), bits_(std::move(bits)) {}
  Value output() const override { return result_; }

 protected:
  // Appends the ciphertexts of `to` (each of the size the setup declares).
  void send_plaintexts(const std::vector<std::vector<std::uint8_t>>& to, MessageBatch& out) {
    for (PartyId q = 0; q < s_->n; ++q) {
      if (!s_->osm.linked(id_, q)) continue;
      if (to[q].size() != s_->plaintext(id_, q)) throw std::logic_error("circuit: a round-1 plaintext has the wrong size");
      if (!to[q].empty()) osm_->append_ciphertext(q, to[q], out);
    }
  }
  void receive_round1(const MessageBatch& output, const RoundOutcome& outcome) {
    check_round1(*s_, output, outcome);
    osm_->receive(output, outcome.submitted);
  }

  std::shared_ptr<const Setup> s_;
  PartyId id_;
  std::vector<std::uint8_t> bits_;  // own input bits
  std::optional<osm::SecretMessages> osm_;
  Value result_;
};

class V1Party final : public CircuitParty {
 public:
  using CircuitParty::CircuitParty;

  void send(std::uint32_t round, Rng& rng, MessageBatch& out) override {
    if (round == 0) send_round1(rng, out);
    else if (s_->computes(id_)) send_round2(out);
  }

  void receive(std::uint32_t round, const MessageBatch& output, const RoundOutcome& outcome) override {
    if (round == 0) {
      receive_round1(output, outcome);
      if (s_->computes(id_)) take_round1();
      osm_.reset();
    } else {
      result_ = output_value(s_->c(), evaluate_v1(*s_, output, outcome));
    }
  }

 private:
  void send_round1(Rng& rng, MessageBatch& out) {
    const Setup& s = *s_;
    const bmr::Layout& l = *s.layout;
    osm_.emplace(s.osm, id_, rng);
    osm_->append_chaff(out);
    std::vector<std::vector<std::uint8_t>> to(s.n);
    const auto put = [&](PartyId q, std::span<const std::uint8_t> bytes) { to[q].insert(to[q].end(), bytes.begin(), bytes.end()); };
    if (id_ == 0) {
      master_ = random_seed(rng);
      const auto seeds = bmr::G1Seeds::of(master_);
      put(1, seeds.s1);
      put(1, seeds.s2);
      put(2, master_);
    } else if (id_ == 1) {
      master_ = random_seed(rng);
      const auto seeds = bmr::G2Seeds::of(master_);
      put(0, seeds.s0);
      put(0, seeds.s1);
      own_g2_ = bmr::g2_own_shares(l, master_);
      put(2, seeds.s0);
      put(2, bmr::encode(l, own_g2_->second));
    }
    // Replicated shares of the own input bits: s_0, s_1 fresh (never from a garbler's seed), s_2.
    if (!bits_.empty()) {
      const auto sh = bmr::rss_split(bits_, rng);
      for (PartyId k = 0; k < bmr::computing_parties; ++k) {
        if (k == id_) {
          own_x_ = {sh[k], sh[(k + 1) % 3]};
          continue;
        }
        put(k, pack_bits(sh[k]));
        put(k, pack_bits(sh[(k + 1) % 3]));
      }
    }
    send_plaintexts(to, out);
  }

  void take_round1() {
    const Setup& s = *s_;
    const bmr::Layout& l = *s.layout;
    h_.k = id_;
    h_.x.first.assign(l.inputs, 0);
    h_.x.second.assign(l.inputs, 0);
    const auto place_x = [&](PartyId owner, std::span<const std::uint8_t> first, std::span<const std::uint8_t> second) {
      const auto& w = s.wires[owner];
      for (std::size_t i = 0; i < w.size(); ++i) {
        h_.x.first[w[i]] = first[i];
        h_.x.second[w[i]] = second[i];
      }
    };
    if (!bits_.empty()) place_x(id_, own_x_.first, own_x_.second);
    // What the garblers deal (bmr.hpp): G2 gets G1's two sub-seeds, the helper G1's master seed;
    // G1 gets G2's two seeds, the helper G2's s_0 seed and its explicit share.
    bmr::G1Seeds g1_seeds{};
    Seed g1_master{};
    bmr::G2Seeds g2_seeds{};
    std::optional<bmr::Dealt> explicit_s2;
    for (PartyId q = 0; q < s.n; ++q) {
      const std::size_t bytes = s.plaintext(q, id_);
      if (bytes == 0) continue;
      const auto msg = osm_->open(q, bytes);
      std::size_t at = 0;
      const auto take = [&](std::span<std::uint8_t> dst) {
        std::copy_n(msg.begin() + static_cast<std::ptrdiff_t>(at), dst.size(), dst.begin());
        at += dst.size();
      };
      if (q == 0 && id_ == 1) {
        take(g1_seeds.s1);
        take(g1_seeds.s2);
      } else if (q == 0 && id_ == 2) {
        take(g1_master);
      } else if (q == 1 && id_ == 0) {
        take(g2_seeds.s0);
        take(g2_seeds.s1);
      } else if (q == 1 && id_ == 2) {
        take(g2_seeds.s0);
        explicit_s2 = bmr::decode(l, std::span(msg).subspan(at, l.dealt_bytes()));
        at += l.dealt_bytes();
      }
      const std::size_t nb = s.wires[q].size();
      if (nb == 0) continue;
      std::vector<std::uint8_t> first(nb), second(nb);
      const std::size_t packed = (nb + 7) / 8;
      unpack_bits(std::span(msg).subspan(at, packed), first);
      unpack_bits(std::span(msg).subspan(at + packed, packed), second);
      place_x(q, first, second);
    }
    if (id_ == 0) {
      h_.dealt = {bmr::g1_shares_from_master(l, 0, master_), bmr::g2_shares_of_g1(l, g2_seeds)};
      h_.own = bmr::make_garbler(l, 0, master_);
    } else if (id_ == 1) {
      h_.dealt = {bmr::g1_shares_of_g2(l, g1_seeds), std::move(*own_g2_)};
      h_.own = bmr::make_garbler(l, 1, master_);
    } else {
      h_.dealt = {bmr::g1_shares_from_master(l, 2, g1_master), bmr::g2_shares_of_helper(l, std::move(*explicit_s2), g2_seeds)};
      sodium_memzero(g1_master.data(), g1_master.size());
    }
    sodium_memzero(master_.data(), master_.size());
    // The zero-sum pad: F(K_{k,k+1}) ^ F(K_{k-1,k}); each pair's pad appears twice over the three.
    next_key_ = osm_->pair_key((id_ + 1) % 3);
    previous_key_ = osm_->pair_key((id_ + 2) % 3);
  }

  void send_round2(MessageBatch& out) {
    auto share = bmr::round2_share(*s_->layout, h_);
    xor_pad(next_key_, share);
    xor_pad(previous_key_, share);
    sodium_memzero(next_key_.data(), next_key_.size());
    sodium_memzero(previous_key_.data(), previous_key_.size());
    append_round2(*s_, id_, share, out);
    h_ = {};
  }

  Seed master_{};
  std::optional<bmr::Pair<bmr::Dealt>> own_g2_;
  bmr::Pair<std::vector<std::uint8_t>> own_x_;
  bmr::Holdings h_;
  osm::Key next_key_{}, previous_key_{};  // with parties k + 1 and k - 1: the zero-sum pad
};

class V3Party final : public CircuitParty {
 public:
  using CircuitParty::CircuitParty;

  void send(std::uint32_t round, Rng& rng, MessageBatch& out) override {
    if (round == 0) send_round1(rng, out);
    else send_round2(out);
  }

  void receive(std::uint32_t round, const MessageBatch& output, const RoundOutcome& outcome) override {
    if (round != 0) return;  // round 2 goes to the analyzer only
    receive_round1(output, outcome);
    take_round1();
    osm_.reset();
  }

 private:
  void send_round1(Rng& rng, MessageBatch& out) {
    const Setup& s = *s_;
    osm_.emplace(s.osm, id_, rng);
    osm_->append_chaff(out);
    std::vector<std::vector<std::uint8_t>> to(s.n);
    const auto put = [&](PartyId q, const Block& b) {
      std::uint8_t buf[block_bytes];
      b.store(buf);
      to[q].insert(to[q].end(), buf, buf + block_bytes);
    };
    if (id_ == garbler) {
      garbled_ = half_gates::garble(s.c(), rng);
      std::vector<Block> shares(s.n);
      shamir::share(gf128::Field{}, garbled_->delta, s.t, rng, std::span<Block>(shares));
      for (PartyId q = 0; q < s.n; ++q) {
        if (q == id_) delta_ = shares[q];
        else put(q, shares[q]);
      }
      // The public garbled circuit, in chunks of the round's payload.
      const auto gc = half_gates::encode_public(*garbled_);
      const std::size_t pb = s.osm.payload_bytes();
      for (std::size_t c = 0; c < s.gc_chunks; ++c) {
        auto m = out.append();
        osm::write_header(m, {gc_kind, garbler, 0, static_cast<std::uint32_t>(c)});
        std::fill(m.begin() + osm::header_bytes, m.end(), std::uint8_t{0});
        std::copy_n(gc.begin() + static_cast<std::ptrdiff_t>(c * pb), std::min(pb, gc.size() - c * pb), m.begin() + osm::header_bytes);
      }
    }
    x_.assign(s.c().input_bits(), Block{});
    std::vector<Block> shares(s.n);
    for (std::size_t i = 0; i < bits_.size(); ++i) {
      shamir::share(gf128::Field{}, Block{bits_[i], 0}, s.t, rng, std::span<Block>(shares));
      for (PartyId q = 0; q < s.n; ++q) {
        if (q == id_) x_[s.wires[id_][i]] = shares[q];
        else put(q, shares[q]);
      }
    }
    send_plaintexts(to, out);
  }

  void take_round1() {
    const Setup& s = *s_;
    for (PartyId q = 0; q < s.n; ++q) {
      const std::size_t bytes = s.plaintext(q, id_);
      if (bytes == 0) continue;
      const auto msg = osm_->open(q, bytes);
      std::size_t at = 0;
      if (q == garbler) {
        delta_ = Block::load(msg.data());
        at = block_bytes;
      }
      for (std::uint32_t w : s.wires[q]) {
        x_[w] = Block::load(msg.data() + at);
        at += block_bytes;
      }
    }
    // alpha_w = sum over peers of F(K_{self,peer})_w: every pad appears twice, so sum_j alpha_j = 0.
    alpha_.assign(s.round2_bytes, 0);
    for (PartyId q = 0; q < s.n; ++q)
      if (q != id_) xor_pad(osm_->pair_key(q), alpha_);
  }

  void send_round2(MessageBatch& out) {
    const Setup& s = *s_;
    const Block inv_self = gf128::inverse(s.lagrange[id_]);
    std::vector<std::uint8_t> payload(s.round2_bytes);
    for (std::size_t w = 0; w < x_.size(); ++w) {
      // y = [x]_j [Delta]_j + ([j = G] k_{w,0} + alpha_w) / L_j
      Block extra = Block::load(alpha_.data() + w * block_bytes);
      if (id_ == garbler) extra ^= garbled_->zero_labels[w];
      const Block y = gf128::mul(x_[w], delta_) ^ gf128::mul(extra, inv_self);
      y.store(payload.data() + w * block_bytes);
    }
    append_round2(s, id_, payload, out);
    garbled_.reset();
    x_.clear();
    alpha_.clear();
  }

  std::optional<half_gates::Garbled> garbled_;
  Block delta_{};
  std::vector<Block> x_;  // this party's share of every input bit
  std::vector<std::uint8_t> alpha_;
};

class CircuitAnalyzer final : public Analyzer {
 public:
  explicit CircuitAnalyzer(std::shared_ptr<const Setup> s) : s_(std::move(s)) {}
  void receive(std::uint32_t round, const MessageBatch& output, const RoundOutcome& outcome, Rng&) override {
    const std::size_t senders = std::max<std::size_t>(1, outcome.submitted.size());
    traffic_.push_back({{"round", round + 1},
                        {"messages", outcome.messages},
                        {"bytes", output.size_bytes()},
                        {"messages_per_party", static_cast<double>(outcome.messages) / static_cast<double>(senders)},
                        {"bytes_per_party", static_cast<double>(output.size_bytes()) / static_cast<double>(senders)}});
    if (round == 0) {
      check_round1(*s_, output, outcome);
      observer_ = osm::observe(s_->osm, output, outcome.submitted);
      if (s_->variant == Variant::v3) gc_ = public_circuit(*s_, output);
      return;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const auto bits = s_->variant == Variant::v1 ? evaluate_v1(*s_, output, outcome) : evaluate_v3(*s_, gc_, output, outcome);
    evaluate_ms_ = ms_since(t0);
    result_ = output_value(s_->c(), bits);
  }
  Value result() override { return result_; }
  Value details() const override {
    return {{"rounds", traffic_},
            {"evaluate_ms", evaluate_ms_},
            {"observer",
             {{"pairs", observer_.pairs},
              {"chaff_labels", s_->osm.chaff},
              {"min_uncertain_labels", observer_.min_uncertain_labels},
              {"collided_labels", observer_.collided_labels}}}};
  }

 private:
  std::shared_ptr<const Setup> s_;
  std::vector<std::uint8_t> gc_;
  osm::ObserverView observer_;
  Value traffic_ = Value::array();
  double evaluate_ms_ = 0;
  Value result_;
};

class CircuitProtocol final : public Protocol {
 public:
  explicit CircuitProtocol(std::shared_ptr<const Setup> s) : s_(std::move(s)) {}
  std::uint32_t rounds() const override { return 2; }
  RoundShape round(std::uint32_t r) const override {
    if (r == 0) return {s_->osm.width, Delivery::all_parties, s_->round1_min, s_->round1_max};
    const std::size_t min = s_->variant == Variant::v1 && s_->n > bmr::computing_parties ? 0 : s_->round2_chunks;
    return {s_->round2_width, s_->delivery, min, s_->round2_chunks};
  }
  std::unique_ptr<Party> make_party(PartyId id, const Value& input) const override {
    if (id >= s_->n) throw std::invalid_argument(fmt::format("circuit: party {} is outside [0, {})", id, s_->n));
    auto bits = parse_input(*s_, id, input);
    if (s_->variant == Variant::v1) return std::make_unique<V1Party>(s_, id, std::move(bits));
    return std::make_unique<V3Party>(s_, id, std::move(bits));
  }
  std::unique_ptr<Analyzer> make_analyzer() const override { return std::make_unique<CircuitAnalyzer>(s_); }
  Value random_input(PartyId id, std::string_view spec, Rng& rng) const override {
    if (!spec.empty()) throw std::invalid_argument("--random-inputs: circuit takes no spec (uniform bits), got '" + std::string(spec) + "'");
    const auto& groups = s_->groups[id];
    if (groups.empty()) return nullptr;
    Value a = Value::array();
    for (auto g : groups) {
      std::vector<std::uint8_t> bits(s_->c().inputs[g]);
      for (auto& b : bits) b = rng.bit() ? 1 : 0;
      a.push_back(hex_from_bits(bits));
    }
    return groups.size() == 1 ? a[0] : a;
  }
  std::optional<Value> truth(std::span<const Value> inputs) const override {
    std::vector<std::uint8_t> x(s_->c().input_bits(), 0);
    for (PartyId p = 0; p < inputs.size() && p < s_->n; ++p) {
      const auto bits = parse_input(*s_, p, inputs[p]);
      for (std::size_t i = 0; i < bits.size(); ++i) x[s_->wires[p][i]] = bits[i];
    }
    return output_value(s_->c(), evaluate(s_->c(), x));
  }
  bool has_error() const override { return false; }
  Value describe() const override;

 private:
  std::shared_ptr<const Setup> s_;
};

Value CircuitProtocol::describe() const {
  const Setup& s = *s_;
  const auto role = [&](PartyId p) -> std::string {
    if (s.variant == Variant::v3) return p == garbler ? "garbler" : "party";
    return p == 0 ? "garbler G1" : p == 1 ? "garbler G2" : p == 2 ? "helper" : "client";
  };
  Value parties = Value::array();
  for (PartyId p = 0; p < s.n && p < 8; ++p) {
    const bool sends2 = s.computes(p);
    parties.push_back({{"party", p},
                       {"role", role(p)},
                       {"owns_groups", s.groups[p]},
                       {"round_1", {{"messages", s.round1_messages[p]}, {"bytes", s.round1_messages[p] * s.osm.width}}},
                       {"round_2", {{"messages", sends2 ? s.round2_chunks : 0}, {"bytes", sends2 ? s.round2_chunks * s.round2_width : 0}}}});
  }
  Value d = {{"circuit", {{"name", s.c().name}, {"inputs", s.c().inputs}, {"outputs", s.c().outputs}, {"and_gates", s.c().and_gates},
                          {"xor_gates", s.c().xor_gates}, {"inv_gates", s.c().inv_gates}, {"wires", s.c().wires}}},
             {"variant", to_string(s.variant)},
             {"round_2", to_string(s.delivery)},
             {"osm", {{"chaff_per_pair", s.osm.chaff}, {"message_bytes", s.osm.width}, {"hubs", s.osm.hubs}}},
             {"round_2_message_bytes", s.round2_width},
             {"per_party", parties}};
  if (s.variant == Variant::v1) {
    d["threshold"] = 1;
    d["threat_model"] =
        "semi-honest; private against one corrupted computing party (0, 1 or 2) plus any number of input-only clients, "
        "even when everyone sees both rounds";
  } else {
    d["threshold"] = s.t;
    d["threat_model"] = fmt::format(
        "semi-honest; round 2 reaches the analyzer only; private against the analyzer plus {} parties other than the garbler "
        "(party 0); the garbler and the analyzer together learn every input",
        s.t);
    d["garbled_circuit_bytes"] = s.gc_bytes;
  }
  return d;
}

}  // namespace

const char* to_string(Variant v) { return v == Variant::v1 ? "v1" : "v3"; }

std::unique_ptr<Protocol> make_protocol(std::shared_ptr<const Circuit> circuit, std::size_t n, const Options& o, std::size_t min_parties) {
  auto s = std::make_shared<Setup>();
  const Circuit& c = *circuit;
  s->circuit = std::move(circuit);
  s->variant = o.variant;
  s->n = n;
  if (n < 3) throw std::invalid_argument(fmt::format("circuit needs at least 3 parties, got {}", n));
  if (min_parties != 0 && min_parties != n)
    throw std::invalid_argument(fmt::format("--min-parties {}: circuit needs every party in both rounds (give {} or leave it unset)", min_parties, n));
  if (o.variant == Variant::v1) {
    if (o.threshold > 1)
      throw std::invalid_argument(fmt::format("parameter 'threshold' = {}: variant v1 tolerates one corrupted computing party (threshold 1); "
                                              "v3 tolerates up to floor((n - 1) / 2) = {} parties other than its garbler",
                                              o.threshold, (n - 1) / 2));
    s->t = 1;
    s->delivery = o.delivery;
    s->layout.emplace(c);
  } else {
    const std::size_t max_t = (n - 1) / 2;
    if (o.threshold > max_t)
      throw std::invalid_argument(fmt::format("parameter 'threshold' = {}: variant v3 tolerates at most floor((n - 1) / 2) = {} parties for n = {}",
                                              o.threshold, max_t, n));
    if (o.delivery != Delivery::analyzer_only)
      throw std::invalid_argument("parameter 'delivery' = mpc: variant v3's round 2 would hand the garbler every input label; it runs in esa mode only");
    s->t = o.threshold == 0 ? max_t : o.threshold;
    s->delivery = Delivery::analyzer_only;
  }
  // Owners of the input groups.
  s->owners = o.owners;
  if (s->owners.empty())
    for (std::size_t g = 0; g < c.inputs.size(); ++g) s->owners.push_back(static_cast<PartyId>(g % n));
  if (s->owners.size() != c.inputs.size())
    throw std::invalid_argument(fmt::format("parameter 'owners': circuit {} has {} input groups, {} owners given", c.name, c.inputs.size(), s->owners.size()));
  s->groups.resize(n);
  s->wires.resize(n);
  for (std::size_t g = 0; g < c.inputs.size(); ++g) {
    const PartyId p = s->owners[g];
    if (p >= n) throw std::invalid_argument(fmt::format("parameter 'owners': input group {}'s owner {} is outside [0, {})", g, p, n));
    s->groups[p].push_back(g);
    for (std::uint32_t w = c.input_wire(g); w < c.input_wire(g) + c.inputs[g]; ++w) s->wires[p].push_back(w);
  }
  // Round 2: one payload per sender in 4 KiB messages.
  s->round2_bytes = o.variant == Variant::v1 ? s->layout->payload_bytes() : std::size_t{c.input_bits()} * block_bytes;
  s->round2_chunks = std::max<std::size_t>(1, (s->round2_bytes + round2_max_payload - 1) / round2_max_payload);
  s->round2_width = osm::header_bytes + (s->round2_bytes + s->round2_chunks - 1) / s->round2_chunks;
  if (s->round2_width < osm::header_bytes + 1) s->round2_width = osm::header_bytes + 1;
  if (o.variant == Variant::v3) {
    s->gc_bytes = half_gates::public_bytes(c);
    std::vector<std::uint32_t> all(n);
    for (PartyId j = 0; j < n; ++j) all[j] = j;
    s->lagrange = shamir::lagrange_at_zero(gf128::Field{}, std::span<const std::uint32_t>(all));
  }
  // Round 1's width: the one that moves the fewest bytes in all (chaff is as wide as a chunk).
  osm::Config base{.parties = n, .width = 0, .chaff = o.chaff == 0 ? osm::default_chaff : o.chaff, .mode = osm::KeyMode::kdf,
                   .hubs = o.variant == Variant::v1 && n > bmr::computing_parties ? bmr::computing_parties : 0};
  if (base.chaff < 128) throw std::invalid_argument(fmt::format("parameter 'chaff' = {}: kdf keys need at least 128 labels per pair", base.chaff));
  std::size_t best = SIZE_MAX;
  for (std::size_t width = 48; width <= 4096; width += 16) {
    osm::Config cfg = base;
    cfg.width = width;
    std::size_t total = 0;
    for (PartyId p = 0; p < n; ++p) total += s->count_round1(p, cfg) * width;
    if (total < best) {
      best = total;
      s->osm = cfg;
    }
  }
  s->osm.validate();
  if (o.variant == Variant::v3) s->gc_chunks = (s->gc_bytes + s->osm.payload_bytes() - 1) / s->osm.payload_bytes();
  s->round1_messages.resize(n);
  s->round1_min = SIZE_MAX;
  for (PartyId p = 0; p < n; ++p) {
    s->round1_messages[p] = s->count_round1(p, s->osm);
    s->round1_min = std::min(s->round1_min, s->round1_messages[p]);
    s->round1_max = std::max(s->round1_max, s->round1_messages[p]);
  }
  return std::make_unique<CircuitProtocol>(std::move(s));
}

}  // namespace shufflempc::circuit
