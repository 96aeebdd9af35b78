#include "shufflempc/protocols/circuit/garble.hpp"

#include <openssl/evp.h>

#include <stdexcept>

namespace shufflempc::circuit {
namespace {

// AES-128-ECB from OpenSSL's default provider (nullptr if it has none): the caller owns it.
EVP_CIPHER* fetch_aes_128_ecb() { return EVP_CIPHER_fetch(nullptr, "AES-128-ECB", nullptr); }

// AES-128-ECB from OpenSSL's default provider, fetched once per process. OpenSSL 3 builds every
// cipher of the provider at the first fetch in a process (about 1 ms), which warm_up lets a process
// pay on a background thread. Freed at exit before OpenSSL's own clean-up, which the fetch
// registered first.
const EVP_CIPHER* aes_128_ecb() {
  static const struct Fetched {
    EVP_CIPHER* cipher = fetch_aes_128_ecb();
    Fetched() = default;
    Fetched(const Fetched&) = delete;
    Fetched& operator=(const Fetched&) = delete;
    ~Fetched() { EVP_CIPHER_free(cipher); }
  } fetched;
  if (fetched.cipher == nullptr) throw std::runtime_error("the garbling hash: OpenSSL's default provider has no AES-128-ECB");
  return fetched.cipher;
}

// AES-128 under the public fixed key: one ECB context per thread (a context is not shared between
// threads), made on first use.
class FixedKeyAes {
 public:
  FixedKeyAes() : ctx_(EVP_CIPHER_CTX_new()) {
    std::array<std::uint8_t, 16> key{};
    static const char label[] = "shufflempc garbling hash: fixed AES-128 key";
    crypto_generichash(key.data(), key.size(), reinterpret_cast<const unsigned char*>(label), sizeof label - 1, nullptr, 0);
    if (ctx_ == nullptr || EVP_EncryptInit_ex(ctx_, aes_128_ecb(), nullptr, key.data(), nullptr) != 1 ||
        EVP_CIPHER_CTX_set_padding(ctx_, 0) != 1)
      throw std::runtime_error("the garbling hash could not set up AES-128 (OpenSSL)");
  }
  FixedKeyAes(const FixedKeyAes&) = delete;
  FixedKeyAes& operator=(const FixedKeyAes&) = delete;
  ~FixedKeyAes() { EVP_CIPHER_CTX_free(ctx_); }
  // In place: `n` blocks of 16 bytes.
  void encrypt(std::uint8_t* blocks, std::size_t n) {
    // EVP_Cipher: the cipher itself, without EVP_EncryptUpdate's buffering (whole blocks only).
    if (EVP_Cipher(ctx_, blocks, blocks, static_cast<unsigned>(16 * n)) <= 0) throw std::runtime_error("the garbling hash: AES-128 failed (OpenSSL)");
  }

