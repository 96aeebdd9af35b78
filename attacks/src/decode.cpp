// Reconstruction from Hamming-distance answers: least squares (Eigen) and LP decoding (COIN-OR CLP).
#include <ClpSimplex.hpp>
#include <Eigen/Dense>
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "shufflempc/attacks/xor_sum.hpp"

namespace shufflempc::attacks {
namespace {

std::vector<std::uint8_t> signs(const double* u, std::size_t h) {
  std::vector<std::uint8_t> x(h);
  for (std::size_t i = 0; i < h; ++i) x[i] = u[i] > 0 ? 1 : 0;
  return x;
}

std::vector<std::uint8_t> least_squares(const Queries& q) {
  const auto m = static_cast<Eigen::Index>(q.count());
  const auto h = static_cast<Eigen::Index>(q.h);
  Eigen::MatrixXd a(m, h + 1);
  Eigen::VectorXd b(m);
  for (Eigen::Index r = 0; r < m; ++r) {
    a(r, 0) = 1;
    const auto row = q.row(static_cast<std::size_t>(r));
    for (Eigen::Index i = 0; i < h; ++i) a(r, i + 1) = row[static_cast<std::size_t>(i)] ? -1.0 : 1.0;
    b(r) = q.answers[static_cast<std::size_t>(r)];
  }
  const Eigen::VectorXd z = a.colPivHouseholderQr().solve(b);
  return signs(z.data() + 1, q.h);
}

// min sum_q (r+_q + r-_q)  s.t.  C + S_q u + r+_q - r-_q = a_q,  C, u free, r+- >= 0.
std::vector<std::uint8_t> lp(const Queries& q) {
  const std::size_t m = q.count(), h = q.h;
  const std::size_t cols = 1 + h + 2 * m;
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<CoinBigIndex> start(cols + 1);
  std::vector<int> index;
  std::vector<double> value;
  index.reserve((h + 1) * m + 2 * m);
  value.reserve(index.capacity());
  std::vector<double> lower(cols, 0), upper(cols, inf), cost(cols, 0);
  std::size_t c = 0;
  auto open = [&] { start[c] = static_cast<CoinBigIndex>(index.size()); };
  for (std::size_t j = 0; j <= h; ++j, ++c) {  // C, then u_1..u_h
    open();
    lower[c] = -inf;
    for (std::size_t r = 0; r < m; ++r) {
      index.push_back(static_cast<int>(r));
      value.push_back(j == 0 ? 1.0 : (q.bits[r * h + j - 1] ? -1.0 : 1.0));
    }
  }
  for (int sign : {1, -1})
    for (std::size_t r = 0; r < m; ++r, ++c) {
      open();
      cost[c] = 1;
      index.push_back(static_cast<int>(r));
      value.push_back(sign);
    }
  start[cols] = static_cast<CoinBigIndex>(index.size());
  ClpSimplex model;
  model.setLogLevel(0);
  model.loadProblem(static_cast<int>(cols), static_cast<int>(m), start.data(), index.data(), value.data(), lower.data(), upper.data(),
                    cost.data(), q.answers.data(), q.answers.data());
  model.dual();
  if (!model.isProvenOptimal())
    throw std::runtime_error(fmt::format("LP decoding: CLP stopped with status {} on {} queries", model.status(), m));
  return signs(model.getColSolution() + 1, h);
}

}  // namespace

const char* to_string(Decoder d) { return d == Decoder::lp ? "lp" : "least-squares"; }

Decoder parse_decoder(std::string_view name) {
  if (name == "least-squares" || name == "ls") return Decoder::least_squares;
  if (name == "lp") return Decoder::lp;
  throw std::invalid_argument(fmt::format("decoder '{}' is unknown: use least-squares (ls) or lp", name));
}

std::vector<std::uint8_t> decode(const Queries& q, Decoder d) {
  if (q.count() == 0 || q.h == 0) throw std::invalid_argument("decode: needs at least one query of at least one bit");
  if (q.bits.size() != q.count() * q.h) throw std::invalid_argument("decode: the query bits do not match the answers");
  return d == Decoder::lp ? lp(q) : least_squares(q);
}

double agreement(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
  if (a.size() != b.size() || a.empty()) throw std::invalid_argument("agreement: the vectors differ in length or are empty");
  std::size_t same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) same += (a[i] != 0) == (b[i] != 0) ? 1 : 0;
  return static_cast<double>(same) / static_cast<double>(a.size());
}

std::size_t hamming(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
  if (a.size() != b.size()) throw std::invalid_argument("hamming: the vectors differ in length");
  std::size_t d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d += (a[i] != 0) != (b[i] != 0) ? 1 : 0;
  return d;
}

ReplayResult reconstruct(const ReplayData& d, std::size_t queries, Decoder decoder) {
  if (queries > d.queries.count())
    throw std::invalid_argument(fmt::format("reconstruct: {} queries asked of a run with {}", queries, d.queries.count()));
  ReplayResult r;
  r.parties = d.parties;
  r.half = d.x.size();
  r.queries = queries;
  r.decoder = decoder;
  r.ceiling = agreement(d.encoded, d.x);
  std::vector<std::uint8_t> xhat;
  if (queries == 0) {
    xhat = d.encoded;  // the frozen messages themselves
  } else {
    Queries q;
    q.h = d.queries.h;
    q.bits.assign(d.queries.bits.begin(), d.queries.bits.begin() + static_cast<std::ptrdiff_t>(queries * q.h));
    q.answers.assign(d.queries.answers.begin(), d.queries.answers.begin() + static_cast<std::ptrdiff_t>(queries));
    double se = 0;
    for (std::size_t k = 0; k < queries; ++k) se += (q.answers[k] - d.distances[k]) * (q.answers[k] - d.distances[k]);
    r.answer_rmse = std::sqrt(se / static_cast<double>(queries));
    r.seconds_queries = d.seconds * static_cast<double>(queries) / static_cast<double>(d.queries.count());
    const auto t = std::chrono::steady_clock::now();
    xhat = decode(q, decoder);
    r.seconds_decode = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  }
  r.recovered = agreement(xhat, d.x);
  r.of_encoded = agreement(xhat, d.encoded);
  return r;
}

double ReplayResult::alpha() const { return parties ? answer_rmse / std::sqrt(static_cast<double>(parties)) : 0; }

}  // namespace shufflempc::attacks
