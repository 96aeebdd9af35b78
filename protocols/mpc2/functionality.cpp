#include "shufflempc/protocols/mpc2/functionality.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "shufflempc/numbers.hpp"

namespace shufflempc::mpc2 {
namespace {

struct Token {
  enum Kind { name, number, symbol, end } kind = end;
  std::string text;
  std::size_t column = 0;  // 1-based, within the line
};

// A value while parsing: products and dots (degree 2) plus a linear form (degree <= 1).
struct Poly {
  std::vector<Product> products;
  std::vector<Dot> dots;
  LinearForm linear;
  [[nodiscard]] bool linear_constant() const { return linear.terms.empty() && linear.ranges.empty(); }
  [[nodiscard]] bool constant() const { return products.empty() && dots.empty() && linear_constant(); }
  [[nodiscard]] int degree() const { return !products.empty() || !dots.empty() ? 2 : linear_constant() ? 0 : 1; }
};

void scale(LinearForm& l, const BigInt& c) {
  for (auto& [v, k] : l.terms) k *= c;
  for (auto& r : l.ranges) r.coef *= c;
  l.constant *= c;
}
void scale(Poly& p, const BigInt& c) {
  for (auto& pr : p.products) pr.coef *= c;
  for (auto& d : p.dots) d.coef *= c;
  scale(p.linear, c);
}
void add_into(Poly& a, Poly&& b) {
  for (auto& pr : b.products) a.products.push_back(std::move(pr));
  for (auto& d : b.dots) a.dots.push_back(std::move(d));
  for (auto& t : b.linear.terms) a.linear.terms.push_back(std::move(t));
  for (auto& r : b.linear.ranges) a.linear.ranges.push_back(std::move(r));
  a.linear.constant += b.linear.constant;
}

class Parser {
 public:
  // `column` is where the statement starts in its line (0-based).
  Parser(Functionality& f, std::size_t line, std::size_t column) : f_(f), line_(line), column_(column) {}

  [[noreturn]] void fail(const std::string& why) const { throw std::invalid_argument(fmt::format("line {}: {}", line_, why)); }
  [[noreturn]] void fail_at(std::size_t column, const std::string& why) const {
    throw std::invalid_argument(fmt::format("line {}, column {}: {}", line_, column, why));
  }

