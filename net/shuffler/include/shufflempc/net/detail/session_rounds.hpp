// The round logic of one session served by the TCP shuffler, without sockets or timers: who is
// connected and expected, what each party submitted, when a round may close, what closing it
// gives (shuffled with the shuffler's CSPRNG), and when the session ends. TcpShuffler owns one per
// session and does the I/O around it; the unit tests drive it directly (tests/net/test_session_rounds.cpp).
//
// Every event returns what the I/O layer must do: a refusal or rejection (a net::Fault: its code,
// the round and party where they apply, and the line; then it closes that one link), or nothing. A
// bad event never touches another party's submission.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/channel.hpp"
#include "shufflempc/net/fault.hpp"
#include "shufflempc/net/keys.hpp"
#include "shufflempc/net/shuffler.hpp"
#include "shufflempc/shuffle.hpp"

namespace shufflempc::net::detail {

class SessionRounds {
 public:
  // Enforces the config's wire shapes (SessionConfig::rounds); throws std::invalid_argument if it
  // declares none. `config` must outlive this.
  explicit SessionRounds(const SessionConfig& config);

  // An authenticated link for the parties first .. first+count-1 (or the analyzer: analyzer_id, 1)
  // joins. Returns the refusal reason if it may not (the session has ended, one of them is already
  // connected, the range is outside the session, or none of them is still in the session); then
  // nothing changes. Parties of the range dropped earlier stay out. The first admission opens round 0.
  [[nodiscard]] std::optional<Fault> admit(PartyId first, std::uint32_t count = 1);
  // An admitted link ended. A submitted batch stands; a party that had not submitted in the current
  // round is still waited for (its link may have been cut and reconnect) until lapse() gives it up
  // or the deadline closes the round. A party that leaves on purpose says so first (a submit frame
  // with its count absent). The analyzer's link may also come back: no round closes without it
  // (ready() is false), and the shuffler decides how long to wait. A link's leaving never ends the
  // session by itself.
  void leave(PartyId first, std::uint32_t count = 1);
  // The round stops waiting for the parties of the range that are not connected and have not
  // submitted (their link was lost and has not come back): they count as gone for it. Returns
  // whether any was given up.
  bool lapse(PartyId first, std::uint32_t count = 1);
  // Whether the round still waits for a party of the range that is not connected (what lapse()
  // would give up).
  [[nodiscard]] bool missing(PartyId first, std::uint32_t count = 1) const;
  // Whether the round still waits for the batch of a connected party of the range (its link owes
  // one: the round's deadline watches that link's silence).
  [[nodiscard]] bool owes_batch(PartyId first, std::uint32_t count = 1) const;

  // A submit frame of the link for first .. first+counts.size()-1: its round number and width, one
  // count per party (submit_absent: the party leaves the session) and the messages in party order.
  // All or nothing: returns the rejection reason (wrong round, a party not expected, duplicate,
  // wrong width or count, over the frame limit) and changes nothing, or accepts every party's
  // batch. A frame identical to the one already accepted this round (a link that reconnected and
  // sent it again) is accepted and changes nothing.
  [[nodiscard]] std::optional<Fault> submit(PartyId first, std::span<const std::uint32_t> counts, std::uint32_t round,
                                            std::size_t width, std::span<const std::uint8_t> messages);
  // One party's batch (a link of one party).
  [[nodiscard]] std::optional<Fault> submit(PartyId id, std::uint32_t round, std::size_t width, std::size_t count,
                                            std::span<const std::uint8_t> messages) {
    const auto c = static_cast<std::uint32_t>(count);
    return submit(id, std::span(&c, 1), round, width, messages);
  }
  // A batch a state directory kept from before a restart (net/store.hpp): taken as the link's submit
  // frame was, its parties not connected (they may come back; the same frame again is then a
  // no-op). Opens round 0 if nothing has. The same refusals as submit(): a kept batch that does
  // not fit the session is refused.
  [[nodiscard]] std::optional<Fault> restore(const Admission& kept);
  // Opens round 0 now if nothing has (a collection window opens when the shuffler starts, so that
  // it closes on time even if nobody comes).
  void start();
  // Whether a submit frame for the round before the current one (from a link that lost its
  // connection before the result reached it) names only parties whose batches that round accepted:
  // then the shuffler sends the link that round's result again instead of refusing the frame.
  [[nodiscard]] bool accepted_in_previous_round(PartyId first, std::span<const std::uint32_t> counts, std::uint32_t round) const;
  // Whether the link of parties from `first` may be sent the previous round's result again: at most
  // max_resends times per round, so that an authenticated client that reconnects and repeats a
  // small frame cannot make the shuffler send it the whole output over and over (each call counts).
  static constexpr unsigned max_resends = 2;
  [[nodiscard]] bool take_resend(PartyId first);

