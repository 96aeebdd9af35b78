#include "shufflempc/messages.hpp"

#include <stdexcept>
#include <string>

namespace shufflempc {
namespace {
void check_width(std::size_t width) {
  if (width == 0 || width > MessageBatch::max_width)
    throw std::invalid_argument("message width must be in [1, " + std::to_string(MessageBatch::max_width) +
                                "] bytes, got " + std::to_string(width));
}
}  // namespace

MessageBatch::MessageBatch(std::size_t width, std::size_t count) : width_(width), bytes_(count * width) { check_width(width); }

void MessageBatch::push_back(std::span<const std::uint8_t> message) {
  if (message.size() != width_)
    throw std::invalid_argument("message of " + std::to_string(message.size()) + " bytes in a batch of width " +
                                std::to_string(width_));
  bytes_.insert(bytes_.end(), message.begin(), message.end());
}

void MessageBatch::append(const MessageBatch& other) { append(other, 0, other.count()); }

void MessageBatch::append(const MessageBatch& other, std::size_t first, std::size_t n) {
  if (n == 0) return;
  if (other.width_ != width_)
    throw std::invalid_argument("cannot append a batch of width " + std::to_string(other.width_) + " to one of width " +
                                std::to_string(width_));
  if (first + n > other.count()) throw std::invalid_argument("MessageBatch::append: range past the end");
  const auto* begin = other.bytes_.data() + first * width_;
  bytes_.insert(bytes_.end(), begin, begin + n * width_);
}

MessageBatch MessageBatch::from_bytes(std::size_t width, std::vector<std::uint8_t> bytes) {
  check_width(width);
  if (bytes.size() % width != 0)
    throw std::invalid_argument(std::to_string(bytes.size()) + " bytes is not a whole number of " +
                                std::to_string(width) + "-byte messages");
  MessageBatch b;
  b.width_ = width;
  b.bytes_ = std::move(bytes);
  return b;
}

}  // namespace shufflempc
