#include "shufflempc/net/detail/link.hpp"

#include <sys/resource.h>

#include <sodium.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <mutex>
#include <stdexcept>
#include <span>
#include <string_view>
#include <string>

#include "shufflempc/error.hpp"
#include "shufflempc/messages.hpp"
#include "shufflempc/parallel.hpp"
#include "shufflempc/trace.hpp"

namespace shufflempc::net::detail {

namespace {

// Maps the socket's end-of-stream and resets to peer_closed; other socket errors pass through.
[[noreturn]] void rethrow_io(const std::system_error& e, const char* when) {
  if (e.code() == asio::error::eof || e.code() == asio::error::connection_reset ||
      e.code() == asio::error::operation_aborted || e.code() == asio::error::broken_pipe ||
      e.code() == asio::error::bad_descriptor)
    throw_error(Errc::peer_closed, std::string("connection closed ") + when);
  throw e;
}

asio::awaitable<void> read_exact(tcp::socket& s, std::uint8_t* out, std::size_t n, const char* when) {
  try {
    co_await asio::async_read(s, asio::buffer(out, n), asio::use_awaitable);
  } catch (const std::system_error& e) {
    rethrow_io(e, when);
  }
}

}  // namespace

SecureLink::SecureLink(tcp::socket socket, const Limits& limits) : socket_(std::move(socket)), limits_(limits), shape_(link_shape()) {
  std::error_code ignored;
  socket_.set_option(tcp::no_delay(true), ignored);
}

SecureLink::~SecureLink() = default;

asio::awaitable<void> SecureLink::connect_as(const SessionId& session, const ConfigDigest& config, PartyId id, const KeyPair& mine,
                                             const PublicKey& shuffler, Rng& rng) {
  co_await connect_as(session, config, id, 1, identity_proof(id, mine, shuffler), shuffler, rng);
}

asio::awaitable<void> SecureLink::connect_as(const SessionId& session, const ConfigDigest& config, PartyId first,
                                             std::uint32_t count, const IdentityProof& proof, const PublicKey& shuffler,
                                             Rng& rng) {
  session_ = session;
  ClientHandshake handshake(session, config, first, count, proof, shuffler, rng);
  send_raw(std::vector<std::uint8_t>(handshake.hello().begin(), handshake.hello().end()));

  std::array<std::uint8_t, hello_reply_bytes> reply_bytes{};
  std::uint8_t* reply = reply_bytes.data();
  try {
    co_await read_exact(socket_, reply, hello_reply_bytes, "during the handshake");
  } catch (const std::system_error& e) {
    if (e.code() != Errc::peer_closed) throw;
    // The entry dials the chain's further servers with this handshake: a server that closes the
    // connection has not refused "identities" (it may have ended, or serve another session).
    if (first == entry_id)
      throw_error(Errc::unauthenticated,
                  "the mix server closed the connection during the handshake (is it running, serving this session, with the same "
                  "session config, and not already finished?)");
    if (peer_ == "the shuffler")
      throw_error(Errc::unauthenticated, "the shuffler refused these identities (are this session and these ids in its session config, "
                                         "and is the config the same?)");
    // The analyzer's verdict server closes a connection it cannot take (the round it is for has
    // ended, or it holds as many unauthenticated connections as it allows), not only one it refuses.
    throw_error(Errc::unauthenticated, peer_ + " closed the connection before answering the handshake (it has ended the round, holds "
                                               "too many connections at once, or does not know these identities: are this session and "
                                               "these ids in its session config, and is the config the same?)");
  }
  stats_.bytes_received += hello_reply_bytes;
  auto confirm = handshake.finish(reply_bytes, cipher_);
  ++stats_.frames_sent;
  send_raw(std::move(confirm));
  Frame f;
  try {
    f = co_await receive();
  } catch (const std::system_error& e) {
    if (e.code() == Errc::peer_closed && peer_ == "the analyzer")
      throw_error(Errc::unauthenticated, "the analyzer closed the connection during key confirmation (it has decided the round already, or "
                                         "these keys are not the ones in the session config)");
    if (e.code() == Errc::peer_closed)
      throw_error(Errc::unauthenticated, peer_ + " refused our keys (are these keys the ones in the session config?)");
    if (e.code() == Errc::unauthenticated)
      throw_error(Errc::unauthenticated, peer_ + " failed key confirmation: it does not hold the key the session config gives it");
    throw;
  }
  if (f.header.type == FrameType::abort)
    throw_error(Errc::session_aborted, "the shuffler refused this connection: " +
                                           std::string(f.payload.begin(), f.payload.end()));
  if (f.header.type != FrameType::confirm) throw_error(Errc::protocol_violation, "handshake: expected a confirm frame");
}

asio::awaitable<Hello> SecureLink::read_hello() {
  std::array<std::uint8_t, hello_bytes> buf{};
  co_await read_exact(socket_, buf.data(), buf.size(), "before the hello");
  stats_.bytes_received += buf.size();
  Hello h = decode_hello(buf);
  session_ = h.session;
  co_return h;
}

asio::awaitable<void> SecureLink::accept(const Hello& hello, const KeyPair& mine, const IdentityProof& proof, Rng& rng) {
  const auto reply = server_handshake(hello, mine, proof, rng, cipher_);
  send_raw(std::vector<std::uint8_t>(reply.begin(), reply.end()));

  Frame f;
  try {
    f = co_await receive();
  } catch (const std::system_error& e) {
    if (e.code() == Errc::unauthenticated)
      throw_error(Errc::unauthenticated, "key confirmation failed: the peer does not hold the secret keys of the identities it claims");
    throw;
  }
  if (f.header.type != FrameType::confirm) throw_error(Errc::protocol_violation, "handshake: expected a confirm frame");
  send(FrameType::confirm, 0, {});
}

std::uint64_t SecureLink::write_prefix(FrameType type, std::uint32_t round, std::uint32_t width, std::uint32_t count,
                                       std::uint32_t payload_length, std::uint8_t* out) {
  FrameHeader h;
  h.type = type;
  h.session = session_;
  h.round = round;
  h.width = width;
  h.count = count;
  h.payload_length = payload_length;
  return cipher_.seal_prefix(h, out);
}

void SecureLink::send(FrameType type, std::uint32_t round, std::uint32_t width, std::uint32_t count,
                      std::span<const std::uint8_t> head, std::span<const std::uint8_t> tail,
                      std::span<const std::uint8_t> trailer) {
  trace::point("SecureLink::send");
  if (tap_) return send_tapped(type, round, width, count, head, tail, trailer);
  const std::size_t payload_size = head.size() + tail.size() + trailer.size();
  std::vector<std::uint8_t> buf(frame_prefix_bytes + payload_size + aead_tag_bytes);
  const std::uint64_t seq = write_prefix(type, round, width, count, static_cast<std::uint32_t>(payload_size), buf.data());
  std::uint8_t* body = buf.data() + frame_prefix_bytes;
  if (!head.empty()) std::memcpy(body, head.data(), head.size());
  if (!tail.empty()) std::memcpy(body + head.size(), tail.data(), tail.size());
  if (!trailer.empty()) std::memcpy(body + head.size() + tail.size(), trailer.data(), trailer.size());
  cipher_.seal_payload(seq, body, payload_size);
  ++stats_.frames_sent;
  send_raw(std::move(buf));
}

void SecureLink::send_tapped(FrameType type, std::uint32_t round, std::uint32_t width, std::uint32_t count,
                             std::span<const std::uint8_t> head, std::span<const std::uint8_t> tail,
                             std::span<const std::uint8_t> trailer) {
  OutgoingFrame f{type, session_, round, width, count, {}};
  f.payload.reserve(head.size() + tail.size() + trailer.size());
  f.payload.insert(f.payload.end(), head.begin(), head.end());
  f.payload.insert(f.payload.end(), tail.begin(), tail.end());
  f.payload.insert(f.payload.end(), trailer.begin(), trailer.end());
  // The frames sent below pass untapped; the tap is put back on every way out (a tap may throw,
  // as the harness's `throw` does).
  struct Restore {
    SecureLink& link;
    FrameTap tap;
    SessionId session;
    ~Restore() {
      link.session_ = session;
      link.tap_ = std::move(tap);
    }
  } restore{*this, std::move(tap_), session_};
  const TapAction action = restore.tap(f);
  session_ = f.session;
  for (int i = 0; i < (action == TapAction::duplicate ? 2 : action == TapAction::send ? 1 : 0); ++i)
    send(f.type, f.round, f.width, f.count, f.payload, {});
  if (action == TapAction::close) close();
}

void SecureLink::send_prefix_only(FrameType type, std::uint32_t round, std::uint32_t width, std::uint32_t count,
                                  std::uint32_t payload_length) {
  std::vector<std::uint8_t> buf(frame_prefix_bytes);
  (void)write_prefix(type, round, width, count, payload_length, buf.data());
  send_raw(std::move(buf));
}

void SecureLink::send_raw(std::vector<std::uint8_t> bytes) {
  if (!socket_.is_open()) return;
  stats_.bytes_sent += bytes.size();
  if (shape_.shaped()) {
    // The frame starts once the link has carried the ones before it, takes its bytes' time at the
    // link's rate, and reaches the peer the delay after it has left.
    const auto now = std::chrono::steady_clock::now();
    free_at_ = std::max(now, free_at_);
    if (shape_.mbps > 0)
      free_at_ += std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(8.0 * static_cast<double>(bytes.size()) / (shape_.mbps * 1e6)));
    due_.push_back(free_at_ + shape_.delay);
  }
  queue_.push_back(std::move(bytes));
  if (!writing_) start_write();
}

