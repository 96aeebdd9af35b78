// What protocols declare in types rather than in their describe() JSON: the error's predicted
// standard deviation and whom they trust (Protocol::predicted_sd, Protocol::trust_model).
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <string>

#include "shufflempc/registry.hpp"

using namespace shufflempc;

TEST_CASE("protocols: the predicted sd is the one their reports print, and every DP protocol declares its trust model") {
  const Registry registry = builtin_registry();
  struct Case {
    std::string name;
    std::map<std::string, std::string> params;
    TrustModel model;
    const char* key;  // the describe() key that prints the same figure
  };
  const Case cases[] = {
      {"counting", {}, TrustModel::shuffle, "noise_sd"},
      {"counting-balcer-cheu", {}, TrustModel::shuffle, "noise_sd"},
      {"randomized-response", {}, TrustModel::local, "noise_sd"},
      {"central-laplace", {}, TrustModel::central, "noise_sd"},
      {"histogram", {}, TrustModel::shuffle, "noise_sd_per_bin"},
      {"histogram-central-laplace", {}, TrustModel::central, "noise_sd_per_bin"},
      {"counting-rr-amplified", {}, TrustModel::shuffle, "noise_sd"},
      {"counting-rr-amplified", {{"model", "local"}}, TrustModel::local, "noise_sd"},
      {"histogram-rr-amplified", {}, TrustModel::shuffle, "noise_sd_per_bin"},
      {"split-mix-dp-sum", {}, TrustModel::shuffle, "noise_sd"},
      {"counting-correlated", {}, TrustModel::shuffle, "noise_sd"},
      {"sum-local-laplace", {}, TrustModel::local, "noise_sd"},
      {"sum-central-laplace", {}, TrustModel::central, "noise_sd"},
      {"sum-recursive", {}, TrustModel::shuffle, "rmse_bound"},
      {"sum-blanket", {}, TrustModel::shuffle, "rmse_bound"},
      {"sum-harmony", {}, TrustModel::local, "noise_sd_at_most"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    const auto protocol = registry.create(c.name, c.params, 100000);
    CHECK(protocol->trust_model() == c.model);
    const auto sd = protocol->predicted_sd();
    REQUIRE(sd.has_value());
    CHECK(*sd > 0);
    CHECK(protocol->describe()[c.key].get<double>() == *sd);
  }
  // Protocols that are not estimates make no prediction.
  for (const char* name : {"split-mix-sum", "ikos-key-exchange", "xor-sum-exact"}) {
    CAPTURE(name);
    CHECK_FALSE(registry.create(name, {}, 16)->predicted_sd().has_value());
  }
  CHECK(std::string(to_string(TrustModel::central)) == "central");
}

TEST_CASE("protocols: calibrated for min-parties, the predicted sd is still for every party submitting") {
  // The noise is sized for min-parties; when all n submit there is more of it, and the prediction
  // must say so (study --honest reports it beside the measured error).
  const Registry registry = builtin_registry();
  for (const char* name : {"counting", "counting-balcer-cheu", "counting-rr-amplified", "counting-correlated", "split-mix-dp-sum"}) {
    CAPTURE(name);
    const auto all = registry.create(name, {}, 100000);
    const auto robust = registry.create(name, {}, 100000, 10000);  // calibrated for a tenth
    const auto few = registry.create(name, {}, 10000);              // the same calibration, 10000 parties
    // Each protocol's noise variance is linear in the submitters for a fixed calibration.
    CHECK(*robust->predicted_sd() == doctest::Approx(*few->predicted_sd() * std::sqrt(10.0)).epsilon(0.02));
    CHECK(*robust->predicted_sd() > 2 * *all->predicted_sd());
  }
}
