#include "shufflempc/protocols/split_mix/split_mix.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "shufflempc/error.hpp"

namespace shufflempc::split_mix {
namespace {

double log2_crowd(std::uint64_t parties) {
  if (parties < 3)
    throw std::invalid_argument("parties: split-mix summation needs at least 3 parties (the BBGN bound needs log2 n > log2 e), got " +
                                std::to_string(parties));
  return std::log2(static_cast<double>(parties)) - std::numbers::log2e;
}

void store_bytes(std::uint8_t* out, std::uint64_t v, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i) out[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

std::uint64_t load_bytes(const std::uint8_t* in, std::size_t width) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < width; ++i) v |= std::uint64_t{in[i]} << (8 * i);
  return v;
}

[[noreturn]] void reject_message(std::size_t index) {
  throw_error(Errc::malformed_frame, "split-mix: message " + std::to_string(index) + " encodes a value outside Z_q");
}

// Sum mod q (q = 0 meaning 2^64) of `count` little-endian values of W bytes, each checked < q.
// A 128-bit accumulator cannot overflow: 2^64 values below 2^64.
// The W-byte little-endian value at p, when at least 8 bytes are readable from p: one 8-byte
// load and a mask (a W-byte memcpy into a register stalls on store forwarding).
template <std::size_t W>
std::uint64_t load_wide(const std::uint8_t* p) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native != std::endian::little) v = __builtin_bswap64(v);
  if constexpr (W < 8) v &= (std::uint64_t{1} << (8 * W)) - 1;
  return v;
}

// Sum mod q (q = 0 meaning 2^64) of `count` little-endian values of W bytes, each checked < q.
// A 128-bit accumulator cannot overflow: 2^64 values below 2^64.
template <std::size_t W>
std::uint64_t sum_fixed(const std::uint8_t* data, std::size_t count, std::uint64_t q) {
  unsigned __int128 total = 0;
  bool bad = false;
  // Wide loads while 8 bytes remain, byte loads for the last message or two.
  const std::size_t wide = count * W >= 8 ? (count * W - 8) / W + 1 : 0;
  const std::uint8_t* p = data;
  for (std::size_t i = 0; i < wide; ++i, p += W) {
    const std::uint64_t v = load_wide<W>(p);
    bad |= q != 0 && v >= q;
    total += v;
  }
  for (std::size_t i = wide; i < count; ++i, p += W) {
    const std::uint64_t v = load_bytes(p, W);
    bad |= q != 0 && v >= q;
    total += v;
  }
  if (bad) {  // find the first offender for the error message
    for (std::size_t i = 0; i < count; ++i)
      if (load_bytes(data + i * W, W) >= q) reject_message(i);
  }
  return q == 0 ? static_cast<std::uint64_t>(total) : static_cast<std::uint64_t>(total % q);
}

// Writes m - 1 uniform elements of Z_q (q = 0 meaning 2^64) at p, W bytes each, and returns their
// sum mod q. They come from bulk draws of 64-bit words, each mapped to [0, q) by Lemire's
// multiply-and-reject (exactly uniform; a rejection, probability < q / 2^64 per word, draws a
// fresh word). The running sum stays in 128 bits and is reduced once.
template <std::size_t W>
std::uint64_t split_fixed(std::uint8_t* p, std::size_t m, std::uint64_t q, Rng& rng) {
  constexpr std::size_t chunk = 64;
  std::uint64_t words[chunk];
  unsigned __int128 total = 0;
  for (std::size_t done = 0; done + 1 < m;) {
    const std::size_t take = std::min(chunk, m - 1 - done);
    rng.fill(words, take * sizeof(std::uint64_t));
    for (std::size_t i = 0; i < take; ++i, p += W) {
      std::uint64_t y = words[i];
      if (q != 0) {
        unsigned __int128 product = static_cast<unsigned __int128>(y) * q;
        if (static_cast<std::uint64_t>(product) < q) {
          const std::uint64_t threshold = (0 - q) % q;
          while (static_cast<std::uint64_t>(product) < threshold) product = static_cast<unsigned __int128>(rng.next_u64()) * q;
        }
        y = static_cast<std::uint64_t>(product >> 64);
      }
      total += y;
      // For W >= 4 an 8-byte store spills at most W bytes, into the next share's slot, which is
      // written afterwards (the last share follows these m - 1).
      if constexpr (std::endian::native == std::endian::little && W >= 4) std::memcpy(p, &y, 8);
      else store_bytes(p, y, W);
    }
    done += take;
  }
  return q == 0 ? static_cast<std::uint64_t>(total) : static_cast<std::uint64_t>(total % q);
}

