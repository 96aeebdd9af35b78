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
// The output is sum_j L_j y_{o,j}, L_j the Lagrange coefficients at 0. Sharing and interpolation are
// shamir.hpp's, over the field F.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <vector>

#include "shufflempc/protocols/mpc2/functionality.hpp"
#include "shufflempc/algebra.hpp"
#include "shufflempc/random.hpp"
#include "shufflempc/shamir.hpp"

namespace shufflempc::mpc2 {

template <class F>
using Elem = shamir::Element<F>;

inline std::uint64_t to_elem(const ZqSmall& f, const BigInt& x) {
  // The common coefficients (1, small integers) without a big-integer division.
  if (x >= 0 && x <= std::numeric_limits<std::uint64_t>::max()) return f.reduce(static_cast<std::uint64_t>(x));
  if (x < 0 && x >= std::numeric_limits<std::int64_t>::min()) {  // -|x| = q - (|x| mod q)
    const auto v = static_cast<std::int64_t>(x);
    return f.neg(f.reduce(v == std::numeric_limits<std::int64_t>::min() ? std::uint64_t{1} << 63 : static_cast<std::uint64_t>(-v)));
  }
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
  struct Range {
    std::uint32_t first = 0, length = 0;
    E coef{};
  };
  struct Linear {
    std::vector<std::pair<std::uint32_t, E>> terms;
    std::vector<Range> ranges;
    E constant{};
  };
  struct Prod {
    E coef{};
    Linear a, b;
  };
  struct Dot {
    std::uint32_t first_a = 0, first_b = 0, length = 0;
    E coef{};
  };
  struct Out {
    std::vector<Prod> products;
    std::vector<Dot> dots;
    Linear linear;
  };
  std::vector<Out> outputs;
};

template <class F>
typename Compiled<F>::Linear compile_linear(const F& f, const LinearForm& l) {
  typename Compiled<F>::Linear c;
  c.terms.reserve(l.terms.size());
  for (const auto& [v, k] : l.terms) c.terms.push_back({v, to_elem(f, k)});
  for (const auto& r : l.ranges) c.ranges.push_back({r.first, r.length, to_elem(f, r.coef)});
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
    for (const auto& d : o.dots) out.dots.push_back({d.first_a, d.first_b, d.length, to_elem(f, d.coef)});
    c.outputs.push_back(std::move(out));
  }
  return c;
}

template <class F>
Elem<F> evaluate_linear(const F& f, const typename Compiled<F>::Linear& l, std::span<const Elem<F>> values) {
  Elem<F> s = l.constant;
  for (const auto& [v, k] : l.terms) s = f.add(s, f.mul(k, values[v]));
  for (const auto& r : l.ranges) {
    Elem<F> sum{};
    for (std::uint32_t i = 0; i < r.length; ++i) sum = f.add(sum, values[r.first + i]);
    s = f.add(s, f.mul(r.coef, sum));
  }
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
    for (const auto& d : o.dots)
      s = f.add(s, f.mul(d.coef, shamir::sum_of_products(f, values.subspan(d.first_a, d.length), values.subspan(d.first_b, d.length))));
    out.push_back(s);
  }
  return out;
}

}  // namespace shufflempc::mpc2
