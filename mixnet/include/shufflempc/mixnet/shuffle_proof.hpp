// A re-encryption shuffle and its zero-knowledge proof (Terelius and Wikström, AFRICACRYPT 2010, in
// the pseudo-code of Haenni, Locher, Koenig and Dubuis, "Pseudo-code algorithms for verifiable
// re-encryption mix-nets", FC 2017 Workshops: GenShuffleProof / CheckShuffleProof), written
// additively over ristretto255 and extended to records of several limbs: every limb of a record is
// re-encrypted with its own randomness and the record moves as one, so the proof carries one pair
// of t4 commitments and one s4 response per limb.
//
// The proof is non-interactive by Fiat–Shamir (BLAKE2b). Its challenges bind the context (session,
// round, hop), the key, the input and output batches and the prover's commitments, so a proof
// checks for exactly one hop of one round of one session. The independent generators H, H_1..H_N
// are hashes to the group of fixed labels: nobody knows a relation between them.
//
// The products are computed below libsodium's API (detail/edwards.hpp): the shuffle and the proof,
// whose scalars are secret, with constant-time combs (G, H, the key) and Straus's method (the sums);
// the check as one weighted multi-scalar multiplication of all its equations (Pippenger; soundness
// error 2^-128, then equation by equation to name a failure). Measured for one-limb records
// (bench_verifiable_shuffle): proving about 2.5 and checking about 1.2 of libsodium's scalar
// multiplications a record. Both run on `threads` threads; the generators H_i are kept by the process.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/channel.hpp"
#include "shufflempc/mixnet/elgamal.hpp"

namespace shufflempc::mixnet {

// What the proof's challenges bind besides the batches and the key.
struct ProofContext {
  SessionId session{};
  std::uint32_t round = 0;
  std::uint32_t hop = 0;
  // The bytes each record decodes to (its limbs carry 2 each, so the limbs alone leave it open):
  // every proof of shuffle, hop signature and decryption proof is bound to it, so that a transcript
  // whose width was changed fails them. 0 where the records are not a round's (the proofs' own tests).
  std::uint32_t width = 0;
  [[nodiscard]] std::vector<std::uint8_t> to_bytes() const;
};

// What the prover knows: output record i is input record permutation[i], every limb re-encrypted
// with randomness[i * limbs + limb]. The randomness is wiped on destruction.
struct ShuffleWitness {
  std::vector<std::uint32_t> permutation;
  std::vector<Scalar> randomness;
  ShuffleWitness() = default;
  ShuffleWitness(ShuffleWitness&&) = default;
  ShuffleWitness& operator=(ShuffleWitness&&) = default;
  ~ShuffleWitness();
};

struct Shuffled {
  CiphertextBatch output;
  ShuffleWitness witness;
};
// Permutes `input` uniformly and re-encrypts every limb under `key`, drawing the permutation and
// the randomness from `rng`.
[[nodiscard]] Shuffled reencrypt_shuffle(const CiphertextBatch& input, const Point& key, Rng& rng, unsigned threads);

struct ShuffleProof {
  std::vector<Point> c;      // the permutation commitment, one per record
  std::vector<Point> c_hat;  // the commitment chain, one per record
  Point t1, t2, t3;
  std::vector<Point> t4;     // per limb: the c2 side, then the c1 side
  std::vector<Point> t_hat;  // one per record
  Scalar s1, s2, s3;
  std::vector<Scalar> s4;       // one per limb
  std::vector<Scalar> s_hat;    // one per record
  std::vector<Scalar> s_prime;  // one per record

  [[nodiscard]] static std::size_t size_bytes(std::size_t records, std::size_t limbs);
  [[nodiscard]] std::vector<std::uint8_t> to_bytes() const;
  // Throws std::invalid_argument naming `what` on a wrong size, a non-canonical point or a scalar
  // not below the group order.
  [[nodiscard]] static ShuffleProof from_bytes(std::size_t records, std::size_t limbs, std::span<const std::uint8_t> bytes,
                                               const std::string& what);
  friend bool operator==(const ShuffleProof&, const ShuffleProof&) = default;
};

// The proof that `output` is a re-encrypted permutation of `input` under `key`, from the witness.
// (A prover whose witness does not match the batches produces a proof that does not check.)
[[nodiscard]] ShuffleProof prove_shuffle(const ProofContext& context, const Point& key, const CiphertextBatch& input,
                                         const CiphertextBatch& output, const ShuffleWitness& witness, Rng& rng, unsigned threads);

// "" if `proof` shows that `output` is a re-encrypted permutation of `input`; otherwise which check
// failed (sizes, a commitment, the challenge).
[[nodiscard]] std::string check_shuffle(const ProofContext& context, const Point& key, const CiphertextBatch& input,
                                        const CiphertextBatch& output, const ShuffleProof& proof, unsigned threads);

// The generators H_0 (the chain's base) .. H_count-1 of the commitments.
[[nodiscard]] std::vector<Point> shuffle_generators(std::size_t count, unsigned threads);

}  // namespace shufflempc::mixnet
