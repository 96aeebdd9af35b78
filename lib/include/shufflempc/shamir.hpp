// Shamir secret sharing and Lagrange interpolation over any field that models `ShamirField`:
// Z_p (ZqSmall, ZqBig for a prime modulus) for the degree-2 engine, GF(2^128) for the circuit
// protocol's label sharings. Party `id` holds the value at the point id + 1 (the field element that
// the integer id + 1 names), so no party holds the secret, which sits at 0.
//
// A field object F names its element type `F::element` and offers add, sub, mul, inverse (of a
// nonzero element), reduce (the element an integer names) and uniform (a uniform element drawn from
// an Rng). Elements are values; the field object carries the modulus, if any.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "shufflempc/random.hpp"

namespace shufflempc::shamir {

template <class F>
concept ShamirField = requires(const F& f, const typename F::element& a, std::uint64_t k, Rng& rng) {
  { f.add(a, a) } -> std::convertible_to<typename F::element>;
  { f.sub(a, a) } -> std::convertible_to<typename F::element>;
  { f.mul(a, a) } -> std::convertible_to<typename F::element>;
  { f.inverse(a) } -> std::convertible_to<typename F::element>;
  { f.reduce(k) } -> std::convertible_to<typename F::element>;
  { f.uniform(rng) } -> std::convertible_to<typename F::element>;
};

template <ShamirField F>
using Element = typename F::element;

// The point at which party `id` holds its share.
template <ShamirField F>
[[nodiscard]] Element<F> point(const F& f, std::uint32_t id) {
  return f.reduce(std::uint64_t{id} + 1);
}

// secret + c_1 x + ... + c_d x^d (`coeffs` = c_1..c_d) by Horner's rule, from the top coefficient.
template <ShamirField F>
[[nodiscard]] Element<F> horner(const F& f, const Element<F>& secret, std::span<const Element<F>> coeffs, const Element<F>& x) {
  if (coeffs.empty()) return secret;
  Element<F> acc = coeffs.back();
  for (std::size_t i = coeffs.size() - 1; i-- > 0;) acc = f.add(f.mul(acc, x), coeffs[i]);
  return f.add(f.mul(acc, x), secret);
}

// Shares of `secret` under secret + c_1 z + ... + c_d z^d (`coeffs` = c_1..c_d), one per party
// 0..out.size()-1, by Horner's rule.
template <ShamirField F>
void share_with(const F& f, const Element<F>& secret, std::span<const Element<F>> coeffs, std::span<Element<F>> out) {
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = horner(f, secret, coeffs, point(f, static_cast<std::uint32_t>(k)));
}

// The same at given points: out[k] is the polynomial at points[k] (points(f, n) for parties 0..n-1).
// For callers that share many values: the points are computed once, not once per value.
template <ShamirField F>
void share_at(const F& f, const Element<F>& secret, std::span<const Element<F>> coeffs, std::span<const Element<F>> points,
              std::span<Element<F>> out) {
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = horner(f, secret, coeffs, points[k]);
}

// Every party's point, for share_at.
template <ShamirField F>
[[nodiscard]] std::vector<Element<F>> points(const F& f, std::size_t parties) {
  std::vector<Element<F>> p(parties);
  for (std::size_t k = 0; k < parties; ++k) p[k] = point(f, static_cast<std::uint32_t>(k));
  return p;
}

// The same on a fresh random polynomial of degree `degree` (coefficients drawn from `rng` in order
// c_1, ..., c_d), at `at` (from points(f, out.size())) when given.
template <ShamirField F>
void share(const F& f, const Element<F>& secret, std::size_t degree, Rng& rng, std::span<Element<F>> out,
           std::span<const Element<F>> at = {}) {
  // Called once per shared value (10^5 times for a vector input): small degrees stay off the heap.
  constexpr std::size_t on_stack = 16;
  std::array<Element<F>, on_stack> small;  // not value-initialised: every coefficient used is drawn below
  std::vector<Element<F>> large(degree > on_stack ? degree : 0);
  const std::span<Element<F>> coeffs = degree > on_stack ? std::span<Element<F>>(large) : std::span<Element<F>>(small.data(), degree);
  for (auto& c : coeffs) c = f.uniform(rng);
  if (at.empty()) {
    share_with(f, secret, std::span<const Element<F>>(coeffs), out);
    return;
  }
  if (at.size() != out.size()) throw std::invalid_argument("shamir::share: give one point per share");
  share_at(f, secret, std::span<const Element<F>>(coeffs), at, out);
}

// Σ a_i·b_i in the field: the field's own lazily reduced sum when it has one (ZqSmall), else term by term.
template <ShamirField F>
[[nodiscard]] Element<F> sum_of_products(const F& f, std::span<const Element<F>> a, std::span<const Element<F>> b) {
  if constexpr (requires { f.sum_of_products(a, b); }) {
    return f.sum_of_products(a, b);
  } else {
    Element<F> s{};
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) s = f.add(s, f.mul(a[i], b[i]));
    return s;
  }
}

