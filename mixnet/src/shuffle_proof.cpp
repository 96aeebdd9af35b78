#include "shufflempc/mixnet/shuffle_proof.hpp"

#include <sodium.h>

#include <algorithm>
#include <stdexcept>

#include <mutex>

#include "shufflempc/messages.hpp"
#include "shufflempc/mixnet/detail/edwards.hpp"
#include "shufflempc/parallel.hpp"
#include "detail.hpp"

namespace shufflempc::mixnet {
using detail::batch_weight;
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

// The generators H_0 .. H_count-1 in affine form. They depend on nothing but their index, so the
// process keeps those it has made: the hops of one chain, and the rounds of a mix server, share them.
std::vector<edwards::Niels> generators(std::size_t count, unsigned threads) {
  static std::mutex mutex;
  static std::vector<edwards::Niels> made;
  std::lock_guard lock(mutex);
  if (made.size() < count) {
    // hash_to_point of the label and the index (RFC 9496's map), in coordinates, never encoded.
    std::vector<edwards::Ext> more(count - made.size());
    parallel_for(more.size(), threads, [&](std::size_t i) {
      std::uint8_t b[8];
      store_le(b, std::uint64_t{made.size() + i});
      more[i] = edwards::from_hash(wide_hash("shufflempc/mixnet/shuffle/generator", b));
    });
    const auto affine = edwards::to_niels(more);
    made.insert(made.end(), affine.begin(), affine.end());
  }
  return {made.begin(), made.begin() + static_cast<std::ptrdiff_t>(count)};
}

// Decodes every point of `points` into out[at ..]; false if one is not a canonical encoding.
bool decode_into(std::span<const Point> points, std::vector<edwards::Niels>& out, std::size_t at, unsigned threads) {
  std::atomic<bool> bad{false};
  parallel_for(points.size(), threads, [&](std::size_t i) {
    if (!edwards::decode(points[i], out[at + i])) bad = true;
  });
  return !bad;
}

}  // namespace

std::vector<std::uint8_t> ProofContext::to_bytes() const {
  std::vector<std::uint8_t> out(session.begin(), session.end());
  std::uint8_t b[12];
  store_le(b, round);
  store_le(b + 4, hop);
  store_le(b + 8, width);
  out.insert(out.end(), b, b + 12);
  return out;
}

ShuffleWitness::~ShuffleWitness() { wipe(randomness); }

