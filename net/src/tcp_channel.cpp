// TcpChannel: the client side of the TCP transport. The hosted parties share links (consecutive
// ids, up to link_capacity() per link), the analyzer has its own; all are driven by one io_context
// in the calling thread.
#include <sodium.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <optional>
#include <thread>

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

namespace {
// Links of one TcpChannel that handshake concurrently.
constexpr std::size_t handshakes_at_once = 64;
}  // namespace

using detail::SecureLink;
using detail::tcp;

bool takes_verdicts(const SessionConfig& config) {
  return !config.mix_chain.empty() &&
         std::any_of(config.rounds.begin(), config.rounds.end(), [](const RoundShape& r) { return r.delivery == Delivery::analyzer_only; });
}

std::size_t link_capacity(const SessionConfig& config) {
  const Limits limits = config.limits();
  std::uint64_t per_party = 0, messages = 1;
  for (const auto& r : config.rounds) {
    per_party = std::max<std::uint64_t>(per_party, std::uint64_t{r.width} * r.max_messages);
    messages = std::max<std::uint64_t>(messages, r.max_messages);
  }
  per_party += 4;  // its count in the submit frame
  const std::uint64_t by_bytes = limits.max_payload / per_party;
  const std::uint64_t by_count = limits.max_count / messages;
  return static_cast<std::size_t>(std::max<std::uint64_t>(1, std::min(by_bytes, by_count)));
}

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
  std::vector<mixnet::TagKey> tag_keys;  // per identity, with a verifiable chain: its submitter-tag key with the shuffler
  bool verifiable() const { return config.mix == MixKind::verifiable && !layer_keys.empty(); }
  // Receipts and verdicts: the analyzer's server for them (hosting the analyzer, with parties
  // elsewhere), or the analyzer's address (hosting parties, not the analyzer).
  std::unique_ptr<detail::VerdictServer> verdicts;
  std::function<void(std::uint32_t, MessageBatch&)> tamper_records;  // TcpChannelOptions::tamper_records
  std::function<void(std::uint32_t)> preparing;                       // TcpChannelOptions::preparing
  std::optional<tcp::resolver::results_type> analyzer_endpoints;
  std::string analyzer_where;
  // A round whose records cross the chain to the analyzer only: every party says what it made of
  // its receipt to the analyzer, which outputs the round only when they all confirm.
  bool verdict_round(const RoundShape& shape) const { return chained(shape) && shape.delivery == Delivery::analyzer_only; }

  // A link's proof of its identities to the holder of `peer` (the shuffler, or the analyzer for the
  // verdict links): each identity's static secret with it, one X25519 for each run of consecutive
  // identities holding one key.
  // With `tags`, each identity's submitter-tag key (its leaf, H(K_p)) is kept there too.
  detail::IdentityProof proof_for(const Link& l, const PublicKey& peer, std::vector<mixnet::TagKey>* tags = nullptr) const {
    std::vector<detail::StaticSecret> secrets;
    secrets.reserve(l.identities.size());
    const KeyPair* previous = nullptr;
    for (std::size_t i : l.identities) {
      const KeyPair& k = identities[i].keys;
      secrets.push_back(previous && *previous == k ? secrets.back() : detail::static_secret(k.secret_key(), peer));
      previous = &k;
      if (tags) (*tags)[i] = detail::identity_leaf(secrets.back());
    }
    const auto proof = detail::identity_proof(secrets, l.first == analyzer_id ? 0 : l.first);
    sodium_memzero(secrets.data(), secrets.size() * sizeof(detail::StaticSecret));
    return proof;
  }

  // Whether a round's records cross the mix chain (a chain, and messages to carry).
  bool chained(const RoundShape& shape) const { return !layer_keys.empty() && shape.width > 0; }

  // How long a round may take, from this process's batch to its result: the session's round limit
  // (with a round's own deadline in place of the session's, if it has one), plus 5 s.
  std::chrono::milliseconds wait_limit(const RoundRules* spec) const {
    const auto d = spec && spec->deadline.count() > 0 ? spec->deadline : config.deadline;
    return config.round_limit() - 2 * config.deadline + 2 * d + std::chrono::seconds(5);
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
  void run_all(std::chrono::milliseconds limit, const std::string& what) {
    io.restart();
    const auto end = std::chrono::steady_clock::now() + limit;
    while (!io.stopped()) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= end) break;
      io.run_for(end - now);
    }
    if (!io.stopped()) {
      for (auto& l : links) l.link->close();
      io.restart();
      io.poll();
      throw_error(Errc::timeout, what + ": no answer from the shuffler within " + std::to_string(limit.count()) + " ms");
    }
  }

  // The hosted analyzer and party links have the session's last result: each says so (a done
  // frame), which lets the shuffler, holding the result for a reconnection until then, stop. Best
  // effort: the result is in hand, so a shuffler already gone is no error.
  void confirm_last(std::uint32_t round) {
    bool any = false;
    for (auto& l : links) {
      if (!l.link->is_open()) continue;
      l.link->send(FrameType::done, round, {});
      l.link->close_after_flush();
      any = true;
    }
    if (!any) return;
    try {
      run_all(std::chrono::seconds(5), "round " + std::to_string(round) + ": confirming the last result");
    } catch (const std::system_error&) {
    }
  }

  // Opens a TCP connection for `link`, retrying with a doubling pause (50 ms up to 1 s) while the
  // shuffler refuses connections, until `give_up`.
  asio::awaitable<void> dial(SecureLink& link, std::chrono::steady_clock::time_point give_up, bool& told) {
    auto pause = std::chrono::milliseconds(50);
    asio::steady_timer timer(io);
    for (;;) {
      std::error_code ec;
      co_await asio::async_connect(link.socket(), endpoints, asio::redirect_error(asio::use_awaitable, ec));
      if (!ec) break;
      if (ec != asio::error::connection_refused || std::chrono::steady_clock::now() + pause > give_up)
        throw std::system_error(ec, "cannot connect to the shuffler at " + where);
      if (!told) log("the shuffler at " + where + " is not listening yet; retrying until the session's deadline");
      told = true;
      timer.expires_after(pause);
      co_await timer.async_wait(asio::use_awaitable);
      pause = std::min<std::chrono::milliseconds>(2 * pause, std::chrono::seconds(1));
    }
    std::error_code ignored;
    link.socket().set_option(tcp::no_delay(true), ignored);
    ++connections;
  }

  asio::awaitable<void> handshake(Link& l, std::chrono::steady_clock::time_point give_up, bool& told) {
    co_await dial(*l.link, give_up, told);
    co_await l.link->connect_as(config.session, digest, l.first, l.count, l.proof, config.shuffler_key, rng);
  }

  // The round's result on `l`. A link whose connection drops first reconnects (a new handshake,
  // with backoff, until `give_up`) and sends its batch again: the shuffler takes an identical
  // batch once, and sends the result of a round that closed meanwhile again. The analyzer's link
  // sends an empty batch, which asks for that round's result.
  asio::awaitable<detail::Frame> result_of(Link& l, std::uint32_t round, std::uint32_t width,
                                           std::chrono::steady_clock::time_point give_up) {
    auto pause = std::chrono::milliseconds(50);
    bool told = false, dial_told = true;
    asio::steady_timer timer(io);
    for (;;) {
      try {
        co_return co_await l.link->receive();
      } catch (const std::system_error& e) {
        if (e.code() != Errc::peer_closed || std::chrono::steady_clock::now() + pause > give_up) throw;
      }
      if (!told) log("round " + std::to_string(round) + ": " + name(l) + " was lost; reconnecting until the deadline");
      told = true;
      timer.expires_after(pause);
      co_await timer.async_wait(asio::use_awaitable);
      pause = std::min<std::chrono::milliseconds>(2 * pause, std::chrono::seconds(1));
      const auto s = l.link->stats();
      l.earlier.frames_sent += s.frames_sent;
      l.earlier.bytes_sent += s.bytes_sent;
      l.earlier.frames_received += s.frames_received;
      l.earlier.bytes_received += s.bytes_received;
      l.link->close();
      l.link = std::make_shared<SecureLink>(tcp::socket(io), limits);
      bool again = false;
      try {
        co_await handshake(l, give_up, dial_told);
      } catch (const std::system_error& e) {
        // The shuffler not there yet (restarting, or the network down): try again until the deadline.
        const bool transient = e.code() == Errc::peer_closed || e.code() == asio::error::connection_refused ||
                               e.code() == asio::error::connection_reset;
        if (!transient || std::chrono::steady_clock::now() + pause > give_up) throw;
        again = true;
      }
      if (again) continue;
      l.link->send(FrameType::submit, round, width, l.pending_count, l.pending);
    }
  }

  // Sends each party link's batch for the round (sealed to the analyzer in ESA mode); a link all
  // of whose parties stay silent leaves the session and closes. Marks the links that await a result.
  // Every hosted party's messages in the chain's onion at once (on every core), in local order;
  // for a verifiable chain, encrypted under the round's key (each limb with fresh randomness) and
  // proved under each sender's tags (its j-th record of the round: the j-th tag).
  MessageBatch wrap_for_chain(const RoundRules& spec, const Submissions& local, std::size_t ww) {
    MessageBatch wrapped(ww);
    if (!local.messages.empty() && verifiable()) {
      std::vector<mixnet::SubmitterTag> tags(local.messages.count());
      for (const auto& slice : local.parties) {
        const auto& [li, pos] = hosted.at(slice.party);
        const mixnet::TagKey& key = tag_keys.at(links[li].identities[pos]);
        for (std::size_t j = 0; j < slice.count; ++j)
          tags.at(slice.first + j) = mixnet::submitter_tag(key, config.session, spec.round, slice.party, j);
      }
      wrapped = mixnet::to_submissions(
          mixnet::encrypt_and_prove(local.messages, knowledge_context(config, spec.round, spec.shape.delivery), tags, rng, hardware_threads()));
    } else if (!local.messages.empty()) {
      wrapped = onion::wrap(local.messages.bytes(), spec.shape.width, spec.shape.delivery, config.analyzer_key, layer_keys, config.session,
                            spec.round);
    }
    if (tamper_records) tamper_records(spec.round, wrapped);
    return wrapped;
  }

  // Link `l`'s submit payload (a count per party, then the messages in party order: wrapped for
  // the chain, sealed to the analyzer in ESA mode, or as they are), its own records noted for the receipts.
  void fill_batch(Link& l, const RoundRules& spec, const Submissions& local, const MessageBatch& wrapped, std::size_t ww,
                  const std::vector<const Submissions::Slice*>& slices, const std::vector<std::uint32_t>& counts, std::size_t total) {
    const std::size_t width = spec.shape.width;
    l.pending.assign(4 * counts.size() + total * ww, 0);
    std::uint8_t* const records = l.pending.data() + 4 * counts.size();
    // In ESA mode the link's messages are gathered in party order, then sealed in one call: the
    // seal makes the ephemeral keys of a run of records together.
    const bool sealed = !chained(spec.shape) && spec.shape.delivery == Delivery::analyzer_only;
    std::vector<std::uint8_t> plain(sealed ? total * width : 0);
    std::uint8_t* out = sealed ? plain.data() : records;
    const std::size_t stride = sealed ? width : ww;
    for (std::size_t k = 0; k < l.count; ++k) {
      store_le<std::uint32_t>(l.pending.data() + 4 * k, counts[k]);
      if (counts[k] == submit_absent) continue;
      const auto* slice = slices[k];
      const std::uint8_t* src = local.messages.data() + slice->first * width;
      if (chained(spec.shape)) {
        const std::uint8_t* from = wrapped.data() + slice->first * ww;
        std::copy(from, from + slice->count * ww, out);
        for (std::size_t m = 0; m < slice->count; ++m) l.own.push_back(std::span(from + m * ww, ww));
      } else {
        std::copy(src, src + slice->count * width, out);
      }
      out += slice->count * stride;
      counters[l.identities[k]].messages_sent += slice->count;
    }
    if (sealed) sealing::seal(plain, width, config.analyzer_key, {records, total * ww});
    l.pending_count = static_cast<std::uint32_t>(total);
  }

  void submit(const RoundRules& spec, const Submissions& local, std::size_t ww) {
    const bool onion = chained(spec.shape);
    const std::vector<char> was_in = in_session;  // who was in the session as the round began
    // Each party link's batch: a count per party (submit_absent for one that does not submit: it
    // leaves the session), then the messages in party order.
    std::vector<std::vector<const Submissions::Slice*>> slices(links.size());
    for (std::size_t i = 0; i < links.size(); ++i) slices[i].assign(links[i].count, nullptr);
    for (const auto& slice : local.parties) {
      const auto it = hosted.find(slice.party);
      if (it == hosted.end()) throw std::logic_error("party " + std::to_string(slice.party) + " is not hosted by this channel");
      slices[it->second.first][it->second.second] = &slice;
    }
    struct Batch {
      std::size_t link;
      std::vector<std::uint32_t> counts;
      std::size_t total;
    };
    std::vector<Batch> batches, leaving;
    for (std::size_t li = 0; li < links.size(); ++li) {
      auto& l = links[li];
      l.waiting = false;
      l.counts.clear();
      l.own = MessageBatch(ww);
      if (l.first == analyzer_id) {
        l.waiting = l.link->is_open();
        l.pending.assign(4, 0);  // what it sends after a reconnection: an empty batch, "this round's result"
        l.pending_count = 0;
        continue;
      }
      std::vector<std::uint32_t> counts(l.count, submit_absent);
      std::size_t total = 0;
      for (std::size_t k = 0; k < l.count; ++k) {
        const auto* slice = slices[li][k];
        const std::size_t ident = l.identities[k];
        if (slice && in_session[ident]) {
          counts[k] = static_cast<std::uint32_t>(slice->count);
          total += slice->count;
        } else {
          in_session[ident] = 0;  // silent this round: it leaves the session
        }
      }
      const bool anyone = std::any_of(counts.begin(), counts.end(), [](std::uint32_t c) { return c != submit_absent; });
      const bool took_part = onion && std::any_of(l.identities.begin(), l.identities.end(), [&](std::size_t i) { return was_in[i] != 0; });
      if (!anyone) {
        if (took_part) l.counts = counts;  // every one "absent" to the analyzer
        leaving.push_back({li, std::move(counts), 0});
        continue;
      }
      if (!l.link->is_open()) continue;
      if (took_part) l.counts = counts;
      batches.push_back({li, std::move(counts), total});
    }
    // The batches are made while the ticker still says the parties are alive; the links are used
    // again only once it has stopped.
    if (preparing) preparing(spec.round);
    {
      const MessageBatch wrapped = onion ? wrap_for_chain(spec, local, ww) : MessageBatch(ww);
      for (const auto& b : batches) fill_batch(links[b.link], spec, local, wrapped, ww, slices[b.link], b.counts, b.total);
    }
    stop_ticker();
    // A link all of whose parties leave says so (every count absent), so that the round does not
    // wait for it as for a link that was cut, and closes.
    for (const auto& b : leaving) {
      auto& l = links[b.link];
      if (!l.link->is_open()) continue;
      l.link->send(FrameType::submit, spec.round, static_cast<std::uint32_t>(ww), 0, encode_submit(b.counts, {}));
      l.link->close_after_flush();
    }
    for (const auto& b : batches) {
      auto& l = links[b.link];
      l.link->send(FrameType::submit, spec.round, static_cast<std::uint32_t>(ww), l.pending_count, l.pending);
      l.waiting = true;
    }
  }

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

  void start_ticker(std::uint32_t round) {
    if (round >= config.rounds.size()) return;
    std::vector<std::size_t> alive;
    for (std::size_t li = 0; li < links.size(); ++li) {
      const auto& l = links[li];
      if (l.first != analyzer_id && l.link->is_open() &&
          std::any_of(l.identities.begin(), l.identities.end(), [&](std::size_t i) { return in_session[i] != 0; }))
        alive.push_back(li);
    }
    if (alive.empty()) return;
    ticker_stop = false;
    const auto every = std::max<std::chrono::milliseconds>(config.deadline / 4, std::chrono::milliseconds(1));
    ticker = std::jthread([this, round, alive = std::move(alive), every] {
      bool ticking = true;
      asio::co_spawn(
          io,
          [&]() -> asio::awaitable<void> {
            for (;;) {
              // Checked on the io thread before each wait: a stop posted meanwhile finds the wait
              // registered (and cancels it) or the flag already set.
              if (ticker_stop) co_return;
              ticker_timer.expires_after(every);
              std::error_code ec;
              co_await ticker_timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
              if (ticker_stop) co_return;
              for (std::size_t li : alive)
                if (links[li].link->is_open()) links[li].link->send(FrameType::alive, round, {});
            }
          },
          [&ticking](std::exception_ptr) { ticking = false; });
      io.restart();
      while (ticking) io.run_one();
    });
  }

  void stop_ticker() {
    if (!ticker.joinable()) return;
    ticker_stop = true;
    asio::post(io, [this] { ticker_timer.cancel(); });
    ticker.join();
  }

  struct Answer {
    std::optional<detail::Frame> frame;
    std::exception_ptr error;
  };

  // The result frame of every awaiting link (none if no link awaits one), within the round's limit.
  std::optional<std::vector<Answer>> await_results(const RoundRules& spec, std::size_t ww) {
    std::vector<Answer> answers(links.size());
    bool any = false;
    const auto limit = wait_limit(&spec);
    const auto give_up = std::chrono::steady_clock::now() + limit - std::chrono::seconds(1);
    for (std::size_t i = 0; i < links.size(); ++i) {
      auto& l = links[i];
      if (!l.waiting) continue;
      any = true;
      asio::co_spawn(
          io,
          [this, &l, &answers, i, &spec, ww, give_up]() -> asio::awaitable<void> {
            answers[i].frame = co_await result_of(l, spec.round, static_cast<std::uint32_t>(ww), give_up);
          },
          [&answers, i](std::exception_ptr e) { answers[i].error = e; });
    }
    if (!any) return std::nullopt;  // every party hosted here has left and no analyzer is hosted
    run_all(limit, "round " + std::to_string(spec.round));
    return answers;
  }

  // Who submitted, who dropped and (where this process may see it) the output, from the answers:
  // checked against the round's shape, the sealed records opened by the hosted analyzer.
  // `ww` is the width of the records delivered (sealed to the analyzer in ESA mode; the chain's
  // layers are gone).
  RoundOutcome outcome_of(const RoundRules& spec, const std::vector<Answer>& answers, std::size_t ww) {
    RoundOutcome out;
    const detail::Frame* result = nullptr;
    const detail::Frame* with_output = nullptr;
    for (std::size_t i = 0; i < answers.size(); ++i) {
      auto& a = answers[i];
      if (a.error) std::rethrow_exception(a.error);
      if (!a.frame) continue;
      const auto& f = *a.frame;
      if (f.header.type == FrameType::abort)
        throw_error(Errc::session_aborted, std::string(f.payload.begin(), f.payload.end()));
      if (f.header.type != FrameType::result || f.header.round != spec.round)
        throw_error(Errc::protocol_violation, "round " + std::to_string(spec.round) + ": the shuffler sent an unexpected frame");
      if (!result) result = &f;
      if (f.header.count > 0 && !with_output) with_output = &f;
      if (i == analyzer) with_output = &f;
    }
    if (!result) throw_error(Errc::protocol_violation, "round " + std::to_string(spec.round) + ": no result from the shuffler");
    // The analyzer's result (and every link's in MPC mode) lists every submitter and dropout. In ESA
    // mode a party link's result names only that link's parties (its traffic does not grow with n):
    // a process hosting only parties learns its own parties' fate, which is all its round driver needs.
    const detail::Frame* primary = analyzer && answers[*analyzer].frame ? &*answers[*analyzer].frame : result;
    const ResultPayload r = decode_result(primary->header, primary->payload, config.parties, limits);
    out.submitted = r.submitted;
    out.dropped = r.dropped;
    out.messages = static_cast<std::size_t>(r.messages);
    if (!analyzer && spec.shape.delivery == Delivery::analyzer_only) own_parties_fate(spec, answers, out);
    for (std::size_t i = 0; i < answers.size(); ++i) {
      if (!answers[i].frame) continue;
      for (std::size_t ident : links[i].identities) {
        auto& c = counters[ident];
        ++c.rounds;
        c.messages_received += answers[i].frame->header.count;
      }
    }
    const bool delivered = spec.shape.delivery == Delivery::all_parties || analyzer.has_value();
    if (delivered && verifiable() && chained(spec.shape)) open_verifiable(spec, r, ww, out);
    else if (delivered && with_output) open_delivered(spec, *with_output, with_output == primary, r, ww, out);
    else if (delivered && r.messages == 0) out.output = MessageBatch(spec.shape.width);
    return out;
  }

  // In ESA mode a process hosting only parties learns its own parties' fate from their links' results.
  void own_parties_fate(const RoundRules& spec, const std::vector<Answer>& answers, RoundOutcome& out) const {
    out.submitted.clear();
    for (std::size_t i = 0; i < answers.size(); ++i) {
      if (!answers[i].frame) continue;
      const auto& l = links[i];
      const ResultPayload own = decode_result(answers[i].frame->header, answers[i].frame->payload, config.parties, limits);
      for (PartyId id : own.submitted) {
        if (id < l.first || id - l.first >= l.count)
          throw_error(Errc::protocol_violation, "round " + std::to_string(spec.round) + ": the shuffler's result for " + name(l) +
                                                    " names party " + std::to_string(id));
        out.submitted.push_back(id);
      }
    }
    std::sort(out.submitted.begin(), out.submitted.end());
    out.dropped.clear();
    for (const auto& [id, where] : hosted)
      if (!std::binary_search(out.submitted.begin(), out.submitted.end(), id)) out.dropped.push_back(id);
  }

  // A verifiable chain's round: no records travel, the evidence does. Every proof is checked here
  // before anything is decrypted.
  // `r`: the primary result, decoded (it carries the evidence).
  void open_verifiable(const RoundRules& spec, const ResultPayload& r, std::size_t ww, RoundOutcome& out) {
    if (r.evidence.empty())
      throw_error(Errc::protocol_violation, "round " + std::to_string(spec.round) + ": the result carries no evidence of the verifiable mix");
    // The parties' own check, in a round they receive (in an analyzer-only round only a simulation
    // hosts parties beside the analyzer): every link's records of this round.
    MessageBatch own(ww);
    for (const auto& l : links) own.append(l.own);
    own = ciphertexts_of(own);  // what the entry committed to: without the proofs
    auto rt = open_evidence(config, spec.round, spec.shape, r.evidence, analyzer_identity ? &identities[*analyzer_identity].keys : nullptr,
                            static_cast<std::size_t>(r.messages), hardware_threads(),
                            spec.shape.delivery == Delivery::all_parties ? &own : nullptr, &out.discarded);
    // The result counts every record submitted; those not in the evidence the entry did not admit.
    const std::size_t refused = static_cast<std::size_t>(r.messages) - rt.input.size();
    if (out.discarded > 0)
      log("round " + std::to_string(spec.round) + ": " + std::to_string(out.discarded) +
          " record(s) did not decrypt to a record of the round's width and were discarded");
    if (refused > 0)
      log("round " + std::to_string(spec.round) + ": the entry did not admit " + std::to_string(refused) +
          " record(s) (not ElGamal ciphertexts, without a valid proof of plaintext knowledge by their sender, or copies)");
    out.discarded += refused;
    out.output = rt.records;
    transcript.rounds.push_back(std::move(rt));
  }

  // The records a result frame delivers: checked against the chain's reports (with a chain), opened
  // by the hosted analyzer (ESA mode) or taken as they are (MPC mode). `r`: the primary result,
  // decoded; `frame` is decoded again only when it is another link's.
  void open_delivered(const RoundRules& spec, const detail::Frame& frame, bool frame_is_primary, const ResultPayload& r, std::size_t ww,
                      RoundOutcome& out) {
    const std::size_t width = spec.shape.width;
    const bool sealed = spec.shape.delivery == Delivery::analyzer_only;
    std::optional<ResultPayload> other;
    if (!frame_is_primary) other = decode_result(frame.header, frame.payload, config.parties, limits);
    const ResultPayload& o = other ? *other : r;
    if (frame.header.width != ww || o.messages != r.messages || frame.header.count != r.messages)
      throw_error(Errc::protocol_violation, "round " + std::to_string(spec.round) + ": the output does not match the round's shape");
    const std::span<const std::uint8_t> records(o.output.data(), static_cast<std::size_t>(r.messages) * ww);
    // The records as delivered, copied once where they are needed whole: checked against the
    // chain's reports, and the output in MPC mode (sealed records are opened from the frame).
    std::optional<MessageBatch> delivered;
    if (chained(spec.shape) || !sealed)
      delivered = MessageBatch::from_bytes(ww, std::vector<std::uint8_t>(records.begin(), records.end()));
    if (chained(spec.shape)) {
      // Every server signed what it received and sent: the chain must lead to these records.
      auto reports = decode_reports(o.reports);
      if (auto fault = verify_chain(reports, signers_of(config.mix_chain), config.session, spec.round, *delivered))
        throw_error(Errc::protocol_violation, "round " + std::to_string(spec.round) + ": the mix chain's reports do not hold: " + *fault);
      // What a hop refused (records that did not open, copies) its signed report counts: discarded.
      for (const auto& rep : reports) out.discarded += static_cast<std::size_t>(rep.not_opened + rep.duplicates);
      hop_reports[spec.round] = std::move(reports);
    }
    if (sealed) {
      auto opened = sealing::open(records, width, identities[*analyzer_identity].keys);
      if (opened.discarded > 0)
        log("round " + std::to_string(spec.round) + ": " + std::to_string(opened.discarded) +
            " message(s) were not sealed to this analyzer and were discarded");
      out.discarded += opened.discarded;
      out.output = std::move(opened.messages);
    } else {
      out.output = std::move(*delivered);
    }
  }

  // The parties' side of receipts, in a round whose records crossed the chain: for each party link
  // that took part, what its parties make of the result (its receipt checked against the entry's
  // signed commitment, its parties counted as submitted); in an analyzer-only round the verdicts go
  // to the analyzer on links of their own. A party that submitted and got no result, or an abort,
  // complains too (to the analyzer; the caller then reports the shuffler's own words). Throws
  // std::system_error(protocol_violation) naming the entry and the party when a result frame gives
  // a party cause to complain (after the complaint is sent).
  void check_receipts(const RoundRules& spec, const std::vector<Answer>& answers) {
    if (!chained(spec.shape)) return;
    const std::string round = "round " + std::to_string(spec.round);
    std::vector<std::pair<std::size_t, VerdictPayload>> said;  // each party link's verdict
    std::string first_fault;
    for (std::size_t i = 0; i < links.size(); ++i) {
      const auto& l = links[i];
      if (l.first == analyzer_id || l.counts.empty()) continue;
      VerdictPayload v;
      v.parties.assign(l.count, Verdict::absent);
      const bool submitted = std::any_of(l.counts.begin(), l.counts.end(), [](std::uint32_t c) { return c != submit_absent; });
      std::string fault;  // what the link's submitting parties complain of
      std::vector<PartyId> listed;
      const bool is_result = !answers[i].error && answers[i].frame && answers[i].frame->header.type == FrameType::result &&
                             answers[i].frame->header.round == spec.round;
      bool quiet = false;  // a complaint the caller reports in the shuffler's own words
      if (!submitted) {
      } else if (!is_result) {
        if (spec.shape.delivery == Delivery::all_parties) continue;  // the output is the parties' own: nothing to refuse
        quiet = true;
        const auto& f = answers[i].frame;
        if (answers[i].error) {
          try {
            std::rethrow_exception(answers[i].error);
          } catch (const std::exception& e) {
            fault = "sent no result for the records it took (" + std::string(e.what()) + ")";
          }
        } else {
          fault = f && f->header.type == FrameType::abort
                      ? "ended the round for it, though it submitted (the shuffler said: " + std::string(f->payload.begin(), f->payload.end()) + ")"
                      : "sent no result for the records it took";
        }
      } else {
        const ResultPayload r = decode_result(answers[i].frame->header, answers[i].frame->payload, config.parties, limits);
        listed = r.submitted;
        try {
          const Receipt receipt = decode_receipt(r.receipt, l.own.count());
          std::string why;
          const auto root = committed_root(config, spec.round, spec.shape.delivery, receipt, why);
          // A verifiable chain's entry admits only well-formed ciphertexts with a valid proof
          // (admit_records): a record of this process's that is not one was sent so (tests send
          // such records on purpose). Its receipt covers the ciphertexts, without their proofs.
          std::optional<std::vector<char>> refused;  // worked out only if the receipt calls a record missing
          const auto refusable = [&](std::size_t k) {
            if (!refused) refused = refusable_records(l.own, knowledge_context(config, spec.round, spec.shape.delivery), hardware_threads());
            return (*refused)[k] != 0;
          };
          const MessageBatch mine = verifiable() ? ciphertexts_of(l.own) : l.own;
          if (root) why = receipt_fault(receipt, mine.width(), mine.bytes(), *root, verifiable() ? std::function<bool(std::size_t)>(refusable) : nullptr);
          if (!why.empty()) fault = "gave a receipt that does not hold: " + why;
          else v.root = *root;
        } catch (const std::system_error& e) {
          fault = "gave no receipt that parses (" + std::string(e.what()) + ")";
        }
      }
      for (std::size_t k = 0; k < l.count; ++k) {
        if (l.counts[k] == submit_absent) continue;
        const PartyId id = l.first + static_cast<PartyId>(k);
        std::string why = fault;
        if (why.empty() && !std::binary_search(listed.begin(), listed.end(), id)) why = "counted it as dropped, though it submitted";
        v.parties[k] = why.empty() ? Verdict::confirmed : Verdict::complaint;
        if (why.empty()) continue;
        if (v.reason.empty()) v.reason = why + " (party " + std::to_string(id) + ")";
        if (first_fault.empty() && !quiet) first_fault = round + ": the chain's entry (the shuffler) " + why + " (party " + std::to_string(id) + ")";
      }
      said.emplace_back(i, std::move(v));
    }
    const bool to_analyzer = spec.shape.delivery == Delivery::analyzer_only && !analyzer_identity;
    if (to_analyzer) send_verdicts(spec.round, said);
    if (!first_fault.empty())
      throw_error(Errc::protocol_violation,
                  first_fault + (to_analyzer ? ": complaint sent to the analyzer, which outputs nothing for the round"
                                 : spec.shape.delivery == Delivery::analyzer_only ? ": the analyzer here outputs nothing for the round"
                                                                                   : ": the round's output reached every party already"));
  }

  // Each link's verdict to the analyzer, on a connection of its own (authenticated with the
  // parties' keys against the analyzer's), within 10 s. A verdict that cannot be delivered is the
  // analyzer's to miss: it then refuses the round (a confirmation it waits for) or counts the party
  // as gone; this process says so on its log.
  void send_verdicts(std::uint32_t round, const std::vector<std::pair<std::size_t, VerdictPayload>>& verdicts) {
    if (verdicts.empty() || !analyzer_endpoints) return;
    std::vector<std::shared_ptr<SecureLink>> out;
    std::string failed;
    for (const auto& [i, v] : verdicts) {
      auto link = std::make_shared<SecureLink>(tcp::socket(io), limits);
      link->set_peer_name("the analyzer");
      out.push_back(link);
      const Link& l = links[i];
      asio::co_spawn(
          io,
          [this, link, &l, &v, round]() -> asio::awaitable<void> {
            co_await asio::async_connect(link->socket(), *analyzer_endpoints, asio::use_awaitable);
            co_await link->connect_as(config.session, digest, l.first, l.count, l.verdict_proof, config.analyzer_key, rng);
            link->send(FrameType::verdict, round, 0, l.count, encode_verdict(v));
            link->close_after_flush();
          },
          [&failed, &l](std::exception_ptr e) {
            if (!e || !failed.empty()) return;
            try {
              std::rethrow_exception(e);
            } catch (const std::exception& x) {
              failed = name(l) + ": " + x.what();
            }
          });
    }
    io.restart();
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!io.stopped() && std::chrono::steady_clock::now() < end) io.run_for(end - std::chrono::steady_clock::now());
    if (!io.stopped()) {
      for (auto& link : out) link->close();
      io.restart();
      io.poll();
      if (failed.empty()) failed = "no answer within 10 s";
    }
    if (!failed.empty())
      log("round " + std::to_string(round) + ": a verdict could not reach the analyzer at " + analyzer_where + " (" + failed +
          "); without a party's confirmation the analyzer refuses the round");
  }

  // The analyzer's side, in an analyzer-only round whose records crossed the chain: the round stands
  // only when every party the entry counts as submitted (and not hosted here, whose receipts were
  // checked above) confirms the batch the analyzer verified, and no party complains. Throws
  // std::system_error(protocol_violation) naming the party otherwise.
  void await_verdicts(const RoundRules& spec, const RoundOutcome& out) {
    if (!verdicts || !verdict_round(spec.shape)) return;
    detail::VerdictBook::Root root{};
    if (verifiable()) {
      root = mixnet::input_root(transcript.rounds.back().input);
    } else {
      const auto it = hop_reports.find(spec.round);
      if (it == hop_reports.end() || it->second.empty()) return;
      root = it->second.front().received;
    }
    std::vector<PartyId> confirm, dropped;
    for (PartyId p : out.submitted)
      if (!hosted.count(p)) confirm.push_back(p);
    for (PartyId p : out.dropped)
      if (!hosted.count(p)) dropped.push_back(p);
    const auto d = verdicts->await(spec.round, root, confirm, dropped, std::chrono::steady_clock::now() + wait_limit(&spec));
    if (d.kind == detail::VerdictBook::Decision::Kind::refuse)
      throw_error(Errc::protocol_violation, "round " + std::to_string(spec.round) + ": " + d.why +
                                                ": the analyzer refuses the round and outputs nothing for it");
    if (d.silent > 0)
      log("round " + std::to_string(spec.round) + ": " + std::to_string(d.silent) +
          " part" + (d.silent == 1 ? "y" : "ies") + " counted as dropped sent no verdict within the deadline and count as gone");
  }

  // Parties hosted here that were dropped leave for good; a link none of whose parties remain closes.
  void leave(const std::vector<PartyId>& dropped) {
    for (PartyId d : dropped)
      if (auto it = hosted.find(d); it != hosted.end()) in_session[links[it->second.first].identities[it->second.second]] = 0;
    for (auto& l : links) {
      if (l.first == analyzer_id) continue;
      if (std::none_of(l.identities.begin(), l.identities.end(), [&](std::size_t i) { return in_session[i] != 0; })) l.link->close();
    }
  }

  // Checks every identity against the config: by party id (analyzer_id for the analyzer), its index.
  static std::map<PartyId, std::size_t> check_identities(const SessionConfig& config, const std::vector<Identity>& identities) {
    std::map<PartyId, std::size_t> by_id;
    for (std::size_t i = 0; i < identities.size(); ++i) {
      const auto& ident = identities[i];
      if (ident.id != analyzer_id) {
        if (ident.id >= config.parties)
          throw std::invalid_argument("party id " + std::to_string(ident.id) + " is outside [0, " + std::to_string(config.parties) + ")");
        if (config.party_keys[ident.id] != ident.keys.public_key())
          throw std::invalid_argument("the key given for party " + std::to_string(ident.id) + " is not its key in the session config");
      } else if (config.analyzer_key != ident.keys.public_key()) {
        throw std::invalid_argument("the analyzer key given is not the analyzer_key of the session config");
      }
      if (!by_id.emplace(ident.id, i).second) throw std::invalid_argument("identity " + std::to_string(ident.id) + " given twice");
    }
    return by_id;
  }

  // Groups the parties into links of consecutive ids (at most `capacity` each), the analyzer's last,
  // each with its proof of its identities to the shuffler.
  void group_links(const std::map<PartyId, std::size_t>& by_id, std::size_t capacity) {
    for (const auto& [id, index] : by_id) {
      if (id == analyzer_id) {
        analyzer_identity = index;
        continue;
      }
      const bool extends = !links.empty() && links.back().first != analyzer_id && links.back().first + links.back().count == id &&
                           links.back().count < capacity;
      if (!extends) {
        Link l;
        l.first = id;
        l.count = 0;
        links.push_back(std::move(l));
      }
      auto& l = links.back();
      hosted[id] = {links.size() - 1, l.count};
      l.identities.push_back(index);
      ++l.count;
    }
    if (analyzer_identity) {
      Link l;
      l.first = analyzer_id;
      l.identities.push_back(*analyzer_identity);
      analyzer = links.size();
      links.push_back(std::move(l));
    }
    if (config.mix == MixKind::verifiable) tag_keys.assign(identities.size(), mixnet::TagKey{});
    for (auto& l : links) {
      l.proof = proof_for(l, config.shuffler_key, config.mix == MixKind::verifiable ? &tag_keys : nullptr);
      l.link = std::make_shared<SecureLink>(tcp::socket(io), limits);
    }
  }

  // Receipts and verdicts: in a session with analyzer-only rounds over a chain, the parties' verdicts
  // reach the analyzer on links of their own (docs/mix-chain.md, "Receipts and complaints").
  void set_up_verdicts(const TcpChannelOptions& options, tcp::resolver& resolver) {
    const bool needs_verdicts = takes_verdicts(config);
    if (needs_verdicts && analyzer_identity && hosted.size() < config.parties) {
      if (options.verdict_socket < 0 && options.verdict_listen.empty())
        throw std::invalid_argument("this session's analyzer-only rounds cross a mix chain: the analyzer takes the parties' verdicts on a "
                                    "socket of its own (analyzer --listen HOST:PORT)");
      std::string vhost;
      std::uint16_t vport = 0;
      if (options.verdict_socket < 0) std::tie(vhost, vport) = split_address(options.verdict_listen, "--listen");
      verdicts = std::make_unique<detail::VerdictServer>(config, identities[*analyzer_identity].keys, options.verdict_socket, vhost, vport,
                                                         log_fn);
    }
    if (needs_verdicts && !analyzer_identity && !hosted.empty()) {
      if (options.analyzer_address.empty())
        throw std::invalid_argument("this session's analyzer-only rounds cross a mix chain: the parties send their verdicts to the analyzer "
                                    "directly (party --analyzer HOST:PORT, the address the analyzer listens on)");
      const auto [ahost, aport] = split_address(options.analyzer_address, "--analyzer");
      if (aport == 0) throw std::invalid_argument("--analyzer needs the port the analyzer listens on, got " + options.analyzer_address);
      analyzer_endpoints = resolver.resolve(ahost, std::to_string(aport));
      analyzer_where = options.analyzer_address;
      for (auto& l : links)
        if (l.first != analyzer_id) l.verdict_proof = proof_for(l, config.analyzer_key);
    }
  }

  // Connects and authenticates every link, at most `handshakes_at_once` at a time: the shuffler holds
  // only so many unauthenticated connections (ShufflerOptions::max_unauthenticated) before it closes
  // the oldest. A party started before the shuffler listens retries until the session's deadline.
  void connect_all() {
    std::exception_ptr first_error;
    std::size_t next = 0;
    const auto give_up = std::chrono::steady_clock::now() + config.deadline;
    bool told = false;
    const std::size_t workers = std::min(handshakes_at_once, links.size());
    for (std::size_t w = 0; w < workers; ++w) {
      asio::co_spawn(
          io,
          [this, &next, &first_error, give_up, &told]() -> asio::awaitable<void> {
            while (next < links.size() && !first_error) {
              Link& l = links[next++];
              co_await handshake(l, give_up, told);
            }
          },
          [&first_error](std::exception_ptr e) {
            if (e && !first_error) first_error = e;
          });
    }
    run_all(wait_limit(nullptr), "handshake");
    if (first_error) {
      for (auto& l : links) l.link->close();
      std::rethrow_exception(first_error);
    }
  }
};

