// Fixed-width message batches: `count` messages of `width` bytes each in one contiguous buffer.
// Equal width is what keeps the shuffle anonymous: a message's length must not betray its sender.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "shufflempc/little_endian.hpp"

namespace shufflempc {

class MessageBatch {
 public:
  // Widths above this are refused: a message is a small record, never a file.
  static constexpr std::size_t max_width = 1u << 16;

  MessageBatch() = default;
  explicit MessageBatch(std::size_t width, std::size_t count = 0);

  [[nodiscard]] std::size_t width() const { return width_; }
  [[nodiscard]] std::size_t count() const { return width_ == 0 ? 0 : bytes_.size() / width_; }
  [[nodiscard]] bool empty() const { return bytes_.empty(); }
  [[nodiscard]] std::size_t size_bytes() const { return bytes_.size(); }
  [[nodiscard]] std::uint8_t* data() { return bytes_.data(); }
  [[nodiscard]] const std::uint8_t* data() const { return bytes_.data(); }
  [[nodiscard]] std::span<const std::uint8_t> bytes() const { return bytes_; }

  [[nodiscard]] std::span<std::uint8_t> operator[](std::size_t i) { return {bytes_.data() + i * width_, width_}; }
  [[nodiscard]] std::span<const std::uint8_t> operator[](std::size_t i) const { return {bytes_.data() + i * width_, width_}; }

  // Appends one zeroed message and returns it for writing.
  std::span<std::uint8_t> append() {
    const std::size_t at = bytes_.size();
    bytes_.resize(at + width_);
    return {bytes_.data() + at, width_};
  }
  // Appends a copy of `message` (its size must equal width()).
  void push_back(std::span<const std::uint8_t> message);
  // Appends all messages of `other` (same width).
  void append(const MessageBatch& other);
  // Appends messages [first, first + n) of `other` (same width).
  void append(const MessageBatch& other, std::size_t first, std::size_t n);
  void reserve(std::size_t count) { bytes_.reserve(count * width_); }
  void resize(std::size_t count) { bytes_.resize(count * width_); }
  void clear() { bytes_.clear(); }
  void swap(MessageBatch& other) noexcept {
    std::swap(width_, other.width_);
    bytes_.swap(other.bytes_);
  }

  // Gives up the buffer (the batch is left empty, same width).
  [[nodiscard]] std::vector<std::uint8_t> release() { return std::exchange(bytes_, {}); }
  // Takes ownership of raw bytes; throws std::invalid_argument if the size is not a multiple of width.
  static MessageBatch from_bytes(std::size_t width, std::vector<std::uint8_t> bytes);

  friend bool operator==(const MessageBatch&, const MessageBatch&) = default;

 private:
  std::size_t width_ = 0;
  std::vector<std::uint8_t> bytes_;
};

}  // namespace shufflempc
