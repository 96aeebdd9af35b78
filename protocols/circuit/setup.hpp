// Internal to the circuit protocol (circuit.hpp): what its parties and its analyzer share (the
// setup of a run), the checked round-1 and round-2 message helpers, the base of the parties, and
// the variants, each in its own file: two_garblers.cpp (v1, BMR with two garblers and a helper),
// many_garblers.cpp (v2, BMR with t + 1 garblers, t < n/3), designated_garbler.cpp (v3, half-gates with
// Shamir-shared labels) and bgw.cpp (the many-round baseline). circuit.cpp builds the
// setup, the analyzer and the protocol.
#pragma once

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include <fmt/format.h>
#include <sodium.h>

#include "shufflempc/protocols/circuit/bmr.hpp"
#include "shufflempc/protocols/circuit/bmr_shamir.hpp"
#include "shufflempc/protocols/circuit/circuit.hpp"
#include "shufflempc/protocols/circuit/garble.hpp"
#include "shufflempc/error.hpp"

namespace shufflempc::circuit::detail {

inline constexpr std::uint8_t gc_kind = osm::first_protocol_kind;         // v3, round 1: the public garbled circuit
inline constexpr std::uint8_t share_kind = osm::first_protocol_kind + 1;  // round 2: a party's payload
inline constexpr std::size_t round2_max_payload = 4083;                  // 4 KiB messages in round 2
inline constexpr PartyId garbler = 0;                                     // v3's designated garbler

[[nodiscard]] inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Everything the parties and the analyzer share.
struct Setup {
  std::shared_ptr<const Circuit> circuit;
  Variant variant = Variant::two_garblers;
  GarblingHash hash = GarblingHash::aes;  // the garbling hash (garble.hpp)
  std::optional<bmr::Layout> layout;  // v1
  std::optional<bmr_shamir::Plan> plan;  // v2
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
  // bgw: one round per layer of AND gates (the circuit's layers), each layer round's private messages
  // (payload bytes and messages per peer), every party's point and the Lagrange coefficients at 0
  // over them.
  std::size_t and_depth = 0;
  std::vector<std::size_t> layer_payload, layer_chunks;
  std::vector<std::uint8_t> points256, lagrange256;
  decltype(Options::observe_bgw) observe_bgw;  // tests only (circuit.hpp)
  bool bgw_fault_fixed_reshare = false;

