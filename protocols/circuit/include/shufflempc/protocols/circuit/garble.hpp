// Pieces shared by the garbled-circuit variants: 128-bit labels, the garbling hash and seeds.
//
// The garbling hash H(K, g, side) gives four 128-bit blocks from a wire label K, the gate's index g
// among the AND gates and a side (0 or 1). Free-XOR needs H to behave as a random function on
// related keys (K and K xor Delta). Two instances, chosen by the protocol's `hash` parameter (every
// party of a run must use the same one):
//
//   aes       fixed-key AES-128 through OpenSSL's libcrypto (AES-NI where the processor has it), as
//             the tweakable circular correlation-robust hash of Guo, Katz, Wang and Yu (S&P 2020):
//             block j is pi(sigma(K) xor T_j) xor sigma(K), with pi AES-128 under a public fixed key,
//             sigma(L || R) = (L xor R) || L (a linear orthomorphism) and the tweak
//             T_j = (g, side * 256 + j) as two 64-bit halves. Secure in the ideal-permutation model
//             for AES under the fixed key. The default.
//   chacha20  ChaCha20-IETF keyed by the label (key = K | 0^16, nonce = u64le(g) | side | 0^3), its
//             keystream read as labels (four per 64-byte block); a key schedule per call, so about ten times slower
//             where AES-NI is present, and the faster choice where it is not.
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

enum class GarblingHash { aes, chacha20 };
[[nodiscard]] const char* to_string(GarblingHash h);

// What the first use of `h` in a process costs, paid now (the circuit protocol's
// ProtocolInfo::warm_up): for aes, fetching AES-128-ECB from OpenSSL's default provider. Safe
// beside concurrent hashing.
void warm_up(GarblingHash h);

// H(keys[i], gate, sides[i]) for i < n: four blocks each, out[i][0..3]. n is at most 8; the blocks
// of one call go through AES together (pipelined).
void hash4_many(GarblingHash h, const Block* keys, std::uint64_t gate, const std::uint8_t* sides, std::size_t n, Block (*out)[4]);
// The first `per` blocks of H(keys[i], gate, sides[i]) for i < n: out[i * per + b], block b (b < 256;
// block b is the same whatever `per`, so hash4_many's four are its first four). Multi-garbler BMR
// takes 2 blocks per garbler: block 2 j + beta is garbler j's component of row beta.
void hash_blocks(GarblingHash h, const Block* keys, std::uint64_t gate, const std::uint8_t* sides, std::size_t n, std::size_t per, Block* out);
// The same with a gate per key: H(keys[i], gates[i], sides[i]), for hashing the independent gates of
// a layer in one batch (AES gets 64 blocks a call instead of 4).
void hash_batch(GarblingHash h, const Block* keys, const std::uint64_t* gates, const std::uint8_t* sides, std::size_t n, std::size_t per,
                Block* out);
// The first block of H(keys[i], gate, sides[i]) for i < n (n at most 8): what half-gates needs.
void hash1_many(GarblingHash h, const Block* keys, std::uint64_t gate, const std::uint8_t* sides, std::size_t n, Block* out);

// H(K, g, side): four blocks.
inline void hash4(GarblingHash h, const Block& k, std::uint64_t gate, std::uint8_t side, Block out[4]) {
  Block four[1][4];
  hash4_many(h, &k, gate, &side, 1, four);
  for (int j = 0; j < 4; ++j) out[j] = four[0][j];
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