TcpChannel::TcpChannel(SessionConfig session, std::vector<Identity> identities, const std::string& host, std::uint16_t port, Logger log,
                       TcpChannelOptions options)
    : impl_(std::make_unique<Impl>()) {
  auto& im = *impl_;
  im.config = std::move(session);
  const SessionConfig& config = im.config;
  im.digest = config.digest();
  im.limits = config.limits();
  im.log_fn = std::move(log);
  ensure_sodium();
  tcp::resolver resolver(im.io);
  im.endpoints = resolver.resolve(host, std::to_string(port));
  im.where = host + ":" + std::to_string(port);
  const auto by_id = Impl::check_identities(config, identities);
  for (const auto& m : config.mix_chain) im.layer_keys.push_back(m.key);
  im.transcript.session = config.session;
  im.transcript.hops = config.mix_chain.size();
  im.transcript.signers = signers_of(config.mix_chain);
  im.identities = std::move(identities);
  im.counters.resize(im.identities.size());
  im.in_session.assign(im.identities.size(), 1);
  im.group_links(by_id, options.share_links ? link_capacity(config) : 1);
  im.tamper_records = options.tamper_records;
  im.preparing = options.preparing;
  im.set_up_verdicts(options, resolver);
  // The parties' keys were for checking the hosted identities (and the verdict server's tree, made
  // above); nothing later reads them, so the channel keeps none of them (32 MB at 10^6 parties, in
  // every party process, which moves its config in).
  std::vector<PublicKey>().swap(im.config.party_keys);
  im.connect_all();
  im.start_ticker(0);
}

