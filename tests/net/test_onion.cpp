// The onion of a chain of mix servers (net/onion.hpp): round trips through 1 to 5 hops in both
// delivery modes, one width per hop, layers bound to their session, round and hop, copies refused,
// and the anonymity of the chain shown by enumeration: with one honest hop, the coalition of every
// other hop (their keys, their permutations, every byte they saw) has the same view whatever inputs
// the parties hold; with no honest hop it links every record.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <vector>

#include "shufflempc/net/onion.hpp"
#include "shufflempc/net/sealing.hpp"
#include "shufflempc/shuffle.hpp"
#include "support/records.hpp"

using namespace shufflempc;
using namespace shufflempc::net;
using shufflempc::test::records_of;

namespace {

struct LayerKeys {
  SessionId session{};
  std::vector<KeyPair> hops;
  std::vector<PublicKey> public_keys;
  KeyPair analyzer;
};

LayerKeys make_chain(std::size_t k, Rng& rng) {
  LayerKeys c;
  rng.fill(c.session);
  for (std::size_t i = 0; i < k; ++i) {
    c.hops.push_back(KeyPair::generate(rng));
    c.public_keys.push_back(c.hops.back().public_key());
  }
  c.analyzer = KeyPair::generate(rng);
  return c;
}

// out[p] = in[perm[p]].
MessageBatch permuted(const MessageBatch& in, const std::vector<std::size_t>& perm) {
  MessageBatch out(in.width());
  for (std::size_t p : perm) out.push_back(in[p]);
  return out;
}

}  // namespace

TEST_CASE("onion: 1 to 5 hops in both modes, each hop opens and shuffles, every record has its hop's width, the output is the input") {
  SeededRng rng(230);
  Shuffler shuffler;
  for (std::size_t k = 1; k <= 5; ++k) {
    for (const Delivery delivery : {Delivery::all_parties, Delivery::analyzer_only}) {
      CAPTURE(k);
      CAPTURE(to_string(delivery));
      const LayerKeys c = make_chain(k, rng);
      const std::size_t width = 7, n = 300;  // 300: the parallel paths of wrap and peel
      MessageBatch messages(width, n);
      rng.fill(std::span(messages.data(), messages.size_bytes()));
      MessageBatch batch = onion::wrap(messages.bytes(), width, delivery, c.analyzer.public_key(), c.public_keys, c.session, 3);
      for (std::size_t hop = 0; hop < k; ++hop) {
        CHECK(batch.width() == onion::record_width(width, delivery, k, hop));
        CHECK(batch.width() == width + (delivery == Delivery::analyzer_only ? 48 : 0) + 48 * (k - hop));
        auto peeled = onion::peel(batch, c.hops[hop], {c.session, 3, static_cast<std::uint32_t>(hop)});
        CHECK(peeled.not_opened == 0);
        CHECK(peeled.duplicates == 0);
        REQUIRE(peeled.records.count() == n);
        // What a hop forwards shares no record with what it received.
        const auto in = records_of(batch);
        for (std::size_t i = 0; i < n; ++i) CHECK(in.count({peeled.records[i].begin(), peeled.records[i].end()}) == 0);
        shuffler.shuffle(peeled.records, rng);
        batch = std::move(peeled.records);
      }
      if (delivery == Delivery::analyzer_only) {
        CHECK(batch.width() == sealing::sealed_width(width));
        const auto opened = sealing::open(batch.bytes(), width, c.analyzer);
        CHECK(opened.discarded == 0);
        CHECK(records_of(opened.messages) == records_of(messages));
      } else {
        CHECK(records_of(batch) == records_of(messages));
      }
    }
  }
  CHECK_THROWS_WITH_AS((void)onion::wrap({}, 1, Delivery::all_parties, {}, {}, {}, 0), doctest::Contains("a chain has 1 to 16 hops"),
                       std::invalid_argument);
}

TEST_CASE("onion: a layer opens only at its own hop of its own round and session, an altered record and a copy are refused and counted") {
  SeededRng rng(231);
  const LayerKeys c = make_chain(3, rng);
  const std::size_t width = 5, n = 6;
  MessageBatch messages(width, n);
  rng.fill(std::span(messages.data(), messages.size_bytes()));
  const MessageBatch batch = onion::wrap(messages.bytes(), width, Delivery::all_parties, {}, c.public_keys, c.session, 2);
  SessionId other = c.session;
  other[0] ^= 1;
  const std::vector<std::pair<const char*, onion::Place>> wrong = {
      {"another round", {c.session, 3, 0}}, {"another session", {other, 2, 0}}, {"another hop's place", {c.session, 2, 1}}};
  for (const auto& [what, place] : wrong) {
    CAPTURE(what);
    const auto p = onion::peel(batch, c.hops[0], place);
    CHECK(p.not_opened == n);
    CHECK(p.records.count() == 0);
  }
  CHECK(onion::peel(batch, c.hops[1], {c.session, 2, 0}).not_opened == n);  // another hop's key

  // One record altered in one byte, one record sent twice: n - 1 open, one is refused as a copy.
  MessageBatch tampered = batch;
  tampered[4][60] ^= 0x01;
  tampered.push_back(batch[2]);
  const auto p = onion::peel(tampered, c.hops[0], {c.session, 2, 0});
  CHECK(p.not_opened == 1);
  CHECK(p.duplicates == 1);
  CHECK(p.records.count() == n - 1);
  // The record altered at hop 1 (after hop 0 opened it) is refused there, and counted there.
  auto first = onion::peel(batch, c.hops[0], {c.session, 2, 0});
  REQUIRE(first.records.count() == n);
  first.records[0][0] ^= 0x80;
  const auto second = onion::peel(first.records, c.hops[1], {c.session, 2, 1});
  CHECK(second.not_opened == 1);
  CHECK(second.records.count() == n - 1);
}

