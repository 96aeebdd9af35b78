#include "shufflempc/mixnet/shuffle_proof.hpp"

#include <sodium.h>

#include <algorithm>
#include <stdexcept>

#include "shufflempc/messages.hpp"
#include "shufflempc/parallel.hpp"
#include "detail.hpp"

namespace shufflempc::mixnet {
using detail::FirstFailure;
using detail::parallel_sums;

namespace {

void append(std::vector<std::uint8_t>& out, const Point& p) { out.insert(out.end(), p.bytes.begin(), p.bytes.end()); }
void append(std::vector<std::uint8_t>& out, const Scalar& s) { out.insert(out.end(), s.bytes.begin(), s.bytes.end()); }
void append(std::vector<std::uint8_t>& out, std::span<const Point> ps) {
  for (const auto& p : ps) append(out, p);
}
void append_u64(std::vector<std::uint8_t>& out, std::uint64_t v) {
  std::uint8_t b[8];
  store_le(b, v);
  out.insert(out.end(), b, b + 8);
}

// The statement every challenge binds: context, key, sizes, both batches, the permutation commitment.
std::vector<std::uint8_t> statement_seed(const ProofContext& context, const Point& key, const CiphertextBatch& input,
                                         const CiphertextBatch& output, std::span<const Point> c) {
  std::vector<std::uint8_t> s = context.to_bytes();
  append(s, key);
  append_u64(s, input.size());
  append_u64(s, input.limbs());
  const auto in = input.to_bytes(), out = output.to_bytes();
  s.insert(s.end(), in.begin(), in.end());
  s.insert(s.end(), out.begin(), out.end());
  append(s, c);
  std::array<std::uint8_t, 64> digest;
  crypto_generichash(digest.data(), digest.size(), s.data(), s.size(), nullptr, 0);
  return {digest.begin(), digest.end()};
}

// u_i: the verifier's random weights of the records, one hash per record.
std::vector<Scalar> record_weights(std::span<const std::uint8_t> seed, std::size_t n, unsigned threads) {
  std::vector<Scalar> u(n);
  parallel_for(n, threads, [&](std::size_t i) {
    std::vector<std::uint8_t> in(seed.begin(), seed.end());
    append_u64(in, i);
    u[i] = hash_to_scalar("shufflempc/mixnet/shuffle/u", in);
  });
  return u;
}

Scalar final_challenge(std::span<const std::uint8_t> seed, const ShuffleProof& p) {
  std::vector<std::uint8_t> in(seed.begin(), seed.end());
  append(in, p.c_hat);
  append(in, p.t1);
  append(in, p.t2);
  append(in, p.t3);
  append(in, p.t4);
  append(in, p.t_hat);
  return hash_to_scalar("shufflempc/mixnet/shuffle/challenge", in);
}

std::vector<Scalar> random_scalars(std::size_t n, Rng& rng) {
  std::vector<Scalar> v(n);
  for (auto& s : v) s = random_scalar(rng);
  return v;
}

void wipe(std::vector<Scalar>& v) {
  for (auto& s : v) sodium_memzero(s.bytes.data(), s.bytes.size());
}

}  // namespace

std::vector<std::uint8_t> ProofContext::to_bytes() const {
  std::vector<std::uint8_t> out(session.begin(), session.end());
  std::uint8_t b[8];
  store_le(b, round);
  store_le(b + 4, hop);
  out.insert(out.end(), b, b + 8);
  return out;
}

ShuffleWitness::~ShuffleWitness() { wipe(randomness); }

std::vector<Point> shuffle_generators(std::size_t count, unsigned threads) {
  std::vector<Point> h(count);
  parallel_for(count, threads, [&](std::size_t i) {
    std::uint8_t b[8];
    store_le(b, std::uint64_t{i});
    h[i] = hash_to_point("shufflempc/mixnet/shuffle/generator", b);
  });
  return h;
}

Shuffled reencrypt_shuffle(const CiphertextBatch& input, const Point& key, Rng& rng, unsigned threads) {
  const std::size_t n = input.size(), limbs = input.limbs();
  Shuffled s{CiphertextBatch(limbs, n), {}};
  s.witness.permutation.resize(n);
  for (std::size_t i = 0; i < n; ++i) s.witness.permutation[i] = static_cast<std::uint32_t>(i);
  // Fisher–Yates with rejection-free uniform draws (Rng::uniform).
  for (std::size_t i = n; i > 1; --i) std::swap(s.witness.permutation[i - 1], s.witness.permutation[rng.uniform(i)]);
  s.witness.randomness = random_scalars(n * limbs, rng);
  parallel_for(n, threads, [&](std::size_t i) {
    const auto from = input.record(s.witness.permutation[i]);
    for (std::size_t j = 0; j < limbs; ++j) s.output.at(i, j) = reencrypt(from[j], key, s.witness.randomness[i * limbs + j]);
  });
  return s;
}

std::size_t ShuffleProof::size_bytes(std::size_t records, std::size_t limbs) {
  return (3 * records + 3 + 2 * limbs) * point_bytes + (2 * records + 3 + limbs) * scalar_bytes;
}

std::vector<std::uint8_t> ShuffleProof::to_bytes() const {
  std::vector<std::uint8_t> out;
  out.reserve(size_bytes(c.size(), s4.size()));
  append(out, c);
  append(out, c_hat);
  append(out, t1);
  append(out, t2);
  append(out, t3);
  append(out, t4);
  append(out, t_hat);
  append(out, s1);
  append(out, s2);
  append(out, s3);
  for (const auto* v : {&s4, &s_hat, &s_prime})
    for (const auto& s : *v) append(out, s);
  return out;
}

ShuffleProof ShuffleProof::from_bytes(std::size_t records, std::size_t limbs, std::span<const std::uint8_t> bytes, const std::string& what) {
  if (bytes.size() != size_bytes(records, limbs))
    throw std::invalid_argument(what + ": " + std::to_string(bytes.size()) + " bytes, a proof for " + std::to_string(records) + " records of " +
                                std::to_string(limbs) + " limbs has " + std::to_string(size_bytes(records, limbs)));
  std::size_t at = 0;
  const auto point = [&] {
    Point p;
    std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(at), point_bytes, p.bytes.begin());
    if (!valid_point(p)) throw std::invalid_argument(what + ": the point at byte " + std::to_string(at) + " is not a canonical encoding");
    at += point_bytes;
    return p;
  };
  const auto scalar = [&] {
    Scalar s;
    std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(at), scalar_bytes, s.bytes.begin());
    if (!valid_scalar(s)) throw std::invalid_argument(what + ": the scalar at byte " + std::to_string(at) + " is not below the group order");
    at += scalar_bytes;
    return s;
  };
  const auto points = [&](std::size_t n) {
    std::vector<Point> v(n);
    for (auto& p : v) p = point();
    return v;
  };
  const auto scalars = [&](std::size_t n) {
    std::vector<Scalar> v(n);
    for (auto& s : v) s = scalar();
    return v;
  };
  ShuffleProof p;
  p.c = points(records);
  p.c_hat = points(records);
  p.t1 = point();
  p.t2 = point();
  p.t3 = point();
  p.t4 = points(2 * limbs);
  p.t_hat = points(records);
  p.s1 = scalar();
  p.s2 = scalar();
  p.s3 = scalar();
  p.s4 = scalars(limbs);
  p.s_hat = scalars(records);
  p.s_prime = scalars(records);
  return p;
}

