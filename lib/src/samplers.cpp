#include "shufflempc/samplers.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace shufflempc {

bool bernoulli(Rng& rng, double p) {
  if (!(p >= 0.0 && p <= 1.0)) throw std::invalid_argument("bernoulli: p must be in [0, 1], got " + std::to_string(p));
  if (p == 0.0) return false;
  if (p == 1.0) return true;
  // p = M * 2^(e - 53) with M a 53-bit integer. U < p iff the first -e bits of U are zero and the
  // next 53 bits, read as an integer, are below M. Exact for every double, subnormals included.
  int e = 0;
  const double f = std::frexp(p, &e);  // p = f * 2^e, f in [0.5, 1), e <= 0
  const auto m = static_cast<std::uint64_t>(std::ldexp(f, 53));
  int zeros = -e;
  while (zeros >= 64) {
    if (rng.next_u64() != 0) return false;
    zeros -= 64;
  }
  if (zeros > 0 && (rng.next_u64() >> (64 - zeros)) != 0) return false;
  return (rng.next_u64() >> 11) < m;
}

bool bernoulli_rational(Rng& rng, std::uint64_t num, std::uint64_t den) {
  if (den == 0 || num > den) throw std::invalid_argument("bernoulli_rational: need 0 <= num <= den and den >= 1");
  return rng.uniform(den) < num;
}

namespace {
// Bernoulli(exp(-g)) for g = num/den in [0, 1]: CKS Algorithm 1.
bool bernoulli_exp_small(Rng& rng, std::uint64_t num, std::uint64_t den) {
  std::uint64_t k = 1;
  while (true) {
    // Bernoulli(g / k) = Bernoulli(num / (den * k)); den * k cannot overflow in practice
    // (k exceeds 20 with probability below 1e-18), but guard anyway.
    if (den > std::numeric_limits<std::uint64_t>::max() / k) return (k & 1u) == 1u;
    if (!bernoulli_rational(rng, num, den * k)) break;
    ++k;
  }
  return (k & 1u) == 1u;
}
}  // namespace

bool bernoulli_exp(Rng& rng, std::uint64_t num, std::uint64_t den) {
  if (den == 0) throw std::invalid_argument("bernoulli_exp: den must be at least 1");
  for (std::uint64_t i = 0; i < num / den; ++i)
    if (!bernoulli_exp_small(rng, 1, 1)) return false;
  return bernoulli_exp_small(rng, num % den, den);
}

std::uint64_t binomial(Rng& rng, std::uint64_t n, double p) {
  if (!(p >= 0.0 && p <= 1.0)) throw std::invalid_argument("binomial: p must be in [0, 1], got " + std::to_string(p));
  std::uint64_t k = 0;
  for (std::uint64_t i = 0; i < n; ++i) k += bernoulli(rng, p) ? 1 : 0;
  return k;
}

std::uint64_t geometric_exp(Rng& rng, std::uint64_t num, std::uint64_t den) {
  if (num == 0 || den == 0) throw std::invalid_argument("geometric_exp: need num >= 1 and den >= 1");
  // CKS Algorithm 2 without the sign: X = U + den*V has P(X = x) proportional to exp(-x/den),
  // accepted with probability exp(-U/den); floor(X/num) is then geometric with a = exp(-num/den).
  while (true) {
    const std::uint64_t u = rng.uniform(den);
    if (!bernoulli_exp(rng, u, den)) continue;
    std::uint64_t v = 0;
    while (bernoulli_exp(rng, 1, 1)) ++v;
    const unsigned __int128 x = static_cast<unsigned __int128>(u) + static_cast<unsigned __int128>(den) * v;
    return static_cast<std::uint64_t>(x / num);
  }
}

std::int64_t discrete_laplace(Rng& rng, std::uint64_t num, std::uint64_t den) {
  while (true) {
    const std::uint64_t y = geometric_exp(rng, num, den);
    const bool negative = rng.bit();
    if (negative && y == 0) continue;  // zero would otherwise be counted twice
    return negative ? -static_cast<std::int64_t>(y) : static_cast<std::int64_t>(y);
  }
}

Rational rational_at_most(double x, const char* name) {
  if (!(x > 0.0) || !std::isfinite(x) || x > 1e6)
    throw std::invalid_argument(std::string(name) + " must be a positive finite number at most 1e6");
  constexpr std::uint64_t den = std::uint64_t{1} << 32;
  const auto num = static_cast<std::uint64_t>(std::floor(x * static_cast<double>(den)));
  if (num == 0) throw std::invalid_argument(std::string(name) + " is too small (below 2^-32)");
  return {num, den};
}

}  // namespace shufflempc
