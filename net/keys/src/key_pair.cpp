// A key pair in memory: what a party needs of keys.hpp wherever it runs (the browser's build,
// web/, compiles this file and not keys.cpp, whose key files and session configs it has no use for).
#include <sodium.h>

#include "shufflempc/net/keys.hpp"

namespace shufflempc::net {

KeyPair::~KeyPair() { sodium_memzero(secret_.data(), secret_.size()); }

bool operator==(const KeyPair& a, const KeyPair& b) {
  return a.public_ == b.public_ && sodium_memcmp(a.secret_.data(), b.secret_.data(), secret_key_bytes) == 0;
}

KeyPair KeyPair::generate(Rng& rng) {
  std::array<std::uint8_t, secret_key_bytes> secret{};
  rng.fill(secret);
  KeyPair k = from_secret(secret);
  sodium_memzero(secret.data(), secret.size());
  return k;
}

KeyPair KeyPair::from_secret(const std::array<std::uint8_t, secret_key_bytes>& secret) {
  ensure_sodium();
  KeyPair k;
  k.secret_ = secret;
  crypto_scalarmult_base(k.public_.data(), k.secret_.data());
  return k;
}

KeyPair KeyPair::from_stored(const std::array<std::uint8_t, secret_key_bytes>& secret, const PublicKey& stored) {
  KeyPair k;
  k.secret_ = secret;
  k.public_ = stored;
  return k;
}

}  // namespace shufflempc::net