// The powers x^0 .. x^degree of each of `at`'s points, row after row: for share_by_powers, which
// evaluates a polynomial at every point as one sum of products each (for many shared values of
// one degree, in place of Horner's rule).
template <ShamirField F>
[[nodiscard]] std::vector<Element<F>> power_table(const F& f, std::span<const Element<F>> at, std::size_t degree) {
  std::vector<Element<F>> t(at.size() * (degree + 1));
  for (std::size_t k = 0; k < at.size(); ++k) {
    Element<F> x = f.reduce(1);
    for (std::size_t j = 0; j <= degree; ++j) {
      t[k * (degree + 1) + j] = x;
      x = f.mul(x, at[k]);
    }
  }
  return t;
}

// share(f, secret, degree, rng, out, at) with `table` = power_table(f, at, degree): the same
// coefficients drawn in the same order, so the same shares.
template <ShamirField F>
void share_by_powers(const F& f, const Element<F>& secret, std::size_t degree, Rng& rng, std::span<const Element<F>> table,
                     std::span<Element<F>> out) {
  if (table.size() != out.size() * (degree + 1)) throw std::invalid_argument("shamir::share_by_powers: a table of another degree or size");
  constexpr std::size_t on_stack = 17;
  std::array<Element<F>, on_stack> small;
  std::vector<Element<F>> large(degree + 1 > on_stack ? degree + 1 : 0);
  const std::span<Element<F>> poly = degree + 1 > on_stack ? std::span<Element<F>>(large) : std::span<Element<F>>(small.data(), degree + 1);
  poly[0] = secret;
  for (std::size_t j = 1; j <= degree; ++j) poly[j] = f.uniform(rng);
  for (std::size_t k = 0; k < out.size(); ++k)
    out[k] = sum_of_products(f, std::span<const Element<F>>(poly), table.subspan(k * (degree + 1), degree + 1));
}

// Shares of many secrets, each on a fresh random polynomial of degree `degree`:
// out[k * secrets.size() + i] is the share of secrets[i] at the k-th point of `table` (=
// power_table(f, at, degree)), so each point's shares lie together (a party's plaintext). The
// coefficients are drawn secret after secret, c_1..c_d each, as share_by_powers draws them: the
// shares are the same as calling it once per secret. A block of secrets is evaluated point by point,
// each point's powers held, without a call and its checks per value.
template <ShamirField F>
void share_many_by_powers(const F& f, std::span<const Element<F>> secrets, std::size_t degree, Rng& rng,
                          std::span<const Element<F>> table, std::span<Element<F>> out) {
  const std::size_t n = secrets.size(), at = table.size() / (degree + 1);
  if (table.size() != at * (degree + 1) || out.size() != at * n)
    throw std::invalid_argument("shamir::share_many_by_powers: a table of another degree, or an output not points x secrets");
  constexpr std::size_t block = 256;
  std::vector<Element<F>> coeffs(std::min(n, block) * degree);
  for (std::size_t i0 = 0; i0 < n; i0 += block) {
    const std::size_t m = std::min(block, n - i0);
    for (std::size_t c = 0; c < m * degree; ++c) coeffs[c] = f.uniform(rng);
    for (std::size_t k = 0; k < at; ++k) {
      const auto powers = table.subspan(k * (degree + 1) + 1, degree);  // x, x^2, ..., x^d
      const auto row = out.subspan(k * n + i0, m);
      if constexpr (requires { f.evaluate_block(secrets, powers, powers, row); }) {
        f.evaluate_block(secrets.subspan(i0, m), std::span<const Element<F>>(coeffs).first(m * degree), powers, row);
      } else {
        for (std::size_t i = 0; i < m; ++i)
          row[i] = f.add(secrets[i0 + i], sum_of_products(f, std::span<const Element<F>>(coeffs.data() + i * degree, degree), powers));
      }
    }
  }
}

// Lagrange coefficients at `x` for the points of `parties` (distinct ids whose points are distinct
// field elements): the value at x of the polynomial through (point(parties[j]), v_j) is
// sum_j l_j v_j.
template <ShamirField F>
[[nodiscard]] std::vector<Element<F>> lagrange_at(const F& f, std::span<const std::uint32_t> parties, const Element<F>& x) {
  std::vector<Element<F>> l(parties.size());
  for (std::size_t j = 0; j < parties.size(); ++j) {
    Element<F> num = f.reduce(1);
    Element<F> den = f.reduce(1);
    const Element<F> xj = point(f, parties[j]);
    for (std::size_t m = 0; m < parties.size(); ++m) {
      if (m == j) continue;
      const Element<F> xm = point(f, parties[m]);
      num = f.mul(num, f.sub(x, xm));
      den = f.mul(den, f.sub(xj, xm));
    }
    l[j] = f.mul(num, f.inverse(den));
  }
  return l;
}

// Lagrange coefficients at 0: the secret is sum_j l_j share_j.
template <ShamirField F>
[[nodiscard]] std::vector<Element<F>> lagrange_at_zero(const F& f, std::span<const std::uint32_t> parties) {
  return lagrange_at(f, parties, Element<F>{});
}

}  // namespace shufflempc::shamir