void SecureLink::start_write() {
  writing_ = true;
  if (due_.empty() || due_.front() <= std::chrono::steady_clock::now()) return write_front();
  if (!shaper_) shaper_ = std::make_unique<asio::steady_timer>(socket_.get_executor());
  shaper_->expires_at(due_.front());
  shaper_->async_wait([self = shared_from_this()](std::error_code ec) {
    if (ec || !self->socket_.is_open()) {  // closed while the frame waited: it is lost, as close() says
      self->queue_.clear();
      self->due_.clear();
      self->writing_ = false;
      return;
    }
    self->write_front();
  });
}

void SecureLink::write_front() {
  asio::async_write(socket_, asio::buffer(queue_.front()), [self = shared_from_this()](std::error_code ec, std::size_t) {
    self->queue_.pop_front();
    if (!self->due_.empty()) self->due_.pop_front();
    if (ec) {
      self->queue_.clear();
      self->due_.clear();
      self->writing_ = false;
      std::error_code ignored;
      self->socket_.close(ignored);
      return;
    }
    if (!self->queue_.empty()) return self->start_write();
    self->writing_ = false;
    if (self->close_when_flushed_) {
      std::error_code ignored;
      self->socket_.shutdown(tcp::socket::shutdown_send, ignored);
    }
  });
}

