#include "shufflempc/protocols/cards/elgamal.hpp"

#include <sodium.h>

#include <stdexcept>

#include "shufflempc/error.hpp"
#include "shufflempc/mixnet/elgamal.hpp"
#include "shufflempc/mixnet/group.hpp"

// The group and ElGamal are the verifiable mix's (shufflempc/mixnet/group.hpp, elgamal.hpp): this
// file keeps the cards' encodings (points and scalars as plain bytes, the faces), their counts and
// their refusals.
namespace shufflempc::cards {
namespace {

// Points and scalars are both 32 bytes here (one type): the names say which.
mixnet::Point point(const Point& p) { return mixnet::Point{p}; }
mixnet::Scalar scalar(const Scalar& s) { return mixnet::Scalar{s}; }
Ciphertext card_of(const mixnet::Ciphertext& c) { return {c.c1.bytes, c.c2.bytes}; }
mixnet::Ciphertext ciphertext(const Ciphertext& c) { return {point(c.c1), point(c.c2)}; }

struct Faces {
  Point clubs = mixnet::base_point().bytes;
  Point hearts = mixnet::mul_base(mixnet::scalar_from_u64(2)).bytes;
};

const Faces& faces() {
  static const Faces f;  // constants, computed once
  return f;
}

}  // namespace

KeyShare::~KeyShare() { sodium_memzero(secret.data(), secret.size()); }

bool valid_point(const Point& p) {
  // A card or key is never the identity (encoded as 32 zero bytes), which the group accepts.
  return mixnet::valid_point(point(p)) && sodium_is_zero(p.data(), p.size()) == 0;
}

const Point& face_point(Suit face) { return face == Suit::clubs ? faces().clubs : faces().hearts; }

Scalar CardCrypto::random_scalar(Rng& rng) {
  mixnet::Scalar k;
  do {
    k = mixnet::random_scalar(rng);  // 64 bytes reduced mod the group order
  } while (sodium_is_zero(k.bytes.data(), k.bytes.size()) == 1);
  return k.bytes;
}

KeyShare CardCrypto::key_share(Rng& rng) {
  KeyShare s;
  s.secret = random_scalar(rng);
  s.public_share = mixnet::mul_base(scalar(s.secret)).bytes;
  ++ops_.base_mults;
  return s;
}

Point CardCrypto::joint_key(std::span<const Point> shares) {
  if (shares.empty()) throw std::invalid_argument("joint_key: needs at least one public share");
  for (const Point& share : shares)
    if (!valid_point(share)) throw_error(Errc::protocol_violation, "a public key share is not a point of the group other than the identity");
  mixnet::Point y = point(shares[0]);
  for (std::size_t i = 1; i < shares.size(); ++i) {
    y = y + point(shares[i]);
    ++ops_.adds;
  }
  if (!valid_point(y.bytes)) throw_error(Errc::protocol_violation, "the joint key is the identity");
  return y.bytes;
}

Ciphertext CardCrypto::encrypt(Suit face, const Point& key, Rng& rng) {
  Scalar k = random_scalar(rng);
  const Ciphertext c = card_of(mixnet::encrypt_point(point(face_point(face)), point(key), scalar(k)));
  sodium_memzero(k.data(), k.size());
  ops_.base_mults += 1;
  ops_.mults += 1;
  ops_.adds += 1;
  return c;
}

Ciphertext CardCrypto::rerandomize(const Ciphertext& card, const Point& key, Rng& rng) {
  Scalar k = random_scalar(rng);
  const Ciphertext c = card_of(mixnet::reencrypt(ciphertext(card), point(key), scalar(k)));
  sodium_memzero(k.data(), k.size());
  ops_.base_mults += 1;
  ops_.mults += 1;
  ops_.adds += 2;
  return c;
}

Point CardCrypto::decryption_share(const Ciphertext& card, const Scalar& secret) {
  ++ops_.mults;
  return (scalar(secret) * point(card.c1)).bytes;
}

Point CardCrypto::partial_decrypt(const Ciphertext& card, std::span<const Point> shares) {
  mixnet::Point m = point(card.c2);
  for (const Point& d : shares) {
    m = m - point(d);
    ++ops_.adds;
  }
  return m.bytes;
}

Suit CardCrypto::decrypt(const Ciphertext& card, std::span<const Point> shares) {
  const Point m = partial_decrypt(card, shares);
  if (sodium_memcmp(m.data(), faces().clubs.data(), m.size()) == 0) return Suit::clubs;
  if (sodium_memcmp(m.data(), faces().hearts.data(), m.size()) == 0) return Suit::hearts;
  throw_error(Errc::protocol_violation, "a card decrypted to neither face: a decryption share is wrong or missing");
}

}  // namespace shufflempc::cards
