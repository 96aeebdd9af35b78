// The servers' signing identities and the statement each signs for its hop (mixnet/signing.hpp).
#include <doctest/doctest.h>

#include <functional>

#include "shufflempc/mixnet/signing.hpp"

using namespace shufflempc;
using namespace shufflempc::mixnet;

TEST_CASE("mixnet signing: a signature holds for its own key and message only, and derived keys are deterministic and separated") {
  SeededRng rng(5);
  const SigningKeyPair a = SigningKeyPair::generate(rng), b = SigningKeyPair::generate(rng);
  CHECK(a.public_key() != b.public_key());
  const std::vector<std::uint8_t> message = {1, 2, 3};
  const Signature s = a.sign(message);
  CHECK(signature_holds(s, message, a.public_key()));
  CHECK_FALSE(signature_holds(s, message, b.public_key()));
  CHECK_FALSE(signature_holds(s, std::vector<std::uint8_t>{1, 2, 4}, a.public_key()));
  for (std::size_t i = 0; i < s.size(); i += 7) {
    Signature flipped = s;
    flipped[i] ^= 1;
    CHECK_FALSE(signature_holds(flipped, message, a.public_key()));
  }
  const std::array<std::uint8_t, 32> secret{9}, other{8};
  CHECK(SigningKeyPair::derive(secret, "label").public_key() == SigningKeyPair::derive(secret, "label").public_key());
  CHECK(SigningKeyPair::derive(secret, "label").public_key() != SigningKeyPair::derive(secret, "other label").public_key());
  CHECK(SigningKeyPair::derive(secret, "label").public_key() != SigningKeyPair::derive(other, "label").public_key());
}

TEST_CASE("mixnet signing: a hop's statement binds its session, round, hop, key, input, output and proof") {
  SeededRng rng(6);
  const ElGamalKey key = ElGamalKey::generate(rng);
  const CiphertextBatch input = encrypt_batch(MessageBatch::from_bytes(1, std::vector<std::uint8_t>{1, 2, 3}), key.public_key, rng, 1);
  const ProofContext ctx{SessionId{1}, 2, 3};
  auto mixed = reencrypt_shuffle(input, key.public_key, rng, 1);
  const ShuffleProof proof = prove_shuffle(ctx, key.public_key, input, mixed.output, mixed.witness, rng, 1);
  const auto statement = hop_statement(ctx, key.public_key, input, mixed.output, proof);
  CHECK(statement == hop_statement(ctx, key.public_key, input, mixed.output, proof));
  auto other_output = mixed.output;
  std::swap(other_output.at(0, 0), other_output.at(1, 0));
  auto other_proof = proof;
  other_proof = prove_shuffle(ctx, key.public_key, input, mixed.output, mixed.witness, rng, 1);  // fresh nonces: other bytes
  const std::vector<std::pair<const char*, std::function<std::vector<std::uint8_t>()>>> changes = {
      {"session", [&] { return hop_statement({SessionId{2}, 2, 3}, key.public_key, input, mixed.output, proof); }},
      {"round", [&] { return hop_statement({SessionId{1}, 3, 3}, key.public_key, input, mixed.output, proof); }},
      {"hop", [&] { return hop_statement({SessionId{1}, 2, 4}, key.public_key, input, mixed.output, proof); }},
      {"key", [&] { return hop_statement(ctx, base_point(), input, mixed.output, proof); }},
      {"input", [&] { return hop_statement(ctx, key.public_key, mixed.output, mixed.output, proof); }},
      {"output", [&] { return hop_statement(ctx, key.public_key, input, other_output, proof); }},
      {"proof", [&] { return hop_statement(ctx, key.public_key, input, mixed.output, other_proof); }},
  };
  for (const auto& [what, change] : changes) {
    CAPTURE(what);
    CHECK(change() != statement);
  }
}
