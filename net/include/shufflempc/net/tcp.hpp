// The TCP transport: a shuffler server and the channel its clients use.
//
// TcpShuffler serves one or more sessions on one listening socket. Per round it collects every
// party's batch over that party's own authenticated link, validates it, shuffles everything with
// the CSPRNG (shufflempc::complete_round, SystemRng) and sends the outcome to every endpoint: with
// the shuffled messages to the parties and the analyzer in MPC mode, to the analyzer only in ESA
// mode. TcpChannel is the AnonymousChannel of a process hosting one or more parties and/or the
// analyzer, so the existing RoundDriver runs any protocol over TCP: the parties it hosts share one
// link (or as few as the frame limit allows), each still authenticated by its own key, and the
// analyzer has its own.
// In ESA mode every message is sealed to the analyzer's key (crypto_box_seal) before it leaves the
// party: the shuffler never reads one and the analyzer cannot tell whose link carried it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/channel.hpp"
#include "shufflempc/mixnet/transcript.hpp"
#include "shufflempc/net/keys.hpp"
#include "shufflempc/net/link_shape.hpp"
#include "shufflempc/net/mix_hop.hpp"
#include "shufflempc/net/sealing.hpp"  // wire_width
#include "shufflempc/net/wire.hpp"
#include "shufflempc/runtime.hpp"

namespace shufflempc::net {

// One line per notable event (rejections, drops, aborts). Library code never prints; the CLI
// passes a function that writes to stderr.
using Logger = std::function<void(const std::string&)>;

// The protocol's round shapes with their wire widths (the messages are opaque to the shuffler;
// sealed to the analyzer in ESA mode): what a session config's `rounds` must hold.
// With a chain (`hops`: ChainSpec::hops(), SessionConfig::chain()), the width is the onion's at the
// entry (net/onion.hpp), or with a verifiable chain its ElGamal records' (net/verifiable.hpp; a
// round whose records do not fit is refused with std::invalid_argument saying why).
[[nodiscard]] std::vector<RoundShape> wire_rounds(const Protocol& protocol, std::size_t hops = 0, MixKind kind = MixKind::decryption);
// Throws std::invalid_argument naming the first round whose shape in `config` is not the one
// `protocol` declares (a config written for other parameters or by another version, or edited):
// every party and the analyzer check this before they connect.
void check_rounds(const SessionConfig& config, const Protocol& protocol);
// A round's shape with its wire width (at the entry of a chain of `hops` servers; 0: no chain).
[[nodiscard]] RoundShape wire_shape(const RoundShape& shape, std::size_t hops = 0, MixKind kind = MixKind::decryption);
// How many consecutive parties one link may carry: as many as fit the session's largest frame
// (max_frame_bytes) in the round that asks most of each party (of the config's rounds).
[[nodiscard]] std::size_t link_capacity(const SessionConfig& config);

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
  std::size_t max_unauthenticated = 1024;
  // An unauthenticated connection is closed after this long.
  std::chrono::milliseconds handshake_timeout{5'000};
  // Log lines of one kind (rejections, evictions, accept errors) per second; the rest are counted
  // and reported in one line.
  std::size_t log_lines_per_second = 20;
  // How long a round waits for the parties of a link lost (not refused) before they submitted to
  // reconnect; the round's deadline still closes it first. A link whose parties leave on purpose
  // says so (a submit frame with every count absent) and is not waited for. 0: a lost link's
  // parties are given up at once.
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

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A hosted identity: a party id (or analyzer_id) and its key pair.
struct Identity {
  PartyId id = 0;
  KeyPair keys;
};

// Traffic of one hosted identity's link (wire bytes include framing, tags and seals).
struct LinkCounters {
  std::uint64_t messages_sent = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t messages_received = 0;
  std::uint64_t bytes_received = 0;
  std::uint32_t rounds = 0;
};

// Whether the session's analyzer takes the parties' verdicts on their receipts (docs/mix-chain.md,
// "Receipts and complaints"): it has analyzer-only rounds and a mix chain.
[[nodiscard]] bool takes_verdicts(const SessionConfig& config);

struct TcpChannelOptions {
  // Consecutive hosted parties share a link, up to link_capacity() each; false: one link per party.
  bool share_links = false;
  // Receipts and verdicts (docs/mix-chain.md, "Receipts and complaints"), in a session whose
  // analyzer-only rounds cross a chain. A channel hosting the analyzer (and not every party) takes
  // the parties' verdicts on a socket of its own: `verdict_socket` (a bound, listening socket it
  // takes over) or else `verdict_listen` (HOST:PORT, port 0: the OS picks; verdict_port() tells).
  // A channel hosting parties (not the analyzer) sends them to `analyzer_address` (HOST:PORT).
  int verdict_socket = -1;
  std::string verdict_listen;
  std::string analyzer_address;
  // Fault injection for the tests: alters the records of the hosted parties (in the chain's
  // encoding, in local order) before they are sent, as senders of malformed records would.
  std::function<void(std::uint32_t round, MessageBatch& records)> tamper_records;
  // For the tests: called in exchange() before the round's batches are made, while the links say
  // their parties are alive (a test plays a slow machine with it).
  std::function<void(std::uint32_t round)> preparing;
  // The adversary harness (tests, `party --fault-adversary`, net/adversary.hpp): every frame the
  // hosted parties send once a link is authenticated (to the shuffler, and their verdicts to the
  // analyzer) passes through this tap.
  FrameTap frame_tap;
};

class TcpChannel final : public AnonymousChannel {
 public:
  // Connects and authenticates the links of the hosted identities to the shuffler at host:port
  // (retrying, while the session's deadline allows, until the shuffler listens). Throws
  // std::system_error (unauthenticated, peer_closed, timeout, ...) if any link fails.
  // The channel keeps its own copy of `config` (without the n party keys, once it has checked the
  // hosted ones): a process with nothing else to do with its config moves it in.
  TcpChannel(SessionConfig config, std::vector<Identity> identities, const std::string& host, std::uint16_t port, Logger log = {},
             TcpChannelOptions options = {});
  ~TcpChannel() override;
  // Sends each link's batch (every hosted party's slice, or its leaving), and waits (the session's
  // round limit, plus 5 s) for the outcome. From the links' set-up (or the previous round's result)
  // until the batches are made (the protocol computing them, the channel sealing and wrapping
  // them), a thread of the channel says on each party link every quarter deadline that its parties
  // are alive. A party link whose connection drops before the result
  // reconnects, with backoff, and sends the same batch again (the shuffler takes it once).
  [[nodiscard]] RoundOutcome exchange(const RoundRules& spec, Submissions local) override;
  // Per identity. A party's bytes are its share of its link's (the link's bytes over its parties).
  [[nodiscard]] std::map<PartyId, LinkCounters> counters() const;
  // Connections opened, reconnections included (one per link when nothing failed).
  [[nodiscard]] std::size_t connections() const;
  // The port the analyzer takes the parties' verdicts on (0 when this channel takes none).
  [[nodiscard]] std::uint16_t verdict_port() const;
  // With a mix chain: the verified reports of every round whose output this process received, by
  // round, hop 0 first.
  [[nodiscard]] const std::map<std::uint32_t, std::vector<HopReport>>& hop_reports() const;
  // With a verifiable chain: every round this process received an output of, as it verified it
  // (mixnet::verify_transcript accepts it; Transcript::save writes the file `shufflempc verify` reads).
  [[nodiscard]] const mixnet::Transcript& transcript() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace shufflempc::net
