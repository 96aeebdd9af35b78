#include "shufflempc/mixnet/signing.hpp"

#include <sodium.h>

#include "shufflempc/error.hpp"
#include "shufflempc/merkle.hpp"
#include "shufflempc/parallel.hpp"

namespace shufflempc::mixnet {

static_assert(sizeof(SigningPublicKey) == crypto_sign_PUBLICKEYBYTES);
static_assert(sizeof(Signature) == crypto_sign_BYTES);

namespace {

using Digest = std::array<std::uint8_t, 32>;

Digest digest_of(std::span<const std::uint8_t> bytes) {
  Digest d{};
  crypto_generichash(d.data(), d.size(), bytes.data(), bytes.size(), nullptr, 0);
  return d;
}

void append(std::vector<std::uint8_t>& out, std::span<const std::uint8_t> bytes) { out.insert(out.end(), bytes.begin(), bytes.end()); }

}  // namespace

SigningKeyPair::~SigningKeyPair() { sodium_memzero(secret_.data(), secret_.size()); }

SigningKeyPair SigningKeyPair::generate(Rng& rng) {
  ensure_sodium();
  std::array<std::uint8_t, crypto_sign_SEEDBYTES> seed{};
  rng.fill(seed);
  SigningKeyPair k;
  crypto_sign_seed_keypair(k.public_.data(), k.secret_.data(), seed.data());
  sodium_memzero(seed.data(), seed.size());
  return k;
}

SigningKeyPair SigningKeyPair::derive(std::span<const std::uint8_t> secret, std::string_view label) {
  ensure_sodium();
  std::array<std::uint8_t, crypto_sign_SEEDBYTES> seed{};
  crypto_generichash(seed.data(), seed.size(), reinterpret_cast<const unsigned char*>(label.data()), label.size(), secret.data(), secret.size());
  SigningKeyPair k;
  crypto_sign_seed_keypair(k.public_.data(), k.secret_.data(), seed.data());
  sodium_memzero(seed.data(), seed.size());
  return k;
}

Signature SigningKeyPair::sign(std::span<const std::uint8_t> message) const {
  Signature s{};
  crypto_sign_detached(s.data(), nullptr, message.data(), message.size(), secret_.data());
  return s;
}

bool signature_holds(const Signature& signature, std::span<const std::uint8_t> message, const SigningPublicKey& signer) {
  ensure_sodium();
  return crypto_sign_verify_detached(signature.data(), message.data(), message.size(), signer.data()) == 0;
}

constexpr std::string_view hop_label = "shufflempc/verifiable-hop/v2";

std::array<std::uint8_t, 32> input_root(const CiphertextBatch& input) {
  const auto bytes = input.to_bytes();
  return merkle::root(input.limbs() * ciphertext_bytes, bytes, hardware_threads());
}

std::vector<std::uint8_t> hop_statement(const ProofContext& context, const Point& key, const CiphertextBatch& input,
                                        const CiphertextBatch& output, const ShuffleProof& proof) {
  ensure_sodium();
  std::vector<std::uint8_t> out(hop_label.begin(), hop_label.end());
  append(out, context.to_bytes());
  append(out, key.bytes);
  // The input as a Merkle tree: hop 0's signature is the entry's commitment to the batch it
  // admitted, and a sender's path shows its record in it (net/receipts.hpp).
  append(out, input_root(input));
  append(out, digest_of(output.to_bytes()));
  append(out, digest_of(proof.to_bytes()));
  return out;
}

std::optional<std::array<std::uint8_t, 32>> statement_input_root(std::span<const std::uint8_t> statement, const ProofContext& context,
                                                                const Point& key) {
  std::vector<std::uint8_t> head(hop_label.begin(), hop_label.end());
  append(head, context.to_bytes());
  append(head, key.bytes);
  if (statement.size() != head.size() + 3 * 32 || !std::equal(head.begin(), head.end(), statement.begin())) return std::nullopt;
  std::array<std::uint8_t, 32> root{};
  std::copy_n(statement.begin() + static_cast<std::ptrdiff_t>(head.size()), root.size(), root.begin());
  return root;
}

}  // namespace shufflempc::mixnet
