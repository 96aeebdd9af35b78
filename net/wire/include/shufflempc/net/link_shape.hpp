// A shaped network (docs/network.md, "A shaped network"): what a round costs where round trips are
// not free (a LAN, a region, another continent), measured on one machine.
#pragma once

#include <chrono>

namespace shufflempc::net {

// A shaped network, for measuring what a round costs where round trips are not free (a LAN, a
// region, another continent) on one machine: every frame a link of this process writes leaves once
// the link has carried the frames queued before it at `mbps` megabits a second (0: unlimited), and
// is written to the socket `delay` later. Both are real waits on the clock (nothing is computed
// from a formula); a process shapes what it sends, so with every process shaped a round trip costs
// 2·delay. The default (no delay, no limit) is an unshaped link.
struct LinkShape {
  std::chrono::microseconds delay{0};
  double mbps = 0;
  [[nodiscard]] bool shaped() const { return delay.count() > 0 || mbps > 0; }
  bool operator==(const LinkShape&) const = default;
};
// The shape of every link this process opens or accepts from now on (the links already open keep
// theirs). Throws std::invalid_argument naming the field out of range: delay in [0, 10 s], mbps 0 or
// in [0.001, 10^6].
void set_link_shape(const LinkShape& shape);
[[nodiscard]] LinkShape link_shape();

}  // namespace shufflempc::net
