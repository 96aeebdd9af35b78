// A channel that fails on purpose at its N-th exchange (counting from 0), as Beast's fail-at-N test
// streams do: the runtime tests run a protocol once per N so that every failure point is exercised.
#pragma once

#include "shufflempc/channel.hpp"
#include "shufflempc/error.hpp"

namespace shufflempc::test {

class FailingChannel final : public AnonymousChannel {
 public:
  FailingChannel(AnonymousChannel& inner, std::size_t fail_at, Errc error = Errc::peer_closed)
      : inner_(inner), fail_at_(fail_at), error_(error) {}
  [[nodiscard]] RoundOutcome exchange(const RoundRules& rules, Submissions local) override {
    if (exchanges_++ == fail_at_) throw_error(error_, "test channel: failing at exchange " + std::to_string(fail_at_));
    return inner_.exchange(rules, std::move(local));
  }
  [[nodiscard]] std::size_t exchanges() const { return exchanges_; }

 private:
  AnonymousChannel& inner_;
  std::size_t fail_at_;
  Errc error_;
  std::size_t exchanges_ = 0;
};

}  // namespace shufflempc::test
