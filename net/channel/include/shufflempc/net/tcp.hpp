// The TCP transport's client: the channel a party's or the analyzer's process uses to reach the
// shuffler (net/shuffler.hpp). TcpChannel is the AnonymousChannel of a process hosting one or more parties and/or the
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
#include "shufflempc/net/batch_commitment.hpp"
#include "shufflempc/net/keys.hpp"
#include "shufflempc/net/link_shape.hpp"
#include "shufflempc/net/log.hpp"
#include "shufflempc/net/mix_hop.hpp"
#include "shufflempc/net/round_shapes.hpp"
#include "shufflempc/net/sealing.hpp"  // wire_width
#include "shufflempc/net/wire.hpp"
#include "shufflempc/runtime.hpp"

namespace shufflempc::net {

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
  // A collection round (a shuffler with a state directory, docs/network.md, "Durable collection"):
  // each party link leaves once its batch's receipt has come and checked, and exchange() returns
  // then, without the round's result (its parties count as submitted, as the receipts say; an
  // analyzer hosted here still waits for the result). Not through a chain, where a party checks
  // the entry's receipt of the whole round.
  bool leave_after_receipt = false;
  // An analyzer with a state directory (`analyzer --state-dir`, docs/network.md, "Durable
  // collection"): `keep_result` is given each round's result as the shuffler sent it, before the
  // channel confirms it or opens it; if it throws, nothing is confirmed (a shuffler with a state
  // directory keeps the round for another delivery). A round whose result is in `kept_results`
  // (what keep_result was given, by this process or one before it) is not asked of the shuffler:
  // it is opened and checked as it was kept, so the output is the one it was. A channel that has
  // every round kept connects no link. Only for a channel hosting the analyzer alone, with no chain.
  std::function<void(std::uint32_t round, std::span<const std::uint8_t> result)> keep_result;
  std::map<std::uint32_t, std::vector<std::uint8_t>> kept_results;
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
  // From a shuffler with a state directory: the checked receipt of each party link's batch in the
  // last round (one per link that got one), the proof that the shuffler kept it.
  [[nodiscard]] std::vector<AdmissionReceipt> admission_receipts() const;
  // With no chain and a config naming the shuffler's signing key: the shuffler's commitment to each
  // round's batch this analyzer received, checked against the records, with the batch's leaves (what
  // `analyzer --commitment` publishes for the parties' receipts), by round.
  [[nodiscard]] const std::map<std::uint32_t, CommittedBatch>& batch_commitments() const;
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
