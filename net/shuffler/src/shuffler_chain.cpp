// The TCP shuffler as the entry of a mix chain: its dialogue with the further servers
// (shuffler_impl.hpp).
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "shuffler_impl.hpp"

namespace shufflempc::net {

asio::awaitable<std::optional<detail::Frame>> TcpShuffler::Impl::answer_of(ServedSession& s, std::size_t hop, std::uint32_t round,
                                                                           FrameType type, std::uint32_t width, std::uint32_t count,
                                                                           std::span<const std::uint8_t> payload, const std::string& refusing,
                                                                           bool spare) {
  const std::string where = "round " + std::to_string(round) + ": ";
  auto fail = [&](const std::string& line) {
    if (spare) log(s.tag + line + " (going on without it)");
    else abort_session(s, line);
  };
  detail::Frame f;
  try {
    f = co_await s.chain.hops.ask(hop, round, type, width, count, payload, s.chain.relaying);
  } catch (const std::exception& e) {
    if (s.chain.relaying) fail(where + e.what());
    co_return std::nullopt;
  }
  if (!s.chain.relaying) co_return std::nullopt;  // the session was aborted meanwhile
  if (f.header.type == FrameType::abort) {
    fail(where + s.chain.hops.name(hop) + " refused " + refusing + ": " + std::string(f.payload.begin(), f.payload.end()));
    co_return std::nullopt;
  }
  co_return f;
}

asio::awaitable<void> TcpShuffler::Impl::relay(ServedSession& s, detail::SessionRounds::Closed closed) {
  const std::uint32_t round = closed.round;
  // With a state directory, hop 0 draws its shuffle from a key kept there: a shuffler started again
  // on it peels and shuffles the same kept batches into the same batch for mix server 1, which a
  // server that kept its answer (mix-server --state-dir) answers alike instead of refusing a second
  // batch for the round.
  std::unique_ptr<Rng> kept;
  try {
    if (s.store) kept = kept_randomness(*s.store, "hop0-key")->fork(round);
  } catch (const std::exception& e) {
    co_return abort_session(s, "round " + std::to_string(round) + ": " + e.what());
  }
  detail::ChainEntry entry(s.config, s.chain.share ? &*s.chain.share : nullptr, signing, s.chain.hop0.get(), std::move(closed),
                           kept ? *kept : rng, options.tamper_admitted,
                           [&s](std::size_t hop) { return s.chain.hops.name(hop); }, [&s](PartyId p) { return s.parties_tree.leaf(p); });
  for (const auto& line : entry.take_notes()) log(s.tag + line);
  for (std::size_t hop = 1; hop < s.config.mix_chain.size(); ++hop) {
    const detail::HopAsk ask = entry.shuffle_ask();
    auto answer = co_await answer_of(s, hop, round, ask.type, ask.width, ask.count, ask.payload, ask.refusing);
    if (!answer) co_return;
    if (auto fault = entry.take_shuffle(hop, answer->header, answer->payload)) co_return abort_session(s, fault->text);
  }
  if (entry.needs_decryption()) {
    const detail::HopAsk ask = entry.decrypt_ask();
    // With a threshold t < k (a distributed key), up to k - t further servers may be gone.
    const bool spare = entry.trustees_needed() < s.config.mix_chain.size();
    auto answers = co_await ask_every_hop(s, round, ask, spare);
    if (!s.chain.relaying) co_return;  // the session was aborted, naming why
    std::string missing;
    for (std::size_t hop = 1; hop < answers.size(); ++hop) {
      if (!answers[hop]) {
        missing += (missing.empty() ? "" : ", ") + s.chain.hops.name(hop);
        continue;
      }
      if (auto fault = entry.take_decryption(hop, answers[hop]->header, answers[hop]->payload)) co_return abort_session(s, fault->text);
    }
    if (entry.trustees_decrypted() < entry.trustees_needed())
      co_return abort_session(s, "round " + std::to_string(round) + ": " + std::to_string(entry.trustees_decrypted()) + " of " +
                                     std::to_string(s.config.mix_chain.size()) + " mix servers decrypted, " +
                                     std::to_string(entry.trustees_needed()) + " needed (gone: " + missing + ")");
  }
  detail::ChainEntry::Result out;
  if (auto fault = entry.finish(out)) co_return abort_session(s, fault->text);
  for (const auto& line : entry.take_notes()) log(s.tag + line);
  s.chain.relaying = false;
  if (!out.hop_reports.empty()) s.chain.hop_reports.push_back(std::move(out.hop_reports));
  deliver(s, std::move(out.closed), out.reports, out.evidence, std::move(out.commitment));
  maybe_close(s);  // parties that left while the batch crossed the chain
}

asio::awaitable<std::vector<std::optional<detail::Frame>>> TcpShuffler::Impl::ask_every_hop(ServedSession& s, std::uint32_t round,
                                                                                            const detail::HopAsk& ask, bool spare) {
  const std::size_t k = s.config.mix_chain.size();
  std::vector<std::optional<detail::Frame>> answers(k);
  std::size_t pending = k - 1;
  asio::steady_timer all_in(io, asio::steady_timer::time_point::max());
  for (std::size_t hop = 1; hop < k; ++hop)
    asio::co_spawn(
        io,
        [&, hop]() -> asio::awaitable<void> {
          answers[hop] = co_await answer_of(s, hop, round, ask.type, ask.width, ask.count, ask.payload, ask.refusing, spare);
          if (--pending == 0) all_in.cancel();
        },
        asio::detached);
  if (pending > 0) {  // the asks run once this coroutine waits; the last one wakes it
    std::error_code ignored;
    co_await all_in.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }
  co_return answers;
}

}  // namespace shufflempc::net
