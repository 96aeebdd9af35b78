#include "shufflempc/net/sealing.hpp"

#include <sodium.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "shufflempc/parallel.hpp"

namespace shufflempc::net::sealing {

static_assert(overhead == crypto_box_SEALBYTES);
static_assert(sizeof(PublicKey) == crypto_box_PUBLICKEYBYTES);

void seal(std::span<const std::uint8_t> messages, std::size_t width, const PublicKey& analyzer, std::span<std::uint8_t> out) {
  if (width == 0 || messages.size() % width != 0)
    throw std::invalid_argument("sealing: " + std::to_string(messages.size()) + " bytes are not whole messages of width " +
                                std::to_string(width));
  const std::size_t count = messages.size() / width;
  if (out.size() != count * sealed_width(width))
    throw std::invalid_argument("sealing: the output holds " + std::to_string(out.size()) + " bytes, " + std::to_string(count) +
                                " sealed records need " + std::to_string(count * sealed_width(width)));
  ensure_sodium();
  // On every core: one X25519 (and a fresh ephemeral key) per record.
  const std::size_t ww = sealed_width(width);
  constexpr std::size_t block = 1024;
  const std::size_t blocks = (count + block - 1) / block;
  parallel_for(blocks, blocks > 1 ? hardware_threads() : 1, [&](std::size_t b) {
    for (std::size_t m = b * block; m < std::min(count, (b + 1) * block); ++m)
      crypto_box_seal(out.data() + m * ww, messages.data() + m * width, width, analyzer.data());
  });
}

Opened open(std::span<const std::uint8_t> records, std::size_t width, const KeyPair& analyzer) {
  const std::size_t ww = sealed_width(width);
  if (width == 0 || records.size() % ww != 0)
    throw std::invalid_argument("sealing: " + std::to_string(records.size()) + " bytes are not whole sealed records of width " +
                                std::to_string(ww));
  ensure_sodium();
  const std::size_t count = records.size() / ww;
  // Every record opened on every core (one X25519 each: at 2·10^6 records about a minute on one
  // core), each into its own slot; then the ones that opened are packed in their order.
  Opened o{MessageBatch(width), 0};
  o.messages.resize(count);
  std::vector<char> opened(count, 0);
  constexpr std::size_t block = 1024;
  const std::size_t blocks = (count + block - 1) / block;
  parallel_for(blocks, blocks > 1 ? hardware_threads() : 1, [&](std::size_t b) {
    for (std::size_t i = b * block; i < std::min(count, (b + 1) * block); ++i)
      opened[i] = crypto_box_seal_open(o.messages.data() + i * width, records.data() + i * ww, ww, analyzer.public_key().data(),
                                       analyzer.secret_key().data()) == 0;
  });
  std::size_t kept = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (!opened[i]) continue;
    if (kept != i) std::memmove(o.messages.data() + kept * width, o.messages.data() + i * width, width);
    ++kept;
  }
  o.messages.resize(kept);
  o.discarded = count - kept;
  return o;
}

}  // namespace shufflempc::net::sealing
