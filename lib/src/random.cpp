#include "shufflempc/random.hpp"

#include <sodium.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace shufflempc {

void ensure_sodium() {
  static const int rc = sodium_init();  // thread-safe, idempotent
  if (rc < 0) throw std::runtime_error("libsodium could not be initialised");
}

namespace {

constexpr std::size_t block_bytes = 64;

}  // namespace

Rng::Rng(const Key& key) : key_(key) { ensure_sodium(); }

Rng::~Rng() {
  sodium_memzero(key_.data(), key_.size());
  sodium_memzero(buf_.data(), buf_.size());
}

// The keystream is ChaCha20-IETF under key_, with the 96-bit nonce holding the high bits of the
// block index and the 32-bit counter its low bits, so the stream never repeats.
void Rng::keystream(std::uint8_t* out, std::size_t n) {
  while (n > 0) {
    std::array<std::uint8_t, crypto_stream_chacha20_ietf_NONCEBYTES> nonce{};
    const std::uint64_t high = block_ >> 32;
    store_le(nonce.data(), high);  // little-endian everywhere
    const auto counter = static_cast<std::uint32_t>(block_);
    const std::uint64_t blocks_left_in_nonce = (std::uint64_t{1} << 32) - counter;
    const std::size_t blocks = std::min<std::uint64_t>(blocks_left_in_nonce, (n + block_bytes - 1) / block_bytes);
    const std::size_t bytes = std::min(n, blocks * block_bytes);
    std::memset(out, 0, bytes);
    crypto_stream_chacha20_ietf_xor_ic(out, out, bytes, nonce.data(), counter, key_.data());
    block_ += (bytes + block_bytes - 1) / block_bytes;
    out += bytes;
    n -= bytes;
  }
}

void Rng::refill_buffer() {
  // Keep the unread tail, then append fresh keystream.
  const std::size_t tail = avail_ - pos_;
  std::memmove(buf_.data(), buf_.data() + pos_, tail);
  const std::size_t want = std::min(next_refill_, buf_.size() - tail) / block_bytes * block_bytes;
  keystream(buf_.data() + tail, want);
  avail_ = tail + want;
  pos_ = 0;
  next_refill_ = std::min(next_refill_ * 2, buf_.size());
}

void Rng::fill(std::span<std::uint8_t> out) {
  std::size_t done = 0;
  const std::size_t buffered = std::min(out.size(), avail_ - pos_);
  std::memcpy(out.data(), buf_.data() + pos_, buffered);
  pos_ += buffered;
  done += buffered;
  const std::size_t rest = out.size() - done;
  if (rest == 0) return;
  // Large requests bypass the buffer; whole blocks only, so the stream stays aligned.
  const std::size_t direct = rest / block_bytes * block_bytes;
  if (direct > 0) {
    keystream(out.data() + done, direct);
    done += direct;
  }
  while (done < out.size()) {
    if (pos_ == avail_) refill_buffer();
    const std::size_t n = std::min(out.size() - done, avail_ - pos_);
    std::memcpy(out.data() + done, buf_.data() + pos_, n);
    pos_ += n;
    done += n;
  }
}

std::uint64_t Rng::uniform_small(std::uint64_t bound) {
  if (bound == 0) throw std::invalid_argument("Rng::uniform: bound must be at least 1");
  return uniform32(static_cast<std::uint32_t>(bound));
}

std::uint64_t Rng::uniform_retry(std::uint64_t bound, unsigned __int128 m) {
  // The first draw's low half is below bound: rejected only below 2^64 mod bound.
  auto low = static_cast<std::uint64_t>(m);
  const std::uint64_t threshold = (0 - bound) % bound;
  while (low < threshold) {
    m = static_cast<unsigned __int128>(next_u64()) * bound;
    low = static_cast<std::uint64_t>(m);
  }
  return static_cast<std::uint64_t>(m >> 64);
}

std::int64_t Rng::uniform_between(std::int64_t lo, std::int64_t hi) {
  if (hi < lo) throw std::invalid_argument("Rng::uniform_between: need lo <= hi");
  const auto span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  const std::uint64_t offset = span == std::numeric_limits<std::uint64_t>::max() ? next_u64() : uniform(span + 1);
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + offset);
}

namespace {
Rng::Key system_key() {
  ensure_sodium();
  Rng::Key k;
  randombytes_buf(k.data(), k.size());
  return k;
}

Rng::Key seed_key(std::uint64_t seed) {
  ensure_sodium();
  std::array<std::uint8_t, 8> bytes;
  store_le(bytes.data(), seed);
  static constexpr char personal[] = "shufflempc seed";  // 16 bytes with the NUL
  static_assert(sizeof personal == crypto_generichash_blake2b_PERSONALBYTES);
  std::array<std::uint8_t, crypto_generichash_blake2b_SALTBYTES> salt{};
  Rng::Key k;
  crypto_generichash_blake2b_salt_personal(k.data(), k.size(), bytes.data(), bytes.size(), nullptr, 0,
                                           salt.data(), reinterpret_cast<const unsigned char*>(personal));
  sodium_memzero(bytes.data(), bytes.size());
  return k;
}
}  // namespace

SystemRng::SystemRng() : Rng(system_key()) {}
SystemRng::SystemRng(const Key& key) : Rng(key) {}


SeededRng::SeededRng(std::uint64_t seed) : Rng(seed_key(seed)) {}
SeededRng::SeededRng(RawKey, const Key& key) : Rng(key) {}
SeededRng::~SeededRng() = default;

SeededRng SeededRng::from_key(const Key& key) { return SeededRng(RawKey{}, key); }

KeyedRng::KeyedRng(const Key& key) : Rng(key) {}
KeyedRng::~KeyedRng() = default;
std::unique_ptr<Rng> KeyedRng::with_key(const Key& key) const { return std::make_unique<KeyedRng>(key); }

// Child key = the first 32 bytes of the ChaCha20 block under the parent key with nonce
// ("fork", label) - a PRF, so children with different labels are independent of each other and
// of the parent's own stream (whose nonces hold the block index divided by 2^32, which would need
// more than 2^61 blocks to reach the "fork" tag). A SystemRng's root key is secret and uniform, so its children are as
// good as freshly keyed ones at a fraction of the cost.
std::unique_ptr<Rng> Rng::fork(std::uint64_t label) const {
  std::array<std::uint8_t, crypto_stream_chacha20_ietf_NONCEBYTES> nonce{};
  static constexpr std::uint8_t tag[4] = {'f', 'o', 'r', 'k'};
  std::memcpy(nonce.data(), tag, 4);
  store_le(nonce.data() + 4, label);
  Key child{};
  crypto_stream_chacha20_ietf_xor_ic(child.data(), child.data(), child.size(), nonce.data(), 0, key_.data());
  auto rng = with_key(child);
  sodium_memzero(child.data(), child.size());
  return rng;
}

std::unique_ptr<Rng> Rng::split() {
  Key child{};
  fill(child.data(), child.size());
  auto rng = with_key(child);
  sodium_memzero(child.data(), child.size());
  return rng;
}

std::unique_ptr<Rng> SystemRng::with_key(const Key& key) const { return std::unique_ptr<SystemRng>(new SystemRng(key)); }

std::unique_ptr<Rng> SeededRng::with_key(const Key& key) const {
  return std::unique_ptr<SeededRng>(new SeededRng(RawKey{}, key));
}

std::unique_ptr<Rng> make_rng(std::optional<std::uint64_t> seed) {
  if (seed) return std::make_unique<SeededRng>(*seed);
  return std::make_unique<SystemRng>();
}

}  // namespace shufflempc
