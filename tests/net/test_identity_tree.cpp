// The identity proof of a link (net/detail/link_crypto.hpp): what a client computes from its own parties'
// secrets equals what the shuffler's IdentityTree gives for the same range, any other range or
// secret gives another proof, and the shuffler's work per hello is a bounded number of block
// hashes whatever range a stranger claims.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "shufflempc/net/detail/link_crypto.hpp"
#include "shufflempc/random.hpp"

using namespace shufflempc;
using net::detail::IdentityProof;
using net::detail::IdentityTree;
using net::detail::StaticSecret;

namespace {

std::vector<StaticSecret> secrets_of(std::size_t n, std::uint64_t seed) {
  SeededRng rng(seed);
  std::vector<StaticSecret> s(n);
  for (auto& k : s) rng.fill(k);
  return s;
}

}  // namespace

TEST_CASE("identity tree: the shuffler's proof of every range equals the client's, and no two ranges share one") {
  for (const std::size_t n : {1, 2, 13, 64, 100}) {
    CAPTURE(n);
    const auto secrets = secrets_of(n, n);
    const IdentityTree tree(secrets);
    std::vector<IdentityProof> seen;
    for (std::size_t first = 0; first < n; ++first)
      for (std::size_t count = 1; first + count <= n; ++count) {
        const auto p = tree.proof(static_cast<PartyId>(first), static_cast<std::uint32_t>(count));
        CHECK(p == net::detail::identity_proof(std::span(secrets).subspan(first, count), static_cast<PartyId>(first)));
        seen.push_back(p);
      }
    std::sort(seen.begin(), seen.end());
    CHECK(std::adjacent_find(seen.begin(), seen.end()) == seen.end());
    CHECK_THROWS_AS((void)tree.proof(static_cast<PartyId>(n - 1), 2), std::out_of_range);
  }
}

TEST_CASE("identity tree: one secret changed changes the proof of every range that holds it, and only those") {
  const std::size_t n = 40;
  auto secrets = secrets_of(n, 9);
  const IdentityTree before(secrets);
  secrets[17][0] ^= 1;
  const IdentityTree after(secrets);
  for (std::size_t first = 0; first < n; ++first)
    for (std::size_t count = 1; first + count <= n; ++count) {
      const bool holds = first <= 17 && 17 < first + count;
      const auto a = before.proof(static_cast<PartyId>(first), static_cast<std::uint32_t>(count));
      const auto b = after.proof(static_cast<PartyId>(first), static_cast<std::uint32_t>(count));
      CHECK((a != b) == holds);
    }
}

TEST_CASE("identity tree: any claimed range, up to every party of the largest session, is at most 64 block hashes") {
  SeededRng rng(4);
  CHECK(net::detail::identity_blocks(0, 100'000'000) <= 64);
  CHECK(net::detail::identity_blocks(1, 0xffff'fffeu) <= 64);
  CHECK(net::detail::identity_blocks(0, 1u << 20) == 1);
  std::size_t most = 0;
  for (int i = 0; i < 10000; ++i) {
    const auto first = static_cast<PartyId>(rng.uniform(100'000'000));
    const auto count = static_cast<std::uint32_t>(1 + rng.uniform(100'000'000 - first));
    most = std::max(most, net::detail::identity_blocks(first, count));
  }
  CHECK(most <= 64);
  CHECK(most >= 20);  // ranges do need many blocks: the bound is not vacuous
}
