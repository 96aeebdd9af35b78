// The TCP shuffler's state, private to net/shuffler/src. TcpShuffler::Impl holds the sessions it serves;
// its member functions live by role:
//   shuffler.cpp          the sessions, the connections (handshake, admission) and the frames of the
//                         analyzer's and the parties' links
//   shuffler_rounds.cpp   a round's life: its deadlines, closing it, delivering its outcome, the
//                         links that leave it
//   shuffler_results.cpp  the result frames to the analyzer and the party links, and the wait for
//                         their confirmations (done frames) after the last round
//   shuffler_chain.cpp    the entry's dialogue with the further servers of a mix chain
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/net/detail/chain_entry.hpp"
#include "shufflempc/net/detail/hop_links.hpp"
#include "shufflempc/net/detail/link.hpp"
#include "shufflempc/net/detail/rate_limited_log.hpp"
#include "shufflempc/net/detail/round_clock.hpp"
#include "shufflempc/net/detail/session_host.hpp"
#include "shufflempc/net/detail/session_rounds.hpp"
#include "shufflempc/net/onion.hpp"
#include "shufflempc/net/receipts.hpp"
#include "shufflempc/net/sealing.hpp"
#include "shufflempc/net/shuffler.hpp"
#include "shufflempc/net/verifiable.hpp"
#include "shufflempc/parallel.hpp"

namespace shufflempc::net {

using detail::SecureLink;
using detail::tcp;

struct TcpShuffler::Impl : detail::SessionHost {
  // How long the shuffler lingers for clients to read their last frame once every session has ended.
  static constexpr auto linger_timeout = std::chrono::seconds(5);

  static std::string who(PartyId id) { return id == analyzer_id ? std::string("the analyzer") : "party " + std::to_string(id); }

  // One session: its round logic (detail::SessionRounds, no sockets) and the I/O around it.
  using Commitment = detail::EntryCommitment;

  struct ServedSession {
    SessionConfig config;  // its rounds are the shapes enforced
    std::unique_ptr<detail::SessionRounds> rounds;
    ConfigDigest digest{};
    std::string tag;  // for log lines
    // The static secret K_p = DH(s_shuffler, S_p) of every party and of the analyzer, computed once
    // when the shuffler starts and folded into identity trees: a hello costs O(log n) hashes
    // whatever range it claims, never a scalar multiplication.
    detail::IdentityTree parties_tree, analyzer_tree;
    struct PartyLink {
      PartyId first = 0;
      std::uint32_t count = 0;
      std::shared_ptr<SecureLink> link;
    };
    std::map<PartyId, PartyLink> party_links;  // admitted links, by their first party
    std::shared_ptr<SecureLink> analyzer;
    // The state of each role, each touched by its own file (shuffler_impl.hpp's map, above): a
    // round's deadlines and waits (shuffler_rounds.cpp), the waits for the last result's
    // confirmations (shuffler_results.cpp), a chain's entry (shuffler_chain.cpp). The round that
    // closed last (`last`) is what the rounds hand the results.
    struct RoundTimers {
      // The round's deadlines (detail::RoundClock): the round ends config.deadline after it last
      // moved or config.round_limit() after it opened; a link that owes a batch and says nothing
      // for config.deadline is given up alone. One timer, armed at the clock's next().
      std::unique_ptr<asio::steady_timer> timer;
      detail::RoundClock clock;
      // Party links lost this round after their batches were accepted (first party -> count), cleared
      // when a round closes. If the session's last round closes while one is away, its parties' batches
      // counted: it owes a done frame as if the result had been sent to it, and may come back for it.
      std::map<PartyId, std::uint32_t> away_after_submit;
      // One per party link lost this round before its parties submitted: when it fires, the round
      // stops waiting for those that have not reconnected. Cancelled when the round closes.
      std::vector<std::unique_ptr<asio::steady_timer>> grace;
      // A collection window whose end has passed while the analyzer was away: the round closes as
      // soon as the analyzer is here, and waits at most a deadline more for it.
      bool window_passed = false;
    } round_timers;
    struct ResultWaits {
      // After the last round: the analyzer's link stays until the analyzer says the result arrived (a
      // done frame). Until then a result lost with its connection can be fetched again after a
      // reconnection; `done_wait` gives up (the deadline from the result, the reconnect grace once the
      // link is lost) and lets the shuffler stop.
      bool awaiting_done = false;
      std::unique_ptr<asio::steady_timer> done_wait;
      // The same for the party links sent the last result (by their first party): each stays until it
      // says the result arrived; one whose connection is lost may come back for it within the
      // reconnect grace; all of them within the deadline from the result (parties_done_wait).
      std::set<PartyId> parties_owing_done;
      std::unique_ptr<asio::steady_timer> parties_done_wait;
      std::vector<std::unique_ptr<asio::steady_timer>> done_grace;
    } result_waits;
    // The round that closed last, kept until the next one closes: a link that lost its connection
    // before that round's result reached it, and reconnects, is sent the result again.
    struct LastRound {
      bool valid = false;
      std::uint32_t round = 0;
      RoundShape shape;
      RoundOutcome outcome;
      std::vector<std::uint8_t> prefix;  // the full result prefix (encoded once for every receiver)
      Commitment commitment;             // with a chain: what the receipts are made from
      Submissions sources;               // with a chain: the round's records as each party submitted them
    } last;
    // With a mix chain: this server's hop (0), the links to the further servers (index = hop; 0
    // unused), whether a round's batch is crossing the chain, and every round's reports.
    // With a state directory (ShufflerOptions::state_dir): what the session admitted, kept on disk,
    // and how many batches were given to it whose links have not yet been told (their admitted
    // frames are posted to the io thread as the store reports them).
    std::unique_ptr<AdmissionStore> store;
    std::size_t untold = 0;
    struct ChainState {
      std::unique_ptr<MixHop> hop0;
      std::optional<mixnet::ElGamalKey> share;  // a verifiable chain's: this server's share of the round key
      detail::HopLinks hops;
      bool relaying = false;
      std::string chain_error;
      std::vector<std::vector<HopReport>> hop_reports;
    } chain;
  };

