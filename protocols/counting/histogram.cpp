#include <stdexcept>
#include <string>

#include "shufflempc/protocols/counting/counting.hpp"

#include "shufflempc/error.hpp"
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
  // Every party sends exactly two messages per element (its bit and a noise bit). The analyzer of
  // the registered protocol discards and counts a message for an element outside the domain or
  // with a bit other than 0 or 1 (HistogramMechanism::valid), and a discarded record leaves an
  // element with fewer messages; more than two per party for one element is a protocol violation,
  // since it would let a corrupt party move that bin by more than 2.
  std::vector<std::uint64_t> sums(domain, 0), messages(domain, 0);
  for (std::size_t i = 0; i < shuffled.count(); ++i) {
    const auto m = shuffled[i];
    const auto e = load_le<std::uint16_t>(m.data());
    if (e >= domain || m[2] > 1)
      throw_error(Errc::protocol_violation, "histogram: a message for element " + std::to_string(e) + " with bit " +
                                                std::to_string(m[2]) + " (domain " + std::to_string(domain) + ")");
    sums[e] += m[2];
    messages[e] += 1;
  }
  for (std::uint32_t e = 0; e < domain; ++e)
    if (messages[e] > 2 * submitted)
      throw_error(Errc::protocol_violation, "histogram: " + std::to_string(messages[e]) + " messages for element " +
                                                std::to_string(e) + " from " + std::to_string(submitted) + " parties (2 each)");
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
