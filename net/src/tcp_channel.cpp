// TcpChannel: the client side of the TCP transport, one link per hosted identity, all driven by
// one io_context in the calling thread.
#include <sodium.h>

#include <algorithm>
#include <exception>
#include <optional>

#include "shufflempc/error.hpp"
#include "shufflempc/net/detail/link.hpp"
#include "shufflempc/net/tcp.hpp"

namespace shufflempc::net {

namespace {
// Links of one TcpChannel that handshake concurrently.
constexpr std::size_t handshakes_at_once = 64;
}  // namespace

using detail::SecureLink;
using detail::tcp;

struct TcpChannel::Impl {
  struct Link {
    Identity identity;
    std::shared_ptr<SecureLink> link;
    LinkCounters counters;
    bool submitted = false;  // in the current round
  };

  asio::io_context io;
  SessionConfig config;
  Limits limits;
  Logger log_fn;
  std::vector<Link> links;
  std::optional<std::size_t> analyzer;  // index in links
  std::map<PartyId, std::size_t> index;

  std::chrono::milliseconds wait_limit(const RoundRules* spec) const {
    const auto d = spec && spec->deadline.count() > 0 ? spec->deadline : config.deadline;
    return 2 * d + std::chrono::seconds(5);
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
};

TcpChannel::TcpChannel(const SessionConfig& config, std::vector<Identity> identities, const std::string& host,
                       std::uint16_t port, Logger log)
    : impl_(std::make_unique<Impl>()) {
  auto& im = *impl_;
  im.config = config;
  im.limits = config.limits();
  im.log_fn = std::move(log);
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to initialise");
  tcp::resolver resolver(im.io);
  const auto endpoints = resolver.resolve(host, std::to_string(port));
  SystemRng rng;
  for (auto& ident : identities) {
    if (ident.id != analyzer_id) {
      if (ident.id >= config.parties) throw std::invalid_argument("party id " + std::to_string(ident.id) + " is outside [0, " + std::to_string(config.parties) + ")");
      if (config.party_keys[ident.id] != ident.keys.public_key())
        throw std::invalid_argument("the key given for party " + std::to_string(ident.id) + " is not its key in the session config");
    } else if (config.analyzer_key != ident.keys.public_key()) {
      throw std::invalid_argument("the analyzer key given is not the analyzer_key of the session config");
    }
    if (im.index.count(ident.id)) throw std::invalid_argument("identity " + std::to_string(ident.id) + " given twice");
    im.index[ident.id] = im.links.size();
    if (ident.id == analyzer_id) im.analyzer = im.links.size();
    Impl::Link l;
    l.identity = std::move(ident);
    l.link = std::make_shared<SecureLink>(tcp::socket(im.io), im.limits);
    im.links.push_back(std::move(l));
  }
  // At most `handshakes_at_once` links handshake at a time: the shuffler holds only so many
  // unauthenticated connections (ShufflerOptions::max_unauthenticated) before it closes the oldest.
  std::exception_ptr first_error;
  std::size_t next = 0;
  const ConfigDigest digest = im.config.digest();
  const std::size_t workers = std::min(handshakes_at_once, im.links.size());
  // A party started before the shuffler listens retries, with a doubling pause (50 ms up to 1 s),
  // until the session's deadline; one log line says so the first time.
  const auto give_up = std::chrono::steady_clock::now() + im.config.deadline;
  bool told = false;
  const std::string where = host + ":" + std::to_string(port);
  const auto connect = [&im, &endpoints, &told, give_up, where](SecureLink& link) -> asio::awaitable<void> {
    auto pause = std::chrono::milliseconds(50);
    asio::steady_timer timer(im.io);
    for (;;) {
      std::error_code ec;
      co_await asio::async_connect(link.socket(), endpoints, asio::redirect_error(asio::use_awaitable, ec));
      if (!ec) co_return;
      if (ec != asio::error::connection_refused || std::chrono::steady_clock::now() + pause > give_up)
        throw std::system_error(ec, "cannot connect to the shuffler at " + where);
      if (!told && im.log_fn) im.log_fn("the shuffler at " + where + " is not listening yet; retrying until the session's deadline");
      told = true;
      timer.expires_after(pause);
      co_await timer.async_wait(asio::use_awaitable);
      pause = std::min<std::chrono::milliseconds>(2 * pause, std::chrono::seconds(1));
    }
  };
  for (std::size_t w = 0; w < workers; ++w) {
    asio::co_spawn(
        im.io,
        [&im, &next, &first_error, &rng, &digest, &connect]() -> asio::awaitable<void> {
          while (next < im.links.size() && !first_error) {
            auto& l = im.links[next++];
            co_await connect(*l.link);
            std::error_code ignored;
            l.link->socket().set_option(tcp::no_delay(true), ignored);
            co_await l.link->connect_as(im.config.session, digest, l.identity.id, l.identity.keys, im.config.shuffler_key, rng);
          }
        },
        [&first_error](std::exception_ptr e) {
          if (e && !first_error) first_error = e;
        });
  }
  im.run_all(im.wait_limit(nullptr), "handshake");
  if (first_error) {
    for (auto& l : im.links) l.link->close();
    std::rethrow_exception(first_error);
  }
}

TcpChannel::~TcpChannel() {
  for (auto& l : impl_->links) l.link->close();
}

RoundOutcome TcpChannel::exchange(const RoundRules& spec, Submissions local) {
  auto& im = *impl_;
  const std::size_t ww = wire_width(spec.shape.width, spec.shape.delivery);
  const bool sealed = spec.shape.delivery == Delivery::analyzer_only;
  for (auto& l : im.links) l.submitted = false;
  for (const auto& slice : local.parties) {
    auto it = im.index.find(slice.party);
    if (it == im.index.end() || slice.party == analyzer_id)
      throw std::logic_error("party " + std::to_string(slice.party) + " is not hosted by this channel");
    auto& l = im.links[it->second];
    if (!l.link->is_open()) continue;
    std::vector<std::uint8_t> payload(slice.count * ww);
    const std::uint8_t* src = local.messages.data() + slice.first * spec.shape.width;
    if (sealed) {
      for (std::size_t i = 0; i < slice.count; ++i)
        crypto_box_seal(payload.data() + i * ww, src + i * spec.shape.width, spec.shape.width, im.config.analyzer_key.data());
    } else if (!payload.empty()) {
      std::copy(src, src + payload.size(), payload.begin());
    }
    l.link->send(FrameType::submit, spec.round, static_cast<std::uint32_t>(ww), static_cast<std::uint32_t>(slice.count), payload);
    l.submitted = true;
    l.counters.messages_sent += slice.count;
  }
  // Hosted parties that do not submit this round leave the session now.
  for (auto& l : im.links)
    if (l.identity.id != analyzer_id && !l.submitted && l.link->is_open()) l.link->close();

  struct Answer {
    std::optional<detail::Frame> frame;
    std::exception_ptr error;
  };
  std::vector<Answer> answers(im.links.size());
  bool any = false;
  for (std::size_t i = 0; i < im.links.size(); ++i) {
    auto& l = im.links[i];
    if (!(l.submitted || l.identity.id == analyzer_id) || !l.link->is_open()) continue;
    any = true;
    asio::co_spawn(
        im.io, [&l, &answers, i]() -> asio::awaitable<void> { answers[i].frame = co_await l.link->receive(); },
        [&answers, i](std::exception_ptr e) { answers[i].error = e; });
  }
  RoundOutcome out;
  if (!any) {  // every party hosted here has left and no analyzer is hosted
    for (auto& l : im.links) out.dropped.push_back(l.identity.id);
    return out;
  }
  im.run_all(im.wait_limit(&spec), "round " + std::to_string(spec.round));

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
    if (i == im.analyzer) with_output = &f;
  }
  // The analyzer's result (and every party's in MPC mode) lists every submitter and dropout. In ESA
  // mode a party's result names only that party (its traffic does not grow with n): a process
  // hosting only parties learns its own parties' fate, which is all its round driver needs.
  const detail::Frame* primary = im.analyzer && answers[*im.analyzer].frame ? &*answers[*im.analyzer].frame : result;
  const ResultPayload r = decode_result(primary->header, primary->payload, im.config.parties, im.limits);
  out.submitted = r.submitted;
  out.dropped = r.dropped;
  out.messages = static_cast<std::size_t>(r.messages);
  if (!im.analyzer && spec.shape.delivery == Delivery::analyzer_only) {
    out.submitted.clear();
    for (const auto& a : answers)
      if (a.frame) {
        const ResultPayload own = decode_result(a.frame->header, a.frame->payload, im.config.parties, im.limits);
        out.submitted.insert(out.submitted.end(), own.submitted.begin(), own.submitted.end());
      }
    std::sort(out.submitted.begin(), out.submitted.end());
    out.dropped.clear();
    for (const auto& l : im.links)
      if (!std::binary_search(out.submitted.begin(), out.submitted.end(), l.identity.id)) out.dropped.push_back(l.identity.id);
    std::sort(out.dropped.begin(), out.dropped.end());
  }
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (!answers[i].frame) continue;
    auto& c = im.links[i].counters;
    ++c.rounds;
    c.messages_received += answers[i].frame->header.count;
  }
  const bool delivered = spec.shape.delivery == Delivery::all_parties || im.analyzer.has_value();
  if (delivered && with_output) {
    const ResultPayload o = decode_result(with_output->header, with_output->payload, im.config.parties, im.limits);
    if (with_output->header.width != ww || o.messages != r.messages || with_output->header.count != r.messages)
      throw_error(Errc::protocol_violation, "round " + std::to_string(spec.round) + ": the output does not match the round's shape");
    MessageBatch batch(spec.shape.width);
    if (sealed) {
      batch.reserve(r.messages);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < r.messages; ++i) {
        auto m = batch.append();
        if (crypto_box_seal_open(m.data(), o.output.data() + i * ww, ww, im.config.analyzer_key.data(),
                                 im.links[*im.analyzer].identity.keys.secret_key().data()) != 0) {
          batch.resize(batch.count() - 1);
          ++bad;
        }
      }
      if (bad > 0 && im.log_fn)
        im.log_fn("round " + std::to_string(spec.round) + ": " + std::to_string(bad) +
                  " message(s) were not sealed to this analyzer and were discarded");
    } else {
      batch = MessageBatch::from_bytes(spec.shape.width, std::vector<std::uint8_t>(o.output.begin(), o.output.end()));
    }
    out.output = std::move(batch);
  } else if (delivered && r.messages == 0) {
    out.output = MessageBatch(spec.shape.width);
  }
  // Parties hosted here that were dropped leave for good.
  for (PartyId d : out.dropped)
    if (auto it = im.index.find(d); it != im.index.end()) im.links[it->second].link->close();
  return out;
}

std::map<PartyId, LinkCounters> TcpChannel::counters() const {
  std::map<PartyId, LinkCounters> out;
  for (const auto& l : impl_->links) {
    LinkCounters c = l.counters;
    c.bytes_sent = l.link->stats().bytes_sent;
    c.bytes_received = l.link->stats().bytes_received;
    out[l.identity.id] = c;
  }
  return out;
}

}  // namespace shufflempc::net
