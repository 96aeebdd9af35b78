#include "shufflempc/protocols/circuit/bristol.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <stdexcept>
#include <type_traits>

#include <fmt/format.h>

#include "shufflempc/files.hpp"

namespace shufflempc::circuit {
namespace {

// The shortest gate line ("1 1 0 5 EQ") takes 10 characters, and every token of a line at least 2
// (digit and separator): the declared counts must fit the text, so a few bytes cannot ask for
// gigabytes.
constexpr std::uint64_t min_gate_line = 10;

// Lines of the text, with their 1-based numbers; blank lines are skipped.
template <class What>
std::string name_of(const What& what) {
  if constexpr (std::is_invocable_v<What>) return what();
  else return std::string(what);
}

class Lines {
 public:
  Lines(std::string_view text, std::string_view name) : text_(text), name_(name) {}

  // The next non-blank line's tokens; false at the end.
  bool next(std::vector<std::string_view>& tokens) {
    while (pos_ < text_.size()) {
      std::size_t end = text_.find('\n', pos_);
      if (end == std::string_view::npos) end = text_.size();
      std::string_view line = text_.substr(pos_, end - pos_);
      pos_ = end + 1;
      ++line_;
      tokens.clear();
      std::size_t i = 0;
      while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
        std::size_t j = i;
        while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
        if (j > i) tokens.push_back(line.substr(i, j - i));
        i = j;
      }
      if (!tokens.empty()) return true;
    }
    return false;
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument(fmt::format("circuit {}, line {}: {}", name_, line_, what));
  }

  // `what` names the number in an error: text, or a callable that makes it (formatted only on error).
  template <class What>
  std::uint64_t number(std::string_view token, const What& what, std::uint64_t max) const {
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
    if (ec != std::errc{} || p != token.data() + token.size())
      fail(fmt::format("{} must be a non-negative integer, got '{}'", name_of(what), token));
    if (v > max) fail(fmt::format("{} = {} is above the limit {}", name_of(what), v, max));
    return v;
  }

  [[nodiscard]] std::size_t line() const { return line_; }

 private:
  std::string_view text_;
  std::string_view name_;
  std::size_t pos_ = 0;
  std::size_t line_ = 0;
};

std::vector<std::uint32_t> group_line(Lines& lines, std::vector<std::string_view>& tok, std::string_view what,
                                      std::uint32_t wires) {
  if (!lines.next(tok)) lines.fail(fmt::format("the file ends before the {} line", what));
  const auto count = lines.number(tok[0], fmt::format("the number of {} groups", what), 1u << 16);
  if (count == 0 || tok.size() != count + 1)
    lines.fail(fmt::format("the {} line must give a positive group count and then one width per group ({} numbers), got {} numbers",
                           what, count + 1, tok.size()));
  std::vector<std::uint32_t> widths;
  std::uint64_t total = 0;
  for (std::size_t i = 1; i < tok.size(); ++i) {
    const auto w = lines.number(tok[i], fmt::format("{} group {}'s width", what, i - 1), wires);
    if (w == 0) lines.fail(fmt::format("{} group {} has width 0", what, i - 1));
    widths.push_back(static_cast<std::uint32_t>(w));
    total += w;
  }
  if (total > wires) lines.fail(fmt::format("the {} groups add up to {} bits, more than the {} wires", what, total, wires));
  return widths;
}

}  // namespace

const char* to_string(GateType t) {
  switch (t) {
    case GateType::xor_gate: return "XOR";
    case GateType::and_gate: return "AND";
    case GateType::inv: return "INV";
    case GateType::eq: return "EQ";
    case GateType::eqw: return "EQW";
  }
  return "?";
}

std::uint32_t Circuit::input_bits() const {
  std::uint32_t s = 0;
  for (auto w : inputs) s += w;
  return s;
}

std::uint32_t Circuit::output_bits() const {
  std::uint32_t s = 0;
  for (auto w : outputs) s += w;
  return s;
}

std::uint32_t Circuit::input_wire(std::size_t group) const {
  std::uint32_t s = 0;
  for (std::size_t g = 0; g < group; ++g) s += inputs[g];
  return s;
}

std::uint32_t Circuit::output_wire(std::size_t group) const {
  std::uint32_t s = wires - output_bits();
  for (std::size_t g = 0; g < group; ++g) s += outputs[g];
  return s;
}

