// The named fork labels of the XOR-sum attack and its escape. Every sub-computation draws from
// rng.fork(label) of the run's generator, so a seed replays the whole study and one part's draws
// never depend on another's. A label is a name of up to 8 ASCII letters in the high bytes, plus an
// index for the labels that repeat (query k, re-run k).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace shufflempc::attacks::labels {

// The name's bytes, left-aligned big-endian in 64 bits ("ONE" = 0x4f4e450000000000).
[[nodiscard]] constexpr std::uint64_t tag(std::string_view name) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < 8; ++i) v = (v << 8) | (i < name.size() ? static_cast<unsigned char>(name[i]) : 0u);
  return v;
}

inline constexpr std::uint64_t secret = tag("SECRET");  // the secret half x
inline constexpr std::uint64_t frozen = tag("FROZEN");  // the secret half's one execution G
// Query k: the attacker's half y_k (and, forked from it, its users, its shuffle and its analyzer).
[[nodiscard]] constexpr std::uint64_t query(std::uint64_t k) { return tag("QUERY") + k; }
inline constexpr std::uint64_t query_users = 1;
inline constexpr std::uint64_t query_shuffle = 2;
inline constexpr std::uint64_t query_analyzer = 3;

// The escape: the recorded execution, the forged label sets, and re-run k (its y_k and its run).
inline constexpr std::uint64_t execution = tag("EXEC");
inline constexpr std::uint64_t forgery = tag("FORGE");
[[nodiscard]] constexpr std::uint64_t rerun_input(std::uint64_t k) { return tag("RERUN") + k; }
[[nodiscard]] constexpr std::uint64_t rerun(std::uint64_t k) { return tag("RUN") + k; }

static_assert(tag("ONE") == 0x4f4e450000000000ULL && secret == 0x5345435245540000ULL && query(0) == 0x5155455259000000ULL);

}  // namespace shufflempc::attacks::labels
