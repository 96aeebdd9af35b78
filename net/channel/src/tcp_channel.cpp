// TcpChannel: the client side of the TCP transport. The hosted parties share links (consecutive
// ids, up to link_capacity() per link), the analyzer has its own; all are driven by one io_context
// in the calling thread. This file: the links (grouping, connecting, authenticating) and the
// channel's calls; tcp_channel_impl.hpp says where the rest lives.
#include <sodium.h>

#include <algorithm>
#include <exception>
#include <optional>
#include <thread>

#include "tcp_channel_impl.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/trace.hpp"

namespace shufflempc::net {

namespace {
// Links of one TcpChannel that handshake concurrently.
constexpr std::size_t handshakes_at_once = 64;
}  // namespace

detail::IdentityProof TcpChannel::Impl::proof_for(const Link& l, const PublicKey& peer, std::vector<mixnet::TagKey>* tags) const {
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

void TcpChannel::Impl::run_all(std::chrono::milliseconds limit, const std::string& what) {
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

asio::awaitable<void> TcpChannel::Impl::dial(SecureLink& link, std::chrono::steady_clock::time_point give_up, bool& told) {
  auto pause = std::chrono::milliseconds(50);
  asio::steady_timer timer(io);
  for (;;) {
    std::error_code ec;
    co_await asio::async_connect(link.socket(), endpoints, asio::redirect_error(asio::use_awaitable, ec));
    if (!ec) break;
    // Refused: nothing listens yet (or any more). Reset: a shuffler killed, or closing its port,
    // while this connection waited in its backlog. Either way it may listen again.
    const bool transient = ec == asio::error::connection_refused || ec == asio::error::connection_reset;
    if (!transient || std::chrono::steady_clock::now() + pause > give_up)
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

void TcpChannel::Impl::replace_link(Link& l) {
  const auto& s = l.link->stats();
  l.earlier.frames_sent += s.frames_sent;
  l.earlier.bytes_sent += s.bytes_sent;
  l.earlier.frames_received += s.frames_received;
  l.earlier.bytes_received += s.bytes_received;
  l.link->close();
  l.link = std::make_shared<SecureLink>(tcp::socket(io), limits);
}

asio::awaitable<void> TcpChannel::Impl::handshake(Link& l, std::chrono::steady_clock::time_point give_up, bool& told) {
  // A shuffler killed (or restarting) while a handshake is in flight closes or resets that
  // connection before the handshake completes, as one that refuses the hello or the keys does: the
  // handshake is tried again on a new connection, which a dead shuffler refuses (dial waits for it
  // to listen again) and a restarted one answers. A shuffler that refuses closes every attempt:
  // after the third, its close is taken for the refusal it is. Nothing but the handshake is sent
  // before it completes, so a retry repeats nothing.
  constexpr int attempts = 3;
  auto pause = std::chrono::milliseconds(50);
  for (int attempt = 1;; ++attempt) {
    co_await dial(*l.link, give_up, told);
    std::exception_ptr failed;
    try {
      co_await l.link->connect_as(config.session, digest, l.first, l.count, l.proof, config.shuffler_key, rng);
    } catch (const std::system_error& e) {
      const bool cut = e.code() == Errc::unauthenticated || e.code() == Errc::peer_closed || e.code() == asio::error::connection_reset ||
                       e.code() == asio::error::broken_pipe;
      if (!cut || attempt == attempts || std::chrono::steady_clock::now() + pause > give_up) throw;
      failed = std::current_exception();
    }
    if (!failed) break;
    replace_link(l);
    asio::steady_timer timer(io, pause);
    co_await timer.async_wait(asio::use_awaitable);
    pause *= 2;
  }
  if (frame_tap) l.link->set_tap(frame_tap);
}

std::map<PartyId, std::size_t> TcpChannel::Impl::check_identities(const SessionConfig& config, const std::vector<Identity>& identities) {
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

void TcpChannel::Impl::group_links(const std::map<PartyId, std::size_t>& by_id, std::size_t capacity) {
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

void TcpChannel::Impl::set_up_verdicts(const TcpChannelOptions& options, tcp::resolver& resolver) {
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

void TcpChannel::Impl::connect_all() {
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
  im.frame_tap = options.frame_tap;
  if (options.leave_after_receipt && !config.mix_chain.empty())
    throw std::invalid_argument("leaving once the admission receipt came is for a session without a chain of mix servers: through a "
                                "chain each party checks the entry's receipt of the whole round");
  im.leave_after_receipt = options.leave_after_receipt;
  if (options.keep_result || !options.kept_results.empty()) {
    if (!im.analyzer || !im.hosted.empty() || !config.mix_chain.empty())
      throw std::invalid_argument("keeping the delivered rounds is for a channel hosting the analyzer alone, in a session without a "
                                  "chain of mix servers");
    im.keep_result = std::move(options.keep_result);
    im.kept_results = std::move(options.kept_results);
  }
  im.set_up_verdicts(options, resolver);
  // The parties' keys were for checking the hosted identities (and the verdict server's tree, made
  // above); nothing later reads them, so the channel keeps none of them (32 MB at 10^6 parties, in
  // every party process, which moves its config in).
  std::vector<PublicKey>().swap(im.config.party_keys);
  // An analyzer that kept every round's result has nothing to ask of the shuffler.
  bool all_kept = !config.rounds.empty();
  for (std::uint32_t r = 0; r < config.rounds.size(); ++r) all_kept = all_kept && im.kept_results.count(r) > 0;
  if (!all_kept) im.connect_all();
  im.start_ticker(0);
}

TcpChannel::~TcpChannel() {
  impl_->stop_ticker();
  for (auto& l : impl_->links) l.link->close();
}

RoundOutcome TcpChannel::exchange(const RoundRules& spec, Submissions local) {
  trace::point("TcpChannel::exchange");
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
  if (const auto kept = im.kept_results.find(spec.round); kept != im.kept_results.end()) {
    // Delivered before, kept before it was confirmed: opened and checked as it was then.
    std::vector<Impl::Answer> answers(im.links.size());
    answers[*im.analyzer].frame = im.kept_frame(spec.round, kept->second);
    im.log("round " + std::to_string(spec.round) + ": its result, kept in the state directory before it was confirmed, is opened again; "
           "the shuffler is not asked for it");
    RoundOutcome out = im.outcome_of(spec, answers, wire_width(spec.shape.width, spec.shape.delivery));
    im.start_ticker(spec.round + 1);
    return out;
  }
  im.submit(spec, local, ww);
  stop_ticker.im = nullptr;  // stopped by submit; started again below, for the next round
  // The parties hosted here have submitted: on every way out of the round from here, whatever the
  // exception, they say what they make of it (check_receipts), a complaint unless the result holds.
  std::optional<std::vector<Impl::Answer>> answers;
  try {
    answers = im.await_results(spec, ww);
    if (!answers) {  // every party hosted here has left and no analyzer is hosted
      RoundOutcome out;
      for (const auto& [id, where] : im.hosted) out.dropped.push_back(id);
      im.check_receipts(spec, std::vector<Impl::Answer>(im.links.size()));  // their "absent" verdicts
      return out;
    }
    // The links that left with their receipts go now (their batches stand); they confirm nothing.
    for (std::size_t i = 0; i < answers->size(); ++i)
      if ((*answers)[i].frame && (*answers)[i].frame->header.type == FrameType::admitted) im.links[i].link->close_after_flush();
    // The session's last result arrived: the shuffler need hold it for a reconnection no longer. Said
    // before the records are opened and checked, which at 10^6 parties takes the analyzer longer
    // than the shuffler waits for the word.
    // An analyzer with a state directory keeps the result before it says anything of it: a crash
    // after the confirmation opens the kept result again, never a second delivery.
    if (im.keep_result && im.analyzer) {
      const auto& kept = (*answers)[*im.analyzer].frame;
      if (kept && kept->header.type == FrameType::result) im.keep_result(spec.round, Impl::kept_bytes(*kept));
    }
    if (spec.round + 1 == im.config.rounds.size()) im.confirm_last(spec.round);
    im.check_receipts(spec, *answers);
  } catch (...) {
    if (im.judged != spec.round) {  // no result at all, or none that could be read: a complaint of the entry
      std::vector<Impl::Answer> failed(im.links.size());
      for (auto& a : failed) a.error = std::current_exception();
      try {
        im.check_receipts(spec, failed);
      } catch (...) {
        // The complaint went out; the error that ended the round is the one to report.
      }
    }
    throw;
  }
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

std::vector<AdmissionReceipt> TcpChannel::admission_receipts() const {
  std::vector<AdmissionReceipt> out;
  for (const auto& l : impl_->links)
    if (l.admitted)
      out.push_back({.batch = Impl::sent_batch(l, l.admitted->round, l.admitted->width), .digest = l.admitted->digest,
                     .signature = l.admitted->signature});
  return out;
}

const std::map<std::uint32_t, std::vector<HopReport>>& TcpChannel::hop_reports() const { return impl_->hop_reports; }

const std::map<std::uint32_t, CommittedBatch>& TcpChannel::batch_commitments() const { return impl_->batch_commitments; }

const mixnet::Transcript& TcpChannel::transcript() const { return impl_->transcript; }

}  // namespace shufflempc::net
