// What a session config implies for its rounds on the wire (net/round_shapes.hpp): each round's width
// at the entry with the seal, an onion or a verifiable chain's records; the check that a config
// declares its protocol's shapes, and the error that names the round that differs; how many parties
// one link carries; whether the analyzer takes verdicts.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>

#include "shufflempc/mixnet/elgamal.hpp"
#include "shufflempc/net/onion.hpp"
#include "shufflempc/net/round_shapes.hpp"
#include "shufflempc/net/sealing.hpp"
#include "shufflempc/registry.hpp"
#include "support/errors.hpp"
#include "support/small_protocols.hpp"

using namespace shufflempc;
using namespace shufflempc::net;

namespace {
// `f` throws std::invalid_argument with every one of `parts` in its message.
void shapes_refused(const std::function<void()>& f, std::initializer_list<std::string> parts) {
  CHECK_THROWS_AS(f(), std::invalid_argument);
  const std::string text = shufflempc::test::error_text(f);
  CAPTURE(text);
  for (const auto& part : parts) CHECK(text.find(part) != std::string::npos);
}
}  // namespace

TEST_CASE("wire_shape: the seal without a chain, the onion at the entry of a chain, a verifiable chain's ElGamal records") {
  for (const Delivery delivery : {Delivery::all_parties, Delivery::analyzer_only}) {
    for (const std::size_t width : {1u, 8u, 100u}) {
      CAPTURE(width);
      const RoundShape shape{width, delivery, 0, 3};
      const RoundShape sealed = wire_shape(shape);
      CHECK(sealed.width == wire_width(width, delivery));
      CHECK(sealed.min_messages == 0);
      CHECK(sealed.max_messages == 3);
      CHECK(sealed.delivery == delivery);
      for (const std::size_t hops : {1u, 2u, 3u}) {
        CAPTURE(hops);
        CHECK(wire_shape(shape, hops).width == onion::record_width(width, delivery, hops, 0));
        const RoundShape verifiable = wire_shape(shape, hops, MixKind::verifiable);
        CHECK(verifiable.width == verifiable_width(width));
        CHECK(verifiable.record_width == width);
      }
    }
    // A silent round stays silent: no seal around nothing, with or without a chain.
    CHECK(wire_shape(RoundShape{0, delivery, 0, 0}, 2).width == wire_width(0, delivery));
  }
}

TEST_CASE("check_rounds: a config written for the protocol passes, and one round count or shape off is refused, naming it") {
  const Registry registry = builtin_registry();
  const auto run = shufflempc::test::small_run(registry, registry.get("counting"));
  const Protocol& protocol = *run.protocol;
  for (const std::size_t hops : {0u, 2u}) {
    CAPTURE(hops);
    SessionConfig config;
    config.protocol = "counting";
    config.rounds = wire_rounds(protocol, hops);
    REQUIRE(config.rounds.size() == protocol.rounds());
    if (hops > 0) config.mix_chain.resize(hops);
    CHECK_NOTHROW(check_rounds(config, protocol));

    SessionConfig wider = config;
    wider.rounds[0].width += 1;
    shapes_refused([&] { check_rounds(wider, protocol); },
                   {"rounds[0] is width", "write it again with shufflempc session"});
    SessionConfig more = config;
    more.rounds.push_back(more.rounds[0]);
    shapes_refused([&] { check_rounds(more, protocol); },
                   {"it declares " + std::to_string(protocol.rounds() + 1) + " round(s)"});
  }
}

TEST_CASE("wire_rounds: a verifiable chain refuses a round whose records do not fit its ElGamal points, and says what to use") {
  const Registry registry = builtin_registry();
  const auto run = shufflempc::test::small_run(registry, registry.get("counting"));
  CHECK_NOTHROW((void)wire_rounds(*run.protocol, 2, MixKind::verifiable));
  // Records the verifiable mix cannot carry: the first width record_fit refuses.
  std::size_t too_wide = 1;
  while (mixnet::record_fit(too_wide).empty()) ++too_wide;
  class Wide final : public Protocol {
   public:
    explicit Wide(std::size_t width) : width_(width) {}
    std::uint32_t rounds() const override { return 1; }
    RoundShape round(std::uint32_t) const override { return RoundShape::exactly(width_, Delivery::analyzer_only, 1); }
    std::unique_ptr<Party> make_party(PartyId, const Value&) const override { return nullptr; }
    std::unique_ptr<Analyzer> make_analyzer() const override { return nullptr; }
    Value random_input(PartyId, std::string_view, Rng&) const override { return {}; }

   private:
    std::size_t width_;
  };
  CHECK_NOTHROW((void)wire_rounds(Wide(too_wide - 1), 2, MixKind::verifiable));
  CHECK_NOTHROW((void)wire_rounds(Wide(too_wide), 2, MixKind::decryption));
  shapes_refused([&] { (void)wire_rounds(Wide(too_wide), 2, MixKind::verifiable); },
                   {"round 0: ", "use --mix decryption"});
}

TEST_CASE("link_capacity: as many parties as fit one frame's payload and message count in the round that asks most of each") {
  SessionConfig config;
  const Limits limits = config.limits();
  // Bytes bind: 100-byte messages, 5 a party at most.
  config.rounds = {RoundShape{10, Delivery::all_parties, 1, 1}, RoundShape{100, Delivery::all_parties, 0, 5}};
  CHECK(link_capacity(config) == std::min<std::uint64_t>(limits.max_payload / (100 * 5 + 4), limits.max_count / 5));
  CHECK(link_capacity(config) * (100 * 5 + 4) <= limits.max_payload);
  // Nothing to send: still one party a link at least, and the count of a frame binds.
  config.rounds = {RoundShape{0, Delivery::all_parties, 0, 0}};
  CHECK(link_capacity(config) == std::min<std::uint64_t>(limits.max_payload / 4, limits.max_count));
  // A party's batch larger than a frame: one party a link.
  config.rounds = {RoundShape{1u << 16, Delivery::all_parties, 0, (limits.max_payload >> 16) + 1}};
  CHECK(link_capacity(config) == 1);
}

TEST_CASE("takes_verdicts: only a session whose analyzer-only rounds cross a chain") {
  SessionConfig config;
  config.rounds = {RoundShape::exactly(4, Delivery::analyzer_only, 1)};
  CHECK_FALSE(takes_verdicts(config));
  config.mix_chain.resize(2);
  CHECK(takes_verdicts(config));
  config.rounds = {RoundShape::exactly(4, Delivery::all_parties, 1)};
  CHECK_FALSE(takes_verdicts(config));
  config.rounds.push_back(RoundShape::exactly(4, Delivery::analyzer_only, 1));
  CHECK(takes_verdicts(config));
}
