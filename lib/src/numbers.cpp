#include "shufflempc/numbers.hpp"

#include <charconv>
#include <cmath>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <system_error>

namespace shufflempc {
namespace {

std::string_view without_plus(std::string_view text) {
  if (text.size() > 1 && text.front() == '+' && text[1] != '-' && text[1] != '+') text.remove_prefix(1);
  return text;
}

}  // namespace

std::optional<double> parse_real(std::string_view text) {
  text = without_plus(text);
  if (text.empty()) return std::nullopt;
  double v = 0;
#ifdef __EMSCRIPTEN__
  // The browser's build: Emscripten's libc++ has no floating-point from_chars. strtod in the "C"
  // locale reads the same decimal forms; what from_chars refuses and strtod takes (leading space,
  // hexadecimal) is refused first.
  if (std::isspace(static_cast<unsigned char>(text.front())) || text.find_first_of("xX") != std::string_view::npos) return std::nullopt;
  const std::string copy(text);
  char* end = nullptr;
  v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !std::isfinite(v)) return std::nullopt;
#else
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
#endif
  return v;
}

std::optional<std::int64_t> parse_integer(std::string_view text) {
  const std::string_view t = without_plus(text);
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (!t.empty() && ec == std::errc() && end == t.data() + t.size()) return v;
  const auto d = parse_real(text);  // 1e6-style
  if (d && *d == std::floor(*d) && std::fabs(*d) < 9.2e18) return static_cast<std::int64_t>(*d);
  return std::nullopt;
}

std::optional<std::uint64_t> parse_unsigned(std::string_view text, std::uint64_t max) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v > max) return std::nullopt;
  return v;
}

std::vector<std::string> split_items(std::string_view text, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = text.find(sep, start);
    out.emplace_back(text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

std::string shortest_real(double v) {
#ifdef __EMSCRIPTEN__
  // The browser's build has no floating-point to_chars: the fewest digits that read back as v.
  char buf[32];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
#else
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
#endif
}

std::string format_real(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace shufflempc
