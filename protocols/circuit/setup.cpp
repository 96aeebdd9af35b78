// The circuit protocol's shared message helpers (setup.hpp).
#include <sodium.h>

#include <array>
#include <cstring>

#include "setup.hpp"
#include "shufflempc/inputs.hpp"

namespace shufflempc::circuit::detail {

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
                      s.variant == Variant::designated_garbler ? std::span<const std::uint8_t>(gc) : std::span<const std::uint8_t>());
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

namespace {

// dst ^= src, eight bytes at a time (payloads of megabytes: the byte loop did not vectorize).
void xor_into(std::uint8_t* __restrict dst, const std::uint8_t* __restrict src, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t a, b;
    std::memcpy(&a, dst + i, 8);
    std::memcpy(&b, src + i, 8);
    a ^= b;
    std::memcpy(dst + i, &a, 8);
  }
  for (; i < n; ++i) dst[i] ^= src[i];
}

}  // namespace

std::vector<std::uint8_t> xor_round2(const Setup& s, const MessageBatch& output, const RoundOutcome& outcome) {
  std::vector<std::uint8_t> payload(s.round2_bytes, 0);
  read_round2(s, output, outcome, [&](PartyId, std::size_t at, std::span<const std::uint8_t> bytes) {
    xor_into(payload.data() + at, bytes.data(), bytes.size());
  });
  return payload;
}

// XORs into `out` the PRF pad under a pairwise OSM key: the ChaCha20-IETF keystream (nonce 0, from
// block 0) under a key derived from it, XORed in place in one call (the stream a KeyedRng of that key
// draws).
void xor_pad(const osm::Key& pair_key, std::span<std::uint8_t> out) {
  Seed k;
  std::copy(pair_key.begin(), pair_key.end(), k.begin());
  Seed pad_key = derive_seed(k, "circuit/zero-sum-pad");
  sodium_memzero(k.data(), k.size());
  static_assert(sizeof(Seed) == crypto_stream_chacha20_ietf_KEYBYTES);
  const std::array<std::uint8_t, crypto_stream_chacha20_ietf_NONCEBYTES> nonce{};
  // 64-byte blocks from counter 0: at most 2^32 of them (256 GiB) under one nonce.
  if (out.size() / 64 >= (std::uint64_t{1} << 32)) throw std::length_error("circuit: a zero-sum pad longer than 256 GiB");
  crypto_stream_chacha20_ietf_xor_ic(out.data(), out.data(), out.size(), nonce.data(), 0, pad_key.data());
  sodium_memzero(pad_key.data(), pad_key.size());
}

}  // namespace shufflempc::circuit::detail
