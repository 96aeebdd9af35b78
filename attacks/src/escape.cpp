#include "shufflempc/attacks/escape.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "shufflempc/samplers.hpp"

namespace shufflempc::attacks {
namespace {

namespace bmr = circuit::bmr;
constexpr std::uint32_t zero = circuit::BristolWriter::zero;  // the constant 0: no wire, no gate

}  // namespace

XorSumCircuit::XorSumCircuit(std::size_t users, std::uint32_t buckets, std::uint32_t width) : users_(users), buckets_(buckets), width_(width) {
  if (users < 1 || buckets < 1) throw std::invalid_argument("xor-sum circuit: needs at least one user and one bucket");
  if (width < 2 || width > 62 || (std::uint64_t{1} << (width - 1)) <= buckets)
    throw std::invalid_argument(fmt::format("xor-sum circuit: width {} cannot hold XS up to {} (width in [2, 62])", width, buckets));
  const std::uint64_t group = std::uint64_t{buckets} + width;
  if (users * group > (1u << 30)) throw std::invalid_argument("xor-sum circuit: users x (buckets + width) must be below 2^30 input wires");
  circuit::BristolWriter b(std::vector<std::uint32_t>(users, static_cast<std::uint32_t>(group)));
  const auto in = [&](std::size_t u, std::uint64_t k) { return b.input(u, static_cast<std::uint32_t>(k)); };
  // The column parities (free), then their popcount.
  std::vector<std::vector<std::uint32_t>> bits;
  for (std::uint32_t j = 0; j < buckets; ++j) {
    std::uint32_t p = zero;
    for (std::size_t u = 0; u < users; ++u) p = b.xor_(p, in(u, j));
    bits.push_back({p});
  }
  const auto count = b.sum(std::move(bits), width, true);
  // The noise shares, mod 2^width.
  std::vector<std::vector<std::uint32_t>> shares;
  for (std::size_t u = 0; u < users; ++u) {
    std::vector<std::uint32_t> s(width);
    for (std::uint32_t k = 0; k < width; ++k) s[k] = in(u, buckets + k);
    shares.push_back(std::move(s));
  }
  const auto noise = b.sum(std::move(shares), width, false);
  const auto total = b.add(count, noise, width);
  for (std::uint32_t k = 0; k < width; ++k) b.copy(total[k]);  // the outputs are the last wires
  text_ = b.text({width});
  circuit_ = std::make_shared<const circuit::Circuit>(
      circuit::parse(text_, fmt::format("xor_sum_{}users_{}buckets_{}bits", users, buckets, width)));
}

std::vector<std::uint8_t> XorSumCircuit::user_bits(const xor_sum::Item& x, std::int64_t noise) const {
  if (x.bucket >= buckets_) throw std::invalid_argument("xor-sum circuit: bucket out of range");
  std::vector<std::uint8_t> bits(buckets_ + width_, 0);
  bits[x.bucket] = x.bit ? 1 : 0;
  const auto v = static_cast<std::uint64_t>(noise);
  for (std::uint32_t k = 0; k < width_; ++k) bits[buckets_ + k] = static_cast<std::uint8_t>((v >> k) & 1);
  return bits;
}

std::int64_t XorSumCircuit::decode(std::span<const std::uint8_t> out) const {
  if (out.size() != width_) throw std::invalid_argument("xor-sum circuit: the output has the wrong width");
  std::uint64_t v = 0;
  for (std::uint32_t k = 0; k < width_; ++k) v |= static_cast<std::uint64_t>(out[k] & 1) << k;
  if (out[width_ - 1]) v |= ~std::uint64_t{0} << width_;  // sign extension
  return static_cast<std::int64_t>(v);
}

std::uint32_t escape_width(std::uint32_t buckets, double epsilon) {
  if (!(epsilon > 0 && epsilon <= 50)) throw std::invalid_argument("epsilon must be in (0, 50]");
  // P(|DLap| >= t) = 2 a^t / (1 + a) <= 1e-20 at t = 46.1 / epsilon.
  const auto t = static_cast<std::uint64_t>(std::ceil(46.1 / epsilon));
  return static_cast<std::uint32_t>(std::bit_width(std::uint64_t{buckets} + t)) + 1;
}

std::int64_t noise_share(double epsilon, std::size_t honest, Rng& rng) {
  const double a = std::exp(-epsilon), r = 1.0 / static_cast<double>(honest);
  return static_cast<std::int64_t>(polya(rng, r, a)) - static_cast<std::int64_t>(polya(rng, r, a));
}

EscapeHarness::EscapeHarness(const EscapeOptions& o)
    : h_(o.parties / 2),
      epsilon_(o.epsilon),
      circuit_(o.parties, static_cast<std::uint32_t>(std::max<std::size_t>(o.parties, 1)),
               escape_width(static_cast<std::uint32_t>(std::max<std::size_t>(o.parties, 1)), o.epsilon)),
      layout_(circuit_.circuit()) {
  if (o.parties < 2 || o.parties % 2 || o.parties > 4096)
    throw std::invalid_argument(fmt::format("parties = {} is out of range: the escape needs an even n in [2, 4096]", o.parties));
}

std::vector<std::uint8_t> EscapeHarness::inputs(std::span<const std::uint8_t> x, std::span<const std::uint8_t> y, Rng& rng,
                                                std::int64_t* noise) const {
  if (x.size() != h_ || y.size() != h_) throw std::invalid_argument("escape: x and y must have n/2 bits each");
  std::vector<std::uint8_t> bits;
  bits.reserve(circuit_.circuit().input_bits());
  std::int64_t total = 0;
  for (std::size_t i = 0; i < h_; ++i) {  // the honest half: the secret and fresh noise
    const std::int64_t eta = noise_share(epsilon_, h_, rng);
    total += eta;
    const auto b = circuit_.user_bits({static_cast<std::uint32_t>(i), x[i] != 0}, eta);
    bits.insert(bits.end(), b.begin(), b.end());
  }
  for (std::size_t i = 0; i < h_; ++i) {  // the attacker's half: its query, no noise
    const auto b = circuit_.user_bits({static_cast<std::uint32_t>(i), y[i] != 0}, 0);
    bits.insert(bits.end(), b.begin(), b.end());
  }
  if (noise) *noise = total;
  return bits;
}

Recording EscapeHarness::execute(std::span<const std::uint8_t> x, std::span<const std::uint8_t> y, Rng& rng) const {
  Recording rec;
  const auto bits = inputs(x, y, rng, &rec.noise);
  rec.y.assign(y.begin(), y.end());
  const auto m1 = circuit::random_seed(rng), m2 = circuit::random_seed(rng);
  const auto& l = layout_;
  std::array<bmr::Holdings, 3> h;
  h[0].dealt = {bmr::g1_shares_from_master(l, 0, m1), bmr::g2_shares_of_g1(l, bmr::G2Seeds::of(m2))};
  const auto g2_own = bmr::g2_own_shares(l, m2);
  h[1].dealt = {bmr::g1_shares_of_g2(l, bmr::G1Seeds::of(m1)), g2_own};
  h[2].dealt = {bmr::g1_shares_from_master(l, 2, m1), bmr::g2_shares_of_helper(l, g2_own.second, bmr::G2Seeds::of(m2))};
  h[0].own = bmr::make_garbler(l, 0, m1);
  h[1].own = bmr::make_garbler(l, 1, m2);
  const auto shares = bmr::rss_split(bits, rng);
  rec.payload.assign(l.payload_bytes(), 0);
  for (PartyId k = 0; k < 3; ++k) {
    h[k].k = k;
    h[k].x = {shares[k], shares[(k + 1) % 3]};
    const auto s = bmr::round2_share(l, h[k]);
    for (std::size_t i = 0; i < s.size(); ++i) rec.payload[i] ^= s[i];
  }
  rec.answer = circuit_.decode(bmr::evaluate(l, rec.payload));
  rec.corrupted = std::move(h[0]);
  return rec;
}

std::int64_t EscapeHarness::ideal(std::span<const std::uint8_t> x, std::span<const std::uint8_t> y, Rng& rng) const {
  return circuit_.decode(circuit::evaluate(circuit_.circuit(), inputs(x, y, rng)));
}

std::int64_t EscapeHarness::replay(const Recording& r) const { return circuit_.decode(bmr::evaluate(layout_, r.payload)); }

Forgery EscapeHarness::forge(const Recording& r, std::span<const std::uint8_t> x, std::span<const std::uint8_t> y_new, Rng& rng) const {
  if (y_new.size() != h_ || x.size() != h_) throw std::invalid_argument("forge: x and y' must have n/2 bits each");
  if (!r.corrupted.own) throw std::invalid_argument("forge: the recording holds no garbler's secrets");
  const auto& g1 = *r.corrupted.own;
  const auto& l = layout_;
  Forgery f;
  std::vector<std::uint8_t> payload = r.payload;
  const std::uint64_t group = std::uint64_t{circuit_.buckets()} + circuit_.width();
  for (std::size_t i = 0; i < h_; ++i) {
    if ((y_new[i] != 0) == (r.y[i] != 0)) continue;
    // The wire of bucket i in attacker user h + i: flip its masked value Lambda_w, move G1's
    // component to the other label (G1 knows Delta^1), and guess G2's (Delta^2 is G2's secret).
    const std::size_t w = (h_ + i) * group + i;
    std::uint8_t* k1 = payload.data() + l.labels_offset() + (2 * w) * circuit::block_bytes;
    std::uint8_t* k2 = k1 + circuit::block_bytes;
    (circuit::Block::load(k1) ^ g1.delta).store(k1);
    (circuit::Block::load(k2) ^ circuit::Block::random(rng)).store(k2);
    payload[l.bits_offset() + w / 8] ^= static_cast<std::uint8_t>(1u << (w % 8));
    ++f.wires_changed;
  }
  std::vector<circuit::Block> keys;
  f.output = circuit_.decode(bmr::evaluate(l, payload, nullptr, &keys));
  for (const auto& gate : circuit_.circuit().gates) {
    if (gate.type != circuit::GateType::and_gate) continue;
    ++f.and_gates;
    const circuit::Block k = g1.key[l.fresh[gate.out]];
    if (!(keys[gate.out] == k) && !(keys[gate.out] == (k ^ g1.delta))) ++f.invalid_keys;
  }
  f.wanted = static_cast<std::int64_t>(hamming(x, y_new)) + r.noise;
  return f;
}

}  // namespace shufflempc::attacks
