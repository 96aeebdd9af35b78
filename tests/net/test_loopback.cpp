// run_over_loopback: every registered protocol over real TCP links on 127.0.0.1.
#include <doctest/doctest.h>

#include "shufflempc/error.hpp"
#include "shufflempc/inproc.hpp"
#include "shufflempc/net/loopback.hpp"
#include "shufflempc/registry.hpp"

namespace {

using namespace shufflempc;

// The JSON "kind" of a value: its type, and for arrays/objects the kinds of their elements' shape.
std::string kind(const Value& v) {
  if (v.is_array()) return "array[" + std::to_string(v.size()) + "]";
  if (v.is_object()) {
    std::string k = "object{";
    for (const auto& [key, _] : v.items()) k += key + ",";
    return k + "}";
  }
  if (v.is_number()) return "number";
  return v.type_name();
}

// A small configuration the protocol accepts: its defaults with 8 or 100 parties, else 100
// parties with one of its declared choices changed (e.g. a calibrated noise rate), else 1500.
std::unique_ptr<Protocol> create_small(const Registry& registry, const ProtocolInfo& info, std::size_t& n) {
  std::vector<std::pair<std::size_t, std::map<std::string, std::string>>> tries = {{8, {}}, {100, {}}};
  for (const auto& p : info.params)
    for (const auto& c : p.choices) tries.push_back({100, {{p.name, c}}});
  tries.push_back({1500, {}});
  for (const auto& [candidate, params] : tries) {
    n = std::clamp(candidate, info.min_parties, info.max_parties);
    try {
      return registry.create(info.name, params, n);
    } catch (const std::invalid_argument&) {
    }
  }
  FAIL("no small configuration accepted by " << info.name);
  return nullptr;
}

}  // namespace

TEST_CASE("run_over_loopback gives counting the same estimate as run_in_process") {
  const Registry registry = builtin_registry();
  auto protocol = registry.create("counting", {{"noise", "calibrated"}}, 200);
  std::vector<Value> inputs;
  for (int i = 0; i < 200; ++i) inputs.push_back(i % 3 == 0 ? 1 : 0);
  // The estimate does not depend on the order of the messages, and parties draw from the same
  // forks of the seeded generator whatever the transport: the two runs must agree exactly.
  SeededRng a(7), b(7);
  const RunResult local = run_in_process(*protocol, inputs, a);
  const RunResult tcp = net::run_over_loopback(*protocol, inputs, b);
  CHECK(tcp.output == local.output);
  CHECK(tcp.messages == local.messages);
  CHECK(tcp.bytes == local.bytes);
  CHECK(tcp.dropped.empty());
}

TEST_CASE("every registered protocol runs over loopback TCP with the same kind of result as in-process") {
  const Registry registry = builtin_registry();
  for (const auto& info : registry.all()) {
    CAPTURE(info.name);
    std::size_t n = 0;
    auto protocol = create_small(registry, info, n);
    SeededRng input_rng(11);
    std::vector<Value> inputs;
    for (std::size_t i = 0; i < n; ++i) inputs.push_back(protocol->random_input(static_cast<PartyId>(i), "", input_rng));
    SeededRng a(3), b(3);
    const RunResult local = run_in_process(*protocol, inputs, a);
    const RunResult tcp = net::run_over_loopback(*protocol, inputs, b);
    CHECK(kind(tcp.output) == kind(local.output));
    CHECK(tcp.messages == local.messages);
    CHECK(tcp.bytes == local.bytes);
    CHECK(tcp.rounds.size() == local.rounds.size());
    REQUIRE(tcp.party_outputs.size() == local.party_outputs.size());
    for (const auto& [id, v] : local.party_outputs) CHECK(kind(tcp.party_outputs.at(id)) == kind(v));
  }
}

TEST_CASE("run_over_loopback reports simulated dropouts and completes with the minimum") {
  const Registry registry = builtin_registry();
  auto protocol = registry.create("counting", {{"noise", "calibrated"}}, 100);
  std::vector<Value> inputs(100, 1);
  RunOptions options;
  options.dropouts = {{2, 0}, {7, 0}};
  options.min_parties = 98;
  SeededRng rng(5);
  const RunResult r = net::run_over_loopback(*protocol, inputs, rng, options);
  CHECK(r.dropped == std::vector<PartyId>{2, 7});
}

TEST_CASE("run_over_loopback fails with too_few_parties when the minimum is not met") {
  const Registry registry = builtin_registry();
  auto protocol = registry.create("counting", {{"noise", "calibrated"}}, 100);
  std::vector<Value> inputs(100, 0);
  RunOptions options;
  options.dropouts = {{0, 0}, {1, 0}, {2, 0}};
  options.min_parties = 98;
  SeededRng rng(5);
  try {
    (void)net::run_over_loopback(*protocol, inputs, rng, options);
    FAIL("the run should have been aborted");
  } catch (const std::system_error& e) {
    CHECK(e.code() == Errc::session_aborted);
    CHECK(std::string(e.what()).find("97 of 100 parties submitted, at least 98 needed") != std::string::npos);
  }
}
