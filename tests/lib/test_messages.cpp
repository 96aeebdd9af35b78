// MessageBatch (lib/include/shufflempc/messages.hpp).
#include <doctest/doctest.h>

#include <stdexcept>

#include "shufflempc/messages.hpp"

using namespace shufflempc;

TEST_CASE("MessageBatch: fixed width, contiguous, checked") {
  MessageBatch b(3);
  b.push_back(std::vector<std::uint8_t>{1, 2, 3});
  auto m = b.append();
  m[0] = 9;
  CHECK(b.count() == 2);
  CHECK(b.size_bytes() == 6);
  CHECK(b[1][0] == 9);
  CHECK_THROWS_AS(b.push_back(std::vector<std::uint8_t>{1, 2}), std::invalid_argument);
  CHECK_THROWS_AS(MessageBatch(0), std::invalid_argument);
  CHECK_THROWS_AS(MessageBatch(MessageBatch::max_width + 1), std::invalid_argument);
  CHECK_THROWS_AS(MessageBatch::from_bytes(4, std::vector<std::uint8_t>(7)), std::invalid_argument);
  MessageBatch c(3);
  c.append(b, 1, 1);
  CHECK(c.count() == 1);
  CHECK(c[0][0] == 9);
  CHECK_THROWS_AS(c.append(MessageBatch(4, 1)), std::invalid_argument);
}
