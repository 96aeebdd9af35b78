// The entry's side of one round through a chain of mix servers, without sockets or timers: what
// the shuffler does with a closed round's batch before and after each further server answers,
// for both kinds of chain (docs/mix-chain.md, docs/verifiable-shuffle.md). It admits the batch
// (a verifiable chain admits only ElGamal records, once each), lets the test hook alter it (the
// n - 1 attack: ShufflerOptions::tamper_admitted), orders it by its Merkle leaves (what hop 0
// signs and each receipt shows), mixes and signs hop 0, then checks each further server's answer
// as it arrives, and at the end gives what every receiver is sent. TcpShuffler owns one per round
// crossing the chain and does the I/O around it (dial, ask, answer: the links to further servers);
// the unit tests drive it with hops of their own (tests/net/test_chain_entry.cpp), as they drive
// detail::SessionRounds and net::MixHop.
//
// Every answer either is taken or gives the fault that ends the session (net/fault.hpp: its code,
// the round, the hop, and the line naming them).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/mixnet/transcript.hpp"
#include "shufflempc/net/detail/session_rounds.hpp"
#include "shufflempc/net/keys.hpp"
#include "shufflempc/net/mix_hop.hpp"
#include "shufflempc/net/receipts.hpp"
#include "shufflempc/net/wire.hpp"

namespace shufflempc::net::detail {

// What the entry committed to in a round (net/receipts.hpp): the tree over the batch it admitted
// (its records in leaf order) and what it signed, from which each party link's receipt is made.
struct EntryCommitment {
  std::shared_ptr<const ReceiptMaker> maker;
  std::vector<std::uint8_t> signed_bytes;
};

// One frame to a further server: its type, width and count, the payload, and what a refusal
// refuses ("the batch", "to decrypt"). The payload is the entry's batch in flight where it is already
// bytes (an onion batch: no copy), else `bytes`, made for the ask; valid until the next take_*.
struct HopAsk {
  HopAsk() = default;
  HopAsk(HopAsk&&) = default;  // a moved vector keeps its buffer: `payload` stays valid
  HopAsk(const HopAsk&) = delete;
  FrameType type{};
  std::uint32_t width = 0, count = 0;
  std::vector<std::uint8_t> bytes;
  std::span<const std::uint8_t> payload;
  std::string refusing;
};

class ChainEntry {
 public:
  using Tamper = std::function<void(std::uint32_t round, MessageBatch& admitted)>;
  // Starts `closed` through the chain of `config` (a chain of 2 or more servers, this one first):
  // admits and orders its batch and does hop 0 (`hop0` mixes an onion chain's batch; a verifiable
  // chain re-encrypts, shuffles and proves, signing with `signing`, and decrypts with `share`, this
  // server's share of the round key, made once for the session by server_share). `hop_name` names a
  // further server in the lines it gives; `tag_key` gives a party's submitter-tag key (a verifiable
  // chain admits only records that carry their sender's tags). `config`, `hop0`, `share`, `signing`
  // and `rng` must outlive it. A verifiable chain's `tamper` (tests) alters the admitted ciphertexts.
  ChainEntry(const SessionConfig& config, const mixnet::ElGamalKey* share, const SigningKeyPair& signing, MixHop* hop0,
             SessionRounds::Closed closed, Rng& rng, const Tamper& tamper, std::function<std::string(std::size_t)> hop_name,
             std::function<mixnet::TagKey(PartyId)> tag_key = {});

  // Lines for the log (records not admitted, records a hop dropped), taken once.
  [[nodiscard]] std::vector<std::string> take_notes();

  // What further server `hop` (1 .. k - 1, in order) is sent: the last hop's output.
  [[nodiscard]] HopAsk shuffle_ask() const;
  // Its answer: taken, or the fault (a frame that is not this round's, a wrong count, an answer
  // that does not parse, a proof that does not hold).
  [[nodiscard]] std::optional<Fault> take_shuffle(std::size_t hop, const FrameHeader& header, std::span<const std::uint8_t> payload);

  // After every hop answered: whether the servers must decrypt (a verifiable chain's round with
  // records, in either delivery), and then what each further server is sent (the
  // evidence; the entry's own shares are computed here).
  [[nodiscard]] bool needs_decryption() const;
  [[nodiscard]] HopAsk decrypt_ask();
  [[nodiscard]] std::optional<Fault> take_decryption(std::size_t hop, const FrameHeader& header, std::span<const std::uint8_t> payload);
  // The trustees whose shares the round needs (the key's threshold), and those taken so far (the
  // entry's own counts once decrypt_ask made them): with t < k, the round is decrypted without the
  // servers that do not answer, as long as t did.
  [[nodiscard]] std::size_t trustees_needed() const { return rt_.key.servers.threshold; }
  [[nodiscard]] std::size_t trustees_decrypted() const { return rt_.decrypted_by.size(); }

  // What every receiver is sent, once every answer was taken: the round with its output (the
  // delivered batch of an onion chain; none with a verifiable chain, whose receivers decrypt the
  // evidence), the reports or the evidence, and the commitment. An onion chain's reports are
  // checked here (verify_chain); a fault ends the session.
  struct Result {
    SessionRounds::Closed closed;
    std::vector<std::uint8_t> reports, evidence;
    EntryCommitment commitment;
    std::vector<HopReport> hop_reports;
  };
  [[nodiscard]] std::optional<Fault> finish(Result& out);

 private:
  void start_onion(MixHop& hop0, const Tamper& tamper);
  void start_verifiable(const SigningKeyPair& signing, const Tamper& tamper, const std::function<mixnet::TagKey(PartyId)>& tag_key);
  [[nodiscard]] std::string round_text() const;
  // A fault of further server `hop` in this round.
  [[nodiscard]] Fault fault(FaultCode code, std::size_t hop, std::string text) const;

  const SessionConfig& config_;
  const mixnet::ElGamalKey* share_;
  Rng& rng_;
  SessionRounds::Closed closed_;
  std::function<std::string(std::size_t)> hop_name_;
  unsigned threads_;
  EntryCommitment commitment_;
  std::vector<std::string> notes_;
  // An onion chain: the batch in flight, every hop's report, the root hop 0 was sent.
  MessageBatch batch_;
  std::vector<HopReport> reports_;
  BatchDigest submitted_{};
  // A verifiable chain: the transcript built so far, and the records not admitted.
  mixnet::RoundTranscript rt_;
  std::size_t limbs_ = 0, not_admitted_ = 0;
  std::uint32_t width_ = 0;
};

}  // namespace shufflempc::net::detail
