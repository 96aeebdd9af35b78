// The TCP shuffler: the server of the transport.
//
// TcpShuffler serves one or more sessions on one listening socket. Per round it collects every
// party's batch over that party's own authenticated link, validates it, shuffles everything with
// the CSPRNG (shufflempc::complete_round, SystemRng) and sends the outcome to every endpoint: with
// the shuffled messages to the parties and the analyzer in MPC mode, to the analyzer only in ESA
// mode. With a chain of mix servers it is the chain's entry (docs/mix-chain.md). Its clients are
// net/tcp.hpp's TcpChannel.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "shufflempc/channel.hpp"
#include "shufflempc/messages.hpp"
#include "shufflempc/net/keys.hpp"
#include "shufflempc/net/store.hpp"
#include "shufflempc/net/log.hpp"
#include "shufflempc/net/mix_hop.hpp"
#include "shufflempc/net/wire.hpp"

namespace shufflempc::net {

struct ShufflerReport {
  SessionId session{};
  std::vector<RoundTraffic> rounds;  // bytes are wire bytes (sealed messages in ESA mode)
  std::vector<PartyId> dropped;
  std::string error;  // empty if the session completed
  std::vector<std::vector<HopReport>> hops;  // with a mix chain: every round's reports, hop 0 first
};

// How the shuffler defends itself against connections that never authenticate (a flood of idle
// sockets must not exhaust its descriptors or lock the honest parties out).
struct ShufflerOptions {
  // Connections not yet authenticated held at once; past this the oldest is closed to make room,
  // so a flood churns through its own connections while an honest handshake (milliseconds) completes.
  std::size_t max_unauthenticated = default_max_unauthenticated;
  // An unauthenticated connection is closed after this long.
  std::chrono::milliseconds handshake_timeout{5'000};
  // Log lines of one kind (rejections, evictions, accept errors) per second; the rest are counted
  // and reported in one line.
  std::size_t log_lines_per_second = 20;
  // How long a round waits for the parties of a link lost (not refused) before they submitted to
  // reconnect; the round's deadline still closes it first. A link whose parties leave on purpose
  // says so (a submit frame with every count absent) and is not waited for. 0: a lost link's
  // parties are given up at once. The same grace bounds how long the entry dials a further mix
  // server again whose link was lost (one killed and started again, say; 0: not dialled again).
  std::chrono::milliseconds reconnect_grace{2'000};
  // HOST:PORT of the further servers of the sessions' mix chains (hops 1 .. k-1, in order; `shuffler
  // --hop-addresses`): a session whose config has a chain of k servers needs k - 1 of them; the
  // shuffler is its entry.
  std::vector<std::string> hop_addresses;
  // A socket already bound and listening (inherited from a launcher that bound it, so that the
  // clients may start before this process does): the shuffler accepts on it and ignores host and
  // port. -1: bind host:port. Throws std::invalid_argument if it is not a listening TCP socket.
  int listening_socket = -1;
  // Fault injection for the tests: a chain's entry that alters the batch it admitted (records in the
  // chain's encoding: onions, or ElGamal ciphertexts without their senders' proofs, which must stay
  // well-formed; a record it makes carries no proof that holds) before it commits
  // to it and mixes its own hop (the n - 1 attack: every proof and signature holds; the senders'
  // receipts show what was dropped, replaced or copied).
  std::function<void(std::uint32_t round, MessageBatch& admitted)> tamper_admitted;
  // The adversary harness of the tests (tests/net/adversary.hpp), as a dishonest entry: the
  // submissions of these parties are read and thrown away, as if each had said it leaves (the round
  // counts them as dropped and does not wait for them), and every frame the shuffler sends once a
  // link is authenticated passes through `frame_tap` with the link's parties (first, count; the
  // analyzer's: analyzer_id, 1), which may rewrite, withhold, repeat it or close the link.
  std::set<PartyId> ignore_submissions;
  std::function<TapAction(PartyId first, std::uint32_t count, OutgoingFrame& frame)> frame_tap;
  // A directory keeping what the shuffler admitted (net/store.hpp; `shuffler --state-dir`), one
  // subdirectory a session (its id in hex). A link's batch is on disk before the link is told it
  // was admitted (an admitted frame: the batch's digest, signed with the shuffler's signing key);
  // a round closes only once every batch it holds is on disk; a shuffler started again on the
  // same directory (after kill -9, say) takes the kept batches back into the round, and a link
  // that sends its batch again is told again. For sessions of one round (a collection round)
  // whose config names the shuffler's signing key (shuffler_signing_key). Empty: nothing is kept.
  std::string state_dir;
  Durability durability = Durability::full;
};

class TcpShuffler {
 public:
  // Binds `host:port` (port 0: the OS chooses; see port()). Throws std::system_error if it cannot.
  // Serves `sessions`, each enforcing its config's round shapes (it never builds their protocols).
  TcpShuffler(KeyPair keys, std::vector<SessionConfig> sessions, const std::string& host, std::uint16_t port,
              Logger log = {}, ShufflerOptions options = {});
  ~TcpShuffler();
  TcpShuffler(const TcpShuffler&) = delete;
  TcpShuffler& operator=(const TcpShuffler&) = delete;

  [[nodiscard]] std::uint16_t port() const;
  [[nodiscard]] std::string host() const;  // the address it accepts on
  // Serves until every session has completed or aborted; returns one report per session.
  [[nodiscard]] std::vector<ShufflerReport> run();
  // Ends run() early (from any thread): every session aborts.
  void stop();
  // Closes the collection window of every session that has one (a config with close_at; `session
  // --close-after-ms`, `shufflempc survey`) now, from any thread: its round closes as at the
  // window's end, with the parties that submitted (fewer than min_parties: it outputs nothing and
  // says why). A session without a window, or whose round has closed, is not touched.
  void close_windows();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace shufflempc::net
