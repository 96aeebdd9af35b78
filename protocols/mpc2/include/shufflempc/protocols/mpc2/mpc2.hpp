// mpc2: any degree-2 functionality in exactly two shuffle rounds (BGW over F_p, semi-honest,
// t < n/2), with round 1's private shares carried by one-round secret messages (OSM) through the
// shuffle itself: no prior key, no private channel outside the shuffle.
//
//   round 1 (MPC mode): OSM chaff for every pair, and each party's Shamir shares of its inputs (and,
//                       with dealt zero-sharing, of its zero polynomials) encrypted to each peer;
//   round 2 (MPC or ESA mode): per output, each party's degree-2t point plus its zero share;
//   anyone who receives round 2 (every party in MPC mode, the analyzer in ESA mode) interpolates.
//
// docs/two-round-mpc.md gives the threat model, the parameters and the measured costs.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "shufflempc/protocols/mpc2/functionality.hpp"
#include "shufflempc/registry.hpp"
#include "shufflempc/secret_messages.hpp"

namespace shufflempc::mpc2 {

enum class ZeroSharing { prf, dealt };

struct Options {
  std::string prime = "2305843009213693951";  // 2^61 - 1
  std::size_t threshold = 0;                  // t; 0: floor((n - 1) / 2)
  ZeroSharing zero_sharing = ZeroSharing::prf;
  osm::KeyMode osm = osm::KeyMode::kdf;
  std::size_t chaff = 0;  // 0: 160 (kdf), or what the coset pads need
  Delivery delivery = Delivery::all_parties;
  std::size_t noise_parties = 0;  // parties whose noise shares make up the full noise (0: all)
};

// The protocol for `fn`. Throws std::invalid_argument naming the parameter (prime, threshold,
// chaff, min-parties) on a bad combination.
[[nodiscard]] std::unique_ptr<Protocol> make_protocol(Functionality fn, const Options& options, std::size_t min_parties = 0);

// The --random-inputs forms: uniform[:LO:HI] (integers drawn from [LO, HI], default [0, 100]; LO..HI
// is the same), bits fair coins.
[[nodiscard]] const std::vector<InputForm>& input_forms();

}  // namespace shufflempc::mpc2
