#include "shufflempc/protocols/ikos_key_exchange/ikos.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "shufflempc/error.hpp"

namespace shufflempc::ikos {
namespace {

// num / 2^L as a double, without overflowing when num is huge.
double scaled(const BigInt& num, std::uint32_t labels) {
  if (num == 0) return 0;
  const auto top = static_cast<long>(boost::multiprecision::msb(num));
  const long shift = std::max(0L, top - 62);
  const double mantissa = static_cast<BigInt>(num >> shift).convert_to<double>();
  return std::ldexp(mantissa, static_cast<int>(shift - static_cast<long>(labels)));
}

void bump(std::uint8_t& counter, std::uint8_t by) { counter = static_cast<std::uint8_t>(std::min(200, counter + by)); }

void check_width(const MessageBatch& shuffled) {
  if (!shuffled.empty() && shuffled.width() != message_width)
    throw_error(Errc::protocol_violation, "ikos: the round carries " + std::to_string(shuffled.width()) +
                                              "-byte messages, expected " + std::to_string(message_width));
}

}  // namespace

Config configure(std::uint64_t parties, std::int64_t key_bits, std::int64_t labels) {
  if (parties < 2) throw std::invalid_argument("ikos-key-exchange: parties must be at least 2, got " + std::to_string(parties));
  if (key_bits < 1 || key_bits > max_key_bits)
    throw std::invalid_argument("ikos-key-exchange: k must be an integer in [1, " + std::to_string(max_key_bits) +
                                "], got " + std::to_string(key_bits));
  if (labels == 0) labels = 3 * key_bits;
  if (labels < key_bits || labels > max_labels)
    throw std::invalid_argument("ikos-key-exchange: labels must be 0 (meaning 3k) or an integer in [k, " +
                                std::to_string(max_labels) + "] = [" + std::to_string(key_bits) + ", " +
                                std::to_string(max_labels) + "], got " + std::to_string(labels));
  Config c{static_cast<std::uint32_t>(std::min<std::uint64_t>(parties, UINT32_MAX)),
           static_cast<std::uint32_t>(key_bits), static_cast<std::uint32_t>(labels)};
  if (parties > UINT32_MAX || c.messages() > max_messages)
    throw std::invalid_argument("ikos-key-exchange: labels * parties * (parties - 1) must be at most " +
                                std::to_string(max_messages) + " messages; lower parties or k (got " +
                                std::to_string(parties) + " parties, " + std::to_string(labels) + " labels per pair)");
  return c;
}

SuccessProbability success_probability(std::uint32_t key_bits, std::uint32_t labels) {
  if (key_bits < 1 || labels < key_bits)
    throw std::invalid_argument("ikos success_probability: needs 1 <= k <= labels, got k = " + std::to_string(key_bits) +
                                ", labels = " + std::to_string(labels));
  // failing = sum_{j < k} C(L, j); favourable = 2^L - failing.
  BigInt binom = 1;
  BigInt failing = 0;
  for (std::uint32_t j = 0; j < key_bits; ++j) {
    failing += binom;
    binom = binom * (labels - j) / (j + 1);
  }
  SuccessProbability p;
  p.labels = labels;
  BigInt total = 1;
  total <<= labels;
  p.favourable = total - failing;
  p.failure = scaled(failing, labels);
  p.success = scaled(p.favourable, labels);
  return p;
}

void write_message(std::span<std::uint8_t> out, const Message& m) {
  store_le(out.data(), m.low);
  store_le(out.data() + 4, m.high);
  store_le(out.data() + 8, m.label);
  out[12] = m.bit ? 1 : 0;
}

Message read_message(std::span<const std::uint8_t> in, const Config& c) {
  if (in.size() != message_width)
    throw_error(Errc::protocol_violation, "ikos: a message is " + std::to_string(message_width) + " bytes, got " +
                                              std::to_string(in.size()));
  Message m{load_le<std::uint32_t>(in.data()), load_le<std::uint32_t>(in.data() + 4),
            load_le<std::uint32_t>(in.data() + 8), in[12] == 1};
  if (m.low >= m.high || m.high >= c.parties || m.label >= c.labels || in[12] > 1)
    throw_error(Errc::protocol_violation, "ikos: malformed message (pair " + std::to_string(m.low) + ", " +
                                              std::to_string(m.high) + ", label " + std::to_string(m.label) +
                                              ", bit byte " + std::to_string(in[12]) + ")");
  return m;
}


// ---- KeyExchange ----

KeyExchange::KeyExchange(const Config& config, PartyId self) : config_(config), self_(self) {
  if (self >= config.parties)
    throw std::invalid_argument("ikos: party id " + std::to_string(self) + " is outside [0, " +
                                std::to_string(config.parties) + ")");
}

void KeyExchange::send(Rng& rng, MessageBatch& out) {
  std::vector<std::uint8_t> bits(config_.messages_per_party());
  for (auto& b : bits) b = rng.bit() ? 1 : 0;
  send_bits(bits, out);
}

void KeyExchange::send_bits(std::span<const std::uint8_t> bits, MessageBatch& out) {
  if (bits.size() != config_.messages_per_party())
    throw std::invalid_argument("ikos: send_bits needs labels * (parties - 1) = " +
                                std::to_string(config_.messages_per_party()) + " bits, got " + std::to_string(bits.size()));
  if (out.width() != message_width)
    throw std::invalid_argument("ikos: the batch's width must be " + std::to_string(message_width));
  bits_.assign(bits.begin(), bits.end());
  out.reserve(out.count() + bits.size());
  for (PartyId peer = 0; peer < config_.parties; ++peer) {
    if (peer == self_) continue;
    const std::size_t base = peer_index(peer) * config_.labels;
    for (std::uint32_t l = 0; l < config_.labels; ++l)
      write_message(out.append(), {std::min(self_, peer), std::max(self_, peer), l, bits_[base + l] != 0});
  }
}

void KeyExchange::receive(const MessageBatch& shuffled) {
  if (bits_.size() != config_.messages_per_party()) throw std::logic_error("ikos: receive() before send()");
  const std::uint32_t L = config_.labels;
  std::vector<std::uint8_t> ones(bits_.size(), 0);
  std::vector<std::uint8_t> count(bits_.size(), 0);
  check_width(shuffled);
  for (std::size_t i = 0; i < shuffled.count(); ++i) {
    const Message m = read_message(shuffled[i], config_);
    if (m.low != self_ && m.high != self_) continue;
    const std::size_t at = peer_index(m.low == self_ ? m.high : m.low) * L + m.label;
    bump(ones[at], m.bit ? 1 : 0);
    bump(count[at], 1);
  }
  keys_.clear();
  keys_.reserve(config_.parties - 1);
  for (PartyId peer = 0; peer < config_.parties; ++peer) {
    if (peer == self_) continue;
    PairKey pk;
    pk.peer = peer;
    pk.complete = true;
    const std::size_t base = peer_index(peer) * L;
    std::vector<bool> key_bits;
    for (std::uint32_t l = 0; l < L; ++l) {
      const int own = bits_[base + l];
      const int other = ones[base + l] - own;
      if (count[base + l] != 2 || other < 0 || other > 1) {
        pk.complete = false;
        break;
      }
      if (other == own) continue;
      ++pk.differing;
      // The key bit is the first (lower-id) party's bit.
      if (key_bits.size() < config_.key_bits) key_bits.push_back(self_ < peer ? own == 1 : other == 1);
    }
    pk.agreed = pk.complete && pk.differing >= config_.key_bits;
    if (!pk.complete) pk.differing = 0;
    if (pk.agreed) {
      pk.key.assign((config_.key_bits + 7) / 8, 0);
      for (std::size_t t = 0; t < key_bits.size(); ++t)
        if (key_bits[t]) pk.key[t / 8] |= static_cast<std::uint8_t>(1u << (t % 8));
    }
    keys_.push_back(std::move(pk));
  }
}

const PairKey& KeyExchange::key_with(PartyId peer) const {
  if (peer == self_ || peer >= config_.parties || keys_.empty())
    throw std::invalid_argument("ikos: party " + std::to_string(self_) + " has no key with party " + std::to_string(peer));
  return keys_[peer_index(peer)];
}

// ---- Eavesdropper ----

Eavesdropper::Eavesdropper(const Config& config)
    : config_(config), ones_(config.pairs() * config.labels, 0), count_(config.pairs() * config.labels, 0) {}

std::size_t Eavesdropper::pair_index(PartyId low, PartyId high) const {
  const std::uint64_t n = config_.parties;
  return static_cast<std::size_t>(low * n - std::uint64_t{low} * (low + 1) / 2 + (high - low - 1));
}

void Eavesdropper::observe(const MessageBatch& shuffled) {
  check_width(shuffled);
  for (std::size_t i = 0; i < shuffled.count(); ++i) {
    const Message m = read_message(shuffled[i], config_);
    const std::size_t at = pair_index(m.low, m.high) * config_.labels + m.label;
    bump(ones_[at], m.bit ? 1 : 0);
    bump(count_[at], 1);
  }
}

PairView Eavesdropper::view(PartyId a, PartyId b) const {
  if (a == b || a >= config_.parties || b >= config_.parties)
    throw std::invalid_argument("ikos: no pair (" + std::to_string(a) + ", " + std::to_string(b) + ") among " +
                                std::to_string(config_.parties) + " parties");
  PairView v;
  v.low = std::min(a, b);
  v.high = std::max(a, b);
  v.complete = true;
  const std::size_t base = pair_index(v.low, v.high) * config_.labels;
  for (std::uint32_t l = 0; l < config_.labels; ++l) {
    if (count_[base + l] != 2) {
      v.complete = false;
      continue;
    }
    const int ones = ones_[base + l];
    if (ones == 1) v.differing.push_back(l);
    else v.known.emplace_back(l, ones == 2);
  }
  v.success = v.complete && v.differing.size() >= config_.key_bits;
  if (v.success) v.key_labels.assign(v.differing.begin(), v.differing.begin() + config_.key_bits);
  return v;
}

}  // namespace shufflempc::ikos
