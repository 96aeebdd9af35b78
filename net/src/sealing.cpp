#include "shufflempc/net/sealing.hpp"

#include <sodium.h>

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
  // On every core: each record costs a fresh ephemeral key and one X25519, far more than taking
  // the next index.
  const std::size_t ww = sealed_width(width);
  parallel_for(count, count >= 1024 ? hardware_threads() : 1,
               [&](std::size_t m) { crypto_box_seal(out.data() + m * ww, messages.data() + m * width, width, analyzer.data()); });
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
  parallel_for(count, count >= 1024 ? hardware_threads() : 1, [&](std::size_t i) {
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