std::uint64_t sum_small(const std::uint8_t* p, std::size_t count, std::size_t width, std::uint64_t q) {
  switch (width) {
    case 1: return sum_fixed<1>(p, count, q);
    case 2: return sum_fixed<2>(p, count, q);
    case 3: return sum_fixed<3>(p, count, q);
    case 4: return sum_fixed<4>(p, count, q);
    case 5: return sum_fixed<5>(p, count, q);
    case 6: return sum_fixed<6>(p, count, q);
    case 7: return sum_fixed<7>(p, count, q);
    default: return sum_fixed<8>(p, count, q);
  }
}

}  // namespace

std::size_t bbgn_messages(std::uint64_t parties, double sigma, double log2_q) {
  const double m = std::ceil((2 * sigma + log2_q) / log2_crowd(parties) + 1);
  return std::max<std::size_t>(3, static_cast<std::size_t>(m));
}

double bbgn_sigma(std::uint64_t parties, std::size_t messages, double log2_q) {
  return (static_cast<double>(messages - 1) * log2_crowd(parties) - log2_q) / 2;
}

std::size_t ikos_style_messages(std::uint64_t parties, double sigma) {
  return static_cast<std::size_t>(std::ceil(std::log2(static_cast<double>(parties)) + sigma));
}

double log2_of(const BigInt& x) {
  if (x <= 0) throw std::invalid_argument("log2_of: x must be positive");
  const std::size_t bits = boost::multiprecision::msb(x) + 1;
  if (bits <= 64) return std::log2(static_cast<double>(static_cast<std::uint64_t>(x)));
  // The top 64 bits carry all the precision a double has.
  const auto top = static_cast<std::uint64_t>(x >> (bits - 64));
  return std::log2(static_cast<double>(top)) + static_cast<double>(bits - 64);
}

// ---- Modulus ----

namespace {
std::variant<ZqSmall, ZqBig> make_zq(const BigInt& q) {
  if (q < 2) throw std::invalid_argument("modulus: q must be at least 2");
  if (q <= (BigInt(1) << 64)) return ZqSmall::from_big(q);
  return ZqBig(q);
}
}  // namespace

Modulus::Modulus(const BigInt& q) : q_(q), zq_(make_zq(q)), width_(bytes_for_modulus(q)), log2_(log2_of(q)) {
  if (q < (BigInt(1) << 64)) q_small_ = static_cast<std::uint64_t>(q);
}

void Modulus::split(std::uint64_t x, std::size_t m, Rng& rng, MessageBatch& out) const {
  if (m == 0) throw std::invalid_argument("split: the number of shares must be at least 1");
  if (!std::holds_alternative<ZqSmall>(zq_)) return split(BigInt(x), m, rng, out);
  if (q_small_ != 0 && x >= q_small_) throw std::invalid_argument("split: the input must be below q");
  const std::size_t first = out.count();
  out.resize(first + m);
  std::uint8_t* p = out.data() + first * width_;
  const std::uint64_t last = [&] {
    switch (width_) {
      case 1: return split_fixed<1>(p, m, q_small_, rng);
      case 2: return split_fixed<2>(p, m, q_small_, rng);
      case 3: return split_fixed<3>(p, m, q_small_, rng);
      case 4: return split_fixed<4>(p, m, q_small_, rng);
      case 5: return split_fixed<5>(p, m, q_small_, rng);
      case 6: return split_fixed<6>(p, m, q_small_, rng);
      case 7: return split_fixed<7>(p, m, q_small_, rng);
      default: return split_fixed<8>(p, m, q_small_, rng);
    }
  }();
  store_bytes(p + (m - 1) * width_, std::get<ZqSmall>(zq_).sub(x, last), width_);
}

