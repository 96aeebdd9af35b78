// Further server 1 of a verifiable chain as the tests drive it (tests/net/mix_server_thread.hpp),
// and a hop of such a chain made here by the holder of a server's key file.
#pragma once

#include <cstdint>

#include "net/mix_server_thread.hpp"
#include "shufflempc/mixnet/shuffle_proof.hpp"
#include "shufflempc/mixnet/transcript.hpp"
#include "shufflempc/net/local.hpp"
#include "shufflempc/net/round_shapes.hpp"
#include "shufflempc/net/verifiable.hpp"

namespace shufflempc::test {

// Hop `hop` of round `round` of `d`'s session, made by the holder of `server` (a key file): the
// input re-encrypted, permuted, proved and signed with the signing key that key file derives.
inline mixnet::HopTranscript shuffle_as(const net::LocalDeployment& d, const net::KeyPair& server, std::uint32_t round, std::uint32_t hop,
                                 const mixnet::CiphertextBatch& in, Rng& rng) {
  const auto key = net::round_key(d.config, d.config.rounds[round].delivery).key();
  const mixnet::ProofContext ctx{d.config.session, round, hop, static_cast<std::uint32_t>(d.config.rounds[round].record_width)};
  auto mixed = mixnet::reencrypt_shuffle(in, key, rng, 2);
  auto proof = mixnet::prove_shuffle(ctx, key, in, mixed.output, mixed.witness, rng, 2);
  const auto signature = net::signing_key_of(server).sign(mixnet::hop_statement(ctx, key, in, mixed.output, proof));
  return {std::move(mixed.output), std::move(proof), signature};
}

// Further server 1 of a verifiable chain of 3 (two rounds to every party, one-limb records), and a
// client playing the entry: what the server shuffles and what it agrees to decrypt.
struct VerifiableServer : test::MixServerThread {
  mixnet::RoundKey key;

  explicit VerifiableServer(const net::MixServerOptions& options = {}) {
    net::SessionConfig base;
    base.protocol = "(test)";
    base.deadline = std::chrono::milliseconds(10'000);
    base.mix = net::MixKind::verifiable;
    const RoundShape shape{.width = net::verifiable_width(1), .delivery = Delivery::all_parties, .min_messages = 1, .max_messages = 1, .record_width = 1};
    base.rounds = {shape, shape};
    local = net::LocalDeployment::create(4, rng, base, 3);
    key = net::round_key(local.config, Delivery::all_parties);
    start(options);
  }
  // Hop `hop` played here: shuffled, proved and signed honestly with its server's key.
  mixnet::HopTranscript shuffle(std::uint32_t round, std::uint32_t hop, const mixnet::CiphertextBatch& in) {
    return shuffle_as(local, hop == 0 ? local.shuffler : local.further_server_keys[hop - 1], round, hop, in, rng);
  }
};


}  // namespace shufflempc::test
