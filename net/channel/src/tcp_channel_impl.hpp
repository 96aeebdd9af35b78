// The TCP channel's state, private to net/src. TcpChannel::Impl holds the hosted identities and
// their links; its member functions live by role:
//   tcp_channel.cpp           the links: grouping the identities, connecting, authenticating; the
//                             channel's calls
//   tcp_channel_submit.cpp    a round out: the batch (wrapped for a chain), its submit frames, and
//                             the ticker that says the parties are preparing it
//   tcp_channel_results.cpp   a round back: the result frames, the outcome, opening the records
//   tcp_channel_receipts.cpp  receipts of a chain's round, and the verdicts sent to the analyzer
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "shufflempc/error.hpp"
#include "shufflempc/net/detail/link.hpp"
#include "shufflempc/net/detail/verdicts.hpp"
#include "shufflempc/mixnet/signing.hpp"
#include "shufflempc/net/mix_hop.hpp"
#include "shufflempc/net/onion.hpp"
#include "shufflempc/net/receipts.hpp"
#include "shufflempc/net/sealing.hpp"
#include "shufflempc/net/tcp.hpp"
#include "shufflempc/net/verifiable.hpp"
#include "shufflempc/parallel.hpp"

namespace shufflempc::net {

using detail::SecureLink;
using detail::tcp;

struct TcpChannel::Impl {
  struct Link {
    PartyId first = 0;       // analyzer_id for the analyzer's link
    std::uint32_t count = 1;
    std::vector<std::size_t> identities;  // index in `identities` of each party of the link
    detail::IdentityProof proof{};
    std::shared_ptr<SecureLink> link;
    detail::LinkStats earlier;  // of the connections a reconnection replaced
    std::vector<std::uint8_t> pending;  // this round's submit payload, sent again after a reconnection
    std::uint32_t pending_count = 0;
    bool waiting = false;  // a result is expected on this link this round
    // Receipts (net/receipts.hpp), in a round whose records cross a chain: the count each party
    // submitted this round (submit_absent: none; empty: no party of the link was in the round) and
    // their records in party order; the parties' proof against the analyzer's key, for the links
    // that carry their verdicts to it.
    std::vector<std::uint32_t> counts;
    MessageBatch own;
    detail::IdentityProof verdict_proof{};
    // A shuffler with a state directory: its checked receipt for this round's batch, without the
    // batch, which stays in `pending` (admission_receipts() puts the two together when asked: a
    // process of 10^5 parties does not hold its records twice).
    struct Receipt {
      std::uint32_t round = 0, width = 0;
      RecordDigest digest{};
      std::array<std::uint8_t, 64> signature{};
    };
    std::optional<Receipt> admitted;
  };