void Modulus::split(const BigInt& x, std::size_t m, Rng& rng, MessageBatch& out) const {
  if (m == 0) throw std::invalid_argument("split: the number of shares must be at least 1");
  if (x < 0 || x >= q_) throw std::invalid_argument("split: the input must be in [0, q)");
  if (std::holds_alternative<ZqSmall>(zq_)) return split(static_cast<std::uint64_t>(x), m, rng, out);
  const auto& z = std::get<ZqBig>(zq_);
  BigInt total = 0;
  for (std::size_t i = 0; i + 1 < m; ++i) {
    BigInt y = z.uniform(rng);
    total = z.add(total, y);
    z.encode(y, out.append());
  }
  z.encode(z.sub(x, total), out.append());
}

bool Modulus::holds(std::span<const std::uint8_t> message) const {
  if (message.size() != width_) return false;
  if (std::holds_alternative<ZqSmall>(zq_)) return q_small_ == 0 || load_bytes(message.data(), width_) < q_small_;
  return decode_unchecked_le(message) < q_;
}

BigInt Modulus::sum(const MessageBatch& messages) const {
  if (messages.count() > 0 && messages.width() != width_)
    throw_error(Errc::protocol_violation, "split-mix: messages of width " + std::to_string(messages.width()) +
                                              ", expected " + std::to_string(width_));
  const std::size_t count = messages.count();
  if (std::holds_alternative<ZqSmall>(zq_)) {
    const std::uint64_t total = sum_small(messages.data(), count, width_, q_small_);
    return BigInt(total);
  }
  const auto& z = std::get<ZqBig>(zq_);
  BigInt total = 0;
  for (std::size_t i = 0; i < count; ++i) {
    BigInt v = decode_unchecked_le(messages[i]);
    if (v >= q_) reject_message(i);
    total += v;
  }
  return z.reduce(total);
}

// ---- Configuration ----

SumConfig configure_sum(std::uint64_t parties, double sigma, std::size_t input_bits, std::size_t modulus_bits,
                        std::size_t messages, bool accept_input_leakage) {
  if (!(sigma > 0 && sigma <= 1024)) throw std::invalid_argument("sigma must be in (0, 1024], got " + std::to_string(sigma));
  if (input_bits < 1 || input_bits > 4096)
    throw std::invalid_argument("input-bits must be in [1, 4096], got " + std::to_string(input_bits));
  if (modulus_bits > 8192) throw std::invalid_argument("modulus-bits must be in [0, 8192], got " + std::to_string(modulus_bits));
  SumConfig c;
  c.parties = parties;
  c.sigma = sigma;
  c.input_bits = input_bits;
  c.modulus_given = modulus_bits > 0;
  c.modulus = Modulus(c.modulus_given ? BigInt(1) << modulus_bits : BigInt(parties) << input_bits);
  const double log2_q = c.modulus.log2();
  c.messages_bbgn = bbgn_messages(parties, sigma, log2_q);
  c.messages_ikos = ikos_style_messages(parties, sigma);
  c.messages = messages == 0 ? c.messages_bbgn : messages;
  c.below_formula = c.messages < c.messages_bbgn;
  if (c.below_formula && !accept_input_leakage)
    throw std::invalid_argument("messages: " + std::to_string(c.messages) + " is below the BBGN count " +
                                std::to_string(c.messages_bbgn) + " for n = " + std::to_string(parties) + ", sigma = " +
                                std::to_string(static_cast<int>(sigma)) + ", log2 q = " + std::to_string(log2_q) +
                                "; the analyzer's view may then reveal individual inputs. Accepted range: [" +
                                std::to_string(c.messages_bbgn) + ", 4096], or pass --accept-input-leakage true");
  c.sigma_guaranteed = bbgn_sigma(parties, c.messages, log2_q);
  return c;
}

}  // namespace shufflempc::split_mix
