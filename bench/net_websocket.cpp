// What the WebSocket door costs the shuffler: N parties over WebSocket (through `net::WebSocketGateway`)
// against the same N parties over TCP, one round each, in the same run.
//
//   build/bin/bench/net_websocket [--parties N] [--passes K]
//
// The shuffler (TcpShuffler) and, for the WebSocket passes, its door run in threads of this
// process; the N parties are coroutines on one more thread, each with its own connection: the
// link's handshake (net/detail/link_crypto.hpp, the code a page runs), one sealed 1-byte message
// (analyzer-only), the result, `done`. The analyzer is a link of this process too. A pass is timed
// from the first party's connection to the analyzer holding the round's output; the passes
// alternate TCP and WebSocket, K of each, and each pass is a session of its own.
#include <utility>  // before Boost 1.74's asio/awaitable.hpp, which uses std::exchange without it

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "shufflempc/net/detail/link_crypto.hpp"
#include "shufflempc/net/sealing.hpp"
#include "shufflempc/net/shuffler.hpp"
#include "shufflempc/net/websocket.hpp"

using namespace shufflempc;
using namespace shufflempc::net;
namespace basio = boost::asio;
namespace beast = boost::beast;
using btcp = basio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

// A byte stream over TCP or over a WebSocket: what a party's link needs of its carrier.
class Carrier {
 public:
  virtual ~Carrier() = default;
  virtual basio::awaitable<void> write(std::vector<std::uint8_t> bytes) = 0;
  virtual basio::awaitable<void> read(std::uint8_t* out, std::size_t n) = 0;
  virtual void close() = 0;
};

class TcpCarrier final : public Carrier {
 public:
  explicit TcpCarrier(btcp::socket s) : s_(std::move(s)) {}
  basio::awaitable<void> write(std::vector<std::uint8_t> bytes) override {
    co_await basio::async_write(s_, basio::buffer(bytes), basio::use_awaitable);
  }
  basio::awaitable<void> read(std::uint8_t* out, std::size_t n) override {
    co_await basio::async_read(s_, basio::buffer(out, n), basio::use_awaitable);
  }
  void close() override {
    boost::system::error_code ignored;
    s_.close(ignored);
  }

 private:
  btcp::socket s_;
};

class WebSocketCarrier final : public Carrier {
 public:
  explicit WebSocketCarrier(beast::websocket::stream<btcp::socket> ws) : ws_(std::move(ws)) { ws_.binary(true); }
  basio::awaitable<void> write(std::vector<std::uint8_t> bytes) override {
    co_await ws_.async_write(basio::buffer(bytes), basio::use_awaitable);
  }
  basio::awaitable<void> read(std::uint8_t* out, std::size_t n) override {
    while (pending_.size() < n) {
      beast::flat_buffer b;
      co_await ws_.async_read(b, basio::use_awaitable);
      const auto* p = static_cast<const std::uint8_t*>(b.data().data());
      pending_.insert(pending_.end(), p, p + b.size());
    }
    std::copy(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(n), out);
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(n));
  }
  void close() override {
    boost::system::error_code ignored;
    ws_.next_layer().close(ignored);
  }

 private:
  beast::websocket::stream<btcp::socket> ws_;
  std::deque<std::uint8_t> pending_;
};

struct Session {
  SessionConfig config;
  KeyPair shuffler, analyzer;
  std::vector<KeyPair> parties;
};

Session make_session(std::size_t n, Rng& rng) {
  Session s;
  rng.fill(s.config.session);
  s.config.parties = n;
  s.config.deadline = std::chrono::seconds(120);
  s.shuffler = KeyPair::generate(rng);
  s.analyzer = KeyPair::generate(rng);
  s.config.shuffler_key = s.shuffler.public_key();
  s.config.analyzer_key = s.analyzer.public_key();
  for (std::size_t i = 0; i < n; ++i) {
    s.parties.push_back(KeyPair::generate(rng));
    s.config.party_keys.push_back(s.parties.back().public_key());
  }
  s.config.rounds = {RoundShape::exactly(sealing::sealed_width(1), Delivery::analyzer_only, 1)};
  return s;
}

// One identity's whole session over `carrier`: handshake, then (a party) its submit frame, or (the
// analyzer) an empty submit; the result; done.
basio::awaitable<void> play(Carrier& carrier, const Session& s, PartyId id, const KeyPair& mine, std::vector<std::uint8_t> submit_payload,
                            std::uint32_t width, std::uint32_t count, std::atomic<std::size_t>& finished) {
  SystemRng rng;
  detail::ClientHandshake hs(s.config.session, s.config.digest(), id, 1, detail::identity_proof(id, mine, s.config.shuffler_key),
                             s.config.shuffler_key, rng);
  detail::LinkCipher cipher;
  co_await carrier.write({hs.hello().begin(), hs.hello().end()});
  std::array<std::uint8_t, hello_reply_bytes> reply{};
  co_await carrier.read(reply.data(), reply.size());
  co_await carrier.write(hs.finish(reply, cipher));
  const Limits limits = s.config.limits();
  auto next = [&]() -> basio::awaitable<FrameHeader> {
    std::array<std::uint8_t, frame_prefix_bytes> prefix{};
    co_await carrier.read(prefix.data(), prefix.size());
    const FrameHeader h = cipher.open_prefix(prefix.data(), s.config.session, limits);
    std::vector<std::uint8_t> body(h.payload_length + aead_tag_bytes);
    co_await carrier.read(body.data(), body.size());
    cipher.open_payload(body.data(), h.payload_length);
    co_return h;
  };
  if ((co_await next()).type != FrameType::confirm) throw std::runtime_error("no confirm frame");
  FrameHeader h;
  h.type = FrameType::submit;
  h.session = s.config.session;
  h.width = width;
  h.count = count;
  co_await carrier.write(cipher.seal(h, submit_payload));
  for (;;) {
    const FrameHeader got = co_await next();
    if (got.type == FrameType::abort) throw std::runtime_error("the shuffler aborted the session");
    if (got.type == FrameType::result) break;
  }
  FrameHeader done;
  done.type = FrameType::done;
  done.session = s.config.session;
  co_await carrier.write(cipher.seal(done, {}));
  ++finished;
}

