// Hexadecimal text of bytes (keys, session ids, digests), through libsodium: sodium_bin2hex and
// sodium_hex2bin run in constant time, so secret keys can go through them too.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace shufflempc {

// Lower-case hex, two digits per byte.
[[nodiscard]] std::string to_hex(std::span<const std::uint8_t> bytes);
// Exactly 2 * out.size() hex digits (either case) into `out`; throws std::invalid_argument naming
// `what` otherwise (the message never repeats the text, which may be a secret key).
void from_hex(std::string_view hex, std::span<std::uint8_t> out, std::string_view what);

}  // namespace shufflempc