ShuffleProof prove_shuffle(const ProofContext& context, const Point& key, const CiphertextBatch& input, const CiphertextBatch& output,
                           const ShuffleWitness& witness, Rng& rng, unsigned threads) {
  const std::size_t n = input.size(), limbs = input.limbs();
  if (output.size() != n || output.limbs() != limbs || witness.permutation.size() != n || witness.randomness.size() != n * limbs)
    throw std::invalid_argument("prove_shuffle: the batches and the witness differ in size");
  const auto& pi = witness.permutation;
  const auto h = shuffle_generators(n + 1, threads);  // h[0] = H, h[i + 1] = H_i
  ShuffleProof p;

  // The permutation commitment: c[pi(i)] = r[pi(i)]·G + H_i.
  auto r = random_scalars(n, rng);
  p.c.resize(n);
  parallel_for(n, threads, [&](std::size_t i) { p.c[pi[i]] = mul_base(r[pi[i]]) + h[i + 1]; });
  const auto seed = statement_seed(context, key, input, output, p.c);
  const auto u = record_weights(seed, n, threads);
  std::vector<Scalar> u_out(n);  // u'_i = u[pi(i)]
  for (std::size_t i = 0; i < n; ++i) u_out[i] = u[pi[i]];

  // The commitment chain c_hat[i] = r_hat[i]·G + u'_i·c_hat[i-1] from c_hat[-1] = H, in closed
  // form c_hat[i] = R[i]·G + U[i]·H so that every link is computed in parallel.
  auto r_hat = random_scalars(n, rng);
  std::vector<Scalar> big_r(n), big_u(n);
  for (std::size_t i = 0; i < n; ++i) {
    big_r[i] = i == 0 ? r_hat[0] : r_hat[i] + u_out[i] * big_r[i - 1];
    big_u[i] = i == 0 ? u_out[0] : u_out[i] * big_u[i - 1];
  }
  p.c_hat.resize(n);
  parallel_for(n, threads, [&](std::size_t i) { p.c_hat[i] = mul_base(big_r[i]) + big_u[i] * h[0]; });

  // The commitments.
  const Scalar w1 = random_scalar(rng), w2 = random_scalar(rng), w3 = random_scalar(rng);
  auto w4 = random_scalars(limbs, rng);
  auto w_hat = random_scalars(n, rng);
  auto w_prime = random_scalars(n, rng);
  p.t1 = mul_base(w1);
  p.t2 = mul_base(w2);
  // sums[0] = Σ w'_i H_i; per limb j: sums[1 + 2j] = Σ w'_i c2'_ij, sums[2 + 2j] = Σ w'_i c1'_ij.
  const auto sums = parallel_sums(n, 1 + 2 * limbs, threads, [&](std::size_t i, std::span<Point> acc) {
    acc[0] = acc[0] + w_prime[i] * h[i + 1];
    for (std::size_t j = 0; j < limbs; ++j) {
      acc[1 + 2 * j] = acc[1 + 2 * j] + w_prime[i] * output.at(i, j).c2;
      acc[2 + 2 * j] = acc[2 + 2 * j] + w_prime[i] * output.at(i, j).c1;
    }
  });
  p.t3 = mul_base(w3) + sums[0];
  p.t4.resize(2 * limbs);
  for (std::size_t j = 0; j < limbs; ++j) {
    p.t4[2 * j] = sums[1 + 2 * j] - w4[j] * key;
    p.t4[2 * j + 1] = sums[2 + 2 * j] - mul_base(w4[j]);
  }
  p.t_hat.resize(n);
  parallel_for(n, threads, [&](std::size_t i) { p.t_hat[i] = mul_base(w_hat[i]) + w_prime[i] * (i == 0 ? h[0] : p.c_hat[i - 1]); });

  // The challenge and the responses.
  const Scalar e = final_challenge(seed, p);
  Scalar r_sum, r_weighted, r_chain;
  Scalar v = scalar_from_u64(1);  // v_i = u'_{i+1} ··· u'_{N-1}
  for (std::size_t i = n; i-- > 0;) {
    r_chain = r_chain + r_hat[i] * v;
    v = v * u_out[i];
  }
  for (std::size_t k = 0; k < n; ++k) {
    r_sum = r_sum + r[k];
    r_weighted = r_weighted + r[k] * u[k];
  }
  p.s1 = w1 - e * r_sum;
  p.s2 = w2 - e * r_chain;
  p.s3 = w3 - e * r_weighted;
  p.s4.resize(limbs);
  for (std::size_t j = 0; j < limbs; ++j) {
    Scalar rho;
    for (std::size_t i = 0; i < n; ++i) rho = rho + witness.randomness[i * limbs + j] * u_out[i];
    p.s4[j] = w4[j] - e * rho;
  }
  p.s_hat.resize(n);
  p.s_prime.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    p.s_hat[i] = w_hat[i] - e * r_hat[i];
    p.s_prime[i] = w_prime[i] - e * u_out[i];
  }
  for (auto* secret : {&r, &r_hat, &big_r, &w4, &w_hat, &w_prime}) wipe(*secret);
  return p;
}