  // The io thread, keys, log, CSPRNG and unauthenticated connections: detail::SessionHost.
  Shuffler shuffler;  // scratch reused across rounds and sessions
  std::vector<std::unique_ptr<ServedSession>> sessions;
  ShufflerOptions options;

  ServedSession* find(const SessionId& id) {
    for (auto& s : sessions)
      if (s->config.session == id) return s.get();
    return nullptr;
  }

  bool all_finished() const {
    return std::all_of(sessions.begin(), sessions.end(), [](const auto& s) { return s->rounds->finished(); });
  }

  void start_round_timer(ServedSession& s);

  // Something happened in the round: a link admitted (`first`, or the analyzer's), a batch
  // accepted, or a link's word that its parties are preparing theirs. The round's deadline counts
  // again from now (never past its limit), and a link that still owes a batch is watched from now.
  // A loaded machine whose parties connect, prepare and submit slowly but steadily is not cut off;
  // a link that falls silent is given up on its own; no party holds a round past its limit, and a
  // client (which waits the limit after its own batch) always hears the round's end.
  void progress(ServedSession& s, std::optional<PartyId> link = std::nullopt);

  // The timer fires at the clock's next(), then again at the next one until the round closes:
  // events only ever move next() later, so it never needs re-arming before it fires.
  void arm_round_timer(ServedSession& s);

  // Links that owe the round a batch and said nothing for the deadline (no batch, no word that
  // their parties are preparing one: a process that hangs, or a machine that stopped): each is told
  // its parties missed the deadline, closed and given up at once, in one line for all of them,
  // while the round goes on waiting for the others.
  void drop_silent(ServedSession& s, const std::vector<PartyId>& firsts);

  // The round closes early once the analyzer is here and every expected party has either
  // submitted or left.
  void maybe_close(ServedSession& s) {
    if (s.chain.relaying) return;
    if (s.rounds->ready() || (s.round_timers.window_passed && s.rounds->has_analyzer())) close_round(s);
  }

