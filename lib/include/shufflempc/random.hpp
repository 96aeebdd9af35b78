// Randomness for shufflempc.
//
// Every randomized function in the library takes an `Rng&`; there is no global generator.
// Two generators exist, both ChaCha20 (IETF, RFC 8439) keystreams from libsodium:
//   * SystemRng  - keyed from the operating system (libsodium's randombytes_buf); production use.
//   * SeededRng  - keyed from a caller-supplied seed; reproducible on every machine. For
//                  simulations and tests only: nothing secret may ever be drawn from it.
//   * KeyedRng   - keyed by secret key material (a derived seed, a pairwise key): a PRF stream that
//                  parties holding the same key reproduce, as secret as its key.
// Both are buffered, so drawing a 64-bit word costs a few nanoseconds.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "shufflempc/little_endian.hpp"

namespace shufflempc {

class Rng {
 public:
  static constexpr std::size_t key_bytes = 32;
  using Key = std::array<std::uint8_t, key_bytes>;

  virtual ~Rng();
  Rng(const Rng&) = delete;
  Rng& operator=(const Rng&) = delete;

  // Fills `out` with uniform bytes.
  void fill(std::span<std::uint8_t> out);
  void fill(void* out, std::size_t n) { fill(std::span<std::uint8_t>(static_cast<std::uint8_t*>(out), n)); }

  [[nodiscard]] std::uint64_t next_u64() {
    if (pos_ + 8 > avail_) refill_buffer();
    // Little-endian whatever the host, so a seed gives the same numbers on every machine.
    const auto v = load_le<std::uint64_t>(buf_.data() + pos_);
    pos_ += 8;
    return v;
  }
  [[nodiscard]] std::uint8_t next_u8() {
    if (pos_ + 1 > avail_) refill_buffer();
    return buf_[pos_++];
  }
  [[nodiscard]] std::uint32_t next_u32() {
    if (pos_ + 4 > avail_) refill_buffer();
    const auto v = load_le<std::uint32_t>(buf_.data() + pos_);
    pos_ += 4;
    return v;
  }

  // Uniform integer in [0, bound), bound >= 1, without bias (Lemire's method with rejection).
  // Inline for the common case (a bound of 2^32 or more whose first draw is accepted): a Shamir
  // sharing draws one per coefficient, 10^5 times for a vector input.
  [[nodiscard]] std::uint64_t uniform(std::uint64_t bound) {
    if (bound > 0xffffffffu) {
      const unsigned __int128 m = static_cast<unsigned __int128>(next_u64()) * bound;
      if (static_cast<std::uint64_t>(m) >= bound) return static_cast<std::uint64_t>(m >> 64);
      return uniform_retry(bound, m);
    }
    return uniform_small(bound);
  }
  // Same for bounds below 2^32; uses half the randomness.
  [[nodiscard]] std::uint32_t uniform32(std::uint32_t bound) {
    std::uint64_t m = std::uint64_t{next_u32()} * bound;
    auto low = static_cast<std::uint32_t>(m);
    if (low < bound) {
      const std::uint32_t threshold = static_cast<std::uint32_t>(-bound) % bound;
      while (low < threshold) {
        m = std::uint64_t{next_u32()} * bound;
        low = static_cast<std::uint32_t>(m);
      }
    }
    return static_cast<std::uint32_t>(m >> 32);
  }
  // Uniform integer in [lo, hi] (inclusive).
  [[nodiscard]] std::int64_t uniform_between(std::int64_t lo, std::int64_t hi);
  [[nodiscard]] bool bit() {
    if (bits_left_ == 0) {
      bit_pool_ = next_u64();
      bits_left_ = 64;
    }
    const bool b = (bit_pool_ & 1u) != 0;
    bit_pool_ >>= 1;
    --bits_left_;
    return b;
  }
  // Uniform double in [0, 1) with 53 random bits. For simulations and statistics only: the
  // library's DP noise never goes through floating point.
  [[nodiscard]] double uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

