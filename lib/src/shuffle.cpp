#include "shufflempc/shuffle.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

namespace shufflempc {
namespace {

// Randomness is drawn in blocks of 32-bit words (one bulk keystream call per block instead of one
// buffered read per swap); each index uses Lemire's multiply-shift with exact rejection, so every
// index is uniform: a rejected word is replaced by a fresh one from rng.
constexpr std::size_t random_block = 2048;

// Uniform index in [0, bound) from one random word of type Word (Lemire's multiply-shift). A word in
// the rejection zone is replaced by a fresh one, so the index is exactly uniform.
template <class Word>
inline std::size_t lemire_index(Word word, Word bound, Rng& rng) {
  constexpr unsigned bits = 8 * sizeof(Word);
  std::uint64_t m = std::uint64_t{word} * bound;
  auto low = static_cast<Word>(m);
  if (low < bound) {
    const auto threshold = static_cast<Word>(static_cast<Word>(0 - bound) % bound);
    while (low < threshold) {
      Word fresh;
      rng.fill(&fresh, sizeof fresh);
      m = std::uint64_t{fresh} * bound;
      low = static_cast<Word>(m);
    }
  }
  return static_cast<std::size_t>(m >> bits);
}

template <std::size_t W, class Word>
void fisher_yates_words(std::uint8_t* data, std::size_t count, Rng& rng) {
  Word words[random_block];
  std::size_t i = count;
  while (i > 1) {
    const std::size_t steps = std::min(random_block, i - 1);
    rng.fill(words, steps * sizeof(Word));
    for (std::size_t s = 0; s < steps; ++s, --i) {
      const std::size_t j = lemire_index<Word>(words[s], static_cast<Word>(i), rng);
      std::uint8_t tmp[W];
      std::uint8_t* a = data + (i - 1) * W;
      std::uint8_t* b = data + j * W;
      std::memcpy(tmp, a, W);
      std::memcpy(a, b, W);
      std::memcpy(b, tmp, W);
    }
  }
}

// Short arrays (every bucket of the scatter path) use 16-bit words: half the randomness. Bounds
// up to 2^12 keep the rejection rate of a 16-bit word below 1/16.
template <std::size_t W>
void fisher_yates_fixed(std::uint8_t* data, std::size_t count, Rng& rng) {
  if (count <= (std::size_t{1} << 12)) return fisher_yates_words<W, std::uint16_t>(data, count, rng);
  if (count <= std::numeric_limits<std::uint32_t>::max()) return fisher_yates_words<W, std::uint32_t>(data, count, rng);
  std::uint8_t tmp[W];  // beyond 2^32 records: 64-bit indices
  for (std::size_t i = count; i > 1; --i) {
    const std::size_t j = rng.uniform(i);
    std::memcpy(tmp, data + (i - 1) * W, W);
    std::memcpy(data + (i - 1) * W, data + j * W, W);
    std::memcpy(data + j * W, tmp, W);
  }
}

void fisher_yates_generic(std::uint8_t* data, std::size_t count, std::size_t width, Rng& rng) {
  for (std::size_t i = count; i > 1; --i) {
    const std::size_t j = rng.uniform(i);
    if (j != i - 1) std::swap_ranges(data + (i - 1) * width, data + i * width, data + j * width);
  }
}

template <std::size_t W>
void scatter_fixed(const std::uint8_t* in, std::uint8_t* out, const std::uint8_t* bucket, std::size_t* cursor,
                   std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) std::memcpy(out + (cursor[bucket[i]]++) * W, in + i * W, W);
}

void scatter_generic(const std::uint8_t* in, std::uint8_t* out, const std::uint8_t* bucket, std::size_t* cursor,
                     std::size_t count, std::size_t width) {
  for (std::size_t i = 0; i < count; ++i) std::memcpy(out + (cursor[bucket[i]]++) * width, in + i * width, width);
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

// Moves `count` records from `in` to `out` grouped by a uniform random bucket in [0, buckets)
// (buckets a power of two <= 256, one random byte per record). offsets[b] .. offsets[b+1] is the
// range of bucket b in `out` afterwards.
void Shuffler::scatter(const std::uint8_t* in, std::uint8_t* out, std::size_t count, std::size_t width,
                       std::size_t buckets, Rng& rng, std::vector<std::size_t>& offsets) {
  const auto mask = static_cast<std::uint8_t>(buckets - 1);
  bucket_.resize(count);
  rng.fill(bucket_.data(), count);
  offsets.assign(buckets + 1, 0);
  for (std::size_t i = 0; i < count; ++i) {
    bucket_[i] &= mask;
    ++offsets[bucket_[i] + 1];
  }
  for (std::size_t b = 1; b <= buckets; ++b) offsets[b] += offsets[b - 1];
  cursor_.assign(offsets.begin(), offsets.end() - 1);
  switch (width) {
    case 4: return scatter_fixed<4>(in, out, bucket_.data(), cursor_.data(), count);
    case 8: return scatter_fixed<8>(in, out, bucket_.data(), cursor_.data(), count);
    case 16: return scatter_fixed<16>(in, out, bucket_.data(), cursor_.data(), count);
    case 32: return scatter_fixed<32>(in, out, bucket_.data(), cursor_.data(), count);
    default: return scatter_generic(in, out, bucket_.data(), cursor_.data(), count, width);
  }
}

void Shuffler::shuffle(MessageBatch& batch, Rng& rng) {
  const std::size_t n = batch.count();
  const std::size_t w = batch.width();
  if (n < 2) return;
  if (batch.size_bytes() <= leaf_bytes_) {
    fisher_yates(batch.data(), n, w, rng);
    return;
  }
  // Leaves of about leaf_bytes_ (cache-resident), reached by at most two scatter passes of at most
  // 256 buckets each: every record draws a uniform leaf, independently, then every leaf gets its
  // own Fisher-Yates.
  const std::size_t leaves = std::bit_ceil((batch.size_bytes() + leaf_bytes_ - 1) / leaf_bytes_);
  const std::size_t first = std::min<std::size_t>(leaves, 256);
  const std::size_t second = std::min<std::size_t>(std::max<std::size_t>(leaves / first, 1), 256);
  scratch_.resize(batch.size_bytes());
  std::uint8_t* data = batch.data();
  std::uint8_t* tmp = scratch_.data();
  scatter(data, tmp, n, w, first, rng, offset_);
  if (second == 1) {
    for (std::size_t b = 0; b < first; ++b) fisher_yates(tmp + offset_[b] * w, offset_[b + 1] - offset_[b], w, rng);
    MessageBatch shuffled = MessageBatch::from_bytes(w, std::move(scratch_));
    batch.swap(shuffled);
    scratch_ = shuffled.release();  // the old buffer is next call's scratch
    return;
  }
  // Second pass: each first-level bucket, from the scratch buffer back into its own range of the batch.
  const std::vector<std::size_t> outer = offset_;
  for (std::size_t b = 0; b < first; ++b) {
    const std::size_t base = outer[b], size = outer[b + 1] - outer[b];
    scatter(tmp + base * w, data + base * w, size, w, second, rng, offset_);
    for (std::size_t c = 0; c < second; ++c)
      fisher_yates(data + (base + offset_[c]) * w, offset_[c + 1] - offset_[c], w, rng);
  }
}

void shuffle(MessageBatch& batch, Rng& rng) {
  Shuffler s;
  s.shuffle(batch, rng);
}

}  // namespace shufflempc