Layers layer_by_and_depth(const Circuit& c) {
  std::vector<std::uint32_t> depth(c.wires, 0);
  std::vector<std::uint32_t> gate_depth(c.gates.size(), 0);
  std::uint32_t most = 0;
  Layers l;
  l.and_index.assign(c.gates.size(), 0);
  std::uint32_t ai = 0;
  for (std::size_t g = 0; g < c.gates.size(); ++g) {
    const Gate& gate = c.gates[g];
    std::uint32_t d = 0;
    switch (gate.type) {
      case GateType::and_gate:
        d = std::max(depth[gate.a], depth[gate.b]) + 1;
        l.and_index[g] = ai++;
        break;
      case GateType::xor_gate: d = std::max(depth[gate.a], depth[gate.b]); break;
      case GateType::inv:
      case GateType::eqw: d = depth[gate.a]; break;
      case GateType::eq: d = 0; break;
    }
    depth[gate.out] = d;
    gate_depth[g] = d;
    most = std::max(most, d);
  }
  l.ands.assign(most + 1, {});
  l.linear.assign(most + 1, {});
  for (std::size_t g = 0; g < c.gates.size(); ++g)
    (c.gates[g].type == GateType::and_gate ? l.ands : l.linear)[gate_depth[g]].push_back(static_cast<std::uint32_t>(g));
  return l;
}

Circuit parse(std::string_view text, std::string_view name) {
  Circuit c;
  c.name = std::string(name);
  Lines lines(text, name);
  std::vector<std::string_view> tok;
  if (!lines.next(tok)) lines.fail("the file is empty (expected 'gates wires')");
  if (tok.size() != 2) lines.fail(fmt::format("the first line must be 'gates wires', got {} numbers", tok.size()));
  const auto gates = lines.number(tok[0], "the gate count", max_gates);
  c.wires = static_cast<std::uint32_t>(lines.number(tok[1], "the wire count", max_wires));
  if (c.wires == 0) lines.fail("the wire count is 0");
  if (gates > text.size() / min_gate_line)
    lines.fail(fmt::format("the first line declares {} gates, but {} bytes hold at most {} (a gate line takes at least {} characters)",
                           gates, text.size(), text.size() / min_gate_line, min_gate_line));
  c.inputs = group_line(lines, tok, "input", c.wires);
  c.outputs = group_line(lines, tok, "output", c.wires);
  if (c.input_bits() > max_input_bits)
    lines.fail(fmt::format("the input groups add up to {} bits, above the limit of {}", c.input_bits(), max_input_bits));
  if (c.wires > std::uint64_t{c.input_bits()} + text.size() / 2)
    lines.fail(fmt::format("the first line declares {} wires, but {} input bits and {} bytes of gates set at most {}", c.wires,
                           c.input_bits(), text.size(), std::uint64_t{c.input_bits()} + text.size() / 2));
  c.gates.reserve(gates);

  std::vector<std::uint8_t> set(c.wires, 0);
  for (std::uint32_t w = 0; w < c.input_bits(); ++w) set[w] = 1;
  const auto read_wire = [&](std::string_view token, std::size_t gate) {
    const auto w = lines.number(token, [&] { return fmt::format("gate {}'s input wire", gate); }, ~std::uint32_t{0});
    if (w >= c.wires) lines.fail(fmt::format("gate {} reads wire {}, outside [0, {})", gate, w, c.wires));
    if (!set[w]) lines.fail(fmt::format("gate {} reads wire {} before any gate sets it", gate, w));
    return static_cast<std::uint32_t>(w);
  };
  const auto write_wire = [&](std::string_view token, std::size_t gate) {
    const auto w = lines.number(token, [&] { return fmt::format("gate {}'s output wire", gate); }, ~std::uint32_t{0});
    if (w >= c.wires) lines.fail(fmt::format("gate {} writes wire {}, outside [0, {})", gate, w, c.wires));
    if (set[w]) lines.fail(fmt::format("gate {} writes wire {}, which is already set", gate, w));
    set[w] = 1;
    return static_cast<std::uint32_t>(w);
  };
  for (std::uint64_t g = 0; g < gates; ++g) {
    if (!lines.next(tok)) lines.fail(fmt::format("the file ends after {} of its {} gates", g, gates));
    if (tok.size() < 4) lines.fail(fmt::format("gate {} must read 'in out wires... TYPE', got {} tokens", g, tok.size()));
    const auto in = lines.number(tok[0], [&] { return fmt::format("gate {}'s input count", g); }, 1u << 20);
    const auto out = lines.number(tok[1], [&] { return fmt::format("gate {}'s output count", g); }, 1u << 20);
    const std::string_view type = tok.back();
    if (tok.size() != in + out + 3)
      lines.fail(fmt::format("gate {} declares {} inputs and {} outputs but lists {} wires", g, in, out, tok.size() - 3));
    const auto arity = [&](std::uint64_t want_in, std::uint64_t want_out) {
      if (in != want_in || out != want_out)
        lines.fail(fmt::format("gate {} ({}) must have {} inputs and {} output, got {} and {}", g, type, want_in, want_out, in, out));
    };
    if (type == "XOR" || type == "AND") {
      arity(2, 1);
      Gate gate{type == "XOR" ? GateType::xor_gate : GateType::and_gate, read_wire(tok[2], g), read_wire(tok[3], g), 0};
      gate.out = write_wire(tok[4], g);
      ++(type == "XOR" ? c.xor_gates : c.and_gates);
      c.gates.push_back(gate);
    } else if (type == "INV" || type == "EQW") {
      arity(1, 1);
      Gate gate{type == "INV" ? GateType::inv : GateType::eqw, read_wire(tok[2], g), 0, 0};
      gate.out = write_wire(tok[3], g);
      if (type == "INV") ++c.inv_gates;
      c.gates.push_back(gate);
    } else if (type == "EQ") {
      arity(1, 1);
      const auto v = lines.number(tok[2], [&] { return fmt::format("gate {}'s constant", g); }, 1);
      Gate gate{GateType::eq, static_cast<std::uint32_t>(v), 0, 0};
      gate.out = write_wire(tok[3], g);
      c.gates.push_back(gate);
    } else if (type == "MAND") {
      if (in == 0 || in != 2 * out) lines.fail(fmt::format("gate {} (MAND) must have 2k inputs and k outputs, got {} and {}", g, in, out));
      std::vector<std::uint32_t> ins;
      for (std::size_t i = 0; i < in; ++i) ins.push_back(read_wire(tok[2 + i], g));
      for (std::size_t i = 0; i < out; ++i) {
        Gate gate{GateType::and_gate, ins[i], ins[out + i], 0};
        gate.out = write_wire(tok[2 + in + i], g);
        ++c.and_gates;
        c.gates.push_back(gate);
      }
    } else {
      lines.fail(fmt::format("gate {} has type '{}', not one of XOR AND INV EQ EQW MAND", g, type));
    }
  }
  if (lines.next(tok)) lines.fail(fmt::format("text after the {} gates the first line declares", gates));
  for (std::uint32_t w = c.wires - c.output_bits(); w < c.wires; ++w)
    if (!set[w]) throw std::invalid_argument(fmt::format("circuit {}: output wire {} is never set", name, w));
  c.layers = layer_by_and_depth(c);
  return c;
}

