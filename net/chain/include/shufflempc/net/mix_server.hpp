// A further server of a chain of mix servers (hop 1 .. k-1; the shuffler is hop 0, the entry), over
// TCP. It accepts only the entry, authenticated by the shuffler's key as every link is (the same
// handshake, the identity entry_id), and for each round of each session it serves it takes one
// batch: it opens its onion layer of every record, refuses a copy and a record that does not open
// (both counted), shuffles what opened with its own CSPRNG, signs what it received and what it sent
// (net/mix_hop.hpp) and sends the records and its report back to the entry.
//
// Each round is mixed once: the entry that lost its link and sends the same batch again gets the
// same answer (kept until the next round, so a server holds one round's output as the shuffler
// does), and a different batch for a round already mixed, or a round out of order, ends the link
// with the reason.
//
// In a verifiable chain (SessionConfig::mix) the records are ElGamal ciphertexts: the server takes a
// round's batch in a shuffle frame, re-encrypts and permutes it and answers with the batch and its
// proof of shuffle (shuffled). It then takes the round's evidence (decrypt; in an analyzer-only
// round too, whose key needs the servers' shares beside the analyzer's): it checks that its own hop is there as it made it, and every other hop's
// proof, and only then answers with its proved decryption shares (decrypted), once per round, so
// nobody can use it to decrypt anything but the output of a chain it took part in.
// While it computes a verifiable round's hop or decryption (on a thread of its own) it says on the
// link, every quarter of the session's deadline, that it is alive (an alive frame of the round), so
// the entry waits for a slow machine up to the round's limit and names a stopped one at the deadline.
// A session ends when its last round is mixed (and decrypted), when the entry aborts it, or when
// the entry sends nothing for the session's round limit plus 5 s; the server ends once every
// session has and the entry has said goodbye (or, if its link was cut, after MixServerOptions::linger).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "shufflempc/mixnet/elgamal.hpp"
#include "shufflempc/net/keys.hpp"
#include "shufflempc/net/mix_hop.hpp"
#include "shufflempc/net/log.hpp"

namespace shufflempc::net {

struct MixServerOptions {
  // Connections not yet authenticated held at once; past this the oldest is closed, so a flood of
  // idle sockets churns through its own connections while the entry's handshake completes.
  std::size_t max_unauthenticated = 64;
  std::chrono::milliseconds handshake_timeout{5'000};
  // How long a session waits for the entry's next batch; 0: the session's round limit plus 5 s.
  std::chrono::milliseconds idle_timeout{0};
  // After the last round, how long to wait for an entry whose link was cut to dial again (for the
  // last answer) before the server ends; an entry that ends its session says goodbye, and the
  // server ends at once.
  std::chrono::milliseconds linger{5'000};
  // Log lines of one kind (a refused hello, say) per second; the rest are counted in one line.
  std::size_t log_lines_per_second = 20;
  // Threads for a verifiable chain's group operations (0: every core).
  unsigned threads = 0;
  // Fault injection for the tests and `local --tamper-mix-server`: a verifiable chain's server that
  // alters its output after it has proved its shuffle (a cheating server, which must be caught).
  std::function<void(std::uint32_t round, mixnet::CiphertextBatch& output)> tamper;
  // Fault injection (tests, `mix-server --fault-gone-after-mix`): once it has answered its first
  // shuffle, the server goes away (its port and links closed, its session failed), as a server
  // killed after the mix.
  bool gone_after_mix = false;
  // For the tests: called before a verifiable round's hop or decryption is computed, on the thread
  // that computes it, while the server says on its link that it is alive (a test plays a slow
  // machine with it).
  std::function<void(std::uint32_t round)> computing;
  // The adversary harness (tests, `mix-server --fault-adversary`, net/adversary.hpp): every frame
  // the server sends the entry once the entry's link is authenticated passes through this tap.
  FrameTap frame_tap;
  // A state directory (`mix-server --state-dir`, docs/mix-chain.md): for each session, in
  // DIR/<session id> (net/store.hpp), the answer to each round's batch with the digest of that
  // batch (a verifiable chain's: its proved shuffle, and its decryption shares with the digest of
  // the evidence they answer), kept before the answer is sent, and the session's end. A server
  // killed and started again on it answers the entry's same frame with the same bytes, refuses
  // another batch or other evidence for a round it answered (as it did before the crash) and
  // refuses a session that ended. An answer it cannot keep (a full disk) is not sent: the session
  // ends with the line saying why.
  std::string state_dir;
  // Fault injection (the crash tests, `mix-server --fault-kill-at`): called at the steps of a round,
  // "received" (a new batch read, not yet mixed) and "kept" (its answer kept, not yet sent); in a
  // verifiable chain also "evidence" (a decrypt frame read, no share made) and "shares" (its
  // decryption shares kept, not yet sent).
  std::function<void(std::string_view step)> step;
};

struct MixServerReport {
  SessionId session{};
  std::uint32_t hop = 0;
  std::vector<HopReport> rounds;  // what it signed, round by round
  std::string error;              // empty if every round was mixed
};

// The position of `keys` in `config`'s mix chain: in [1, chain size) for a further server. Throws
// std::invalid_argument saying what is wrong (no chain, not in it, or the entry's key).
[[nodiscard]] std::uint32_t mix_server_position(const SessionConfig& config, const KeyPair& keys);

class TcpMixServer {
 public:
  // Binds host:port (port 0: the OS chooses). `keys` must be one further server of each session's
  // chain (its signing key derived from them must be the chain's; std::invalid_argument if not).
  TcpMixServer(KeyPair keys, std::vector<SessionConfig> sessions, const std::string& host, std::uint16_t port, Logger log = {},
               MixServerOptions options = {});
  ~TcpMixServer();
  TcpMixServer(const TcpMixServer&) = delete;
  TcpMixServer& operator=(const TcpMixServer&) = delete;
  [[nodiscard]] std::uint16_t port() const;
  // Serves until every session has ended; one report per session.
  [[nodiscard]] std::vector<MixServerReport> run();
  // Ends run() early (from any thread): every session that has not ended fails.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace shufflempc::net
