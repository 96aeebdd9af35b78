#include "shufflempc/net/detail/hop_links.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "shufflempc/trace.hpp"

namespace shufflempc::net::detail {

HopLinks::HopLinks(asio::io_context& io, const SessionConfig& config, const ConfigDigest& digest, const KeyPair& keys, Rng& rng,
                   std::vector<std::string> addresses, std::function<void(const std::string&)> log, std::chrono::milliseconds grace)
    : io_(&io), config_(&config), digest_(&digest), keys_(&keys), rng_(&rng), addresses_(std::move(addresses)), log_(std::move(log)),
      grace_(grace), links_(config.mix_chain.size()) {
  if (addresses_.size() + 1 != config.mix_chain.size())
    throw std::invalid_argument("hop links: " + std::to_string(addresses_.size()) + " addresses for a chain of " +
                                std::to_string(config.mix_chain.size()) + " servers");
}

std::string HopLinks::name(std::size_t hop) const { return "mix server " + std::to_string(hop) + " (" + addresses_.at(hop - 1) + ")"; }

// Connects and authenticates `link` to further server `hop` as the chain's entry; on success it
// becomes the hop's link. Closing `link` meanwhile and setting `expired` (the round's deadline) ends
// the dial: a closed socket ends the connect and the handshake, and `expired` a dial whose name was
// still being resolved (the connect would open the socket again).
asio::awaitable<void> HopLinks::dial(std::size_t hop, std::shared_ptr<SecureLink> link, const bool& expired) {
  const auto [host, port] = split_address(addresses_[hop - 1], "mix server address");
  tcp::resolver resolver(*io_);
  const auto endpoints = co_await resolver.async_resolve(host, std::to_string(port), asio::use_awaitable);
  if (expired) throw std::system_error(asio::error::timed_out);
  co_await asio::async_connect(link->socket(), endpoints, asio::use_awaitable);
  std::error_code ignored;
  link->socket().set_option(tcp::no_delay(true), ignored);
  co_await link->connect_as(config_->session, *digest_, entry_id, *keys_, config_->mix_chain[hop].key, *rng_);
  links_[hop] = std::move(link);
}

asio::awaitable<Frame> HopLinks::ask(std::size_t hop, std::uint32_t round, FrameType type, std::uint32_t width, std::uint32_t count,
                                     std::span<const std::uint8_t> payload, const bool& retry) {
  trace::point("HopLinks::ask");
  auto& current = links_.at(hop);
  // Once a link is lost: until when it is dialled again, and the pause before the next dial.
  std::optional<std::chrono::steady_clock::time_point> give_up;
  auto pause = std::chrono::milliseconds(50);
  for (;;) {
    bool timed_out = false;
    // The link being dialled: the deadline bounds the dial and the handshake too (a server that
    // accepts the connection and never answers, or is stopped, would otherwise hold the round).
    std::shared_ptr<SecureLink> dialing;
    asio::steady_timer timer(*io_);
    // The deadline runs from the ask and again from each word that the server is computing (an
    // alive frame of the round), but never past the round's limit from the ask: a server cannot
    // hold the round open by saying so.
    const auto limit_at = asio::steady_timer::clock_type::now() + config_->round_limit();
    bool at_limit = false;
    const auto arm = [&] {
      const auto at = asio::steady_timer::clock_type::now() + config_->deadline;
      at_limit = at >= limit_at;
      timer.expires_at(std::min(at, limit_at));
      timer.async_wait([&, armed = timer.expiry()](std::error_code ec) {
        if (ec || timer.expiry() != armed) return;
        timed_out = true;
        if (current) current->close();
        if (dialing) dialing->close();
      });
    };
    arm();
    try {
      if (!current || !current->is_open()) {
        dialing = std::make_shared<SecureLink>(tcp::socket(*io_), config_->limits());
        co_await dial(hop, dialing, timed_out);
        dialing.reset();
      }
      current->send(type, round, width, count, payload);
      for (;;) {
        Frame f = co_await current->receive();
        if (f.header.type != FrameType::alive) {
          timer.cancel();
          co_return f;
        }
        if (f.header.round != round)
          throw std::runtime_error(name(hop) + " said it was computing round " + std::to_string(f.header.round) + " when asked for round " +
                                   std::to_string(round));
        arm();
      }
    } catch (const std::system_error& e) {
      timer.cancel();
      if (current) current->close();
      current.reset();
      if (timed_out && at_limit)
        throw std::runtime_error(name(hop) + " was still computing at the round's limit of " + std::to_string(config_->round_limit().count()) +
                                 " ms");
      if (timed_out)
        throw std::runtime_error(name(hop) + " did not answer within the round's deadline of " + std::to_string(config_->deadline.count()) +
                                 " ms");
      const auto now = std::chrono::steady_clock::now();
      if (!give_up) {
        give_up = now + grace_;
        if (retry && log_)
          log_("round " + std::to_string(round) + ": the link to " + name(hop) + " failed (" + e.what() + "); reconnecting for up to " +
               std::to_string(grace_.count()) + " ms");
      }
      if (!retry || now + pause > *give_up)
        throw std::runtime_error(name(hop) + ": " + e.what() + (retry ? " (not back within " + std::to_string(grace_.count()) + " ms)" : ""));
    }
    asio::steady_timer wait(*io_, pause);
    co_await wait.async_wait(asio::use_awaitable);
    pause = std::min<std::chrono::milliseconds>(2 * pause, std::chrono::seconds(1));
  }
}

void HopLinks::tell(std::uint32_t round, std::span<const std::uint8_t> reason, bool close) {
  for (std::size_t h = 1; h < links_.size(); ++h) {
    auto& l = links_[h];
    if (!l || !l->is_open()) continue;
    l->send(FrameType::abort, round, reason);
    if (close) l->close_after_flush();
  }
}

void HopLinks::close_after_flush() {
  for (auto& l : links_)
    if (l) l->close_after_flush();
}

}  // namespace shufflempc::net::detail