  // An independent generator for a sub-task (one party, one round, one thread). The child depends
  // only on the parent's key and `label`, never on how much the parent has drawn: the same label
  // always gives the same child. Use it for units of one computation that must be reproducible in
  // any order; use split() for a fresh generator per call.
  [[nodiscard]] std::unique_ptr<Rng> fork(std::uint64_t label) const;
  // A fresh generator keyed by 32 bytes drawn from this one (so this one advances): successive
  // calls give independent children. Every repeated computation (a run, a round's shuffle) starts
  // from a split, so running twice with the same generator never reuses randomness.
  [[nodiscard]] std::unique_ptr<Rng> split();
  [[nodiscard]] virtual bool reproducible() const = 0;

 protected:
  explicit Rng(const Key& key);
  // A generator of the same kind under `key`.
  [[nodiscard]] virtual std::unique_ptr<Rng> with_key(const Key& key) const = 0;

 private:
  void refill_buffer();
  // The rest of uniform: a bound below 2^32, and the rare first draw that may be rejected.
  [[nodiscard]] std::uint64_t uniform_small(std::uint64_t bound);
  [[nodiscard]] std::uint64_t uniform_retry(std::uint64_t bound, unsigned __int128 m);
  void keystream(std::uint8_t* out, std::size_t n);

  Key key_{};
  std::uint64_t block_ = 0;  // 64-byte ChaCha20 blocks consumed so far
  std::array<std::uint8_t, 1024> buf_{};
  std::size_t avail_ = 0;  // valid bytes in buf_
  std::size_t pos_ = 0;
  std::size_t next_refill_ = 64;  // grows to buf_.size(): forks of many parties stay cheap
  std::uint64_t bit_pool_ = 0;
  unsigned bits_left_ = 0;
};

// Production randomness: ChaCha20 keyed from the operating system's CSPRNG via libsodium.
class SystemRng final : public Rng {
 public:
  SystemRng();
  [[nodiscard]] bool reproducible() const override { return false; }

 private:
  explicit SystemRng(const Key& key);
  [[nodiscard]] std::unique_ptr<Rng> with_key(const Key& key) const override;
};

// Reproducible randomness for simulations and tests. NOT for keys, shuffles of real data or noise
// that protects real people: its output is a function of the seed.
class SeededRng final : public Rng {
 public:
  // A 64-bit seed is expanded to a ChaCha20 key with BLAKE2b (personalised for shufflempc).
  explicit SeededRng(std::uint64_t seed);
  // The raw ChaCha20 key, for known-answer tests against RFC 8439.
  static SeededRng from_key(const Key& key);
  ~SeededRng() override;
  [[nodiscard]] bool reproducible() const override { return true; }

 private:
  struct RawKey {};
  SeededRng(RawKey, const Key& key);
  [[nodiscard]] std::unique_ptr<Rng> with_key(const Key& key) const override;
};

// A pseudorandom stream under secret key material: ChaCha20 keyed by `key`, so two parties that hold
// the same key (a pairwise key, a seed derived from one) draw the same secret values, and nobody
// else learns anything about them. The key is wiped with the generator; its forks and splits are
// KeyedRngs too. Not reproducible in the sense of a simulation seed: its key is a secret.
class KeyedRng final : public Rng {
 public:
  explicit KeyedRng(const Key& key);
  ~KeyedRng() override;
  [[nodiscard]] bool reproducible() const override { return false; }

 private:
  [[nodiscard]] std::unique_ptr<Rng> with_key(const Key& key) const override;
};

// Initialises libsodium once per process (thread-safe, idempotent); throws std::runtime_error if it
// cannot. Everything in shufflempc that calls libsodium outside an Rng calls this first.
void ensure_sodium();

// Makes the generator a command asks for: seeded when a seed was given, the system's otherwise.
[[nodiscard]] std::unique_ptr<Rng> make_rng(std::optional<std::uint64_t> seed);

}  // namespace shufflempc