  asio::io_context io;
  SessionConfig config;
  ConfigDigest digest{};
  Limits limits;
  Logger log_fn;
  tcp::resolver::results_type endpoints;
  std::string where;
  SystemRng rng;
  std::vector<Identity> identities;
  std::vector<LinkCounters> counters;  // per identity
  std::vector<char> in_session;        // per identity: still expected to take part
  std::vector<Link> links;
  std::optional<std::size_t> analyzer;      // index in links
  std::optional<std::size_t> analyzer_identity;
  std::map<PartyId, std::pair<std::size_t, std::size_t>> hosted;  // party -> (link, position in it)
  std::size_t connections = 0;
  // With a mix chain: every server's onion key (hop 0 first), and the verified reports by round.
  std::vector<PublicKey> layer_keys;
  std::map<std::uint32_t, std::vector<HopReport>> hop_reports;
  mixnet::Transcript transcript;  // a verifiable chain's rounds, as verified here
  std::map<std::uint32_t, CommittedBatch> batch_commitments;  // the shuffler's, as checked here (no chain)
  std::vector<mixnet::TagKey> tag_keys;  // per identity, with a verifiable chain: its submitter-tag key with the shuffler
  // An admitted frame on link `l` for `round`: kept as its receipt if it names the batch the link
  // sent (its digest) and carries the shuffler's signature of it; otherwise said in one line and
  // not kept (a receipt that does not hold proves nothing).
  void take_receipt(Link& l, std::uint32_t round, std::uint32_t width, const detail::Frame& f);
  // What link `l` sent this round (`pending`: a count per party, then the messages), as the
  // shuffler keeps it and its receipt names it; and the parties of it that submitted.
  static Admission sent_batch(const Link& l, std::uint32_t round, std::uint32_t width);
  static void add_submitters(const Link& l, std::vector<PartyId>& out);
  bool verifiable() const { return config.mix == MixKind::verifiable && !layer_keys.empty(); }
  // Receipts and verdicts: the analyzer's server for them (hosting the analyzer, with parties
  // elsewhere), or the analyzer's address (hosting parties, not the analyzer).
  std::unique_ptr<detail::VerdictServer> verdicts;
  std::function<void(std::uint32_t, MessageBatch&)> tamper_records;  // TcpChannelOptions::tamper_records
  bool leave_after_receipt = false;  // TcpChannelOptions::leave_after_receipt
  // TcpChannelOptions::keep_result and kept_results: an analyzer's delivered rounds, kept.
  std::function<void(std::uint32_t, std::span<const std::uint8_t>)> keep_result;
  std::map<std::uint32_t, std::vector<std::uint8_t>> kept_results;
  // A result frame as keep_result is given it, and back (protocol_violation if the bytes are not a
  // result of `round`).
  static std::vector<std::uint8_t> kept_bytes(const detail::Frame& f);
  detail::Frame kept_frame(std::uint32_t round, std::span<const std::uint8_t> bytes) const;
  std::function<void(std::uint32_t)> preparing;                       // TcpChannelOptions::preparing
  FrameTap frame_tap;                                                 // TcpChannelOptions::frame_tap
  std::optional<tcp::resolver::results_type> analyzer_endpoints;
  std::string analyzer_where;
  // A round whose records cross the chain to the analyzer only: every party says what it made of
  // its receipt to the analyzer, which outputs the round only when they all confirm.
  bool verdict_round(const RoundShape& shape) const { return chained(shape) && shape.delivery == Delivery::analyzer_only; }

  // A link's proof of its identities to the holder of `peer` (the shuffler, or the analyzer for the
  // verdict links): each identity's static secret with it, one X25519 for each run of consecutive
  // identities holding one key.
  // With `tags`, each identity's submitter-tag key (its leaf, H(K_p)) is kept there too.
  detail::IdentityProof proof_for(const Link& l, const PublicKey& peer, std::vector<mixnet::TagKey>* tags = nullptr) const;

  // Whether a round's records cross the mix chain (a chain, and messages to carry).
  bool chained(const RoundShape& shape) const { return !layer_keys.empty() && shape.width > 0; }

  // How long a round may take, from this process's batch to its result: the session's round limit
  // (with a round's own deadline in place of the session's, if it has one), plus 5 s.
  std::chrono::milliseconds wait_limit(const RoundRules* spec) const {
    const auto d = spec && spec->deadline.count() > 0 ? spec->deadline : config.deadline;
    // A collection window: what is left of it as well (the round closes at its end).
    return config.round_limit() - 2 * config.deadline + 2 * d + config.window_left() + std::chrono::seconds(5);
  }

  void log(const std::string& line) const {
    if (log_fn) log_fn(line);
  }

  static std::string name(const Link& l) {
    if (l.first == analyzer_id) return "the analyzer's link";
    if (l.count == 1) return "party " + std::to_string(l.first) + "'s link";
    return "the link of parties " + std::to_string(l.first) + ".." + std::to_string(l.first + l.count - 1);
  }

