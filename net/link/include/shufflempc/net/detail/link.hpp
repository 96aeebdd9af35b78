// One authenticated, encrypted TCP link (internal to the TCP transport; tests use it to play
// misbehaving peers).
//
// Handshake (client = a process hosting parties, or the analyzer; server = the shuffler), X25519
// and BLAKE2b from libsodium. A link speaks for the parties first .. first+count-1 (or the analyzer):
//   client -> server  Hello: session id, first, count, ephemeral key E_c, config digest (clear)
//   server -> client  reply: session id, ephemeral key E_s (clear)
//   both: K_p = DH(s_p, S_s) = DH(s_s, S_p) for each claimed identity p (its static secret with the
//         shuffler), P = BLAKE2b-256("shufflempc-identities-v1" | K_first | ... | K_last),
//         k = BLAKE2b-512("shufflempc-link-v2" | DH(e_c,E_s) | DH(e_c,S_s) | P | hello | reply)
//         client->server key = k[0..32), server->client key = k[32..64)
//   client -> server  confirm frame (seq 0), server -> client confirm frame (seq 0)
// Only a holder of every claimed party's secret key can compute P, and only the holder of the
// shuffler's secret key can compute DH(e_c,S_s): both sides are authenticated, each party by its own
// key, whatever the number of parties on the link. The shuffler computes each K_p once per session
// (not per connection), so a stranger's hello claiming every party costs it hashing, not n
// scalar multiplications. The ephemeral keys make every connection's keys fresh (a recorded
// connection cannot be replayed) and give forward secrecy.
// Frames are ChaCha20-Poly1305 (IETF) with the sequence number as nonce, one counter per
// direction: a replayed, reordered or forged frame fails before its payload is read.
// The handshake's messages, the key derivation and the frame cipher are link_crypto.hpp's (no
// socket there); this class carries them over a TCP socket.
#pragma once

#include <asio.hpp>

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/net/detail/link_crypto.hpp"
#include "shufflempc/net/detail/rate_limited_log.hpp"
#include "shufflempc/net/keys.hpp"
#include "shufflempc/net/link_shape.hpp"
#include "shufflempc/net/wire.hpp"
#include "shufflempc/random.hpp"

namespace shufflempc::net::detail {

using tcp = asio::ip::tcp;

struct LinkStats {
  std::uint64_t frames_sent = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t frames_received = 0;
  std::uint64_t bytes_received = 0;
};

// Accepts connections on `acceptor` until it is closed, starting `serve` on each as a link with
// the default limits (the hello's; each server sets its own once the hello names a session). After
// a failed accept (out of descriptors, say) it waits, 10 ms doubling to 1 s and reset by a success,
// instead of spinning, and says so through `log(kind, line)` (a rate-limited log). Every server of
// the transport (the shuffler, a mix server, the analyzer's verdict server) runs one.
asio::awaitable<void> accept_loop(tcp::acceptor& acceptor, std::function<asio::awaitable<void>(std::shared_ptr<class SecureLink>)> serve,
                                  std::function<void(const std::string& kind, const std::string& line)> log);

// "ADDRESS:PORT" of the link's peer, for the log ("unknown peer" once the socket has no peer).
[[nodiscard]] std::string remote_name(class SecureLink& link);

// Opens, binds and listens on host:port (port 0: the OS chooses), as every server of the transport
// does. Throws std::system_error if it cannot.
void listen_on(tcp::acceptor& acceptor, const std::string& host, std::uint16_t port);

struct Frame {
  FrameHeader header;
  std::vector<std::uint8_t> payload;
};

class SecureLink : public std::enable_shared_from_this<SecureLink> {
 public:
  SecureLink(tcp::socket socket, const Limits& limits);
  ~SecureLink();
  SecureLink(const SecureLink&) = delete;
  SecureLink& operator=(const SecureLink&) = delete;

  // Client side: the whole handshake for the parties first .. first+count-1 (or the analyzer: first
  // = analyzer_id, count = 1), whose static secrets give `proof`. Throws std::system_error
  // (Errc::unauthenticated when the shuffler is not who the config says or refuses our keys).
  asio::awaitable<void> connect_as(const SessionId& session, const ConfigDigest& config, PartyId first, std::uint32_t count,
                                   const IdentityProof& proof, const PublicKey& shuffler, Rng& rng);
  // The same for one identity holding `mine` (a party, or the analyzer: id = analyzer_id).
  asio::awaitable<void> connect_as(const SessionId& session, const ConfigDigest& config, PartyId id, const KeyPair& mine,
                                   const PublicKey& shuffler, Rng& rng);
  // Server side, step 1: reads and parses the client's hello (the caller checks session and range).
  asio::awaitable<Hello> read_hello();
  // Server side, step 2: replies, derives the keys with the claimed identities' `proof` and
  // exchanges confirm frames.
  asio::awaitable<void> accept(const Hello& hello, const KeyPair& mine, const IdentityProof& proof, Rng& rng);

