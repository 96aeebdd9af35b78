// The proof of shuffle (mixnet/shuffle_proof.hpp): honest shuffles verify; a hop that swaps, drops,
// duplicates or replaces a record, or re-encrypts one wrongly, is caught, whether it keeps the
// honest proof or proves its altered output with its witness; every single flipped byte of a
// proof is refused; a proof checks only for its own session, round, hop and key.
#include <doctest/doctest.h>

#include <array>

#include <functional>
#include <string>

#include "shufflempc/little_endian.hpp"
#include "shufflempc/mixnet/shuffle_proof.hpp"
#include "support/stats.hpp"

using namespace shufflempc;
using namespace shufflempc::mixnet;

namespace {

constexpr unsigned threads = 2;

ProofContext context_of(std::uint8_t session, std::uint32_t round, std::uint32_t hop) {
  ProofContext c;
  c.session.fill(session);
  c.round = round;
  c.hop = hop;
  return c;
}

struct Fixture {
  ElGamalKey key;
  CiphertextBatch input;
  Fixture(std::size_t records, std::size_t limbs, Rng& rng) : key(ElGamalKey::generate(rng)), input(limbs, records) {
    for (std::size_t i = 0; i < records; ++i)
      for (std::size_t j = 0; j < limbs; ++j) input.at(i, j) = encrypt_point(mul_base(scalar_from_u64(i * 7 + j)), key.public_key, random_scalar(rng));
  }
};

// One honest hop: its input, its shuffle and its proof for `ctx`.
struct Honest {
  SeededRng rng;
  Fixture f;
  ProofContext ctx;
  Shuffled s;
  ShuffleProof proof;
  Honest(std::uint64_t seed, std::size_t records, std::size_t limbs, const ProofContext& context)
      : rng(seed), f(records, limbs, rng), ctx(context), s(reencrypt_shuffle(f.input, f.key.public_key, rng, threads)),
        proof(prove_shuffle(ctx, f.key.public_key, f.input, s.output, s.witness, rng, threads)) {}
  // The verifier's verdict on `p` for this hop's batches under `context` and `key`.
  [[nodiscard]] std::string check(const ShuffleProof& p, const ProofContext& context, const Point& key) const {
    return check_shuffle(context, key, f.input, s.output, p, threads);
  }
  [[nodiscard]] std::string check(const ShuffleProof& p) const { return check(p, ctx, f.key.public_key); }
};

// What the verifier says of `output` and its proof when a hop alters its output with `cheat`:
// (a) after proving honestly, (b) before proving with its honest witness.
std::pair<std::string, std::string> cheat_verdicts(std::size_t records, std::size_t limbs, std::uint64_t seed,
                                                   const std::function<void(CiphertextBatch&, const Fixture&, Rng&)>& cheat) {
  Honest h(seed, records, limbs, context_of(1, 0, 0));
  REQUIRE(h.check(h.proof).empty());
  const Point& key = h.f.key.public_key;
  CiphertextBatch altered = h.s.output;
  cheat(altered, h.f, h.rng);
  REQUIRE(altered != h.s.output);
  std::string after = check_shuffle(h.ctx, key, h.f.input, altered, h.proof, threads);
  std::string before = "(sizes differ: not provable)";
  if (altered.size() == h.f.input.size()) {
    const ShuffleProof forged = prove_shuffle(h.ctx, key, h.f.input, altered, h.s.witness, h.rng, threads);
    before = check_shuffle(h.ctx, key, h.f.input, altered, forged, threads);
  }
  return {after, before};
}

void check_caught(const std::function<void(CiphertextBatch&, const Fixture&, Rng&)>& cheat) {
  for (std::size_t limbs : {1u, 2u}) {
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      CAPTURE(limbs);
      CAPTURE(seed);
      const auto [after, before] = cheat_verdicts(12, limbs, seed, cheat);
      CHECK_FALSE(after.empty());
      CHECK_FALSE(before.empty());
    }
  }
}

}  // namespace

TEST_CASE("proof of shuffle: honest shuffles of N = 1..16 and N = 31, 64, 100, 257, 1000 records of one limb verify") {
  std::vector<std::size_t> sizes;
  for (std::size_t n = 1; n <= 16; ++n) sizes.push_back(n);
  for (std::size_t n : {31u, 64u, 100u, 257u, 1000u}) sizes.push_back(n);
  SeededRng rng(11);
  for (std::size_t n : sizes) {
    CAPTURE(n);
    const Fixture f(n, 1, rng);
    const auto ctx = context_of(2, 3, 1);
    const auto s = reencrypt_shuffle(f.input, f.key.public_key, rng, threads);
    const auto proof = prove_shuffle(ctx, f.key.public_key, f.input, s.output, s.witness, rng, threads);
    CHECK(check_shuffle(ctx, f.key.public_key, f.input, s.output, proof, threads) == "");
    // The output is a permutation of re-encryptions: no record is left as it came in.
    for (std::size_t i = 0; i < n; ++i) CHECK(s.output.at(i, 0) != f.input.at(s.witness.permutation[i], 0));
  }
}

