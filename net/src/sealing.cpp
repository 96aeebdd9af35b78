#include "shufflempc/net/sealing.hpp"

#include <sodium.h>

#include <stdexcept>
#include <string>

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
  for (std::size_t m = 0; m < count; ++m)
    crypto_box_seal(out.data() + m * sealed_width(width), messages.data() + m * width, width, analyzer.data());
}

Opened open(std::span<const std::uint8_t> records, std::size_t width, const KeyPair& analyzer) {
  const std::size_t ww = sealed_width(width);
  if (width == 0 || records.size() % ww != 0)
    throw std::invalid_argument("sealing: " + std::to_string(records.size()) + " bytes are not whole sealed records of width " +
                                std::to_string(ww));
  ensure_sodium();
  const std::size_t count = records.size() / ww;
  Opened o{MessageBatch(width), 0};
  o.messages.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    auto m = o.messages.append();
    if (crypto_box_seal_open(m.data(), records.data() + i * ww, ww, analyzer.public_key().data(), analyzer.secret_key().data()) != 0) {
      o.messages.resize(o.messages.count() - 1);
      ++o.discarded;
    }
  }
  return o;
}

}  // namespace shufflempc::net::sealing
