// The TCP channel, a round out: the batch (wrapped for a chain), its submit frames, and the
// ticker that says the parties are preparing it (tcp_channel_impl.hpp).
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "tcp_channel_impl.hpp"
#include "shufflempc/error.hpp"

namespace shufflempc::net {

MessageBatch TcpChannel::Impl::wrap_for_chain(const RoundRules& spec, const Submissions& local, std::size_t ww) {
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

void TcpChannel::Impl::fill_batch(Link& l, const RoundRules& spec, const Submissions& local, const MessageBatch& wrapped, std::size_t ww,
                                  const std::vector<const Submissions::Slice*>& slices, const std::vector<std::uint32_t>& counts,
                                  std::size_t total) {
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

void TcpChannel::Impl::submit(const RoundRules& spec, const Submissions& local, std::size_t ww) {
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
    l.admitted.reset();
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

void TcpChannel::Impl::start_ticker(std::uint32_t round) {
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

void TcpChannel::Impl::stop_ticker() {
  if (!ticker.joinable()) return;
  ticker_stop = true;
  asio::post(io, [this] { ticker_timer.cancel(); });
  ticker.join();
}

}  // namespace shufflempc::net