asio::awaitable<Frame> SecureLink::receive() {
  std::array<std::uint8_t, frame_prefix_bytes> prefix{};
  co_await read_exact(socket_, prefix.data(), prefix.size(), "between frames");
  stats_.bytes_received += prefix.size();
  Frame f;
  f.header = cipher_.open_prefix(prefix.data(), session_, limits_);
  std::vector<std::uint8_t> body(std::size_t{f.header.payload_length} + aead_tag_bytes);
  co_await read_exact(socket_, body.data(), body.size(), "in the middle of a frame (truncated)");
  stats_.bytes_received += body.size();
  cipher_.open_payload(body.data(), f.header.payload_length);
  body.resize(f.header.payload_length);
  f.payload = std::move(body);
  ++stats_.frames_received;
  co_return f;
}

void SecureLink::close() {
  // A write in flight (or a frame waiting for its time on a shaped link) completes with an error
  // and empties the queue itself.
  if (!writing_) queue_.clear(), due_.clear();
  if (shaper_) shaper_->cancel();
  std::error_code ignored;
  socket_.close(ignored);
}

void SecureLink::close_after_flush() {
  if (!writing_) {
    std::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_send, ignored);
    return;
  }
  close_when_flushed_ = true;
}

asio::awaitable<void> accept_loop(tcp::acceptor& acceptor, std::function<asio::awaitable<void>(std::shared_ptr<SecureLink>)> serve,
                                  std::function<void(const std::string& kind, const std::string& line)> log) {
  auto backoff = std::chrono::milliseconds(0);
  asio::steady_timer pause(acceptor.get_executor());
  for (;;) {
    tcp::socket socket(acceptor.get_executor());
    std::error_code ec;
    co_await acceptor.async_accept(socket, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      if (!acceptor.is_open()) co_return;
      backoff = std::min<std::chrono::milliseconds>(std::chrono::milliseconds(1000),
                                                    std::max<std::chrono::milliseconds>(std::chrono::milliseconds(10), backoff * 2));
      // Out of descriptors: say how many the process may hold, which is what to raise.
      std::string why = ec.message();
      if (ec == asio::error::no_descriptors) {
        struct rlimit lim {};
        if (::getrlimit(RLIMIT_NOFILE, &lim) == 0)
          why += " (this process may hold " + std::to_string(lim.rlim_cur) + " descriptors, one per connection: raise it with ulimit -n)";
      }
      if (log) log("accept failed", "accept failed: " + why + "; next attempt in " + std::to_string(backoff.count()) + " ms");
      pause.expires_after(backoff);
      co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    backoff = std::chrono::milliseconds(0);
    // A connection's coroutine handles what it expects; whatever escapes it (a bug's exception of
    // any type) is said, never swallowed, and the connection is closed with its link.
    auto link = std::make_shared<SecureLink>(std::move(socket), Limits{});
    asio::co_spawn(acceptor.get_executor(), serve(link), [log, link, peer = remote_name(*link)](std::exception_ptr e) {
      if (!e) return;
      link->close();
      std::string what = "an exception of unknown type";
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& x) {
        what = x.what();
      } catch (...) {
      }
      if (log) log("internal error", "connection from " + peer + ": internal error: " + what + "; the connection is closed");
    });
  }
}

