#include <stdexcept>
#include <string>

#include "counting/counting.hpp"
#include "shufflempc/samplers.hpp"

namespace shufflempc::counting {

void encode_histogram(std::uint32_t x, std::uint32_t domain, HistogramVariant variant, double p, Rng& rng,
                      MessageBatch& out) {
  if (x >= domain) throw std::invalid_argument("histogram input " + std::to_string(x) + " is outside [0, " + std::to_string(domain) + ")");
  for (std::uint32_t e = 0; e < domain; ++e) {
    const bool held = x == e;
    const bool data_bit = variant == HistogramVariant::parallel ? held : !held;
    auto m = out.append();
    store_le<std::uint16_t>(m.data(), static_cast<std::uint16_t>(e));
    m[2] = data_bit ? 1 : 0;
    auto noise = out.append();
    store_le<std::uint16_t>(noise.data(), static_cast<std::uint16_t>(e));
    noise[2] = bernoulli(rng, p) ? 1 : 0;
  }
}

std::vector<double> analyze_histogram(const MessageBatch& shuffled, std::uint32_t domain, HistogramVariant variant,
                                      std::uint64_t submitted, double p) {
  std::vector<std::uint64_t> sums(domain, 0);
  for (std::size_t i = 0; i < shuffled.count(); ++i) {
    const auto m = shuffled[i];
    const auto e = load_le<std::uint16_t>(m.data());
    if (e >= domain) continue;  // not a message of this protocol; it cannot be attributed anyway
    sums[e] += m[2] != 0 ? 1 : 0;
  }
  const auto n = static_cast<double>(submitted);
  std::vector<double> counts(domain);
  for (std::uint32_t e = 0; e < domain; ++e) {
    const auto b = static_cast<double>(sums[e]);
    if (variant == HistogramVariant::parallel) {
      counts[e] = b - n * p;
    } else {
      // B_e counts the users NOT holding e plus noise; B_e >= n means "nobody holds e" (exactly 0).
      const double not_holding = b >= n ? n : b - n * p;
      counts[e] = n - not_holding;
    }
  }
  return counts;
}

}  // namespace shufflempc::counting