std::string check_shuffle(const ProofContext& context, const Point& key, const CiphertextBatch& input, const CiphertextBatch& output,
                          const ShuffleProof& p, unsigned threads) {
  const std::size_t n = input.size(), limbs = input.limbs();
  if (output.limbs() != limbs) return "the output's records have " + std::to_string(output.limbs()) + " limbs, the input's " + std::to_string(limbs);
  if (output.size() != n) return "the output has " + std::to_string(output.size()) + " records, the input " + std::to_string(n);
  if (p.c.size() != n || p.c_hat.size() != n || p.t_hat.size() != n || p.s_hat.size() != n || p.s_prime.size() != n ||
      p.t4.size() != 2 * limbs || p.s4.size() != limbs)
    return "the proof's sizes do not match " + std::to_string(n) + " records of " + std::to_string(limbs) + " limbs";
  const auto h = shuffle_generators(n + 1, threads);
  const auto seed = statement_seed(context, key, input, output, p.c);
  const auto u = record_weights(seed, n, threads);
  const Scalar e = final_challenge(seed, p);

  // sums[0] = Σ c_i, sums[1] = Σ H_i, sums[2] = Σ u_i c_i, sums[3] = Σ s'_i H_i; per limb j:
  // sums[4 + 4j ..] = Σ u_i c2_ij, Σ u_i c1_ij, Σ s'_i c2'_ij, Σ s'_i c1'_ij.
  const auto sums = parallel_sums(n, 4 + 4 * limbs, threads, [&](std::size_t i, std::span<Point> acc) {
    acc[0] = acc[0] + p.c[i];
    acc[1] = acc[1] + h[i + 1];
    acc[2] = acc[2] + u[i] * p.c[i];
    acc[3] = acc[3] + p.s_prime[i] * h[i + 1];
    for (std::size_t j = 0; j < limbs; ++j) {
      acc[4 + 4 * j] = acc[4 + 4 * j] + u[i] * input.at(i, j).c2;
      acc[5 + 4 * j] = acc[5 + 4 * j] + u[i] * input.at(i, j).c1;
      acc[6 + 4 * j] = acc[6 + 4 * j] + p.s_prime[i] * output.at(i, j).c2;
      acc[7 + 4 * j] = acc[7 + 4 * j] + p.s_prime[i] * output.at(i, j).c1;
    }
  });
  Scalar u_prod = scalar_from_u64(1);
  for (const auto& ui : u) u_prod = u_prod * ui;
  const Point c_bar = sums[0] - sums[1];
  const Point c_hat_end = n == 0 ? h[0] : p.c_hat[n - 1];
  const Point c_hat_bar = c_hat_end - u_prod * h[0];
  if (e * c_bar + mul_base(p.s1) != p.t1) return "t1 does not check (the permutation commitment's sum)";
  if (e * c_hat_bar + mul_base(p.s2) != p.t2) return "t2 does not check (the commitment chain's end)";
  if (e * sums[2] + mul_base(p.s3) + sums[3] != p.t3) return "t3 does not check (the weighted permutation commitment)";
  for (std::size_t j = 0; j < limbs; ++j) {
    if (e * sums[4 + 4 * j] - p.s4[j] * key + sums[6 + 4 * j] != p.t4[2 * j] ||
        e * sums[5 + 4 * j] - mul_base(p.s4[j]) + sums[7 + 4 * j] != p.t4[2 * j + 1])
      return "t4 of limb " + std::to_string(j) + " does not check (the re-encryption)";
  }
  FirstFailure bad(n);
  parallel_for(n, threads, [&](std::size_t i) {
    if (e * p.c_hat[i] + mul_base(p.s_hat[i]) + p.s_prime[i] * (i == 0 ? h[0] : p.c_hat[i - 1]) != p.t_hat[i]) bad.note(i);
  });
  if (bad.any()) return "t_hat of record " + std::to_string(bad.index()) + " does not check (the commitment chain)";
  return {};
}

}  // namespace shufflempc::mixnet