basio::awaitable<std::unique_ptr<Carrier>> connect_carrier(basio::io_context& io, btcp::endpoint at, bool websocket) {
  btcp::socket socket(io);
  co_await socket.async_connect(at, basio::use_awaitable);
  socket.set_option(btcp::no_delay(true));
  if (!websocket) co_return std::make_unique<TcpCarrier>(std::move(socket));
  beast::websocket::stream<btcp::socket> ws(std::move(socket));
  co_await ws.async_handshake("127.0.0.1", "/", basio::use_awaitable);
  co_return std::make_unique<WebSocketCarrier>(std::move(ws));
}

// Party `id` (or the analyzer, with an empty batch: it asks for the round's output) from its
// connection to its `done`.
basio::awaitable<void> identity_task(basio::io_context& io, btcp::endpoint at, bool websocket, const Session* s, PartyId id,
                                     std::atomic<std::size_t>* finished) {
  auto c = co_await connect_carrier(io, at, websocket);
  const auto width = static_cast<std::uint32_t>(sealing::sealed_width(1));
  if (id == analyzer_id) {
    co_await play(*c, *s, id, s->analyzer, std::vector<std::uint8_t>(4, 0), width, 0, *finished);
  } else {
    std::vector<std::uint8_t> message(1, static_cast<std::uint8_t>(id & 1)), sealed(width);
    sealing::seal(message, 1, s->config.analyzer_key, sealed);
    // Made before the co_await: GCC 12 cannot keep an initializer list's array in a coroutine frame.
    const std::vector<std::uint32_t> counts(1, 1);
    std::vector<std::uint8_t> payload = encode_submit(counts, sealed);
    co_await play(*c, *s, id, s->parties[id], std::move(payload), width, 1, *finished);
  }
  c->close();
}

// One pass: a session of n parties, over WebSocket or TCP; returns its seconds.
double pass(std::size_t n, bool websocket, Rng& rng) {
  const Session s = make_session(n, rng);
  ShufflerOptions options;
  options.max_unauthenticated = n + 16;
  TcpShuffler shuffler(s.shuffler, {s.config}, "127.0.0.1", 0, {}, options);
  std::optional<WebSocketGateway> door;
  std::uint16_t port = shuffler.port();
  if (websocket) {
    WebSocketOptions o;
    o.target_port = shuffler.port();
    o.max_pending = n + 16;
    door.emplace(o, Logger{});
    port = door->port();
  }
  std::thread server([&] { (void)shuffler.run(); });
  basio::io_context io;
  std::atomic<std::size_t> finished{0};
  const btcp::endpoint at(basio::ip::make_address("127.0.0.1"), port);
  std::exception_ptr failure;
  const auto keep = [&failure](std::exception_ptr e) {
    if (e) failure = e;
  };
  const auto t0 = Clock::now();
  // The analyzer (its empty batch asks for the round's output), then every party.
  basio::co_spawn(io, identity_task(io, at, websocket, &s, analyzer_id, &finished), keep);
  for (std::size_t i = 0; i < n; ++i) basio::co_spawn(io, identity_task(io, at, websocket, &s, static_cast<PartyId>(i), &finished), keep);
  io.run();
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  server.join();
  if (failure) std::rethrow_exception(failure);
  if (finished != n + 1) throw std::runtime_error("not every party finished");
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t parties = 1000, passes = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--parties") parties = std::stoull(argv[i + 1]);
    else if (a == "--passes") passes = std::stoull(argv[i + 1]);
    else {
      std::cerr << "usage: net_websocket [--parties N] [--passes K]\n";
      return 2;
    }
  }
  if (argc % 2 == 0 || parties == 0 || passes == 0) {
    std::cerr << "usage: net_websocket [--parties N] [--passes K]\n";
    return 2;
  }
  ensure_sodium();
  SystemRng rng;
  std::vector<double> tcp, ws;
  for (std::size_t k = 0; k < passes; ++k) {
    tcp.push_back(pass(parties, false, rng));
    std::cerr << fmt::format("pass {}: tcp {:.3f} s", k + 1, tcp.back()) << std::flush;
    ws.push_back(pass(parties, true, rng));
    std::cerr << fmt::format(", websocket {:.3f} s\n", ws.back());
  }
  std::sort(tcp.begin(), tcp.end());
  std::sort(ws.begin(), ws.end());
  const double t = tcp[tcp.size() / 2], w = ws[ws.size() / 2];
  fmt::print("{} parties, one round each, median of {}: tcp {:.3f} s ({:.0f} parties/s), websocket {:.3f} s ({:.0f} parties/s): websocket / tcp {:.2f}\n",
             parties, passes, t, parties / t, w, parties / w, w / t);
}
