#include "shufflempc/protocols/cards/elgamal.hpp"

#include <sodium.h>

#include <string>

#include "shufflempc/error.hpp"

namespace shufflempc::cards {
namespace {

Point base_times(const Scalar& k) {
  Point out{};
  if (crypto_scalarmult_ristretto255_base(out.data(), k.data()) != 0)
    throw_error(Errc::protocol_violation, "ristretto255: scalar multiple of the base point is the identity");
  return out;
}

Point times(const Scalar& k, const Point& p) {
  Point out{};
  if (crypto_scalarmult_ristretto255(out.data(), k.data(), p.data()) != 0)
    throw_error(Errc::protocol_violation, "ristretto255: scalar multiple is the identity or the point is invalid");
  return out;
}

Point plus(const Point& a, const Point& b) {
  Point out{};
  if (crypto_core_ristretto255_add(out.data(), a.data(), b.data()) != 0)
    throw_error(Errc::protocol_violation, "ristretto255: invalid point in an addition");
  return out;
}

Point minus(const Point& a, const Point& b) {
  Point out{};
  if (crypto_core_ristretto255_sub(out.data(), a.data(), b.data()) != 0)
    throw_error(Errc::protocol_violation, "ristretto255: invalid point in a subtraction");
  return out;
}

struct Faces {
  Point clubs{};
  Point hearts{};
  Faces() {
    Scalar one{}, two{};
    one[0] = 1;
    two[0] = 2;
    clubs = base_times(one);
    hearts = base_times(two);
  }
};

const Faces& faces() {
  static const Faces f;  // constants, computed once
  return f;
}

}  // namespace

KeyShare::~KeyShare() { sodium_memzero(secret.data(), secret.size()); }

bool valid_point(const Point& p) {
  // libsodium 1.0.18 accepts the identity (encoded as 32 zero bytes); a card or key never is one.
  return crypto_core_ristretto255_is_valid_point(p.data()) == 1 && sodium_is_zero(p.data(), p.size()) == 0;
}

const Point& face_point(Suit face) { return face == Suit::clubs ? faces().clubs : faces().hearts; }

Scalar CardCrypto::random_scalar(Rng& rng) {
  static const Scalar zero{};
  Scalar k{};
  do {
    std::array<std::uint8_t, crypto_core_ristretto255_NONREDUCEDSCALARBYTES> wide{};
    rng.fill(wide);
    crypto_core_ristretto255_scalar_reduce(k.data(), wide.data());
    sodium_memzero(wide.data(), wide.size());
  } while (sodium_memcmp(k.data(), zero.data(), k.size()) == 0);
  return k;
}

KeyShare CardCrypto::key_share(Rng& rng) {
  KeyShare s;
  s.secret = random_scalar(rng);
  s.public_share = base_times(s.secret);
  ++ops_.base_mults;
  return s;
}

Point CardCrypto::joint_key(std::span<const Point> shares) {
  if (shares.empty()) throw std::invalid_argument("joint_key: needs at least one public share");
  Point y = shares[0];
  for (std::size_t i = 1; i < shares.size(); ++i) {
    y = plus(y, shares[i]);
    ++ops_.adds;
  }
  if (!valid_point(y)) throw_error(Errc::protocol_violation, "the joint key is the identity");
  return y;
}

Ciphertext CardCrypto::encrypt(Suit face, const Point& key, Rng& rng) {
  Scalar k = random_scalar(rng);
  Ciphertext c{base_times(k), plus(face_point(face), times(k, key))};
  sodium_memzero(k.data(), k.size());
  ops_.base_mults += 1;
  ops_.mults += 1;
  ops_.adds += 1;
  return c;
}

Ciphertext CardCrypto::rerandomize(const Ciphertext& card, const Point& key, Rng& rng) {
  Scalar k = random_scalar(rng);
  Ciphertext c{plus(card.c1, base_times(k)), plus(card.c2, times(k, key))};
  sodium_memzero(k.data(), k.size());
  ops_.base_mults += 1;
  ops_.mults += 1;
  ops_.adds += 2;
  return c;
}

Point CardCrypto::decryption_share(const Ciphertext& card, const Scalar& secret) {
  ++ops_.mults;
  return times(secret, card.c1);
}

Point CardCrypto::partial_decrypt(const Ciphertext& card, std::span<const Point> shares) {
  Point m = card.c2;
  for (const Point& d : shares) {
    m = minus(m, d);
    ++ops_.adds;
  }
  return m;
}

Suit CardCrypto::decrypt(const Ciphertext& card, std::span<const Point> shares) {
  const Point m = partial_decrypt(card, shares);
  if (sodium_memcmp(m.data(), faces().clubs.data(), m.size()) == 0) return Suit::clubs;
  if (sodium_memcmp(m.data(), faces().hearts.data(), m.size()) == 0) return Suit::hearts;
  throw_error(Errc::protocol_violation, "a card decrypted to neither face: a decryption share is wrong or missing");
}

}  // namespace shufflempc::cards
