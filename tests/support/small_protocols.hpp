// Helpers for the tests that run every registered protocol over a transport: a small
// configuration each protocol accepts, and the JSON shape of a result.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "shufflempc/registry.hpp"

namespace shufflempc::test {

// The JSON "kind" of a value: its type, and for arrays/objects the kinds of their elements' shape.
inline std::string kind(const Value& v) {
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
inline std::unique_ptr<Protocol> create_small(const Registry& registry, const ProtocolInfo& info, std::size_t& n) {
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

// A small configuration of `info` (create_small) and one random input per party, drawn with a
// fixed seed.
struct SmallRun {
  std::unique_ptr<Protocol> protocol;
  std::vector<Value> inputs;
};
inline SmallRun small_run(const Registry& registry, const ProtocolInfo& info) {
  std::size_t n = 0;
  SmallRun r{create_small(registry, info, n), {}};
  SeededRng input_rng(11);
  for (std::size_t i = 0; i < n; ++i) r.inputs.push_back(r.protocol->random_input(static_cast<PartyId>(i), "", input_rng));
  return r;
}

}  // namespace shufflempc::test