Circuit load(const std::string& path) {
  const std::string text = read_text_file(path, "--circuit", std::size_t{256} << 20);
  return parse(text, path);
}

std::vector<std::uint8_t> evaluate(const Circuit& c, std::span<const std::uint8_t> input_bits) {
  if (input_bits.size() != c.input_bits())
    throw std::invalid_argument(fmt::format("circuit {}: {} input bits given, the circuit takes {}", c.name, input_bits.size(), c.input_bits()));
  std::vector<std::uint8_t> v(c.wires, 0);
  for (std::size_t i = 0; i < input_bits.size(); ++i) v[i] = input_bits[i] & 1;
  for (const Gate& g : c.gates) {
    switch (g.type) {
      case GateType::xor_gate: v[g.out] = v[g.a] ^ v[g.b]; break;
      case GateType::and_gate: v[g.out] = v[g.a] & v[g.b]; break;
      case GateType::inv: v[g.out] = v[g.a] ^ 1; break;
      case GateType::eq: v[g.out] = static_cast<std::uint8_t>(g.a); break;
      case GateType::eqw: v[g.out] = v[g.a]; break;
    }
  }
  return {v.end() - c.output_bits(), v.end()};
}

std::vector<std::uint8_t> bits_from_hex(std::string_view hex, std::uint32_t width, std::string_view what) {
  const std::size_t digits = (width + 3) / 4;
  if (hex.size() != digits)
    throw std::invalid_argument(fmt::format("{} must be {} hex digits ({} bits, the big-endian integer), got {} characters", what, digits,
                                            width, hex.size()));
  std::vector<std::uint8_t> bits(width, 0);
  for (std::size_t i = 0; i < digits; ++i) {
    const char ch = hex[digits - 1 - i];  // i-th least significant digit
    int d = -1;
    if (ch >= '0' && ch <= '9') d = ch - '0';
    else if (ch >= 'a' && ch <= 'f') d = ch - 'a' + 10;
    else if (ch >= 'A' && ch <= 'F') d = ch - 'A' + 10;
    if (d < 0) throw std::invalid_argument(fmt::format("{} must be hex digits, got '{}' at position {}", what, ch, digits - 1 - i));
    for (std::size_t b = 0; b < 4; ++b) {
      const std::size_t bit = 4 * i + b;
      if (((d >> b) & 1) == 0) continue;
      if (bit >= width) throw std::invalid_argument(fmt::format("{} has bits set above its width of {} bits", what, width));
      bits[bit] = 1;
    }
  }
  return bits;
}