  // Runs the io_context until every spawned operation is done or `limit` passes; then closes
  // everything still pending and throws Errc::timeout.
  void run_all(std::chrono::milliseconds limit, const std::string& what);

  // The hosted analyzer and party links have the session's last result: each says so (a done
  // frame), which lets the shuffler, holding the result for a reconnection until then, stop. Best
  // effort: the result is in hand, so a shuffler already gone is no error.
  void confirm_last(std::uint32_t round);

  // Opens a TCP connection for `link`, retrying with a doubling pause (50 ms up to 1 s) while the
  // shuffler refuses connections, until `give_up`.
  asio::awaitable<void> dial(SecureLink& link, std::chrono::steady_clock::time_point give_up, bool& told);

  // Closes l's link and gives it a new one, its traffic added to l.earlier.
  void replace_link(Link& l);
  asio::awaitable<void> handshake(Link& l, std::chrono::steady_clock::time_point give_up, bool& told);

  // The round's result on `l`. A link whose connection drops first reconnects (a new handshake,
  // with backoff, until `give_up`) and sends its batch again: the shuffler takes an identical
  // batch once, and sends the result of a round that closed meanwhile again. The analyzer's link
  // sends an empty batch, which asks for that round's result.
  asio::awaitable<detail::Frame> result_of(Link& l, std::uint32_t round, std::uint32_t width,
                                           std::chrono::steady_clock::time_point give_up);

  // Sends each party link's batch for the round (sealed to the analyzer in ESA mode); a link all
  // of whose parties stay silent leaves the session and closes. Marks the links that await a result.
  // Every hosted party's messages in the chain's onion at once (on every core), in local order;
  // for a verifiable chain, encrypted under the round's key (each limb with fresh randomness) and
  // proved under each sender's tags (its j-th record of the round: the j-th tag).
  MessageBatch wrap_for_chain(const RoundRules& spec, const Submissions& local, std::size_t ww);

  // Link `l`'s submit payload (a count per party, then the messages in party order: wrapped for
  // the chain, sealed to the analyzer in ESA mode, or as they are), its own records noted for the receipts.
  void fill_batch(Link& l, const RoundRules& spec, const Submissions& local, const MessageBatch& wrapped, std::size_t ww,
                  const std::vector<const Submissions::Slice*>& slices, const std::vector<std::uint32_t>& counts, std::size_t total);

  void submit(const RoundRules& spec, const Submissions& local, std::size_t ww);

  // Says on every party link still in the session that its parties are alive (an alive frame for
  // `round` every quarter deadline, none when the work is quicker), on a thread of its own that runs
  // the io_context, while this process works: the protocol computing its parties' messages, then
  // the channel sealing and wrapping them. So the round waits for them however long that takes, up
  // to its limit, and a process that hangs is still given up a deadline after it last spoke
  // (docs/network.md, "Deadlines that follow the work"). Started once the links are up and after
  // every round but the last; stopped before this thread touches a link again.
  std::jthread ticker;
  std::atomic<bool> ticker_stop{false};
  asio::steady_timer ticker_timer{io};

  void start_ticker(std::uint32_t round);

  void stop_ticker();

  struct Answer {
    std::optional<detail::Frame> frame;
    std::exception_ptr error;
  };

  // The result frame of every awaiting link (none if no link awaits one), within the round's limit.
  std::optional<std::vector<Answer>> await_results(const RoundRules& spec, std::size_t ww);

  // Who submitted, who dropped and (where this process may see it) the output, from the answers:
  // checked against the round's shape, the sealed records opened by the hosted analyzer.
  // `ww` is the width of the records delivered (sealed to the analyzer in ESA mode; the chain's
  // layers are gone).
  RoundOutcome outcome_of(const RoundRules& spec, const std::vector<Answer>& answers, std::size_t ww);

  // In ESA mode a process hosting only parties learns its own parties' fate from their links' results.
  void own_parties_fate(const RoundRules& spec, const std::vector<Answer>& answers, RoundOutcome& out) const;