std::vector<Point> shuffle_generators(std::size_t count, unsigned threads) {
  const auto made = generators(count, threads);
  std::vector<Point> h(count);
  parallel_for(count, threads, [&](std::size_t i) { h[i] = edwards::encode(edwards::from_niels(made[i])); });
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
  // (c1 + ρ·G, c2 + ρ·Y) with ρ secret: the combs of G and of this key (built once a batch).
  edwards::Ext key_point;
  if (!edwards::decode(key, key_point)) throw std::invalid_argument("reencrypt_shuffle: the key is not a point");
  const edwards::FixedBase key_table(key_point);
  const auto& g_table = edwards::base_table();
  FirstFailure bad(n);
  parallel_for(n, threads, [&](std::size_t i) {
    const auto from = input.record(s.witness.permutation[i]);
    for (std::size_t j = 0; j < limbs; ++j) {
      const Scalar& rho = s.witness.randomness[i * limbs + j];
      edwards::Ext c1, c2;
      if (!edwards::decode(from[j].c1, c1) || !edwards::decode(from[j].c2, c2)) return bad.note(s.witness.permutation[i]);
      s.output.at(i, j) = {edwards::encode(edwards::add(c1, edwards::to_cached(g_table.mul(rho)))),
                           edwards::encode(edwards::add(c2, edwards::to_cached(key_table.mul(rho))))};
    }
  });
  if (bad.any()) throw std::invalid_argument("reencrypt_shuffle: input record " + std::to_string(bad.index()) + " holds a non-canonical point");
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
  // Every product below has a secret scalar: fixed-base combs for G and H and Straus's method for
  // the sums, all reading their tables by masked selection (edwards.hpp).
  const auto h = generators(n + 1, threads);  // h[0] = H, h[i + 1] = H_i
  const auto& g_table = edwards::base_table();
  const edwards::FixedBase h_table(edwards::from_niels(h[0]));
  // a·G + b·H, encoded.
  const auto combine = [&](const Scalar& a, const Scalar& b) {
    return edwards::encode(edwards::add(g_table.mul(a), edwards::to_cached(h_table.mul(b))));
  };
  ShuffleProof p;

  // The permutation commitment: c[pi(i)] = r[pi(i)]·G + H_i.
  auto r = random_scalars(n, rng);
  p.c.resize(n);
  parallel_for(n, threads, [&](std::size_t i) { p.c[pi[i]] = edwards::encode(edwards::add(g_table.mul(r[pi[i]]), h[i + 1])); });
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
  parallel_for(n, threads, [&](std::size_t i) { p.c_hat[i] = combine(big_r[i], big_u[i]); });

  // The commitments.
  const Scalar w1 = random_scalar(rng), w2 = random_scalar(rng), w3 = random_scalar(rng);
  auto w4 = random_scalars(limbs, rng);
  auto w_hat = random_scalars(n, rng);
  auto w_prime = random_scalars(n, rng);
  p.t1 = edwards::encode(g_table.mul(w1));
  p.t2 = edwards::encode(g_table.mul(w2));
  // t3 = w3·G + Σ w'_i H_i; per limb j: t4[2j] = Σ w'_i c2'_ij - w4_j·Y, t4[2j+1] = Σ w'_i c1'_ij - w4_j·G.
  std::vector<Scalar> weights(w_prime);
  weights.push_back(w3);
  std::vector<edwards::Niels> bases(h.begin() + 1, h.end());
  bases.push_back(h[0]);  // replaced by G below
  edwards::Niels g_niels, key_niels;
  if (!edwards::decode(base_point(), g_niels) || !edwards::decode(key, key_niels)) throw std::invalid_argument("prove_shuffle: the key is not a point");
  bases.back() = g_niels;
  p.t3 = edwards::encode(edwards::msm_secret(weights, bases, threads));
  p.t4.resize(2 * limbs);
  std::vector<Point> side(n);
  for (std::size_t j = 0; j < limbs; ++j) {
    weights.back() = -w4[j];
    for (const bool c2 : {true, false}) {
      for (std::size_t i = 0; i < n; ++i) side[i] = c2 ? output.at(i, j).c2 : output.at(i, j).c1;
      if (!decode_into(side, bases, 0, threads)) throw std::invalid_argument("prove_shuffle: the output holds a non-canonical point");
      bases.back() = c2 ? key_niels : g_niels;
      p.t4[2 * j + (c2 ? 0 : 1)] = edwards::encode(edwards::msm_secret(weights, bases, threads));
    }
  }
  sodium_memzero(weights.back().bytes.data(), scalar_bytes);
  wipe(weights);
  // t_hat[i] = w_hat_i·G + w'_i·c_hat[i-1] = (w_hat_i + w'_i R[i-1])·G + (w'_i U[i-1])·H.
  p.t_hat.resize(n);
  parallel_for(n, threads, [&](std::size_t i) {
    Scalar a = i == 0 ? w_hat[0] : w_hat[i] + w_prime[i] * big_r[i - 1];
    Scalar b = i == 0 ? w_prime[0] : w_prime[i] * big_u[i - 1];
    p.t_hat[i] = combine(a, b);
    sodium_memzero(a.bytes.data(), scalar_bytes);
    sodium_memzero(b.bytes.data(), scalar_bytes);
  });

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
  for (auto* secret : {&r, &r_hat, &big_r, &big_u, &w4, &w_hat, &w_prime}) wipe(*secret);
  return p;
}