  void tokenize(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size()) {
      const char c = s[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        std::size_t j = i;
        while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
        tokens_.push_back({Token::name, std::string(s.substr(i, j - i)), column_ + i + 1});
        i = j;
      } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
        std::size_t j = i;
        while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.' || s[j] == 'e' ||
                                ((s[j] == '-' || s[j] == '+') && (s[j - 1] == 'e'))))
          ++j;
        tokens_.push_back({Token::number, std::string(s.substr(i, j - i)), column_ + i + 1});
        i = j;
      } else if (std::string_view("+-*/()[],=@").find(c) != std::string_view::npos) {
        tokens_.push_back({Token::symbol, std::string(1, c), column_ + i + 1});
        ++i;
      } else {
        fail(fmt::format("unexpected character '{}'", c));
      }
    }
    tokens_.push_back({Token::end, "", column_ + s.size() + 1});
  }

  const Token& peek() const { return tokens_[pos_]; }
  Token next() { return tokens_[pos_ < tokens_.size() - 1 ? pos_++ : pos_]; }
  bool accept(std::string_view sym) {
    if (peek().kind == Token::symbol && peek().text == sym) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(std::string_view sym) {
    if (!accept(sym)) fail(fmt::format("expected '{}' but found '{}'", sym, peek().kind == Token::end ? "end of line" : peek().text));
  }
  std::string expect_name(const char* what) {
    if (peek().kind != Token::name) fail(fmt::format("expected {} but found '{}'", what, peek().kind == Token::end ? "end of line" : peek().text));
    return next().text;
  }
  std::uint64_t expect_count(const char* what) {
    const Token t = next();
    const auto v = t.kind == Token::number ? parse_unsigned(t.text) : std::nullopt;
    if (!v) fail(fmt::format("expected {} (a whole number) but found '{}'", what, t.text));
    return *v;
  }
  void expect_end() {
    if (peek().kind != Token::end) fail(fmt::format("unexpected '{}' after the statement", peek().text));
  }

  void statement() {
    const std::string keyword = expect_name("'input', 'noise' or 'output'");
    if (keyword == "input") input();
    else if (keyword == "noise") noise();
    else if (keyword == "output") output();
    else fail("a statement starts with 'input', 'noise' or 'output', not '" + keyword + "'");
    expect_end();
  }

 private:
  void declare(InputDecl d) {
    for (const auto& other : f_.inputs)
      if (other.name == d.name) fail("'" + d.name + "' is declared twice");
    if (d.name == "sum" || d.name == "dot" || d.name == "sumsq" || d.name == "dlap")
      fail("'" + d.name + "' is a function name, not an input name");
    if (f_.variables.size() + d.length > max_variables) fail(fmt::format("more than {} input elements", max_variables));
    d.first = static_cast<std::uint32_t>(f_.variables.size());
    for (std::size_t i = 0; i < d.length; ++i) f_.variables.push_back({d.per_party ? static_cast<PartyId>(i) : d.owner, d.bit, d.noise});
    f_.inputs.push_back(std::move(d));
  }

  void owner_of(InputDecl& d) {
    expect("@");
    if (accept("*")) {
      if (!d.scalar) fail("'" + d.name + "' cannot be both a vector and per party (" + d.name + "@* gives one element per party)");
      d.per_party = true;
      d.scalar = false;
      d.length = f_.parties;
      return;
    }
    const std::uint64_t owner = expect_count("the owning party");
    if (owner >= f_.parties) fail(fmt::format("'{}' belongs to party {}, outside [0, {})", d.name, owner, f_.parties));
    d.owner = static_cast<PartyId>(owner);
  }

  void input() {
    bool bit = false;
    if (peek().kind == Token::name && peek().text == "bit" && tokens_[pos_ + 1].kind == Token::name) {
      ++pos_;
      bit = true;
    }
    do {
      InputDecl d;
      d.name = expect_name("an input name");
      d.bit = bit;
      if (accept("[")) {
        d.length = expect_count("the vector length");
        if (d.length == 0) fail("'" + d.name + "' has length 0");
        d.scalar = false;
        expect("]");
      }
      owner_of(d);
      declare(std::move(d));
    } while (accept(","));
  }

  void noise() {
    InputDecl d;
    d.name = expect_name("a noise name");
    d.noise = true;
    owner_of(d);
    if (!d.per_party) fail("noise '" + d.name + "' must be drawn by every party: write " + d.name + "@*");
    expect("=");
    if (expect_name("dlap") != "dlap") fail("the only noise is dlap(epsilon)");
    expect("(");
    const Token t = next();
    const auto eps = t.kind == Token::number ? parse_real(t.text) : std::nullopt;
    if (!eps || !(*eps > 0)) fail("dlap(epsilon) takes epsilon > 0, got '" + t.text + "'");
    d.epsilon = *eps;
    expect(")");
    declare(std::move(d));
  }

  void output() {
    Output o;
    o.name = expect_name("an output name");
    for (const auto& other : f_.outputs)
      if (other.name == o.name) fail("output '" + o.name + "' is declared twice");
    expect("=");
    Poly p = expr();
    if (accept("/")) {
      const Token t = next();
      const auto d = t.kind == Token::number ? parse_real(t.text) : std::nullopt;
      if (!d || *d == 0) fail("'/' must be followed by a non-zero number");
      o.divisor = *d;
    }
    o.products = std::move(p.products);
    o.dots = std::move(p.dots);
    o.linear = std::move(p.linear);
    f_.outputs.push_back(std::move(o));
  }

  const InputDecl& lookup(const std::string& name) {
    for (const auto& d : f_.inputs)
      if (d.name == name) return d;
    fail("unknown input '" + name + "' (declare it with 'input " + name + "@party')");
  }

  Poly variable(std::uint32_t v) {
    Poly p;
    p.linear.terms.push_back({v, BigInt(1)});
    return p;
  }

  void count_terms(std::size_t more) {
    terms_ += more;
    if (terms_ > max_terms) fail(fmt::format("more than {} terms", max_terms));
  }

  Poly multiply(Poly a, Poly b) {
    if (a.degree() + b.degree() > 2)
      fail(fmt::format("a product of degree {}: the engine computes outputs of degree <= 2 (sums of products of two inputs)",
                       a.degree() + b.degree()));
    if (a.constant()) {
      scale(b, a.linear.constant);
      return b;
    }
    if (b.constant()) {
      scale(a, b.linear.constant);
      return a;
    }
    Poly p;
    p.products.push_back({BigInt(1), std::move(a.linear), std::move(b.linear)});
    return p;
  }

  Poly expr() {
    bool negative = false;
    if (accept("-")) negative = true;
    else accept("+");
    Poly p = term();
    if (negative) scale(p, BigInt(-1));
    for (;;) {
      if (accept("+")) {
        add_into(p, term());
      } else if (accept("-")) {
        Poly t = term();
        scale(t, BigInt(-1));
        add_into(p, std::move(t));
      } else {
        return p;
      }
    }
  }

  Poly term() {
    Poly p = factor();
    while (accept("*")) p = multiply(std::move(p), factor());
    return p;
  }

  // A parenthesis or a unary minus opens one level; the levels are bounded so that no program can
  // exhaust the stack of the parties, the analyzer or the shuffler's setup.
  class Nesting {
   public:
    explicit Nesting(Parser& p) : p_(p) {
      if (++p_.depth_ > max_depth)
        p_.fail_at(p_.tokens_[p_.pos_ - 1].column, fmt::format("the expression nests deeper than {} parentheses and signs", max_depth));
    }
    ~Nesting() { --p_.depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;

   private:
    Parser& p_;
  };

  Poly factor() {
    if (accept("(")) {
      const Nesting level(*this);
      Poly p = expr();
      expect(")");
      return p;
    }
    if (accept("-")) {
      const Nesting level(*this);
      Poly p = factor();
      scale(p, BigInt(-1));
      return p;
    }
    const Token t = next();
    if (t.kind == Token::number) {
      if (t.text.find_first_not_of("0123456789") != std::string::npos || t.text.size() > 200)
        fail_at(t.column, "'" + t.text + "': constants are decimal integers of at most 200 digits");
      // Decimal whatever the leading zeros (Boost would read "010" as octal and refuse "09").
      const std::size_t first = std::min(t.text.find_first_not_of('0'), t.text.size() - 1);
      Poly p;
      p.linear.constant = BigInt(t.text.substr(first));
      return p;
    }
    if (t.kind != Token::name) fail("expected a number, an input or a function but found '" + (t.kind == Token::end ? std::string("end of line") : t.text) + "'");
    if (t.text == "sum" || t.text == "dot" || t.text == "sumsq") return function(t.text);
    const InputDecl& d = lookup(t.text);
    if (accept("[")) {
      if (d.scalar) fail("'" + d.name + "' is a scalar: write " + d.name + ", not " + d.name + "[i]");
      const std::uint64_t i = expect_count("an index");
      expect("]");
      if (i >= d.length) fail(fmt::format("{}[{}] is outside {}'s length {}", d.name, i, d.name, d.length));
      count_terms(1);
      return variable(d.first + static_cast<std::uint32_t>(i));
    }
    if (!d.scalar) fail(fmt::format("'{}' is a vector of {}: use {}[i], sum({}), sumsq({}) or dot({}, y)", d.name, d.length, d.name, d.name, d.name, d.name));
    count_terms(1);
    return variable(d.first);
  }

  Poly function(const std::string& fn) {
    expect("(");
    const InputDecl& a = lookup(expect_name("an input name"));
    const InputDecl* b = &a;
    if (fn == "dot") {
      expect(",");
      b = &lookup(expect_name("an input name"));
      if (b->length != a.length) fail(fmt::format("dot({}, {}): lengths {} and {} differ", a.name, b->name, a.length, b->length));
    }
    expect(")");
    count_terms(a.length);  // the work of evaluating it, though it is held in one term
    Poly p;
    const auto length = static_cast<std::uint32_t>(a.length);
    if (fn == "sum") p.linear.ranges.push_back({a.first, length, BigInt(1)});
    else p.dots.push_back({a.first, b->first, length, BigInt(1)});
    return p;
  }

  Functionality& f_;
  std::size_t line_, column_;
  std::size_t depth_ = 0;
  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  std::size_t terms_ = 0;
};

BigInt eval(const LinearForm& l, const std::vector<BigInt>& values) {
  BigInt s = l.constant;
  for (const auto& [v, c] : l.terms) s += c * values[v];
  for (const auto& r : l.ranges) {
    BigInt sum = 0;
    for (std::uint32_t i = 0; i < r.length; ++i) sum += values[r.first + i];
    s += r.coef * sum;
  }
  return s;
}

}  // namespace