  void abort_session(ServedSession& s, const std::string& reason);

  void cancel_grace(ServedSession& s) {
    for (auto& t : s.round_timers.grace) t->cancel();
    s.round_timers.grace.clear();
  }

  void finish(ServedSession& s);

  // The analyzer owes its done frame for the session's last result: wait `within` for it (again
  // from now, if already waiting), then stop waiting with `why`.
  void await_done(ServedSession& s, std::chrono::milliseconds within, std::string why);

  // Whether the link of `first` (the analyzer's, or a party link's) belongs to a session that ended
  // but still holds the last result for it (it has not sent its done frame): it may connect and ask
  // again.
  // Whether a party link that went away after its batch was kept owes nothing more in a round of
  // this shape: with a state directory, in a round for the analyzer with no chain, every batch was
  // kept and receipted before the round closed, and the result tells the link nothing it needs
  // (through a chain a party checks the entry's receipt of the whole round in its result and sends
  // the analyzer its verdict, so its link is waited for).
  static bool receipt_settles(const ServedSession& s, const RoundShape& shape) {
    return s.store && shape.delivery == Delivery::analyzer_only && s.config.mix_chain.empty();
  }

  // A party link away while the last round crosses the chain (lost during the relay, or taken back
  // from the state directory and not yet back): its parties may have submitted, so one that comes
  // back before the result waits for it as the links still there do.
  static bool awaits_relay(const ServedSession& s, PartyId first) {
    return first != analyzer_id && s.chain.relaying && s.round_timers.away_after_submit.count(first) != 0;
  }

  static bool owes_done(const ServedSession& s, PartyId first) {
    if (!s.rounds->finished()) return false;
    return first == analyzer_id ? s.result_waits.awaiting_done : s.result_waits.parties_owing_done.count(first) != 0;
  }

  // The party links sent the last result have the deadline to confirm it; those that have not by
  // then are named in one line and closed.
  void await_parties_done(ServedSession& s, std::uint32_t round);

  // A party link that owes its done frame and has no connection: it may reconnect for the last
  // result within the reconnect grace, else it is named in one line and given up.
  void await_party_return(ServedSession& s, PartyId first, const std::string& when);

  // A party link's done frame (or giving up on it): it owes nothing more.
  void party_done(ServedSession& s, PartyId first);

  // Once every session has ended and no analyzer still owes its done frame: no new connections,
  // and the open links get linger_timeout to read their last frame.
  void stop_if_done();

  void close_round(ServedSession& s);

  // With a state directory: the link's batch, just accepted by the round, kept on disk; once it is,
  // the link is told (an admitted frame with the shuffler's signature), or, when the disk refuses
  // it, the session ends with the line saying why (no receipt goes out for what was not kept).
  void keep(ServedSession& s, const std::shared_ptr<SecureLink>& link, Admission batch);

  // Opens the session's state directory and takes back the batches it kept (a restart).
  void open_state(ServedSession& s);

  // Further server `hop`'s answer to a frame of the chain, or nothing when the session ended: the
  // link failed or timed out, the session was aborted meanwhile, or the server refused (`refusing`
  // names what it refused, e.g. "the batch"); each of those aborts the session with one line,
  // unless `spare` (a server the round can do without: a decryption beyond the threshold's), when
  // the line is logged and the session goes on.
  asio::awaitable<std::optional<detail::Frame>> answer_of(ServedSession& s, std::size_t hop, std::uint32_t round, FrameType type,
                                                          std::uint32_t width, std::uint32_t count, std::span<const std::uint8_t> payload,
                                                          const std::string& refusing, bool spare = false);

  // Takes a closed round's batch through the chain (detail::ChainEntry does the entry's part without
  // sockets): hop 0 here, then each further server in order, each answer checked as it arrives; with
  // a verifiable chain's round for every party, every further server's proved decryption shares,
  // asked of all at once. The output is delivered once the whole chain holds.
  asio::awaitable<void> relay(ServedSession& s, detail::SessionRounds::Closed closed);