std::uint64_t PendingLinks::add(std::shared_ptr<SecureLink> link, RateLimitedLog& log) {
  const std::uint64_t key = next_++;
  if (links_.size() >= most_ && !links_.empty()) {
    log.limited("evicted", "too many unauthenticated connections (" + std::to_string(links_.size()) + "): the oldest is closed");
    links_.begin()->second->close();
    links_.erase(links_.begin());
  }
  links_.emplace(key, std::move(link));
  return key;
}

std::string remote_name(SecureLink& link) {
  std::error_code ec;
  const auto ep = link.socket().remote_endpoint(ec);
  return ec ? std::string("unknown peer") : ep.address().to_string() + ":" + std::to_string(ep.port());
}

void listen_on(tcp::acceptor& acceptor, const std::string& host, std::uint16_t port) {
  const tcp::endpoint ep(asio::ip::make_address(host), port);
  acceptor.open(ep.protocol());
  acceptor.set_option(tcp::acceptor::reuse_address(true));
  acceptor.bind(ep);
  acceptor.listen(asio::socket_base::max_listen_connections);
}

}  // namespace shufflempc::net::detail

namespace shufflempc::net {

namespace {
std::mutex shape_mutex;
LinkShape process_shape;
}  // namespace

void set_link_shape(const LinkShape& shape) {
  if (shape.delay.count() < 0 || shape.delay > std::chrono::seconds(10))
    throw std::invalid_argument("the link delay must be in [0, 10000] ms, got " + std::to_string(shape.delay.count() / 1000.0) + " ms");
  if (!(shape.mbps == 0 || (shape.mbps >= 0.001 && shape.mbps <= 1e6)))
    throw std::invalid_argument("the link rate must be in [0.001, 1000000] Mbit/s (or 0: unlimited), got " + std::to_string(shape.mbps));
  const std::lock_guard lock(shape_mutex);
  process_shape = shape;
}

LinkShape link_shape() {
  const std::lock_guard lock(shape_mutex);
  return process_shape;
}

}  // namespace shufflempc::net