bool Functionality::has_noise() const {
  for (const auto& d : inputs)
    if (d.noise) return true;
  return false;
}

const InputDecl& Functionality::declaration_of(std::uint32_t v) const {
  // Declarations hold consecutive variables in order: the last one starting at or before v.
  const auto after = std::upper_bound(inputs.begin(), inputs.end(), v, [](std::uint32_t x, const InputDecl& d) { return x < d.first; });
  if (v >= variables.size() || after == inputs.begin()) throw std::out_of_range("mpc2: no variable " + std::to_string(v));
  return *(after - 1);
}

std::string Functionality::variable_name(std::uint32_t v) const {
  const InputDecl& d = declaration_of(v);
  if (d.scalar) return d.name;
  return d.name + "[" + std::to_string(v - d.first) + "]";
}

std::vector<BigInt> Functionality::evaluate(const std::vector<BigInt>& values) const {
  std::vector<BigInt> out;
  out.reserve(outputs.size());
  for (const auto& o : outputs) {
    BigInt s = eval(o.linear, values);
    for (const auto& p : o.products) s += p.coef * eval(p.a, values) * eval(p.b, values);
    for (const auto& d : o.dots) {
      BigInt sum = 0;
      for (std::uint32_t i = 0; i < d.length; ++i) sum += values[d.first_a + i] * values[d.first_b + i];
      s += d.coef * sum;
    }
    out.push_back(std::move(s));
  }
  return out;
}