TEST_CASE("proof of shuffle: an empty batch has a proof of the fixed size that verifies, and nothing can be added to it") {
  SeededRng rng(18);
  const ElGamalKey key = ElGamalKey::generate(rng);
  const CiphertextBatch empty(2, 0);
  const auto ctx = context_of(1, 0, 0);
  const auto s = reencrypt_shuffle(empty, key.public_key, rng, threads);
  CHECK(s.output.size() == 0);
  const auto proof = prove_shuffle(ctx, key.public_key, empty, s.output, s.witness, rng, threads);
  CHECK(proof.to_bytes().size() == ShuffleProof::size_bytes(0, 2));
  CHECK(check_shuffle(ctx, key.public_key, empty, s.output, proof, threads) == "");
  CiphertextBatch one(2, 1);
  one.at(0, 0) = encrypt_point(mul_base(scalar_from_u64(1)), key.public_key, random_scalar(rng));
  one.at(0, 1) = encrypt_point(mul_base(scalar_from_u64(1)), key.public_key, random_scalar(rng));
  CHECK(check_shuffle(ctx, key.public_key, empty, one, proof, threads) == "the output has 1 records, the input 0");
}

TEST_CASE("proof of shuffle: records of 2, 3 and 8 limbs move as one and verify, N = 1..6 and 50") {
  SeededRng rng(12);
  for (std::size_t limbs : {2u, 3u, 8u}) {
    for (std::size_t n : {1u, 2u, 3u, 4u, 5u, 6u, 50u}) {
      CAPTURE(limbs);
      CAPTURE(n);
      const Fixture f(n, limbs, rng);
      const auto ctx = context_of(3, 0, 2);
      const auto s = reencrypt_shuffle(f.input, f.key.public_key, rng, 1);
      const auto proof = prove_shuffle(ctx, f.key.public_key, f.input, s.output, s.witness, rng, 1);
      CHECK(check_shuffle(ctx, f.key.public_key, f.input, s.output, proof, 1) == "");
      CHECK(proof.to_bytes().size() == ShuffleProof::size_bytes(n, limbs));
      CHECK(ShuffleProof::from_bytes(n, limbs, proof.to_bytes(), "proof") == proof);
    }
  }
}

TEST_CASE("proof of shuffle: a hop that swaps two records is caught") {
  check_caught([](CiphertextBatch& out, const Fixture&, Rng&) {
    for (std::size_t j = 0; j < out.limbs(); ++j) std::swap(out.at(2, j), out.at(7, j));
  });
}

TEST_CASE("proof of shuffle: a hop that drops a record is caught (alone, or with another record copied in its place)") {
  check_caught([](CiphertextBatch& out, const Fixture&, Rng&) {
    CiphertextBatch shorter(out.limbs(), out.size() - 1);
    for (std::size_t i = 0; i + 1 < out.size(); ++i)
      for (std::size_t j = 0; j < out.limbs(); ++j) shorter.at(i, j) = out.at(i, j);
    out = shorter;
  });
  check_caught([](CiphertextBatch& out, const Fixture&, Rng&) {
    for (std::size_t j = 0; j < out.limbs(); ++j) out.at(5, j) = out.at(4, j);
  });
}

TEST_CASE("proof of shuffle: a hop that duplicates a record re-encrypted (a copy unlinkable by its bytes) is caught") {
  check_caught([](CiphertextBatch& out, const Fixture& f, Rng& rng) {
    for (std::size_t j = 0; j < out.limbs(); ++j) out.at(9, j) = reencrypt(out.at(3, j), f.key.public_key, random_scalar(rng));
  });
}

TEST_CASE("proof of shuffle: a hop that replaces a record with a fresh encryption of its own is caught") {
  check_caught([](CiphertextBatch& out, const Fixture& f, Rng& rng) {
    for (std::size_t j = 0; j < out.limbs(); ++j) out.at(0, j) = encrypt_point(mul_base(scalar_from_u64(42)), f.key.public_key, random_scalar(rng));
  });
}

TEST_CASE("proof of shuffle: a hop that re-encrypts one limb wrongly (another plaintext, or c1 and c2 with different randomness) is caught") {
  check_caught([](CiphertextBatch& out, const Fixture&, Rng&) { out.at(6, out.limbs() - 1).c2 = out.at(6, out.limbs() - 1).c2 + base_point(); });
  check_caught([](CiphertextBatch& out, const Fixture&, Rng&) { out.at(1, 0).c1 = out.at(1, 0).c1 + base_point(); });
}

TEST_CASE("proof of shuffle: a witness whose permutation does not match the output gives a proof that fails") {
  SeededRng rng(13);
  const Fixture f(8, 1, rng);
  const auto ctx = context_of(1, 0, 0);
  auto s = reencrypt_shuffle(f.input, f.key.public_key, rng, threads);
  std::swap(s.witness.permutation[0], s.witness.permutation[1]);
  const auto proof = prove_shuffle(ctx, f.key.public_key, f.input, s.output, s.witness, rng, threads);
  CHECK_FALSE(check_shuffle(ctx, f.key.public_key, f.input, s.output, proof, threads).empty());
}