  [[nodiscard]] const Circuit& c() const { return *circuit; }
  [[nodiscard]] bool computes(PartyId p) const { return variant != Variant::two_garblers || p < bmr::computing_parties; }
  [[nodiscard]] std::size_t round2_senders() const { return variant == Variant::two_garblers ? bmr::computing_parties : n; }
  [[nodiscard]] std::uint32_t rounds() const { return variant == Variant::bgw ? static_cast<std::uint32_t>(and_depth) + 2 : 2; }
  [[nodiscard]] std::size_t input_share_bytes(PartyId from) const {
    const std::size_t bits = wires[from].size();
    if (variant == Variant::bgw || variant == Variant::many_garblers) return bits;  // one GF(2^8) share per bit
    return variant == Variant::two_garblers ? 2 * ((bits + 7) / 8) : bits * block_bytes;
  }
  // Bytes of the round-1 plaintext `from` sends `to` (0: nothing).
  [[nodiscard]] std::size_t plaintext(PartyId from, PartyId to) const {
    if (from == to) return 0;
    if (variant == Variant::bgw) return input_share_bytes(from);
    if (variant == Variant::many_garblers) return (from < plan->garblers ? plan->dealt_bytes() : 0) + input_share_bytes(from);
    if (variant == Variant::designated_garbler) return (from == garbler ? block_bytes : 0) + input_share_bytes(from);
    if (!computes(to)) return 0;
    std::size_t bytes = input_share_bytes(from);
    if (from == 0) bytes += to == 1 ? 2 * sizeof(Seed) : to == 2 ? sizeof(Seed) : 0;
    if (from == 1) bytes += to == 0 ? 2 * sizeof(Seed) : to == 2 ? sizeof(Seed) + layout->dealt_bytes() : 0;
    return bytes;
  }
  [[nodiscard]] std::size_t count_round1(PartyId p, const osm::Config& o) const {
    std::size_t m = o.chaff * o.peers(p);
    for (PartyId q = 0; q < n; ++q) m += o.linked(p, q) ? o.chunks(plaintext(p, q)) : 0;
    if (variant == Variant::designated_garbler && p == garbler) m += (gc_bytes + o.payload_bytes() - 1) / o.payload_bytes();
    return m;
  }
};

// Party `id`'s input bits (over its wires, ascending) from its hex text(s).
[[nodiscard]] std::vector<std::uint8_t> parse_input(const Setup& s, PartyId id, const Value& input);
[[nodiscard]] Value output_value(const Circuit& c, std::span<const std::uint8_t> bits);
void check_round1(const Setup& s, const MessageBatch& output, const RoundOutcome& outcome);
// v3: the garbled circuit's public part from round 1's gc messages.
[[nodiscard]] std::vector<std::uint8_t> public_circuit(const Setup& s, const MessageBatch& output);
void append_round2(const Setup& s, PartyId id, std::span<const std::uint8_t> payload, MessageBatch& out);
// XORs into `out` the PRF pad under a pairwise OSM key.
void xor_pad(const osm::Key& pair_key, std::span<std::uint8_t> out);

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
  // After receive_round1, for variants linked to every peer (v2, bgw): keeps every pair's OSM key in
  // keys_ and hands each peer's round-1 plaintext to take(q, bytes), wiping it after.
  template <class Take>
  void open_round1(Take take) {
    keys_.assign(s_->n, osm::Key{});
    for (PartyId q = 0; q < s_->n; ++q) {
      if (q == id_) continue;
      keys_[q] = osm_->pair_key(q);
      const std::size_t bytes = s_->plaintext(q, id_);
      if (bytes == 0) continue;
      auto msg = osm_->open(q, bytes);
      take(q, std::span<const std::uint8_t>(msg));
      sodium_memzero(msg.data(), msg.size());
    }
  }
  void wipe_keys() {
    for (auto& k : keys_) sodium_memzero(k.data(), k.size());
    keys_.clear();
  }

  std::shared_ptr<const Setup> s_;
  PartyId id_;
  std::vector<std::uint8_t> bits_;  // own input bits
  std::optional<osm::SecretMessages> osm_;
  std::vector<osm::Key> keys_;  // every pair's OSM key (open_round1)
  Value result_;
};

// The XOR of round 2's payloads (v1, v2: each is a share of the garbled circuit), checked.
[[nodiscard]] std::vector<std::uint8_t> xor_round2(const Setup& s, const MessageBatch& output, const RoundOutcome& outcome);

// The variants: their parties, and what the analyzer (and, in MPC mode, every party) evaluates
// from round 2.
[[nodiscard]] std::unique_ptr<Party> make_two_garblers_party(std::shared_ptr<const Setup> s, PartyId id, std::vector<std::uint8_t> bits);
[[nodiscard]] std::vector<std::uint8_t> evaluate_two_garblers(const Setup& s, const MessageBatch& output, const RoundOutcome& outcome);
[[nodiscard]] std::unique_ptr<Party> make_designated_garbler_party(std::shared_ptr<const Setup> s, PartyId id, std::vector<std::uint8_t> bits);
[[nodiscard]] std::vector<std::uint8_t> evaluate_designated_garbler(const Setup& s, std::span<const std::uint8_t> gc, const MessageBatch& output,
                                                                     const RoundOutcome& outcome);
[[nodiscard]] std::unique_ptr<Party> make_many_garblers_party(std::shared_ptr<const Setup> s, PartyId id, std::vector<std::uint8_t> bits);
[[nodiscard]] std::vector<std::uint8_t> evaluate_many_garblers(const Setup& s, const MessageBatch& output, const RoundOutcome& outcome);
[[nodiscard]] std::unique_ptr<Party> make_bgw_party(std::shared_ptr<const Setup> s, PartyId id, std::vector<std::uint8_t> bits);
// bgw: the output bits from the last round's shares (checked to lie on one polynomial of degree t).
[[nodiscard]] std::vector<std::uint8_t> evaluate_bgw(const Setup& s, const MessageBatch& output, const RoundOutcome& outcome);
// bgw: one round per layer of AND gates (Circuit::layers): fills and_depth, layer_payload and layer_chunks.
void plan_layer_rounds(Setup& s);

}  // namespace shufflempc::circuit::detail