Functionality parse(std::string_view program, std::size_t parties) {
  if (parties < 1) throw std::invalid_argument("a functionality needs at least one party");
  Functionality f;
  f.parties = parties;
  f.source = std::string(program);
  std::size_t line_no = 0;
  std::size_t start = 0;
  while (start <= program.size()) {
    std::size_t end = program.find('\n', start);
    if (end == std::string_view::npos) end = program.size();
    ++line_no;
    std::string_view line = program.substr(start, end - start);
    if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    std::size_t s = 0;
    while (s <= line.size()) {
      std::size_t e = line.find(';', s);
      if (e == std::string_view::npos) e = line.size();
      const std::string_view stmt = line.substr(s, e - s);
      if (stmt.find_first_not_of(" \t\r") != std::string_view::npos) {
        Parser p(f, line_no, s);
        p.tokenize(stmt);
        p.statement();
      }
      s = e + 1;
    }
    start = end + 1;
  }
  if (f.outputs.empty()) throw std::invalid_argument("the functionality has no output (add a line 'output name = expression')");
  f.owned.assign(parties, {});
  for (std::uint32_t v = 0; v < f.variables.size(); ++v) f.owned[f.variables[v].owner].push_back(v);
  return f;
}

const std::vector<Builtin>& builtins() {
  static const std::vector<Builtin> list = {
      {"sum", "the sum of every party's integer"},
      {"weighted-sum", "sum of (i + 1) x_i: party i's integer with public weight i + 1"},
      {"inner-product", "inner product of party 0's and party 1's vectors (--length elements)"},
      {"variance", "the sample variance of every party's integer"},
      {"pairwise-and", "x_i AND x_j for every pair of parties' bits"},
      {"dp-sum", "the sum of every party's integer plus central discrete Laplace noise of scale 1/epsilon, from per-party shares"},
  };
  return list;
}

std::string builtin_program(const std::string& name, std::size_t parties, std::size_t length, double epsilon) {
  std::ostringstream p;
  if (name == "sum") {
    p << "input x@*\noutput sum = sum(x)\n";
  } else if (name == "weighted-sum") {
    p << "input x@*\noutput weighted_sum = ";
    for (std::size_t i = 0; i < parties; ++i) p << (i ? " + " : "") << i + 1 << "*x[" << i << "]";
    p << "\n";
  } else if (name == "inner-product") {
    if (parties < 2) throw std::invalid_argument("inner-product needs at least 2 parties");
    p << "input a[" << length << "]@0, b[" << length << "]@1\noutput inner_product = dot(a, b)\n";
  } else if (name == "variance") {
    if (parties < 2) throw std::invalid_argument("variance needs at least 2 parties");
    p << "input x@*\noutput variance = (" << parties << "*sumsq(x) - sum(x)*sum(x)) / " << parties * (parties - 1) << "\n";
  } else if (name == "pairwise-and") {
    p << "input bit x@*\n";
    for (std::size_t i = 0; i < parties; ++i)
      for (std::size_t j = i + 1; j < parties; ++j) p << "output and_" << i << "_" << j << " = x[" << i << "]*x[" << j << "]\n";
  } else if (name == "dp-sum") {
    p << "input x@*\nnoise e@* = dlap(" << fmt::format("{}", epsilon) << ")\noutput dp_sum = sum(x) + sum(e)\n";
  } else {
    std::string names;
    for (const auto& b : builtins()) names += (names.empty() ? "" : ", ") + b.name;
    throw std::invalid_argument("--function '" + name + "' is neither a built-in (" + names +
                                ") nor a program (a text with an 'output' line) nor @FILE");
  }
  return p.str();
}

}  // namespace shufflempc::mpc2
