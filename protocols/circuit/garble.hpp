// Pieces shared by the garbled-circuit variants: 128-bit labels, the garbling hash and seeds.
//
// The garbling hash is ChaCha20 from libsodium (libsodium has no raw AES):
//   H(K, g, side) = ChaCha20-IETF(key = K | 0^16, nonce = u64le(g) | side | 0^3), one 64-byte block
// read as four labels. K is a wire label, so every call keys ChaCha20 afresh; free-XOR needs H to
// behave as a random function on related keys (K and K xor Delta), the usual assumption.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include <sodium.h>

#include "shufflempc/channel.hpp"
#include "shufflempc/messages.hpp"
#include "shufflempc/random.hpp"

namespace shufflempc::circuit {

struct Block {
  std::uint64_t lo = 0, hi = 0;
  Block& operator^=(const Block& o) {
    lo ^= o.lo;
    hi ^= o.hi;
    return *this;
  }
  friend Block operator^(Block a, const Block& b) { return a ^= b; }
  friend bool operator==(const Block&, const Block&) = default;
  [[nodiscard]] std::uint8_t lsb() const { return static_cast<std::uint8_t>(lo & 1); }
  // The block if `bit` is 1, zero otherwise (branch-free).
  [[nodiscard]] Block times(std::uint8_t bit) const {
    const std::uint64_t m = 0 - static_cast<std::uint64_t>(bit & 1);
    return {lo & m, hi & m};
  }
  void store(std::uint8_t* out) const {
    store_le<std::uint64_t>(out, lo);
    store_le<std::uint64_t>(out + 8, hi);
  }
  [[nodiscard]] static Block load(const std::uint8_t* in) { return {load_le<std::uint64_t>(in), load_le<std::uint64_t>(in + 8)}; }
  [[nodiscard]] static Block random(Rng& rng) { return {rng.next_u64(), rng.next_u64()}; }
};
inline constexpr std::size_t block_bytes = 16;

// H(K, g, side): four blocks.
inline void hash4(const Block& k, std::uint64_t gate, std::uint8_t side, Block out[4]) {
  std::array<std::uint8_t, crypto_stream_chacha20_ietf_KEYBYTES> key{};
  k.store(key.data());
  std::array<std::uint8_t, crypto_stream_chacha20_ietf_NONCEBYTES> nonce{};
  store_le<std::uint64_t>(nonce.data(), gate);
  nonce[8] = side;
  std::array<std::uint8_t, 64> buf;
  crypto_stream_chacha20_ietf(buf.data(), buf.size(), nonce.data(), key.data());
  for (int i = 0; i < 4; ++i) out[i] = Block::load(buf.data() + 16 * i);
}

using Seed = std::array<std::uint8_t, 32>;
[[nodiscard]] inline Seed random_seed(Rng& rng) {
  Seed s;
  rng.fill(s);
  return s;
}
// A seed derived from `master` for `purpose` (keyed BLAKE2b-256).
[[nodiscard]] inline Seed derive_seed(const Seed& master, const char* purpose) {
  Seed s;
  crypto_generichash(s.data(), s.size(), reinterpret_cast<const unsigned char*>(purpose), std::strlen(purpose), master.data(),
                     master.size());
  return s;
}

// Bits (one byte, 0 or 1, each) packed eight to a byte, least significant first, and back.
[[nodiscard]] inline std::vector<std::uint8_t> pack_bits(std::span<const std::uint8_t> bits) {
  std::vector<std::uint8_t> out((bits.size() + 7) / 8, 0);
  for (std::size_t i = 0; i < bits.size(); ++i) out[i / 8] = static_cast<std::uint8_t>(out[i / 8] | ((bits[i] & 1) << (i % 8)));
  return out;
}
inline void unpack_bits(std::span<const std::uint8_t> packed, std::span<std::uint8_t> bits) {
  for (std::size_t i = 0; i < bits.size(); ++i) bits[i] = (packed[i / 8] >> (i % 8)) & 1;
}

}  // namespace shufflempc::circuit