  // Whether the current round may close before its deadline: the analyzer is here and every
  // expected party has submitted or left, or (a collection window) close_count parties submitted.
  [[nodiscard]] bool ready() const;
  // The expected parties of the current round that have neither submitted nor left, ascending:
  // whom the round is still waiting for (named when its deadline expires).
  [[nodiscard]] std::vector<PartyId> waiting_for() const;

  struct Closed {
    std::uint32_t round = 0;
    RoundShape shape;
    RoundOutcome outcome;
    bool last = false;  // the session is complete
    // With a chain: what each party submitted, as it arrived (before the shuffle), for the
    // receipts (net/receipts.hpp).
    Submissions sources;
  };
  // Closes the current round (at its deadline, or once ready()): validates and shuffles what was
  // submitted and opens the next round. Throws std::system_error (too_few_parties, ...) when the
  // round fails: the caller then abort()s the session. Needs the analyzer to be connected.
  [[nodiscard]] Closed close(Rng& rng, Shuffler& shuffler);
  // Ends the session with `reason` (kept in the report).
  void abort(const std::string& reason);

  // What a link for first .. first+count-1 may send, from the round plan: its frame never holds
  // more than the widest round's largest batch for each of its parties (and one count each), the
  // analyzer only its 4-byte empty batch (a round's result again). The shuffler sets these limits
  // on a link as soon as its hello names the session, so a frame header claiming more is refused
  // before any payload is allocated: memory per connection is bounded by the plan, not by
  // max_frame_bytes.
  [[nodiscard]] Limits limits_for(PartyId first, std::uint32_t count = 1) const;

  [[nodiscard]] bool started() const { return started_; }
  [[nodiscard]] bool finished() const { return finished_; }
  [[nodiscard]] std::uint32_t round() const { return round_; }
  [[nodiscard]] bool has_analyzer() const { return analyzer_present_; }
  [[nodiscard]] bool expected(PartyId id) const { return id < expected_.size() && expected_[id] != 0; }
  [[nodiscard]] const RoundShape& shape() const { return config_.rounds[round_ < config_.rounds.size() ? round_ : config_.rounds.size() - 1]; }
  [[nodiscard]] const ShufflerReport& report() const { return report_; }

 private:
  void open_round();

  const SessionConfig& config_;
  Limits limits_;
  std::vector<char> present_;    // connected (admitted and not left)
  std::vector<char> expected_;   // expected to submit in the current round
  std::vector<char> submitted_;  // submitted in the current round
  std::vector<char> gone_;       // left during the current round without submitting
  std::vector<std::uint32_t> slice_of_;  // index in slices_ of a party that submitted this round
  std::map<PartyId, unsigned> resends_;  // this round's resends of the previous result, by link
  std::size_t submitted_count_ = 0;  // parties that submitted in the current round
  bool analyzer_present_ = false;
  std::uint32_t round_ = 0;
  bool started_ = false;
  bool finished_ = false;
  MessageBatch buffer_;
  std::vector<Submissions::Slice> slices_;
  ShufflerReport report_;
};

}  // namespace shufflempc::net::detail
