// A batch's records as a multiset of byte strings: what the mixing tests compare (the same records,
// in whatever order).
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "shufflempc/channel.hpp"

namespace shufflempc::test {

inline std::multiset<std::vector<std::uint8_t>> records_of(const MessageBatch& b) {
  std::multiset<std::vector<std::uint8_t>> out;
  for (std::size_t i = 0; i < b.count(); ++i) out.emplace(b[i].begin(), b[i].end());
  return out;
}

}  // namespace shufflempc::test