TcpChannel::~TcpChannel() {
  impl_->stop_ticker();
  for (auto& l : impl_->links) l.link->close();
}

RoundOutcome TcpChannel::exchange(const RoundRules& spec, Submissions local) {
  auto& im = *impl_;
  // The ticker runs until the batches are made (submit stops it); stopped too on any way out before.
  struct StopTicker {
    Impl* im;
    ~StopTicker() {
      if (im) im->stop_ticker();
    }
  } stop_ticker{&im};
  const RoundShape wire = wire_shape(spec.shape, im.chained(spec.shape) ? im.layer_keys.size() : 0, im.config.mix);
  const std::size_t ww = wire.width;
  if (!im.config.rounds.empty()) {  // the shuffler enforces the config's shapes: a different one would be refused there
    if (spec.round >= im.config.rounds.size() || im.config.rounds[spec.round] != wire)
      throw std::invalid_argument("round " + std::to_string(spec.round) + ": the protocol's round shape is not the session config's (check_rounds)");
  }
  im.submit(spec, local, ww);
  stop_ticker.im = nullptr;  // stopped by submit; started again below, for the next round
  std::optional<std::vector<Impl::Answer>> answers;
  try {
    answers = im.await_results(spec, ww);
  } catch (const std::system_error& e) {
    // No result at all: the parties that submitted through the chain complain of it (to the analyzer).
    std::vector<Impl::Answer> failed(im.links.size());
    for (auto& a : failed) a.error = std::current_exception();
    im.check_receipts(spec, failed);
    throw;
  }
  if (!answers) {  // every party hosted here has left and no analyzer is hosted
    RoundOutcome out;
    for (const auto& [id, where] : im.hosted) out.dropped.push_back(id);
    im.check_receipts(spec, std::vector<Impl::Answer>(im.links.size()));  // their "absent" verdicts
    return out;
  }
  // The session's last result arrived: the shuffler need hold it for a reconnection no longer. Said
  // before the records are opened and checked, which at 10^6 parties takes the analyzer longer
  // than the shuffler waits for the word.
  if (spec.round + 1 == im.config.rounds.size()) im.confirm_last(spec.round);
  im.check_receipts(spec, *answers);
  RoundOutcome out = im.outcome_of(spec, *answers, im.verifiable() ? ww : wire_width(spec.shape.width, spec.shape.delivery));
  im.await_verdicts(spec, out);
  im.leave(out.dropped);
  im.start_ticker(spec.round + 1);  // while the protocol computes the next round's messages
  return out;
}

std::map<PartyId, LinkCounters> TcpChannel::counters() const {
  std::map<PartyId, LinkCounters> out;
  for (const auto& l : impl_->links) {
    const auto& now = l.link->stats();
    const std::uint64_t sent = l.earlier.bytes_sent + now.bytes_sent;
    const std::uint64_t received = l.earlier.bytes_received + now.bytes_received;
    const std::uint64_t k = l.identities.size();
    for (std::size_t i : l.identities) {
      LinkCounters c = impl_->counters[i];
      c.bytes_sent = sent / k;
      c.bytes_received = received / k;
      out[impl_->identities[i].id] = c;
    }
  }
  return out;
}

std::size_t TcpChannel::connections() const { return impl_->connections; }

std::uint16_t TcpChannel::verdict_port() const { return impl_->verdicts ? impl_->verdicts->port() : 0; }

const std::map<std::uint32_t, std::vector<HopReport>>& TcpChannel::hop_reports() const { return impl_->hop_reports; }

const mixnet::Transcript& TcpChannel::transcript() const { return impl_->transcript; }

}  // namespace shufflempc::net
