// Cards as ElGamal ciphertexts on ristretto255, for card protocols with no trusted table: the group
// and ElGamal of the verifiable mix (shufflempc/mixnet/group.hpp, elgamal.hpp) over the cards'
// byte encodings.
//
// A card is an encryption of a group element: ♣ = G, ♥ = 2G (G the ristretto255 base point), under
// a joint key Y = (x_0 + x_1 + ...) G whose secret is split among the parties. Anyone can encrypt and
// re-randomize; turning a card over needs every party's decryption share x_i C1. All operations are
// counted in the context (no global state), so benchmarks can report group operations per protocol.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "shufflempc/protocols/cards/table.hpp"
#include "shufflempc/random.hpp"

namespace shufflempc::cards {

inline constexpr std::size_t point_bytes = 32;
inline constexpr std::size_t scalar_bytes = 32;
inline constexpr std::size_t ciphertext_bytes = 2 * point_bytes;
using Point = std::array<std::uint8_t, point_bytes>;
using Scalar = std::array<std::uint8_t, scalar_bytes>;

// (C1, C2) = (k G, M + k Y).
struct Ciphertext {
  Point c1{};
  Point c2{};
  friend bool operator==(const Ciphertext&, const Ciphertext&) = default;
};

// One party's share of the joint key. The secret is wiped on destruction.
struct KeyShare {
  Scalar secret{};
  Point public_share{};
  KeyShare() = default;
  KeyShare(const KeyShare&) = default;
  KeyShare& operator=(const KeyShare&) = default;
  ~KeyShare();
};

struct GroupOps {
  std::uint64_t base_mults = 0;  // k G (fixed-base scalar multiplication)
  std::uint64_t mults = 0;       // k P (variable-base scalar multiplication)
  std::uint64_t adds = 0;        // P + Q or P - Q
  [[nodiscard]] std::uint64_t total() const { return base_mults + mults + adds; }
  GroupOps& operator+=(const GroupOps& o) {
    base_mults += o.base_mults;
    mults += o.mults;
    adds += o.adds;
    return *this;
  }
};

// True if `p` is the canonical encoding of a ristretto255 element other than the identity.
[[nodiscard]] bool valid_point(const Point& p);
// The group element a face encodes: ♣ = G, ♥ = 2G.
[[nodiscard]] const Point& face_point(Suit face);

class CardCrypto {
 public:
  // A uniform nonzero scalar drawn from `rng` (64 bytes reduced mod the group order).
  [[nodiscard]] static Scalar random_scalar(Rng& rng);

  [[nodiscard]] KeyShare key_share(Rng& rng);
  // The joint key: the sum of all public shares (each must be valid_point).
  [[nodiscard]] Point joint_key(std::span<const Point> shares);
  // A fresh face-down card.
  [[nodiscard]] Ciphertext encrypt(Suit face, const Point& key, Rng& rng);
  // The same face under fresh randomness: (C1 + k G, C2 + k Y). Unlinkable to the input for anyone
  // who cannot decrypt (DDH).
  [[nodiscard]] Ciphertext rerandomize(const Ciphertext& card, const Point& key, Rng& rng);
  // This party's share for turning `card` over: x_i C1.
  [[nodiscard]] Point decryption_share(const Ciphertext& card, const Scalar& secret);
  // C2 minus the given shares. With every party's share it is the face's point; with fewer it is a
  // group element that looks uniform (it still hides the face).
  [[nodiscard]] Point partial_decrypt(const Ciphertext& card, std::span<const Point> shares);
  // Turns a card over with every party's share. Throws std::system_error(Errc::protocol_violation)
  // if the result is neither face (a wrong or missing share).
  [[nodiscard]] Suit decrypt(const Ciphertext& card, std::span<const Point> shares);

  [[nodiscard]] const GroupOps& ops() const { return ops_; }

 private:
  GroupOps ops_;
};

}  // namespace shufflempc::cards