namespace {

// The check equation by equation with libsodium's operations: slower, and names what fails.
std::string check_itemized(const ProofContext& context, const Point& key, const CiphertextBatch& input, const CiphertextBatch& output,
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


}  // namespace

// All the equations at once: each multiplied by a weight of 128 bits drawn by the verifier after
// the proof is fixed, their sum one multi-scalar multiplication that must give the identity. If one
// equation fails the weighted sum is the identity with probability at most 2^-128 (the group has
// prime order: for fixed other weights one value of the failing equation's weight cancels it).
// A failure is then named by the equation-by-equation check.
std::string check_shuffle(const ProofContext& context, const Point& key, const CiphertextBatch& input, const CiphertextBatch& output,
                          const ShuffleProof& p, unsigned threads) {
  const std::size_t n = input.size(), limbs = input.limbs();
  if (n == 0 || output.limbs() != limbs || output.size() != n || p.c.size() != n || p.c_hat.size() != n || p.t_hat.size() != n ||
      p.s_hat.size() != n || p.s_prime.size() != n || p.t4.size() != 2 * limbs || p.s4.size() != limbs)
    return check_itemized(context, key, input, output, p, threads);  // sizes and the empty batch
  const auto h = generators(n + 1, threads);
  const auto seed = statement_seed(context, key, input, output, p.c);
  const auto u = record_weights(seed, n, threads);
  const Scalar e = final_challenge(seed, p);
  const Scalar beta1 = batch_weight(), beta2 = batch_weight(), beta3 = batch_weight();
  std::vector<Scalar> beta4(2 * limbs), beta_hat(n);
  for (auto& b : beta4) b = batch_weight();
  for (auto& b : beta_hat) b = batch_weight();
  Scalar u_prod = scalar_from_u64(1);
  for (const auto& ui : u) u_prod = u_prod * ui;

  // The terms, in blocks: H_1..H_N, c, c_hat, t_hat, then per limb the input's c2 and c1 and the
  // output's c2 and c1, then G, Y, H, t1, t2, t3 and t4.
  const std::size_t per_limb = 4 * n, fixed = 4 * n + per_limb * limbs;
  std::vector<Scalar> k(fixed + 6 + 2 * limbs);
  std::vector<edwards::Niels> q(k.size());
  std::copy(h.begin() + 1, h.end(), q.begin());
  std::vector<Point> side(n);
  bool ok = decode_into(p.c, q, n, threads) && decode_into(p.c_hat, q, 2 * n, threads) && decode_into(p.t_hat, q, 3 * n, threads);
  for (std::size_t j = 0; j < limbs && ok; ++j) {
    const std::size_t at = 4 * n + per_limb * j;
    for (std::size_t part = 0; part < 4 && ok; ++part) {
      const auto& batch = part < 2 ? input : output;
      for (std::size_t i = 0; i < n; ++i) side[i] = part % 2 == 0 ? batch.at(i, j).c2 : batch.at(i, j).c1;
      ok = decode_into(side, q, at + part * n, threads);
    }
  }
  const std::vector<Point> tail = [&] {
    std::vector<Point> t = {base_point(), key, base_point(), p.t1, p.t2, p.t3};
    t.insert(t.end(), p.t4.begin(), p.t4.end());
    return t;
  }();
  ok = ok && decode_into(tail, q, fixed, threads);
  if (!ok) return "a point of the proof or the batches is not a canonical encoding";
  q[fixed + 2] = h[0];

  const Scalar e_beta1 = e * beta1, e_beta3 = e * beta3;
  parallel_for(n, threads, [&](std::size_t i) {
    k[i] = p.s_prime[i] * beta3 - e_beta1;                                  // H_i
    k[n + i] = e_beta1 + e_beta3 * u[i];                                   // c_i
    Scalar chain = beta_hat[i] * e;                                        // c_hat_i
    if (i + 1 < n) chain = chain + beta_hat[i + 1] * p.s_prime[i + 1];
    else chain = chain + beta2 * e;
    k[2 * n + i] = chain;
    k[3 * n + i] = -beta_hat[i];                                           // t_hat_i
    const Scalar eu = e * u[i];
    for (std::size_t j = 0; j < limbs; ++j) {
      const std::size_t at = 4 * n + per_limb * j;
      k[at + i] = eu * beta4[2 * j];                                       // input c2
      k[at + n + i] = eu * beta4[2 * j + 1];                               // input c1
      k[at + 2 * n + i] = p.s_prime[i] * beta4[2 * j];                     // output c2
      k[at + 3 * n + i] = p.s_prime[i] * beta4[2 * j + 1];                 // output c1
    }
  });
  Scalar g = beta1 * p.s1 + beta2 * p.s2 + beta3 * p.s3, y;
  for (std::size_t i = 0; i < n; ++i) g = g + beta_hat[i] * p.s_hat[i];
  for (std::size_t j = 0; j < limbs; ++j) {
    g = g - beta4[2 * j + 1] * p.s4[j];
    y = y - beta4[2 * j] * p.s4[j];
  }
  k[fixed] = g;
  k[fixed + 1] = y;
  k[fixed + 2] = beta_hat[0] * p.s_prime[0] - beta2 * e * u_prod;  // H
  k[fixed + 3] = -beta1;
  k[fixed + 4] = -beta2;
  k[fixed + 5] = -beta3;
  for (std::size_t j = 0; j < 2 * limbs; ++j) k[fixed + 6 + j] = -beta4[j];
  if (edwards::is_identity(edwards::msm_public(k, q, threads))) return {};
  auto fault = check_itemized(context, key, input, output, p, threads);
  return fault.empty() ? "the batched check fails (and, with probability 2^-128 only, no single equation)" : fault;
}

}  // namespace shufflempc::mixnet
