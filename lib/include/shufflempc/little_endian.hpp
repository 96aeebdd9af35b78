// Little-endian fixed-width integers in byte buffers: message payloads, frames, nonces, field
// element encodings and the random streams all use this one layout, so a seed or a message means
// the same on every host. On a little-endian host each is one copy.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace shufflempc {

template <class T>
void store_le(std::uint8_t* out, T v) {
  static_assert(std::is_unsigned_v<T> && sizeof(T) <= 8);
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(out, &v, sizeof(T));
  } else {
    for (std::size_t i = 0; i < sizeof(T); ++i) out[i] = static_cast<std::uint8_t>(static_cast<std::uint64_t>(v) >> (8 * i));
  }
}

template <class T>
[[nodiscard]] T load_le(const std::uint8_t* in) {
  static_assert(std::is_unsigned_v<T> && sizeof(T) <= 8);
  if constexpr (std::endian::native == std::endian::little) {
    T v;
    std::memcpy(&v, in, sizeof(T));
    return v;
  } else {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) v |= std::uint64_t{in[i]} << (8 * i);
    return static_cast<T>(v);
  }
}

}  // namespace shufflempc