  // Every further server's answer to `ask`, asked of all at once (each checks the evidence's proofs
  // before it answers, and across hosts those checks run side by side); index = hop, 0 unused.
  asio::awaitable<std::vector<std::optional<detail::Frame>>> ask_every_hop(ServedSession& s, std::uint32_t round, const detail::HopAsk& ask,
                                                                            bool spare = false);

  // Sends a closed round's outcome (with the chain's reports, if any) to every endpoint.
  void deliver(ServedSession& s, detail::SessionRounds::Closed closed, std::span<const std::uint8_t> reports,
               std::span<const std::uint8_t> evidence = {}, Commitment commitment = {});

  // The last closed round's result, with every message, to the analyzer (if it is connected).
  void send_analyzer_result(ServedSession& s);

  // Messages a result frame carries: none when the round's output travels as a verifiable chain's evidence.
  static std::uint32_t carried(const RoundOutcome& out) { return out.output ? static_cast<std::uint32_t>(out.messages) : 0; }

  static std::span<const std::uint8_t> output_bytes(const RoundOutcome& out) {
    return out.output ? out.output->bytes() : std::span<const std::uint8_t>{};
  }

  // The last round's result for one link: with the messages in MPC mode; in ESA mode only its own
  // parties' fate (its traffic does not grow with the number of parties). A link none of whose
  // parties submitted is told they missed the deadline. Returns whether a result frame went out.
  bool send_result(ServedSession& s, ServedSession::PartyLink& pl);

  // The receipt of a link for the records its parties submitted in the last round (in party order),
  // when that round's records crossed the chain; empty otherwise.
  static std::vector<std::uint8_t> receipt_for(const ServedSession& s, const ServedSession::PartyLink& pl);

  // Called when an admitted identity's link ends (error, close, rejection). The parties of a link
  // lost before they submitted are waited for a while (ShufflerOptions::reconnect_grace); those of
  // a link the shuffler refused are not.
  void on_leave(ServedSession& s, PartyId first, std::uint32_t count, const std::shared_ptr<SecureLink>& link, bool refused);

  static std::string who_range(PartyId first, std::uint32_t count) {
    if (first == analyzer_id || count == 1) return who(first);
    return "parties " + std::to_string(first) + ".." + std::to_string(first + count - 1);
  }

  // After a refusal told in an abort frame: reads and discards what the peer still sends until it
  // closes (so the abort is not lost to a reset), for at most a second.
  asio::awaitable<void> drain(std::shared_ptr<SecureLink> link);

  // What a frame leaves its link to do: read the next one, or stop (the link closes; a refusal has
  // been told to the peer already).
  enum class Next { read, stop };
  using Refuse = std::function<void(const std::string&)>;

  // An authenticated link joins session `s`: a link for exactly the parties of an admitted one (or
  // the analyzer's) replaces it, one owed the last result comes back for it, any other is admitted
  // by the round logic or refused. Returns whether it was admitted.
  bool admit(ServedSession& s, PartyId first, std::uint32_t count, const std::shared_ptr<SecureLink>& link, const Refuse& refuse);

  // A frame on the analyzer's link: its done frame after the last result, or, after it reconnects,
  // an empty batch (a submit frame with its one count, 0) naming the round whose result it awaits.
  // The round before the open one is sent again (once per connection, max_resends per round); the
  // open one it gets when that round closes.
  Next analyzer_frame(ServedSession& s, const detail::Frame& f, bool& resent, const Refuse& refuse);

  // A frame on the link of parties first .. first + count - 1: their done frame after the last
  // result, or their batches for the round (all or nothing; the result again for a link that
  // reconnected after its round closed).
  Next party_frame(ServedSession& s, PartyId first, std::uint32_t count, const std::shared_ptr<SecureLink>& link, const detail::Frame& f,
                   bool& resent, const Refuse& refuse);

  asio::awaitable<void> serve(std::shared_ptr<SecureLink> link);

  // K_p for every party of a session (detail::parties_tree), and the analyzer's.
  static void compute_statics(ServedSession& s, const KeyPair& keys);

  asio::awaitable<void> accept_loop();
};

}  // namespace shufflempc::net