  // Queues one frame (encrypted now, written in order). Never blocks.
  void send(FrameType type, std::uint32_t round, std::uint32_t width, std::uint32_t count,
            std::span<const std::uint8_t> payload) {
    send(type, round, width, count, payload, {});
  }
  // The payload in up to three pieces (a result's prefix, its messages and a link's receipt),
  // copied once into the frame.
  void send(FrameType type, std::uint32_t round, std::uint32_t width, std::uint32_t count,
            std::span<const std::uint8_t> head, std::span<const std::uint8_t> tail, std::span<const std::uint8_t> trailer = {});
  void send(FrameType type, std::uint32_t round, std::span<const std::uint8_t> payload) {
    send(type, round, 0, 0, payload);
  }
  // Reads, authenticates and validates the next frame. Throws std::system_error: peer_closed,
  // replayed_frame, unauthenticated, malformed_frame, oversized_frame, wrong_session.
  asio::awaitable<Frame> receive();

  // Queues only the prefix of a frame (sequence number, encrypted header and its tag) whose header
  // claims `payload_length` bytes that never follow (tests of memory bounds only).
  void send_prefix_only(FrameType type, std::uint32_t round, std::uint32_t width, std::uint32_t count,
                        std::uint32_t payload_length);
  // Writes `bytes` as they are, outside the encrypted framing (tests of malformed input only).
  void send_raw(std::vector<std::uint8_t> bytes);
  void close();               // now; queued frames are lost
  void close_after_flush();   // once every queued frame is written
  [[nodiscard]] bool is_open() const { return socket_.is_open(); }
  [[nodiscard]] const LinkStats& stats() const { return stats_; }
  [[nodiscard]] tcp::socket& socket() { return socket_; }
  [[nodiscard]] const SessionId& session() const { return session_; }
  void set_limits(const Limits& limits) { limits_ = limits; }
  // Who the client side names in its handshake errors ("the shuffler" unless set; "the analyzer"
  // on a verdict link).
  void set_peer_name(std::string name) { peer_ = std::move(name); }
  [[nodiscard]] std::uint64_t next_send_sequence() const { return cipher_.next_send_sequence(); }
  // Tests: rewind the sending counter to replay a sequence number.
  void set_send_sequence(std::uint64_t seq) { cipher_.set_send_sequence(seq); }
  // Tests (the adversary harness): every frame sent from now on passes through `tap` first
  // (OutgoingFrame); an empty function removes it.
  void set_tap(FrameTap tap) { tap_ = std::move(tap); }

 private:
  // Writes the frame prefix (sequence number, encrypted header, tag) at `out`; returns the sequence number.
  std::uint64_t write_prefix(FrameType type, std::uint32_t round, std::uint32_t width, std::uint32_t count,
                             std::uint32_t payload_length, std::uint8_t* out);
  void send_tapped(FrameType type, std::uint32_t round, std::uint32_t width, std::uint32_t count, std::span<const std::uint8_t> head,
                   std::span<const std::uint8_t> tail, std::span<const std::uint8_t> trailer);
  void start_write();
  void write_front();

  tcp::socket socket_;
  Limits limits_;
  SessionId session_{};
  LinkCipher cipher_;
  std::deque<std::vector<std::uint8_t>> queue_;
  // A shaped link (net::set_link_shape): when each queued frame is due at the socket, and when the
  // link has carried every frame queued so far.
  LinkShape shape_;
  std::deque<std::chrono::steady_clock::time_point> due_;
  std::chrono::steady_clock::time_point free_at_{};
  std::unique_ptr<asio::steady_timer> shaper_;
  bool writing_ = false;
  FrameTap tap_;
  bool close_when_flushed_ = false;
  LinkStats stats_;
  std::string peer_ = "the shuffler";
};

// The connections a server holds that have not authenticated yet, oldest first. Beyond `most`, a
// new one closes the oldest, with a rate-limited line: whoever reaches the port cannot hold every
// descriptor with connections that never say hello. The shuffler and the mix server each keep one.
class PendingLinks {
 public:
  explicit PendingLinks(std::size_t most) : most_(most) {}
  // Holds `link`; returns its key here.
  std::uint64_t add(std::shared_ptr<SecureLink> link, RateLimitedLog& log);
  // The link authenticated or ended.
  void remove(std::uint64_t key) { links_.erase(key); }

 private:
  std::size_t most_;
  std::map<std::uint64_t, std::shared_ptr<SecureLink>> links_;
  std::uint64_t next_ = 0;
};

}  // namespace shufflempc::net::detail
