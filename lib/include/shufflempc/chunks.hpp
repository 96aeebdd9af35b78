// Messages wider than one shuffle message (MessageBatch::max_width = 64 KiB), carried as chunks:
// the one shared helper for a protocol whose messages are large (garbled tables, long vectors).
//
// Each message goes out as k equal chunks [tag: 16 random bytes][index: u32 LE][piece of the
// message, the last zero-padded]. The tag is fresh from the sender's Rng for every message, so the
// chunks of one message can be found again after the shuffle while the tag says nothing about who
// sent it. After the shuffle reassemble() groups chunks by tag, checks every group is whole, and
// returns the messages ordered by tag: a uniformly random order, as the shuffle's own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "shufflempc/channel.hpp"
#include "shufflempc/messages.hpp"
#include "shufflempc/random.hpp"

namespace shufflempc {

class ChunkedMessages {
 public:
  static constexpr std::size_t tag_bytes = 16;
  static constexpr std::size_t index_bytes = 4;
  static constexpr std::size_t header_bytes = tag_bytes + index_bytes;

  // Messages of exactly `message_width` bytes (>= 1) in chunks of at most `max_chunk_width` bytes
  // (> header_bytes). Throws std::invalid_argument naming the parameter otherwise.
  explicit ChunkedMessages(std::size_t message_width, std::size_t max_chunk_width = MessageBatch::max_width);

  [[nodiscard]] std::size_t message_width() const { return message_width_; }
  [[nodiscard]] std::size_t chunk_width() const { return chunk_width_; }
  [[nodiscard]] std::size_t chunks_per_message() const { return chunks_; }
  // The round's shape on the channel: chunk-wide messages.
  [[nodiscard]] RoundShape shape(Delivery delivery) const { return {chunk_width_, delivery}; }

  // Appends the chunks of `message` (message_width bytes) to `out` (whose width is chunk_width).
  void append(std::span<const std::uint8_t> message, Rng& rng, MessageBatch& out) const;
  // The messages of a shuffled batch of chunks. Throws std::system_error(Errc::protocol_violation)
  // on a batch of the wrong width, or a message with a chunk missing, repeated or out of range.
  [[nodiscard]] std::vector<std::vector<std::uint8_t>> reassemble(const MessageBatch& chunks) const;

 private:
  std::size_t message_width_;
  std::size_t chunks_;
  std::size_t piece_;  // message bytes per chunk
  std::size_t chunk_width_;
};

}  // namespace shufflempc
