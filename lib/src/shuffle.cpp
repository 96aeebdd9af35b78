#include "shufflempc/shuffle.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

namespace shufflempc {
namespace {

template <std::size_t W>
void fisher_yates_fixed(std::uint8_t* data, std::size_t count, Rng& rng) {
  std::uint8_t tmp[W];
  for (std::size_t i = count; i > 1; --i) {
    const std::size_t j = i <= std::numeric_limits<std::uint32_t>::max() ? rng.uniform32(static_cast<std::uint32_t>(i))
                                                                           : rng.uniform(i);
    std::uint8_t* a = data + (i - 1) * W;
    std::uint8_t* b = data + j * W;
    std::memcpy(tmp, a, W);
    std::memcpy(a, b, W);
    std::memcpy(b, tmp, W);
  }
}

void fisher_yates_generic(std::uint8_t* data, std::size_t count, std::size_t width, Rng& rng) {
  for (std::size_t i = count; i > 1; --i) {
    const std::size_t j = rng.uniform(i);
    if (j != i - 1) std::swap_ranges(data + (i - 1) * width, data + i * width, data + j * width);
  }
}

template <std::size_t W>
void scatter_fixed(const std::uint8_t* in, std::uint8_t* out, const std::uint16_t* bucket, std::size_t* offset,
                   std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) std::memcpy(out + (offset[bucket[i]]++) * W, in + i * W, W);
}

void scatter_generic(const std::uint8_t* in, std::uint8_t* out, const std::uint16_t* bucket, std::size_t* offset,
                     std::size_t count, std::size_t width) {
  for (std::size_t i = 0; i < count; ++i) std::memcpy(out + (offset[bucket[i]]++) * width, in + i * width, width);
}

}  // namespace

void fisher_yates(std::uint8_t* data, std::size_t count, std::size_t width, Rng& rng) {
  switch (width) {
    case 1: return fisher_yates_fixed<1>(data, count, rng);
    case 2: return fisher_yates_fixed<2>(data, count, rng);
    case 4: return fisher_yates_fixed<4>(data, count, rng);
    case 8: return fisher_yates_fixed<8>(data, count, rng);
    case 16: return fisher_yates_fixed<16>(data, count, rng);
    case 32: return fisher_yates_fixed<32>(data, count, rng);
    case 64: return fisher_yates_fixed<64>(data, count, rng);
    default: return fisher_yates_generic(data, count, width, rng);
  }
}

void Shuffler::shuffle(MessageBatch& batch, Rng& rng) {
  const std::size_t n = batch.count();
  const std::size_t w = batch.width();
  if (n < 2) return;
  if (batch.size_bytes() <= cache_bytes_) {
    fisher_yates(batch.data(), n, w, rng);
    return;
  }
  // Power-of-two bucket count so a bucket id is just random bits (no bias), at most 2^16.
  const std::size_t wanted = std::max<std::size_t>(2, batch.size_bytes() / cache_bytes_);
  const std::size_t buckets = std::min<std::size_t>(std::bit_ceil(wanted), std::size_t{1} << 16);
  const std::uint64_t mask = buckets - 1;

  bucket_.resize(n);
  offset_.assign(buckets + 1, 0);
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const std::uint64_t r = rng.next_u64();
    for (int k = 0; k < 4; ++k) {
      const auto b = static_cast<std::uint16_t>((r >> (16 * k)) & mask);
      bucket_[i + k] = b;
      ++offset_[b + 1];
    }
  }
  for (; i < n; ++i) {
    const auto b = static_cast<std::uint16_t>(rng.next_u64() & mask);
    bucket_[i] = b;
    ++offset_[b + 1];
  }
  for (std::size_t b = 1; b <= buckets; ++b) offset_[b] += offset_[b - 1];
  // offset_[b] = start of bucket b; keep the starts, scatter with a moving copy.
  cursor_.assign(offset_.begin(), offset_.end() - 1);
  std::size_t* cursor = cursor_.data();

  scratch_.resize(batch.size_bytes());
  std::uint8_t* out = scratch_.data();
  const std::uint8_t* in = batch.data();
  switch (w) {
    case 4: scatter_fixed<4>(in, out, bucket_.data(), cursor, n); break;
    case 8: scatter_fixed<8>(in, out, bucket_.data(), cursor, n); break;
    case 16: scatter_fixed<16>(in, out, bucket_.data(), cursor, n); break;
    case 32: scatter_fixed<32>(in, out, bucket_.data(), cursor, n); break;
    default: scatter_generic(in, out, bucket_.data(), cursor, n, w); break;
  }
  for (std::size_t b = 0; b < buckets; ++b)
    fisher_yates(out + offset_[b] * w, offset_[b + 1] - offset_[b], w, rng);

  // Hand the shuffled buffer to the batch; keep the old one as next call's scratch.
  MessageBatch shuffled = MessageBatch::from_bytes(w, std::move(scratch_));
  batch.swap(shuffled);
  scratch_ = shuffled.release();
}

void shuffle(MessageBatch& batch, Rng& rng) {
  Shuffler s;
  s.shuffle(batch, rng);
}

}  // namespace shufflempc
