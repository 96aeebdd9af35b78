// A verifiable chain's t-of-k key made over TCP by its k servers (mixnet/dkg.hpp), before the
// session: `shufflempc session --mix verifiable --decryption-threshold T --dkg-addresses ...`
// coordinates it with the shuffler's key file (the shuffler is server 0: it deals too), and each
// further server takes part with `shufflempc mix-server --dkg --shuffler-key KEY` (TcpDkgServer).
//
// The coordinator dials every further server as the chain's entry (the handshake of every link,
// the identity entry_id, the hello's session the new session's id and its config digest the
// setup's digest), then runs the four steps as a bulletin board: it sends each step's input (the
// setup; nothing; every deal; every complaint list) in a dkg frame whose round is the step, and
// takes each server's signed message from its dkg_answer, keeping it only if its signature and
// layout hold. A server that does not answer a step within the deadline, refuses, or answers
// with a message that does not hold is left out of the later steps and named. Finally (step 5)
// each server gets the whole transcript and checks that its own messages are in it and that its
// share opens and lies on the key's commitments, and acknowledges. The transcript goes into the
// session config (SessionConfig::distributed_key), where every process recomputes the key and
// each server its share, and `shufflempc verify --config` checks it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shufflempc/mixnet/dkg.hpp"
#include "shufflempc/net/keys.hpp"
#include "shufflempc/net/log.hpp"

namespace shufflempc::net {

// The setup of a key generation for `config`'s verifiable chain at threshold `threshold`: its session
// id, its servers' X25519 and signing keys in chain order.
[[nodiscard]] mixnet::DkgSetup dkg_setup(const SessionConfig& config, std::size_t threshold);

struct KeyGeneration {
  mixnet::DkgTranscript transcript;
  mixnet::DkgOutcome outcome;
  std::vector<std::string> notes;  // servers left out of a step, refusals, disqualifications
  std::vector<std::size_t> left_out;  // further servers that did not take every step (ascending)
  // Throws std::runtime_error with the notes if a server was left out: it could not complain about
  // a bad share, or check its own (`session` and `local` write no config then).
  void require_everyone() const;
};
// The adversary harness (tests, net/adversary.hpp): a tap on the coordinator's link to further
// server h (1 .. k-1), for every frame sent on it once it is authenticated.
using ServerFrameTap = std::function<TapAction(std::size_t server, OutgoingFrame& frame)>;
// Coordinates the key generation of `setup` as its server 0, holding `keys` (the shuffler's key
// file), with further servers 1 .. k-1 at `addresses` (HOST:PORT each). Each step waits at most
// `deadline` for every server. Throws std::invalid_argument if `keys` is not the setup's server 0 or
// no dealer qualifies, std::runtime_error if the servers that answer cannot make a key.
[[nodiscard]] KeyGeneration generate_key(const mixnet::DkgSetup& setup, const KeyPair& keys, const std::vector<std::string>& addresses,
                                         std::chrono::milliseconds deadline, Logger log = {}, ServerFrameTap tap = {});

struct DkgServerOptions {
  // How long to wait for the coordinator's connection and for each of its steps.
  std::chrono::milliseconds timeout{60'000};
  std::chrono::milliseconds handshake_timeout{5'000};
  // Fault injection (tests, `local --fault-dkg-bad-share`): seal a wrong share to this server and
  // answer its complaint with the same wrong share, as a cheating dealer would.
  std::optional<std::size_t> bad_share_to;
  // The adversary harness (tests, `mix-server --dkg --fault-adversary`, net/adversary.hpp): every
  // frame this server sends the coordinator once its link is authenticated passes through this tap.
  FrameTap frame_tap;
};

struct DkgServed {
  mixnet::DkgSetup setup;
  std::size_t index = 0;
  std::optional<mixnet::DkgOutcome> outcome;  // when the key generation completed
  std::string error;                          // empty if it did
};

// A further server's side of one key generation over TCP: accepts the coordinator (authenticated by
// `shuffler`, the public key of the chain's entry), takes part in the steps with `keys` and ends.
class TcpDkgServer {
 public:
  TcpDkgServer(KeyPair keys, PublicKey shuffler, const std::string& host, std::uint16_t port, Logger log = {},
               DkgServerOptions options = {});
  ~TcpDkgServer();
  TcpDkgServer(const TcpDkgServer&) = delete;
  TcpDkgServer& operator=(const TcpDkgServer&) = delete;
  [[nodiscard]] std::uint16_t port() const;
  [[nodiscard]] DkgServed run();
  // Ends run() early (from any thread): the key generation fails here.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Every message of one step, as a dkg frame carries them: for each server a presence byte, then
// the message's length (u32) and bytes (mixnet::DkgMessage::to_bytes).
[[nodiscard]] std::vector<std::uint8_t> encode_dkg_step(const std::vector<std::optional<mixnet::DkgMessage>>& messages);
[[nodiscard]] std::vector<std::optional<mixnet::DkgMessage>> decode_dkg_step(std::span<const std::uint8_t> bytes, std::size_t servers,
                                                                             const std::string& what);

}  // namespace shufflempc::net
