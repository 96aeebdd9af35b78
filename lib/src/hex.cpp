#include "shufflempc/hex.hpp"

#include <sodium.h>

#include <stdexcept>

namespace shufflempc {

std::string to_hex(std::span<const std::uint8_t> bytes) {
  if (bytes.empty()) return {};  // an empty span may hold a null pointer, which libsodium declares nonnull
  std::string s(2 * bytes.size() + 1, '\0');
  sodium_bin2hex(s.data(), s.size(), bytes.data(), bytes.size());
  s.pop_back();
  return s;
}

void from_hex(std::string_view hex, std::span<std::uint8_t> out, std::string_view what) {
  const std::string name(what);
  if (hex.size() != 2 * out.size())
    throw std::invalid_argument(name + " must be " + std::to_string(2 * out.size()) + " hex digits, got " +
                                std::to_string(hex.size()) + " characters");
  if (out.empty()) return;  // nothing to decode, and out.data() may be null (libsodium declares it nonnull)
  std::size_t written = 0;
  const char* end = nullptr;
  if (sodium_hex2bin(out.data(), out.size(), hex.data(), hex.size(), nullptr, &written, &end) != 0 ||
      written != out.size() || end != hex.data() + hex.size())
    throw std::invalid_argument(name + " must be hex digits only");
}

}  // namespace shufflempc
