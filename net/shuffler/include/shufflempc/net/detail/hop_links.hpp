// The chain entry's links to the further servers of one session (the shuffler's side of
// `shuffler --hop-addresses`): each dialled when first asked and authenticated as the chain's
// entry, asked one frame at a time and read for its answer within the round's deadline, and dialled
// again when lost, with backoff, for up to the shuffler's reconnect grace (a server answers a
// repeated frame with the same bytes; one killed and started again on its state directory too). What the answers
// mean is detail::ChainEntry's; this is the I/O alone.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/net/detail/link.hpp"
#include "shufflempc/net/keys.hpp"

namespace shufflempc::net::detail {

class HopLinks {
 public:
  HopLinks() = default;
  // `addresses`: HOST:PORT of hops 1 .. k-1 of `config`'s chain, in order. `config`, `digest`,
  // `keys`, `rng` and `io` must outlive this.
  HopLinks(asio::io_context& io, const SessionConfig& config, const ConfigDigest& digest, const KeyPair& keys, Rng& rng,
           std::vector<std::string> addresses, std::function<void(const std::string&)> log,
           std::chrono::milliseconds grace = std::chrono::milliseconds(2'000));

  // "mix server I (HOST:PORT)".
  [[nodiscard]] std::string name(std::size_t hop) const;
  // Further server `hop`'s answer to one frame. A link lost on the way is dialled again, with
  // backoff, while `retry` holds (the round is still crossing the chain) and for up to `grace` from
  // the loss; throws std::runtime_error naming the server when it is not back by then or does not
  // answer within the session's deadline. Each alive frame
  // of the round (the server says it is computing) starts the deadline again, up to the round's
  // limit from the ask.
  asio::awaitable<Frame> ask(std::size_t hop, std::uint32_t round, FrameType type, std::uint32_t width, std::uint32_t count,
                             std::span<const std::uint8_t> payload, const bool& retry);
  // An abort frame to every open link (`reason` empty: goodbye, the session is complete), each then
  // closed once flushed (`close` false: left open, as the goodbye before the last result is).
  void tell(std::uint32_t round, std::span<const std::uint8_t> reason, bool close);
  void close_after_flush();

 private:
  asio::awaitable<void> dial(std::size_t hop, std::shared_ptr<SecureLink> link, const bool& expired);

  asio::io_context* io_ = nullptr;
  const SessionConfig* config_ = nullptr;
  const ConfigDigest* digest_ = nullptr;
  const KeyPair* keys_ = nullptr;
  Rng* rng_ = nullptr;
  std::vector<std::string> addresses_;
  std::function<void(const std::string&)> log_;
  std::chrono::milliseconds grace_{2'000};
  std::vector<std::shared_ptr<SecureLink>> links_;  // index = hop; 0 unused
};

}  // namespace shufflempc::net::detail
