#include "shufflempc/chunks.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>

#include "shufflempc/error.hpp"

namespace shufflempc {

ChunkedMessages::ChunkedMessages(std::size_t message_width, std::size_t max_chunk_width) : message_width_(message_width) {
  if (message_width < 1 || message_width > (std::size_t{1} << 40))
    throw std::invalid_argument("message_width = " + std::to_string(message_width) + " is out of range: must be in [1, 2^40]");
  if (max_chunk_width <= header_bytes || max_chunk_width > MessageBatch::max_width)
    throw std::invalid_argument("max_chunk_width = " + std::to_string(max_chunk_width) + " is out of range: must be in (" +
                                std::to_string(header_bytes) + ", " + std::to_string(MessageBatch::max_width) + "]");
  const std::size_t capacity = max_chunk_width - header_bytes;
  chunks_ = (message_width + capacity - 1) / capacity;
  piece_ = (message_width + chunks_ - 1) / chunks_;  // equal pieces: as little padding as possible
  chunk_width_ = header_bytes + piece_;
}

void ChunkedMessages::append(std::span<const std::uint8_t> message, Rng& rng, MessageBatch& out) const {
  if (message.size() != message_width_)
    throw std::invalid_argument("ChunkedMessages::append: a message of " + std::to_string(message.size()) + " bytes, expected " +
                                std::to_string(message_width_));
  if (out.width() != chunk_width_)
    throw std::invalid_argument("ChunkedMessages::append: the batch's width is " + std::to_string(out.width()) + ", chunks are " +
                                std::to_string(chunk_width_) + " bytes");
  std::uint8_t tag[tag_bytes];
  rng.fill(tag, tag_bytes);
  for (std::size_t i = 0; i < chunks_; ++i) {
    auto m = out.append();
    std::memcpy(m.data(), tag, tag_bytes);
    store_le<std::uint32_t>(m.data() + tag_bytes, static_cast<std::uint32_t>(i));
    const std::size_t first = i * piece_;
    const std::size_t n = std::min(piece_, message_width_ - first);
    std::memcpy(m.data() + header_bytes, message.data() + first, n);
    std::memset(m.data() + header_bytes + n, 0, piece_ - n);
  }
}

std::vector<std::vector<std::uint8_t>> ChunkedMessages::reassemble(const MessageBatch& chunks) const {
  const auto bad = [](const std::string& what) { throw_error(Errc::protocol_violation, "chunked messages: " + what); };
  if (chunks.count() == 0) return {};
  if (chunks.width() != chunk_width_)
    bad("chunks of width " + std::to_string(chunks.width()) + ", expected " + std::to_string(chunk_width_));
  if (chunks.count() % chunks_ != 0) bad(std::to_string(chunks.count()) + " chunks is not a whole number of messages");
  std::vector<std::size_t> order(chunks.count());
  std::iota(order.begin(), order.end(), std::size_t{0});
  const auto index_of = [&](std::size_t i) { return load_le<std::uint32_t>(chunks[i].data() + tag_bytes); };
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const int c = std::memcmp(chunks[a].data(), chunks[b].data(), tag_bytes);
    return c != 0 ? c < 0 : index_of(a) < index_of(b);
  });
  std::vector<std::vector<std::uint8_t>> messages;
  messages.reserve(chunks.count() / chunks_);
  for (std::size_t g = 0; g < order.size(); g += chunks_) {
    const std::uint8_t* tag = chunks[order[g]].data();
    std::vector<std::uint8_t> message(message_width_);
    for (std::size_t i = 0; i < chunks_; ++i) {
      const auto c = chunks[order[g + i]];
      if (std::memcmp(c.data(), tag, tag_bytes) != 0 || index_of(order[g + i]) != i)
        bad("a message with a chunk missing, repeated or out of range");
      const std::size_t first = i * piece_;
      const std::size_t n = std::min(piece_, message_width_ - first);
      std::memcpy(message.data() + first, c.data() + header_bytes, n);
    }
    messages.push_back(std::move(message));
  }
  return messages;
}

}  // namespace shufflempc