 private:
  EVP_CIPHER_CTX* ctx_;
};

FixedKeyAes& aes() {
  thread_local FixedKeyAes a;
  return a;
}

// sigma(L || R) = (L xor R) || L, with lo the left half.
Block sigma(const Block& k) { return {k.lo ^ k.hi, k.lo}; }

// Blocks 0..per-1 of the keystream under key K | 0^16, nonce u64le(gate) | side | 0^3.
void chacha_blocks(const Block& k, std::uint64_t gate, std::uint8_t side, std::size_t per, Block* out) {
  std::array<std::uint8_t, crypto_stream_chacha20_ietf_KEYBYTES> key{};
  k.store(key.data());
  std::array<std::uint8_t, crypto_stream_chacha20_ietf_NONCEBYTES> nonce{};
  store_le<std::uint64_t>(nonce.data(), gate);
  nonce[8] = side;
  std::array<std::uint8_t, 256 * 16> buf;
  crypto_stream_chacha20_ietf(buf.data(), 16 * per, nonce.data(), key.data());
  for (std::size_t i = 0; i < per; ++i) out[i] = Block::load(buf.data() + 16 * i);
  sodium_memzero(key.data(), key.size());
}

// Blocks 0..per-1 of H(keys[i], gate_of(i), sides[i]) for i < n at out[i * per + b]: with AES, block b
// is pi(sigma(K) xor T(gate, 256 side + b)) xor sigma(K), 64 blocks through AES a call, across keys
// (pipelined); with ChaCha20, the keystream under K. Every entry point below is this one.
template <class GateOf>
void blocks_of(GarblingHash h, const Block* keys, GateOf gate_of, const std::uint8_t* sides, std::size_t n, std::size_t per, Block* out) {
  if (per == 0 || per > 256) throw std::logic_error("the garbling hash gives 1 to 256 blocks a key");
  if (h == GarblingHash::chacha20) {
    for (std::size_t i = 0; i < n; ++i) chacha_blocks(keys[i], gate_of(i), sides[i], per, out + i * per);
    return;
  }
  constexpr std::size_t batch = 64;
  std::array<std::uint8_t, batch * 16> buf;
  std::array<std::uint64_t, 2 * batch> mask;  // sigma(K) of each block, lo and hi (not zeroed: a Block array would be, every call)
  std::size_t filled = 0, done = 0;
  const auto flush = [&] {
    aes().encrypt(buf.data(), filled);
    for (std::size_t m = 0; m < filled; ++m) out[done + m] = Block::load(buf.data() + 16 * m) ^ Block{mask[2 * m], mask[2 * m + 1]};
    done += filled;
    filled = 0;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const Block s = sigma(keys[i]);
    const std::uint64_t gate = gate_of(i);
    for (std::size_t j = 0; j < per; ++j) {
      mask[2 * filled] = s.lo;
      mask[2 * filled + 1] = s.hi;
      (s ^ Block{gate, (std::uint64_t{sides[i]} << 8) | j}).store(buf.data() + 16 * filled);
      if (++filled == batch) flush();
    }
  }
  if (filled > 0) flush();
}

void check(std::size_t n) {
  if (n > 8) throw std::logic_error("the garbling hash takes at most 8 keys a call");
}

}  // namespace

const char* to_string(GarblingHash h) { return h == GarblingHash::aes ? "aes" : "chacha20"; }

// A fetch of its own, freed at once: OpenSSL keeps what the first fetch builds in its method store,
// where aes_128_ecb's fetch then finds it. (Through aes_128_ecb itself, a first use arriving during
// the warm-up would wait on the static's guard for a thread that competes for the cores; this way
// it never waits for the warm-up.)
void warm_up(GarblingHash h) {
  if (h == GarblingHash::aes) EVP_CIPHER_free(fetch_aes_128_ecb());
}

void hash4_many(GarblingHash h, const Block* keys, std::uint64_t gate, const std::uint8_t* sides, std::size_t n, Block (*out)[4]) {
  check(n);
  std::array<Block, 32> all;
  hash_blocks(h, keys, gate, sides, n, 4, all.data());
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < 4; ++j) out[i][j] = all[4 * i + j];
}

void hash_blocks(GarblingHash h, const Block* keys, std::uint64_t gate, const std::uint8_t* sides, std::size_t n, std::size_t per, Block* out) {
  blocks_of(h, keys, [gate](std::size_t) { return gate; }, sides, n, per, out);
}

void hash_batch(GarblingHash h, const Block* keys, const std::uint64_t* gates, const std::uint8_t* sides, std::size_t n, std::size_t per, Block* out) {
  blocks_of(h, keys, [gates](std::size_t i) { return gates[i]; }, sides, n, per, out);
}

void hash1_many(GarblingHash h, const Block* keys, std::uint64_t gate, const std::uint8_t* sides, std::size_t n, Block* out) {
  check(n);
  hash_blocks(h, keys, gate, sides, n, 1, out);
}

}  // namespace shufflempc::circuit
