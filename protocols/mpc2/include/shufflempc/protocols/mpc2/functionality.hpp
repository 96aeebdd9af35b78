// Degree-2 functionalities: what the two-round engine computes, and the small language users write
// them in.
//
// A program declares each party's inputs and the outputs, one statement per line (or separated by
// ';'; '#' starts a comment):
//
//   input x@*                 one integer per party: x[0] owned by party 0, x[1] by party 1, ...
//   input a[100]@0, b[100]@1  vectors owned by one party
//   input bit y@*             inputs that must be 0 or 1
//   noise e@* = dlap(0.5)     each party draws its share of a discrete Laplace noise of scale 1/0.5
//                             (the shares add up to exactly the central noise: Polya differences)
//   output s = sum(x) + sum(e)
//   output ip = dot(a, b)
//   output v = (3*sumsq(x) - sum(x)*sum(x)) / 6     a trailing "/ number" divides the decoded integer
//
// Expressions are sums of products of integers, inputs (x for a scalar, x[i] for an element) and
// the vector forms sum(v), dot(v, w) and sumsq(v), with parentheses. Every output must have degree
// at most 2 in the inputs: the engine evaluates products of two shared values and nothing more.
// The arithmetic is over F_p; outputs are decoded as integers in (-p/2, p/2].
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shufflempc/algebra.hpp"
#include "shufflempc/channel.hpp"

namespace shufflempc::mpc2 {

// What parse() accepts at most, each named in its error and in --function's help: a program that
// says more is refused before anything is allocated for it.
inline constexpr std::size_t max_variables = std::size_t{1} << 20;  // input elements
inline constexpr std::size_t max_terms = std::size_t{1} << 23;      // terms of all outputs together
inline constexpr std::size_t max_depth = 256;                       // parentheses and unary signs, nested

// One shared value: an element of a declared input or a party's noise share. Its name ("x[3]",
// "a[0]", "e[2]") is Functionality::variable_name: a vector of 10^5 elements keeps no strings.
struct Variable {
  PartyId owner = 0;
  bool bit = false;
  bool noise = false;
};

struct InputDecl {
  std::string name;
  std::size_t length = 1;
  bool per_party = false;  // x@*: element i belongs to party i
  bool scalar = true;      // declared without [len] and not per party
  PartyId owner = 0;       // when not per_party
  bool bit = false;
  bool noise = false;
  double epsilon = 0;      // noise: dlap(epsilon)
  std::uint32_t first = 0;  // index of element 0 among the variables
};

// coef * (v[first] + ... + v[first + length - 1]): sum(v) in one term, whatever v's length.
struct RangeSum {
  std::uint32_t first = 0, length = 0;
  BigInt coef = 1;
};
// sum of coef * variable, plus coef * (sum of a range), plus a constant
struct LinearForm {
  std::vector<std::pair<std::uint32_t, BigInt>> terms;
  std::vector<RangeSum> ranges;
  BigInt constant = 0;
};
struct Product {
  BigInt coef = 1;
  LinearForm a, b;
};
// coef * (a[0] b[0] + ... + a[length-1] b[length-1]) for the variables a = first_a.., b = first_b..:
// dot(a, b) and sumsq(a) in one term, not one Product (and two heap-held forms) per element.
struct Dot {
  std::uint32_t first_a = 0, first_b = 0, length = 0;
  BigInt coef = 1;
};
struct Output {
  std::string name;
  std::vector<Product> products;
  std::vector<Dot> dots;
  LinearForm linear;
  std::optional<double> divisor;  // the decoded integer is divided by this (a real output)
};

struct Functionality {
  std::size_t parties = 0;
  std::string source;  // the program
  std::vector<InputDecl> inputs;
  std::vector<Variable> variables;
  std::vector<Output> outputs;
  std::vector<std::vector<std::uint32_t>> owned;  // per party: its variables, ascending

  // Whether some party draws a noise share (the output is then randomized).
  [[nodiscard]] bool has_noise() const;
  // The declaration variable v belongs to, and its name as the program writes it ("a[3]", "x").
  [[nodiscard]] const InputDecl& declaration_of(std::uint32_t v) const;
  [[nodiscard]] std::string variable_name(std::uint32_t v) const;
  // Direct evaluation over the integers with every noise share 0: values per variable.
  [[nodiscard]] std::vector<BigInt> evaluate(const std::vector<BigInt>& values) const;
};

// Parses a program for `parties` parties. Throws std::invalid_argument naming the line and what is
// wrong ("line 2: output 'v' has degree 3: the engine computes degree <= 2").
[[nodiscard]] Functionality parse(std::string_view program, std::size_t parties);

// The functionalities that ship with shufflempc: name, one-line description.
struct Builtin {
  std::string name;
  std::string summary;
};
[[nodiscard]] const std::vector<Builtin>& builtins();
// The program of a built-in for `parties` parties (length: vector length of inner-product; epsilon:
// dp-sum's). Throws std::invalid_argument listing the built-ins for an unknown name.
[[nodiscard]] std::string builtin_program(const std::string& name, std::size_t parties, std::size_t length, double epsilon);

}  // namespace shufflempc::mpc2