std::string hex_from_bits(std::span<const std::uint8_t> bits) {
  const std::size_t digits = (bits.size() + 3) / 4;
  std::string s(digits, '0');
  for (std::size_t i = 0; i < digits; ++i) {
    int d = 0;
    for (std::size_t b = 0; b < 4 && 4 * i + b < bits.size(); ++b) d |= (bits[4 * i + b] & 1) << b;
    s[digits - 1 - i] = "0123456789abcdef"[d];
  }
  return s;
}

BristolWriter::BristolWriter(std::vector<std::uint32_t> input_groups) : inputs_(std::move(input_groups)) {
  std::uint64_t total = 0;
  first_.reserve(inputs_.size());
  for (auto w : inputs_) {
    first_.push_back(static_cast<std::uint32_t>(total));
    total += w;
    if (total >= zero) throw std::invalid_argument("BristolWriter: too many input wires");
  }
  next_ = static_cast<std::uint32_t>(total);
}

std::uint32_t BristolWriter::input(std::size_t group, std::uint32_t bit) const {
  if (group >= inputs_.size() || bit >= inputs_[group]) throw std::invalid_argument("BristolWriter: no such input bit");
  return first_[group] + bit;
}

std::uint32_t BristolWriter::gate2(std::uint32_t a, std::uint32_t b, const char* type) {
  fmt::format_to(std::back_inserter(body_), "2 1 {} {} {} {}\n", a, b, next_, type);
  ++gates_;
  return next_++;
}

std::uint32_t BristolWriter::xor_(std::uint32_t a, std::uint32_t b) {
  if (a == zero) return b;
  if (b == zero) return a;
  return gate2(a, b, "XOR");
}

std::uint32_t BristolWriter::and_(std::uint32_t a, std::uint32_t b) { return a == zero || b == zero ? zero : gate2(a, b, "AND"); }

std::uint32_t BristolWriter::copy(std::uint32_t a) {
  if (a == zero) fmt::format_to(std::back_inserter(body_), "1 1 0 {} EQ\n", next_);
  else fmt::format_to(std::back_inserter(body_), "1 1 {} {} EQW\n", a, next_);
  ++gates_;
  return next_++;
}

std::vector<std::uint32_t> BristolWriter::add(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b, std::size_t width) {
  std::vector<std::uint32_t> s(width, zero);
  std::uint32_t c = zero;
  for (std::size_t i = 0; i < width; ++i) {
    std::uint32_t t[3];
    int k = 0;
    for (std::uint32_t w : {i < a.size() ? a[i] : zero, i < b.size() ? b[i] : zero, c})
      if (w != zero) t[k++] = w;
    const bool last = i + 1 == width;
    if (k == 0) {
      s[i] = c = zero;
    } else if (k == 1) {
      s[i] = t[0];
      c = zero;
    } else if (k == 2) {
      s[i] = xor_(t[0], t[1]);
      c = last ? zero : and_(t[0], t[1]);
    } else {
      const std::uint32_t ac = xor_(t[0], t[2]), bc = xor_(t[1], t[2]);
      s[i] = xor_(ac, t[1]);
      c = last ? zero : xor_(t[2], and_(ac, bc));
    }
  }
  return s;
}

std::vector<std::uint32_t> BristolWriter::sum(std::vector<std::vector<std::uint32_t>> xs, std::size_t width, bool grow) {
  if (xs.empty()) return {};
  while (xs.size() > 1) {
    std::vector<std::vector<std::uint32_t>> next;
    for (std::size_t i = 0; i + 1 < xs.size(); i += 2) {
      const std::size_t w = grow ? std::min(width, std::max(xs[i].size(), xs[i + 1].size()) + 1) : width;
      next.push_back(add(xs[i], xs[i + 1], w));
    }
    if (xs.size() % 2) next.push_back(std::move(xs.back()));
    xs = std::move(next);
  }
  return xs.front();
}

std::string BristolWriter::text(const std::vector<std::uint32_t>& output_groups) const {
  std::string t = fmt::format("{} {}\n{}", gates_, next_, inputs_.size());
  for (auto w : inputs_) t += fmt::format(" {}", w);
  t += fmt::format("\n{}", output_groups.size());
  for (auto w : output_groups) t += fmt::format(" {}", w);
  t += "\n\n";
  return t + body_;
}

}  // namespace shufflempc::circuit