namespace {

// The coalition's view of one run of the chain: the output in order, and for each output position
// the parties it may have come from as far as the coalition can trace it. It knows every party's
// place in hop 0's input (the entry knows identities), its own hops' permutations and every byte
// its hops received and sent; across a hop outside it, it links an output record to the inputs
// that contain its bytes, or to all of them when none does.
struct View {
  std::vector<std::vector<std::uint8_t>> output;
  std::vector<std::set<std::size_t>> senders;
  auto operator<=>(const View&) const = default;
};

bool contains(std::span<const std::uint8_t> hay, std::span<const std::uint8_t> needle) {
  return std::search(hay.begin(), hay.end(), needle.begin(), needle.end()) != hay.end();
}

View run_chain(const LayerKeys& c, const MessageBatch& wrapped, const std::vector<std::vector<std::size_t>>& perms,
               const std::vector<bool>& coalition) {
  const std::size_t k = c.hops.size(), n = wrapped.count();
  std::vector<MessageBatch> in, out;
  MessageBatch batch = wrapped;
  for (std::size_t h = 0; h < k; ++h) {
    in.push_back(batch);
    auto peeled = onion::peel(batch, c.hops[h], {c.session, 0, static_cast<std::uint32_t>(h)});
    REQUIRE(peeled.records.count() == n);
    batch = permuted(peeled.records, perms[h]);
    out.push_back(batch);
  }
  View v;
  for (std::size_t p = 0; p < n; ++p) {
    v.output.emplace_back(batch[p].begin(), batch[p].end());
    std::set<std::size_t> at = {p};  // positions in hop h's output
    for (std::size_t h = k; h-- > 0;) {
      std::set<std::size_t> before;  // positions in hop h's input
      for (std::size_t q : at) {
        if (coalition[h]) {
          before.insert(perms[h][q]);
          continue;
        }
        bool linked = false;
        for (std::size_t i = 0; i < n; ++i)
          if (contains(in[h][i], out[h][q])) {
            before.insert(i);
            linked = true;
          }
        if (!linked)
          for (std::size_t i = 0; i < n; ++i) before.insert(i);
      }
      at = std::move(before);
    }
    v.senders.push_back(std::move(at));
  }
  return v;
}

}  // namespace

TEST_CASE("onion anonymity: with one honest hop of 2 or 3, the coalition of the others sees the same whatever the inputs, and all hops together link every record") {
  // 4 parties, one record each; the inputs are the values 0..3 given to the parties in each of the
  // 24 ways (each value repeated over a 16-byte record). For each assignment, the honest hop's permutation runs over all 24; the coalition's
  // permutations are fixed. Its view must have the same distribution for every assignment.
  const std::size_t n = 4;
  std::vector<std::vector<std::size_t>> all_perms;
  std::vector<std::size_t> perm(n);
  std::iota(perm.begin(), perm.end(), std::size_t{0});
  do all_perms.push_back(perm);
  while (std::next_permutation(perm.begin(), perm.end()));
  SeededRng rng(232);
  for (std::size_t k = 2; k <= 3; ++k) {
    const LayerKeys c = make_chain(k, rng);
    std::vector<std::vector<std::size_t>> fixed(k);
    for (auto& p : fixed) p = all_perms[rng.uniform(all_perms.size())];
    // honest = k: no honest hop (the negative control).
    for (std::size_t honest = 0; honest <= k; ++honest) {
      CAPTURE(k);
      CAPTURE(honest);
      std::vector<bool> coalition(k, true);
      if (honest < k) coalition[honest] = false;
      std::set<std::map<View, int>> distributions;
      for (const auto& assignment : all_perms) {
        // 16 bytes a record, so that finding a record's bytes inside another is evidence, not chance.
        MessageBatch messages(16);
        for (std::size_t party = 0; party < n; ++party) {
          const std::vector<std::uint8_t> value(16, static_cast<std::uint8_t>(assignment[party]));
          messages.push_back(value);
        }
        const MessageBatch wrapped = onion::wrap(messages.bytes(), 16, Delivery::all_parties, {}, c.public_keys, c.session, 0);
        std::map<View, int> seen;
        for (const auto& pi : honest < k ? all_perms : std::vector<std::vector<std::size_t>>{fixed[0]}) {
          auto perms = fixed;
          if (honest < k) perms[honest] = pi;
          ++seen[run_chain(c, wrapped, perms, coalition)];
        }
        distributions.insert(seen);
        if (honest < k) {
          // Every output position traces back to all four parties, and every order of the values
          // is equally likely.
          CHECK(seen.size() == 24);
          for (const auto& [view, count] : seen) {
            CHECK(count == 1);
            for (const auto& s : view.senders) CHECK(s.size() == n);
          }
        } else {
          REQUIRE(seen.size() == 1);
          for (const auto& s : seen.begin()->first.senders) CHECK(s.size() == 1);
        }
      }
      // One honest hop: one distribution for all 24 assignments. None: each assignment its own.
      CHECK(distributions.size() == (honest < k ? 1u : all_perms.size()));
    }
  }
}