  // A verifiable chain's round: no records travel, the evidence does. Every proof is checked here
  // before anything is decrypted.
  // `r`: the primary result, decoded (it carries the evidence).
  void open_verifiable(const RoundRules& spec, const ResultPayload& r, std::size_t ww, RoundOutcome& out);

  // The records a result frame delivers: checked against the chain's reports (with a chain), opened
  // by the hosted analyzer (ESA mode) or taken as they are (MPC mode). `r`: the primary result,
  // decoded; `frame` is decoded again only when it is another link's.
  void open_delivered(const RoundRules& spec, const detail::Frame& frame, bool frame_is_primary, const ResultPayload& r, std::size_t ww,
                      RoundOutcome& out);

  // The parties' side of receipts, in a round whose records crossed the chain: for each party link
  // that took part, what its parties make of the result (its receipt checked against the entry's
  // signed commitment, its parties counted as submitted); in an analyzer-only round the verdicts go
  // to the analyzer on links of their own. A party that submitted and got no result, or an abort,
  // complains too (to the analyzer; the caller then reports the shuffler's own words). Throws
  // std::system_error(protocol_violation) naming the entry and the party when a result frame gives
  // a party cause to complain (after the complaint is sent).
  // Called on every way out of a round after this process submitted (TcpChannel::exchange), once
  // per round (`judged`): an exception of any type before or while the result is read and checked,
  // a missing, late, malformed or out-of-turn frame, a closed link, is a complaint, never silence.
  void check_receipts(const RoundRules& spec, const std::vector<Answer>& answers);
  std::optional<std::uint32_t> judged;  // the last round check_receipts judged
  // One link's verdict on the entry's answer (check_receipts): "" if its receipt holds, else the fault.
  std::string judge_answer(const RoundRules& spec, const Link& l, const Answer& a, VerdictPayload& v, std::vector<PartyId>& listed,
                           bool& quiet);

  // Each link's verdict to the analyzer, on a connection of its own (authenticated with the
  // parties' keys against the analyzer's), within 10 s. A verdict that cannot be delivered is the
  // analyzer's to miss: it then refuses the round (a confirmation it waits for) or counts the party
  // as gone; this process says so on its log.
  void send_verdicts(std::uint32_t round, const std::vector<std::pair<std::size_t, VerdictPayload>>& verdicts);

  // The analyzer's side, in an analyzer-only round whose records crossed the chain: the round stands
  // only when every party the entry counts as submitted (and not hosted here, whose receipts were
  // checked above) confirms the batch the analyzer verified, and no party complains. Throws
  // std::system_error(protocol_violation) naming the party otherwise.
  void await_verdicts(const RoundRules& spec, const RoundOutcome& out);

  // Parties hosted here that were dropped leave for good; a link none of whose parties remain closes.
  void leave(const std::vector<PartyId>& dropped);

  // Checks every identity against the config: by party id (analyzer_id for the analyzer), its index.
  static std::map<PartyId, std::size_t> check_identities(const SessionConfig& config, const std::vector<Identity>& identities);

  // Groups the parties into links of consecutive ids (at most `capacity` each), the analyzer's last,
  // each with its proof of its identities to the shuffler.
  void group_links(const std::map<PartyId, std::size_t>& by_id, std::size_t capacity);

  // Receipts and verdicts: in a session with analyzer-only rounds over a chain, the parties' verdicts
  // reach the analyzer on links of their own (docs/mix-chain.md, "Receipts and complaints").
  void set_up_verdicts(const TcpChannelOptions& options, tcp::resolver& resolver);

  // Connects and authenticates every link, at most `handshakes_at_once` at a time: the shuffler holds
  // only so many unauthenticated connections (ShufflerOptions::max_unauthenticated) before it closes
  // the oldest. A party started before the shuffler listens retries until the session's deadline.
  void connect_all();
};

}  // namespace shufflempc::net
