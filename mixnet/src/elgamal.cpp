#include "shufflempc/mixnet/elgamal.hpp"

#include <sodium.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>

#include "shufflempc/parallel.hpp"

namespace shufflempc::mixnet {

std::string record_fit(std::size_t record_bytes) {
  if (record_bytes <= max_record_bytes) return {};
  return "records of " + std::to_string(record_bytes) + " bytes do not fit the verifiable mix (at most " + std::to_string(max_record_bytes) +
         " bytes, " + std::to_string(limbs_for(max_record_bytes)) + " ElGamal limbs of 16 bits)";
}

CiphertextBatch CiphertextBatch::permuted(std::span<const std::size_t> order) const {
  CiphertextBatch out(limbs_, order.size());
  for (std::size_t k = 0; k < order.size(); ++k) std::copy_n(record(order[k]).begin(), limbs_, out.record(k).begin());
  return out;
}

std::vector<std::uint8_t> CiphertextBatch::to_bytes() const {
  std::vector<std::uint8_t> out(data_.size() * ciphertext_bytes);
  for (std::size_t i = 0; i < data_.size(); ++i) {
    std::copy(data_[i].c1.bytes.begin(), data_[i].c1.bytes.end(), out.begin() + static_cast<std::ptrdiff_t>(i * ciphertext_bytes));
    std::copy(data_[i].c2.bytes.begin(), data_[i].c2.bytes.end(),
              out.begin() + static_cast<std::ptrdiff_t>(i * ciphertext_bytes + point_bytes));
  }
  return out;
}

CiphertextBatch CiphertextBatch::from_bytes(std::size_t limbs, std::span<const std::uint8_t> bytes, const std::string& what) {
  if (limbs == 0) throw std::invalid_argument(what + ": records of 0 limbs");
  const std::size_t record = limbs * ciphertext_bytes;
  if (bytes.size() % record != 0)
    throw std::invalid_argument(what + ": " + std::to_string(bytes.size()) + " bytes are not whole records of " + std::to_string(record) + " bytes");
  CiphertextBatch batch(limbs, bytes.size() / record);
  auto all = batch.all();
  for (std::size_t i = 0; i < all.size(); ++i) {
    std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(i * ciphertext_bytes), point_bytes, all[i].c1.bytes.begin());
    std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(i * ciphertext_bytes + point_bytes), point_bytes, all[i].c2.bytes.begin());
    if (!valid_point(all[i].c1) || !valid_point(all[i].c2))
      throw std::invalid_argument(what + ": record " + std::to_string(i / limbs) + " limb " + std::to_string(i % limbs) +
                                  " is not a canonical ristretto255 encoding");
  }
  return batch;
}

ElGamalKey ElGamalKey::generate(Rng& rng) {
  ElGamalKey k;
  k.secret = random_scalar(rng);
  k.public_key = mul_base(k.secret);
  return k;
}

ElGamalKey::~ElGamalKey() { sodium_memzero(secret.bytes.data(), secret.bytes.size()); }

Ciphertext encrypt_limb(std::uint16_t m, const Point& key, const Scalar& r) {
  return {mul_base(r), mul_base(scalar_from_u64(m)) + r * key};
}

Ciphertext reencrypt(const Ciphertext& c, const Point& key, const Scalar& s) { return {c.c1 + mul_base(s), c.c2 + s * key}; }

std::vector<std::uint16_t> to_limbs(std::span<const std::uint8_t> record) {
  std::vector<std::uint16_t> limbs(limbs_for(record.size()));
  for (std::size_t i = 0; i < record.size(); ++i) limbs[i / 2] |= static_cast<std::uint16_t>(record[i] << (8 * (i % 2)));
  return limbs;
}

void from_limbs(std::span<const std::uint16_t> limbs, std::span<std::uint8_t> record) {
  if (limbs.size() != limbs_for(record.size())) throw std::invalid_argument("from_limbs: limb count does not match the record width");
  for (std::size_t i = 0; i < record.size(); ++i) record[i] = static_cast<std::uint8_t>(limbs[i / 2] >> (8 * (i % 2)));
  // A last limb over one byte cannot come from a record of this width.
  if (record.size() % 2 == 1 && limbs.back() > 0xff) throw std::invalid_argument("from_limbs: the last limb exceeds one byte");
}

CiphertextBatch encrypt_batch(const MessageBatch& messages, const Point& key, Rng& rng, unsigned threads) {
  if (auto why = record_fit(messages.width()); !why.empty()) throw std::invalid_argument(why);
  const std::size_t limbs = limbs_for(messages.width());
  CiphertextBatch out(limbs, messages.count());
  std::vector<Scalar> r(out.all().size());
  for (auto& s : r) s = random_scalar(rng);
  parallel_for(messages.count(), threads, [&](std::size_t i) {
    const auto m = to_limbs(messages[i]);
    for (std::size_t j = 0; j < limbs; ++j) out.at(i, j) = encrypt_limb(m[j], key, r[i * limbs + j]);
  });
  for (auto& s : r) sodium_memzero(s.bytes.data(), s.bytes.size());
  return out;
}

namespace {

struct LimbTable {
  std::vector<std::pair<Point, std::uint16_t>> entries;  // sorted by point
};

const LimbTable& limb_table() {
  static const LimbTable table = [] {
    LimbTable t;
    t.entries.resize(std::size_t{1} << limb_bits);
    parallel_for(t.entries.size(), hardware_threads(), [&](std::size_t m) {
      t.entries[m] = {mul_base(scalar_from_u64(m)), static_cast<std::uint16_t>(m)};
    });
    std::sort(t.entries.begin(), t.entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return t;
  }();
  return table;
}

}  // namespace

std::optional<std::uint16_t> limb_log(const Point& m_g) {
  const auto& e = limb_table().entries;
  auto it = std::lower_bound(e.begin(), e.end(), m_g, [](const auto& a, const Point& p) { return a.first < p; });
  if (it == e.end() || it->first != m_g) return std::nullopt;
  return it->second;
}

}  // namespace shufflempc::mixnet
