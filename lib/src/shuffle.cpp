#include "shufflempc/shuffle.hpp"

#include "shufflempc/parallel.hpp"

#include <algorithm>
#include <array>
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

namespace {

// Moves records [0, count) from `in` to `out` by bucket: record i goes to cursor[bucket[i]]++.
void scatter_records(const std::uint8_t* in, std::uint8_t* out, const std::uint8_t* bucket, std::size_t* cursor,
                     std::size_t count, std::size_t width) {
  switch (width) {
    case 4: return scatter_fixed<4>(in, out, bucket, cursor, count);
    case 8: return scatter_fixed<8>(in, out, bucket, cursor, count);
    case 16: return scatter_fixed<16>(in, out, bucket, cursor, count);
    case 32: return scatter_fixed<32>(in, out, bucket, cursor, count);
    default: return scatter_generic(in, out, bucket, cursor, count, width);
  }
}

// Labels of the generators each independent unit of work draws from. They depend only on the unit,
// never on the thread that runs it, so a seeded shuffle is the same with any number of threads.
constexpr std::uint64_t chunk_label = 1ull << 40;
constexpr std::uint64_t bucket_label = 2ull << 40;

}  // namespace

unsigned Shuffler::default_threads() { return hardware_threads(); }

void Shuffler::shuffle(MessageBatch& batch, Rng& rng) {
  const std::size_t n = batch.count();
  const std::size_t w = batch.width();
  if (n < 2) return;
  if (batch.size_bytes() <= leaf_bytes_) {
    fisher_yates(batch.data(), n, w, rng);
    return;
  }
  // Every record draws a uniform leaf (first-level bucket, then second-level bucket, one random
  // byte each), independently; every leaf (about leaf_bytes_, cache-resident) then gets its own
  // Fisher-Yates. Work is cut into fixed units - input chunks for the first pass, first-level
  // buckets for the rest - each with its own generator forked from `rng`.
  const std::size_t leaves = std::bit_ceil((batch.size_bytes() + leaf_bytes_ - 1) / leaf_bytes_);
  const std::size_t first = std::min<std::size_t>(leaves, 256);
  const std::size_t second = std::min<std::size_t>(std::max<std::size_t>(leaves / first, 1), 256);
  const std::size_t chunks = std::clamp<std::size_t>(n / 8192, 1, 16);
  const auto mask1 = static_cast<std::uint8_t>(first - 1);
  const auto mask2 = static_cast<std::uint8_t>(second - 1);
  const unsigned threads = batch.size_bytes() >= (std::size_t{1} << 20) ? threads_ : 1;

  // Units fork from a fresh split, so successive calls with the same rng draw independent permutations.
  const auto call_rng = rng.split();
  scratch_.resize(batch.size_bytes());
  bucket_.resize(n);
  std::uint8_t* data = batch.data();
  std::uint8_t* tmp = scratch_.data();
  const auto chunk_begin = [&](std::size_t c) { return n * c / chunks; };

  // Pass 1a: bucket ids and per-chunk counts.
  counts_.assign(chunks * first, 0);
  parallel_for(chunks, threads, [&](std::size_t c) {
    auto crng = call_rng->fork(chunk_label + c);
    const std::size_t b = chunk_begin(c), e = chunk_begin(c + 1);
    crng->fill(bucket_.data() + b, e - b);
    std::size_t* count = counts_.data() + c * first;
    for (std::size_t i = b; i < e; ++i) {
      bucket_[i] &= mask1;
      ++count[bucket_[i]];
    }
  });
  // Bucket k holds, in order, chunk 0's records of bucket k, chunk 1's, ...; offset_[k] is its start.
  offset_.assign(first + 1, 0);
  cursor_.assign(chunks * first, 0);
  std::size_t pos = 0;
  for (std::size_t k = 0; k < first; ++k) {
    offset_[k] = pos;
    for (std::size_t c = 0; c < chunks; ++c) {
      cursor_[c * first + k] = pos;
      pos += counts_[c * first + k];
    }
  }
  offset_[first] = pos;
  // Pass 1b: scatter every chunk into the scratch buffer.
  parallel_for(chunks, threads, [&](std::size_t c) {
    const std::size_t b = chunk_begin(c);
    scatter_records(data + b * w, tmp, bucket_.data() + b, cursor_.data() + c * first, chunk_begin(c + 1) - b, w);
  });

  // Pass 2, per first-level bucket: either Fisher-Yates it (one level), or scatter it back into its
  // own range of the batch by second-level bucket and Fisher-Yates every leaf.
  parallel_for(first, threads, [&](std::size_t k) {
    auto krng = call_rng->fork(bucket_label + k);
    const std::size_t base = offset_[k], size = offset_[k + 1] - offset_[k];
    if (second == 1) {
      fisher_yates(tmp + base * w, size, w, *krng);
      return;
    }
    std::uint8_t* ids = bucket_.data() + base;  // this bucket's slice: free to reuse
    krng->fill(ids, size);
    std::array<std::size_t, 257> off{};
    for (std::size_t i = 0; i < size; ++i) {
      ids[i] &= mask2;
      ++off[ids[i] + 1];
    }
    for (std::size_t j = 1; j <= second; ++j) off[j] += off[j - 1];
    std::array<std::size_t, 256> cur{};
    for (std::size_t j = 0; j < second; ++j) cur[j] = base + off[j];
    scatter_records(tmp + base * w, data, ids, cur.data(), size, w);
    for (std::size_t j = 0; j < second; ++j) fisher_yates(data + (base + off[j]) * w, off[j + 1] - off[j], w, *krng);
  });

  if (second == 1) {
    MessageBatch shuffled = MessageBatch::from_bytes(w, std::move(scratch_));
    batch.swap(shuffled);
    scratch_ = shuffled.release();  // the old buffer is next call's scratch
  }
}

void shuffle(MessageBatch& batch, Rng& rng) {
  Shuffler s;
  s.shuffle(batch, rng);
}

}  // namespace shufflempc
