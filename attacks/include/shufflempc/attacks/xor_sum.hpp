// The XOR-sum lower bound, executed (docs/xor-sum.md).
//
// ONE ROUND: the pause-and-replay attack. Users 0..h-1 hold (i, x_i) for a secret x in {0,1}^h.
// Their randomizers run ONCE and the messages G are frozen. For each query y in {0,1}^h the
// attacker appends the randomizers of (i, y_i) for users h..2h-1, shuffles, and runs the
// protocol's own analyzer, which estimates sum_i x_i XOR y_i = d_H(x, y): post-processing of G.
// Enough accurate answers reconstruct x, up to what G itself encodes (the ceiling).
//
//   decode: the affine map from d_H to the analyzer's mean is not assumed known; the model is
//   a_q = C + sum_i u_i S_qi, S_qi = 1 - 2 y_qi, x_i = [u_i > 0], fitted by
//     least_squares  Eigen's column-pivoting QR (the default: as accurate as LP on these noise
//                    models, and ~100x faster at m = 16n)
//     lp             L1 regression, min sum_q |a_q - C - S_q u|, by COIN-OR CLP's dual simplex:
//                    LP decoding (Dwork-McSherry-Talwar 2007) survives a constant fraction of
//                    arbitrarily wrong answers, which least squares does not
//
// TWO ROUNDS: the escape (escape.hpp) computes the same XS exactly plus discrete-Laplace noise by
// the two-round circuit MPC; a recorded execution replays to one answer only.
#pragma once

#include <chrono>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "shufflempc/attacks/labels.hpp"
#include "shufflempc/mechanism.hpp"
#include "shufflempc/protocols/xor_sum/xor_sum.hpp"

namespace shufflempc::attacks {

enum class Decoder { least_squares, lp };
[[nodiscard]] const char* to_string(Decoder d);
[[nodiscard]] Decoder parse_decoder(std::string_view name);  // std::invalid_argument naming the choices

// The queries asked so far: m rows of h bits (one byte each), row-major.
struct Queries {
  std::size_t h = 0;
  std::vector<std::uint8_t> bits;
  std::vector<double> answers;
  [[nodiscard]] std::size_t count() const { return answers.size(); }
  [[nodiscard]] std::span<const std::uint8_t> row(std::size_t q) const { return {bits.data() + q * h, h}; }
};

// x-hat from the answers (one byte per bit). Needs at least one query.
[[nodiscard]] std::vector<std::uint8_t> decode(const Queries& q, Decoder d);

// The fraction of positions where a and b agree, and the number where they differ.
[[nodiscard]] double agreement(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b);
[[nodiscard]] std::size_t hamming(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b);

struct ReplayOptions {
  std::size_t parties = 0;  // n; the secret half is h = n / 2 users, the query half the other h
  std::size_t queries = 0;  // m; 0: read G's bucket parities directly (no replay at all)
  Decoder decoder = Decoder::least_squares;
};

struct ReplayResult {
  std::size_t parties = 0, half = 0, queries = 0;
  Decoder decoder = Decoder::least_squares;
  double recovered = 0;    // mean(x-hat == x)
  double of_encoded = 0;   // mean(x-hat == x'), x' the parities G encodes
  double ceiling = 0;      // mean(x' == x): no attack on G can do better on average
  double answer_rmse = 0;  // sqrt(mean (a_q - d_H(x, y_q))^2) over the queries used
  double seconds_queries = 0, seconds_decode = 0;
  [[nodiscard]] double alpha() const;  // answer_rmse / sqrt(parties)
};

// A mechanism the attack can run: a one-round XOR-sum mechanism that also says what a set of its
// messages encodes per bucket.
template <class M>
concept XorSumMechanism = Mechanism<M> && std::same_as<typename M::Input, xor_sum::Item> && requires(const M& m, const MessageBatch& b) {
  { m.parities(b) } -> std::convertible_to<xor_sum::Parities>;
  { m.buckets } -> std::convertible_to<std::uint32_t>;
};

// What the attack collected: the secret, what G encodes, the queries and their answers.
struct ReplayData {
  std::size_t parties = 0;
  std::vector<std::uint8_t> x, encoded;
  Queries queries;
  std::vector<double> distances;  // d_H(x, y_q)
  double seconds = 0;
};

using ReplayProgress = std::function<void(std::size_t queries_done, std::size_t queries_total)>;

// Runs the attack's executions against `m` with generators forked from `rng`: the secret x, the
// frozen half G (party i from rng_labels::party(0, i), as in a real round), and per query its y,
// its users (one generator: the attacker simulates them), its shuffle and its analyzer. Deterministic for a SeededRng; query q does not
// depend on how many follow, so the first m of M queries are the attack with m queries.
template <XorSumMechanism M>
[[nodiscard]] ReplayData replay_queries(const M& m, std::size_t parties, std::size_t queries, const Rng& rng,
                                        const ReplayProgress& progress = {}) {
  const std::size_t h = parties / 2;
  if (h < 1) throw std::invalid_argument("replay: parties must be at least 2");
  if (m.buckets < h) throw std::invalid_argument("replay: the mechanism needs at least parties / 2 buckets");
  const auto t0 = std::chrono::steady_clock::now();
  ReplayData d;
  d.parties = parties;
  d.x.resize(h);
  {
    auto xr = rng.fork(labels::secret);
    for (auto& b : d.x) b = xr->bit() ? 1 : 0;
  }
  // ONE execution of the secret half, then frozen.
  OneRoundRun<M> g(m);
  std::vector<xor_sum::Item> items(h);
  for (std::size_t i = 0; i < h; ++i) items[i] = {static_cast<std::uint32_t>(i), d.x[i] != 0};
  g.add_all(items, *rng.fork(labels::frozen));
  const auto all = m.parities(g.messages());
  d.encoded.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(h));

  Queries& q = d.queries;
  q.h = h;
  q.bits.resize(queries * h);
  q.answers.resize(queries);
  d.distances.resize(queries);
  for (std::size_t k = 0; k < queries; ++k) {
    auto qr = rng.fork(labels::query(k));
    std::size_t dh = 0;
    for (std::size_t i = 0; i < h; ++i) {
      const bool y = qr->bit();
      q.bits[k * h + i] = y ? 1 : 0;
      items[i] = {static_cast<std::uint32_t>(i), y};
      dh += (y ? 1u : 0u) ^ d.x[i];
    }
    OneRoundRun<M> run = g;  // replay from the paused point
    // The attacker simulates the query half: one generator for all of its users.
    auto party_rng = qr->fork(labels::query_users);
    for (std::size_t i = 0; i < h; ++i) run.add(static_cast<PartyId>(h + i), items[i], *party_rng);
    auto shuffle_rng = qr->fork(labels::query_shuffle);
    auto analyzer_rng = qr->fork(labels::query_analyzer);
    q.answers[k] = static_cast<double>(run.finish(*shuffle_rng, *analyzer_rng));
    d.distances[k] = static_cast<double>(dh);
    if (progress) progress(k + 1, queries);
  }
  d.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return d;
}

// The attack with the first `queries` of d's queries (0: G's parities read directly).
[[nodiscard]] ReplayResult reconstruct(const ReplayData& d, std::size_t queries, Decoder decoder);

template <XorSumMechanism M>
[[nodiscard]] ReplayResult replay(const M& m, const ReplayOptions& o, const Rng& rng, const ReplayProgress& progress = {}) {
  return reconstruct(replay_queries(m, o.parties, o.queries, rng, progress), o.queries, o.decoder);
}

}  // namespace shufflempc::attacks
