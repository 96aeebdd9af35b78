// Messages wider than a shuffle message, in chunks (lib/include/shufflempc/chunks.hpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "shufflempc/chunks.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/shuffle.hpp"

using namespace shufflempc;

namespace {
std::vector<std::uint8_t> message_of(std::size_t width, std::uint8_t seed) {
  std::vector<std::uint8_t> m(width);
  for (std::size_t i = 0; i < width; ++i) m[i] = static_cast<std::uint8_t>(seed * 31 + i * 7);
  return m;
}
}  // namespace

TEST_CASE("chunks: wide messages cross the shuffle whole, in equal chunks with the least padding") {
  SeededRng rng(81);
  for (std::size_t width : {std::size_t{1}, std::size_t{100}, MessageBatch::max_width - 20, MessageBatch::max_width - 19,
                            std::size_t{200'000}, std::size_t{1} << 20}) {
    const ChunkedMessages c(width);
    CHECK(c.chunk_width() <= MessageBatch::max_width);
    CHECK(c.chunks_per_message() * (c.chunk_width() - ChunkedMessages::header_bytes) >= width);
    CHECK(c.chunks_per_message() * (c.chunk_width() - ChunkedMessages::header_bytes) < width + c.chunks_per_message());
    MessageBatch out(c.chunk_width());
    std::vector<std::vector<std::uint8_t>> sent;
    for (std::uint8_t k = 0; k < 5; ++k) {
      sent.push_back(message_of(width, k));
      c.append(sent.back(), rng, out);
    }
    CHECK(out.count() == 5 * c.chunks_per_message());
    Shuffler().shuffle(out, rng);
    // Compared as sorted strings (GCC 12 warns spuriously when sorting vectors of bytes).
    const auto sorted = [](const std::vector<std::vector<std::uint8_t>>& ms) {
      std::vector<std::string> v;
      for (const auto& m : ms) v.emplace_back(m.begin(), m.end());
      std::sort(v.begin(), v.end());
      return v;
    };
    CHECK(sorted(c.reassemble(out)) == sorted(sent));
  }
  CHECK(ChunkedMessages(200'000).chunks_per_message() == 4);
  CHECK(ChunkedMessages(100).chunks_per_message() == 1);
  CHECK(ChunkedMessages(100, 60).chunks_per_message() == 3);  // 40 bytes of message per chunk
}

TEST_CASE("chunks: a missing, repeated or foreign chunk is a protocol violation, bad parameters name themselves") {
  SeededRng rng(82);
  const ChunkedMessages c(100, 60);
  MessageBatch two(c.chunk_width());
  c.append(message_of(100, 1), rng, two);
  c.append(message_of(100, 2), rng, two);
  const auto code = [&](const MessageBatch& b) {
    try {
      (void)c.reassemble(b);
    } catch (const std::system_error& e) {
      return e.code() == Errc::protocol_violation;
    }
    return false;
  };
  MessageBatch missing(c.chunk_width());
  missing.append(two, 0, 5);
  CHECK(code(missing));  // 5 chunks: not whole messages
  MessageBatch repeated(c.chunk_width());
  repeated.append(two, 0, 2);
  repeated.append(two, 1, 1);  // chunk 1 twice, chunk 2 never
  repeated.append(two, 3, 3);
  CHECK(code(repeated));
  MessageBatch index(c.chunk_width());
  index.append(two);
  index[4][ChunkedMessages::tag_bytes] = 9;  // index out of range
  CHECK(code(index));
  CHECK(code(MessageBatch(c.chunk_width() + 1, 1)));
  CHECK(c.reassemble(MessageBatch(c.chunk_width())).empty());
  CHECK_THROWS_WITH_AS(ChunkedMessages(0), doctest::Contains("message_width = 0 is out of range"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(ChunkedMessages(10, 20), doctest::Contains("max_chunk_width = 20 is out of range"), std::invalid_argument);
  MessageBatch wrong(7);
  CHECK_THROWS_AS(c.append(message_of(100, 1), rng, wrong), std::invalid_argument);
  CHECK_THROWS_AS(c.append(message_of(99, 1), rng, two), std::invalid_argument);
}
