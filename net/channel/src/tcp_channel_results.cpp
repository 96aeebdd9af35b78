// The TCP channel, a round back: the result frames, the outcome, opening the records
// (tcp_channel_impl.hpp).
#include <algorithm>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "tcp_channel_impl.hpp"
#include "shufflempc/error.hpp"
#include "shufflempc/little_endian.hpp"

namespace shufflempc::net {

void TcpChannel::Impl::confirm_last(std::uint32_t round) {
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

// A kept result: its header's type, round, width and count (little-endian), then its payload.
std::vector<std::uint8_t> TcpChannel::Impl::kept_bytes(const detail::Frame& f) {
  std::vector<std::uint8_t> out(16 + f.payload.size());
  store_le<std::uint32_t>(out.data(), static_cast<std::uint32_t>(f.header.type));
  store_le<std::uint32_t>(out.data() + 4, f.header.round);
  store_le<std::uint32_t>(out.data() + 8, f.header.width);
  store_le<std::uint32_t>(out.data() + 12, f.header.count);
  std::copy(f.payload.begin(), f.payload.end(), out.begin() + 16);
  return out;
}

detail::Frame TcpChannel::Impl::kept_frame(std::uint32_t round, std::span<const std::uint8_t> bytes) const {
  const std::string what = "round " + std::to_string(round) + ": the result kept in the state directory ";
  if (bytes.size() < 16 || bytes.size() - 16 > limits.max_payload) throw_error(Errc::protocol_violation, what + "is torn");
  detail::Frame f;
  f.header.type = static_cast<FrameType>(load_le<std::uint32_t>(bytes.data()));
  f.header.session = config.session;
  f.header.round = load_le<std::uint32_t>(bytes.data() + 4);
  f.header.width = load_le<std::uint32_t>(bytes.data() + 8);
  f.header.count = load_le<std::uint32_t>(bytes.data() + 12);
  f.header.payload_length = static_cast<std::uint32_t>(bytes.size() - 16);
  if (f.header.type != FrameType::result || f.header.round != round) throw_error(Errc::protocol_violation, what + "is not this round's result");
  f.payload.assign(bytes.begin() + 16, bytes.end());
  return f;
}

asio::awaitable<detail::Frame> TcpChannel::Impl::result_of(Link& l, std::uint32_t round, std::uint32_t width,
                                                           std::chrono::steady_clock::time_point give_up) {
  auto pause = std::chrono::milliseconds(50);
  bool told = false, dial_told = true;
  asio::steady_timer timer(io);
  for (;;) {
    try {
      for (;;) {
        detail::Frame f = co_await l.link->receive();
        if (f.header.type != FrameType::admitted) co_return f;
        take_receipt(l, round, width, f);  // the batch is on the shuffler's disk: the result comes later
        if (leave_after_receipt && l.admitted) co_return f;  // ... or the link leaves now
      }
    } catch (const std::system_error& e) {
      if (e.code() != Errc::peer_closed || std::chrono::steady_clock::now() + pause > give_up) throw;
    }
    if (!told) log("round " + std::to_string(round) + ": " + name(l) + " was lost; reconnecting until the deadline");
    told = true;
    timer.expires_after(pause);
    co_await timer.async_wait(asio::use_awaitable);
    pause = std::min<std::chrono::milliseconds>(2 * pause, std::chrono::seconds(1));
    replace_link(l);
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

Admission TcpChannel::Impl::sent_batch(const Link& l, std::uint32_t round, std::uint32_t width) {
  Admission sent{.round = round, .first = l.first, .counts = {}, .width = width,
                 .messages = std::vector<std::uint8_t>(l.pending.begin() + 4 * std::ptrdiff_t{l.count}, l.pending.end())};
  for (std::size_t k = 0; k < l.count; ++k) sent.counts.push_back(load_le<std::uint32_t>(l.pending.data() + 4 * k));
  return sent;
}

void TcpChannel::Impl::add_submitters(const Link& l, std::vector<PartyId>& out) {
  for (std::size_t k = 0; k < l.count; ++k)
    if (load_le<std::uint32_t>(l.pending.data() + 4 * k) != submit_absent) out.push_back(l.first + static_cast<PartyId>(k));
}

void TcpChannel::Impl::take_receipt(Link& l, std::uint32_t round, std::uint32_t width, const detail::Frame& f) {
  const std::string what = "round " + std::to_string(round) + ": the shuffler's admission receipt for " + name(l);
  if (f.header.round != round || l.first == analyzer_id || l.pending.size() < 4 * std::size_t{l.count})
    return log(what + " names round " + std::to_string(f.header.round) + " or a link that sent no batch: not kept");
  Link::Receipt r{.round = round, .width = width, .digest = {}, .signature = {}};
  std::copy_n(f.payload.begin(), r.digest.size(), r.digest.begin());
  std::copy_n(f.payload.begin() + static_cast<std::ptrdiff_t>(r.digest.size()), r.signature.size(), r.signature.begin());
  if (r.digest != sent_batch(l, round, width).digest()) return log(what + " names another batch than the one it sent: not kept");
  if (!config.shuffler_signer) return log(what + " cannot be checked: the config names no shuffler signing key; not kept");
  if (!mixnet::signature_holds(r.signature, admission_statement(config.session, round, l.first, r.digest), *config.shuffler_signer))
    return log(what + " is not the shuffler's signature of its batch: not kept");
  l.admitted = r;
}

std::optional<std::vector<TcpChannel::Impl::Answer>> TcpChannel::Impl::await_results(const RoundRules& spec, std::size_t ww) {
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

RoundOutcome TcpChannel::Impl::outcome_of(const RoundRules& spec, const std::vector<Answer>& answers, std::size_t ww) {
  RoundOutcome out;
  const detail::Frame* result = nullptr;
  const detail::Frame* with_output = nullptr;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    auto& a = answers[i];
    if (a.error) std::rethrow_exception(a.error);
    if (!a.frame) continue;
    const auto& f = *a.frame;
    if (f.header.type == FrameType::admitted) {  // a link that leaves with its receipt
      add_submitters(links[i], out.submitted);
      continue;
    }
    if (f.header.type == FrameType::abort)
      throw_error(Errc::session_aborted, std::string(f.payload.begin(), f.payload.end()));
    if (f.header.type != FrameType::result || f.header.round != spec.round)
      throw_error(Errc::protocol_violation, "round " + std::to_string(spec.round) + ": the shuffler sent an unexpected frame");
    if (!result) result = &f;
    if (f.header.count > 0 && !with_output) with_output = &f;
    if (i == analyzer) with_output = &f;
  }
  if (!result && !out.submitted.empty()) return out;  // every link left with its receipt: no result, no output
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

void TcpChannel::Impl::own_parties_fate(const RoundRules& spec, const std::vector<Answer>& answers, RoundOutcome& out) const {
  out.submitted.clear();
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (!answers[i].frame) continue;
    const auto& l = links[i];
    if (answers[i].frame->header.type == FrameType::admitted) {  // left with its receipt: its parties that submitted
      add_submitters(l, out.submitted);
      continue;
    }
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

void TcpChannel::Impl::open_verifiable(const RoundRules& spec, const ResultPayload& r, std::size_t ww, RoundOutcome& out) {
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

void TcpChannel::Impl::open_delivered(const RoundRules& spec, const detail::Frame& frame, bool frame_is_primary, const ResultPayload& r,
                                      std::size_t ww, RoundOutcome& out) {
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
      throw_error(Errc::protocol_violation, "round " + std::to_string(spec.round) + ": the mix chain's reports do not hold: " + fault->text);
    // What a hop refused (records that did not open, copies) its signed report counts: discarded.
    for (const auto& rep : reports) out.discarded += static_cast<std::size_t>(rep.not_opened + rep.duplicates);
    hop_reports[spec.round] = std::move(reports);
  }
  if (sealed && commits_batch(config, spec.shape.delivery)) {
    // The shuffler's signed commitment must be to exactly these records: otherwise the round is
    // refused, and nothing is published as its output.
    batch_commitments[spec.round] =
        check_batch(config.session, *config.shuffler_signer, spec.round, ww, records, o.reports, hardware_threads());
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

void TcpChannel::Impl::leave(const std::vector<PartyId>& dropped) {
  for (PartyId d : dropped)
    if (auto it = hosted.find(d); it != hosted.end()) in_session[links[it->second.first].identities[it->second.second]] = 0;
  for (auto& l : links) {
    if (l.first == analyzer_id) continue;
    if (std::none_of(l.identities.begin(), l.identities.end(), [&](std::size_t i) { return in_session[i] != 0; })) l.link->close();
  }
}

}  // namespace shufflempc::net