TEST_CASE("proof of shuffle: every single flipped byte of a proof is refused, by the parser or by the check") {
  const Honest h(14, 3, 1, context_of(1, 0, 0));
  const auto bytes = h.proof.to_bytes();
  REQUIRE(h.check(ShuffleProof::from_bytes(3, 1, bytes, "proof")).empty());
  std::size_t parser = 0, check = 0;
  for (std::size_t at = 0; at < bytes.size(); ++at) {
    CAPTURE(at);
    auto bad = bytes;
    bad[at] ^= 0x01;
    ShuffleProof p;
    try {
      p = ShuffleProof::from_bytes(3, 1, bad, "proof");
    } catch (const std::invalid_argument&) {
      ++parser;
      continue;
    }
    CHECK_FALSE(h.check(p).empty());
    ++check;
  }
  CHECK(parser + check == bytes.size());
  CHECK(check > 0);  // the check itself, not only the parser, refuses altered proofs
}

TEST_CASE("proof of shuffle: a proof checks only for its own session, round, hop and key") {
  Honest h(15, 10, 1, context_of(1, 4, 2));
  const Point& key = h.f.key.public_key;
  REQUIRE(h.check(h.proof).empty());
  CHECK_FALSE(h.check(h.proof, context_of(9, 4, 2), key).empty());
  CHECK_FALSE(h.check(h.proof, context_of(1, 5, 2), key).empty());
  CHECK_FALSE(h.check(h.proof, context_of(1, 4, 1), key).empty());
  CHECK_FALSE(h.check(h.proof, h.ctx, ElGamalKey::generate(h.rng).public_key).empty());
  // The output as the input of the same proof (a replay one hop later) fails too.
  CHECK_FALSE(check_shuffle(h.ctx, key, h.s.output, h.s.output, h.proof, threads).empty());
}

TEST_CASE("proof of shuffle: a proof of the wrong size or with a non-canonical point is refused with the reason") {
  auto bytes = Honest(16, 4, 2, context_of(1, 0, 0)).proof.to_bytes();
  CHECK_THROWS_WITH_AS((void)ShuffleProof::from_bytes(5, 2, bytes, "hop proof"), doctest::Contains("hop proof"), std::invalid_argument);
  bytes[0] = 0xff;
  bytes[31] = 0xff;
  CHECK_THROWS_WITH_AS((void)ShuffleProof::from_bytes(4, 2, bytes, "hop proof"), doctest::Contains("not a canonical encoding"), std::invalid_argument);
}

TEST_CASE("proof of shuffle: a hop's permutation is uniform over the 6 orders of 3 records, and its output decrypts to the permuted input") {
  SeededRng rng(17);
  const ElGamalKey key = ElGamalKey::generate(rng);
  MessageBatch plain(2, 3);
  for (std::size_t i = 0; i < 3; ++i) plain[i][0] = static_cast<std::uint8_t>(10 + i);
  const CiphertextBatch input = encrypt_batch(plain, key.public_key, rng, 1);
  constexpr std::size_t trials = 3000;
  std::vector<std::uint64_t> counts(6);
  for (std::size_t t = 0; t < trials; ++t) {
    const auto s = reencrypt_shuffle(input, key.public_key, rng, 1);
    const auto& p = s.witness.permutation;
    // The order's index among the 6 permutations of {0, 1, 2}: 2 * first + (second > third).
    counts[2 * p[0] + (p[1] > p[2] ? 1 : 0)] += 1;
    if (t < 20) {
      // What the hop claims is what the ciphertexts hold.
      for (std::size_t i = 0; i < 3; ++i) {
        std::array<std::uint8_t, 2> m{};
        REQUIRE(extract_limb(s.output.at(i, 0).c2 - key.secret * s.output.at(i, 0).c1, m));
        CHECK(m[0] == 10 + p[i]);
      }
    }
  }
  const auto chi = shufflempc::test::chi_square(counts, std::vector<double>(6, 1.0 / 6));
  CAPTURE(chi.statistic);
  CHECK(chi.passes());
  for (auto c : counts) CHECK(c > 0);
}

TEST_CASE("proof of shuffle: the generators are hash_to_point of their label and index, whether made before or not") {
  // The proofs make them in coordinates and keep them; here the first call may find some made.
  for (const std::size_t count : {3, 40}) {
    const auto h = shuffle_generators(count, threads);
    REQUIRE(h.size() == count);
    for (std::size_t i = 0; i < count; ++i) {
      std::uint8_t b[8];
      store_le(b, std::uint64_t{i});
      CHECK(h[i] == hash_to_point("shufflempc/mixnet/shuffle/generator", b));
    }
  }
}
