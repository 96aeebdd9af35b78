// The degree-2 engine's arithmetic (BGW in two rounds), over any prime field:
//   ZqSmall for p < 2^64 (the default p = 2^61 - 1), ZqBig (Boost.Multiprecision) beyond.
//
// Round 1: every input x_u is shared with a random polynomial X_u of degree t (party k holds
//          X_u(k + 1)). Round 2: party j publishes, per output o,
//              y_{o,j} = f_o(X(j + 1)) + zero_{o,j}
//          where f_o(X(j+1)) is the output's polynomial evaluated on j's shares: a point of a
//          polynomial of degree <= 2t with constant term f_o(x), and zero_{o,j} hides everything
//          but that constant term:
//            dealt: every party deals a random polynomial of degree 2t vanishing at 0 in round 1;
//                   zero_{o,j} is the sum of j's shares of them. Perfectly secure; any 2t + 1
//                   round-2 values interpolate, so up to n - 2t - 1 parties may drop in round 2.
//            prf:   zero_{o,j} = alpha_{o,j} / L_j with alpha_{o,j} = sum_{k > j} F(K_jk, o) -
//                   sum_{k < j} F(K_kj, o) from the pairwise keys K of round 1 (the alphas add up
//                   to 0). Computationally secure, no extra round-1 traffic, needs every round-1
//                   party in round 2.
// The output is sum_j L_j y_{o,j}, L_j the Lagrange coefficients at 0.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "mpc2/functionality.hpp"
#include "shufflempc/algebra.hpp"
#include "shufflempc/random.hpp"

namespace shufflempc::mpc2 {

template <class F>
using Elem = std::conditional_t<std::is_same_v<F, ZqSmall>, std::uint64_t, BigInt>;

inline std::uint64_t to_elem(const ZqSmall& f, const BigInt& x) {
  BigInt m = x % f.modulus();
  if (m < 0) m += f.modulus();
  return static_cast<std::uint64_t>(m);
}
inline BigInt to_elem(const ZqBig& f, const BigInt& x) {
  BigInt m = x % f.modulus();
  if (m < 0) m += f.modulus();
  return m;
}
inline BigInt to_big(const ZqSmall&, std::uint64_t e) { return BigInt(e); }
inline BigInt to_big(const ZqBig&, const BigInt& e) { return e; }

// The functionality with its coefficients in F_p.
template <class F>
struct Compiled {
  using E = Elem<F>;
  struct Linear {
    std::vector<std::pair<std::uint32_t, E>> terms;
    E constant{};
  };
  struct Prod {
    E coef{};
    Linear a, b;
  };
  struct Out {
    std::vector<Prod> products;
    Linear linear;
  };
  std::vector<Out> outputs;
};

template <class F>
typename Compiled<F>::Linear compile_linear(const F& f, const LinearForm& l) {
  typename Compiled<F>::Linear c;
  c.terms.reserve(l.terms.size());
  for (const auto& [v, k] : l.terms) c.terms.push_back({v, to_elem(f, k)});
  c.constant = to_elem(f, l.constant);
  return c;
}

template <class F>
Compiled<F> compile(const F& f, const Functionality& fn) {
  Compiled<F> c;
  for (const auto& o : fn.outputs) {
    typename Compiled<F>::Out out;
    out.linear = compile_linear(f, o.linear);
    out.products.reserve(o.products.size());
    for (const auto& p : o.products) out.products.push_back({to_elem(f, p.coef), compile_linear(f, p.a), compile_linear(f, p.b)});
    c.outputs.push_back(std::move(out));
  }
  return c;
}

template <class F>
Elem<F> evaluate_linear(const F& f, const typename Compiled<F>::Linear& l, std::span<const Elem<F>> values) {
  Elem<F> s = l.constant;
  for (const auto& [v, k] : l.terms) s = f.add(s, f.mul(k, values[v]));
  return s;
}

// Every output's polynomial on one point's shares (or, on the inputs themselves, the outputs).
template <class F>
std::vector<Elem<F>> evaluate_local(const F& f, const Compiled<F>& c, std::span<const Elem<F>> values) {
  std::vector<Elem<F>> out;
  out.reserve(c.outputs.size());
  for (const auto& o : c.outputs) {
    Elem<F> s = evaluate_linear(f, o.linear, values);
    for (const auto& p : o.products)
      s = f.add(s, f.mul(p.coef, f.mul(evaluate_linear(f, p.a, values), evaluate_linear(f, p.b, values))));
    out.push_back(s);
  }
  return out;
}

// Shares of `secret` under the polynomial secret + c_1 z + ... + c_d z^d at the points 1..out.size().
template <class F>
void share_with(const F& f, const Elem<F>& secret, std::span<const Elem<F>> coeffs, std::span<Elem<F>> out) {
  for (std::size_t k = 0; k < out.size(); ++k) {
    const Elem<F> x = f.reduce(static_cast<std::uint64_t>(k + 1));
    Elem<F> acc{};
    for (std::size_t i = coeffs.size(); i-- > 0;) acc = f.add(f.mul(acc, x), coeffs[i]);
    out[k] = f.add(f.mul(acc, x), secret);
  }
}

// The same with fresh coefficients of degree `degree` drawn from `rng`.
template <class F>
void share(const F& f, const Elem<F>& secret, std::size_t degree, Rng& rng, std::span<Elem<F>> out) {
  std::vector<Elem<F>> coeffs(degree);
  for (auto& c : coeffs) c = f.uniform(rng);
  share_with(f, secret, std::span<const Elem<F>>(coeffs), out);
}

// Lagrange coefficients at `x` for the points id + 1 of `parties` (distinct, each + 1 below p):
// the value at x of the polynomial through (parties[j] + 1, v_j) is sum_j l_j v_j.
template <class F>
std::vector<Elem<F>> lagrange_at(const F& f, std::span<const PartyId> parties, const Elem<F>& x) {
  std::vector<Elem<F>> l(parties.size());
  for (std::size_t j = 0; j < parties.size(); ++j) {
    Elem<F> num = f.reduce(1);
    Elem<F> den = f.reduce(1);
    const Elem<F> xj = f.reduce(std::uint64_t{parties[j]} + 1);
    for (std::size_t m = 0; m < parties.size(); ++m) {
      if (m == j) continue;
      const Elem<F> xm = f.reduce(std::uint64_t{parties[m]} + 1);
      num = f.mul(num, f.sub(x, xm));
      den = f.mul(den, f.sub(xj, xm));
    }
    l[j] = f.mul(num, f.inverse(den));
  }
  return l;
}

template <class F>
std::vector<Elem<F>> lagrange_at_zero(const F& f, std::span<const PartyId> parties) {
  return lagrange_at(f, parties, Elem<F>{});
}

}  // namespace shufflempc::mpc2
