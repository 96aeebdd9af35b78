// The TCP channel's receipts of a chain's round and the verdicts sent to the analyzer
// (tcp_channel_impl.hpp).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "tcp_channel_impl.hpp"
#include "shufflempc/error.hpp"

namespace shufflempc::net {

// What link `l`'s submitting parties make of the entry's answer `a`: "" when its receipt holds (the
// root it confirms in `v.root`, the ids the entry lists as submitted in `listed`), otherwise what
// they complain of. Fails closed: anything that goes wrong while the answer is read or checked,
// whatever the exception, is a complaint naming what the entry sent.
std::string TcpChannel::Impl::judge_answer(const RoundRules& spec, const Link& l, const Answer& a, VerdictPayload& v,
                                           std::vector<PartyId>& listed, bool& quiet) {
  const std::string round = "round " + std::to_string(spec.round);
  const auto what_of = [](std::exception_ptr e) -> std::string {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      return x.what();
    } catch (...) {
      return "an error of unknown type";
    }
  };
  if (a.error) {
    quiet = true;  // the caller reports the error itself
    return "sent no result for the records it took (" + what_of(a.error) + ")";
  }
  const auto& f = a.frame;
  if (!f) {
    quiet = true;
    return "sent no result for the records it took";
  }
  if (f->header.type == FrameType::abort) {
    quiet = true;  // the caller reports the shuffler's own words
    const std::size_t shown = std::min<std::size_t>(f->payload.size(), limits.max_abort_reason);
    return "ended the round for it, though it submitted (the shuffler said: " +
           std::string(f->payload.begin(), f->payload.begin() + static_cast<std::ptrdiff_t>(shown)) + ")";
  }
  if (f->header.type != FrameType::result)
    return "answered its batch with a frame of type " + std::to_string(static_cast<int>(f->header.type)) + " instead of the round's result";
  if (f->header.round != spec.round)
    return "answered its batch with the result of round " + std::to_string(f->header.round) + " instead of " + round + "'s";
  ResultPayload r;
  try {
    r = decode_result(f->header, f->payload, config.parties, limits);
  } catch (const std::exception& e) {
    return "sent a result that does not parse (" + std::string(e.what()) + ")";
  }
  listed = r.submitted;
  const ReceiptJudgement j = judge_receipt(config, spec.round, spec.shape.delivery, r.receipt, l.own, hardware_threads());
  if (!j.root) return j.complaint;
  v.root = *j.root;
  return "";
}

void TcpChannel::Impl::check_receipts(const RoundRules& spec, const std::vector<Answer>& answers) {
  if (!chained(spec.shape) || judged == spec.round) return;
  judged = spec.round;  // once per round, on whichever way out comes first
  const std::string round = "round " + std::to_string(spec.round);
  std::vector<std::pair<std::size_t, VerdictPayload>> said;  // each party link's verdict
  std::string first_fault, first_quiet;
  for (std::size_t i = 0; i < links.size(); ++i) {
    const auto& l = links[i];
    if (l.first == analyzer_id || l.counts.empty()) continue;
    VerdictPayload v;
    v.parties.assign(l.count, Verdict::absent);
    const bool submitted = std::any_of(l.counts.begin(), l.counts.end(), [](std::uint32_t c) { return c != submit_absent; });
    const Answer none;
    const Answer& a = i < answers.size() ? answers[i] : none;
    const bool no_result = a.error || !a.frame || a.frame->header.type != FrameType::result;
    // A round delivered to every party whose result never came: the output is the parties' own,
    // and there is nothing for the analyzer to refuse.
    if (submitted && no_result && spec.shape.delivery == Delivery::all_parties) continue;
    std::string fault;  // what the link's submitting parties complain of
    std::vector<PartyId> listed;
    bool quiet = false;  // a complaint the caller reports in its own words
    if (submitted) {
      try {
        fault = judge_answer(spec, l, a, v, listed, quiet);
      } catch (...) {
        fault = "sent a result this process could not check";
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
      std::string& first = quiet ? first_quiet : first_fault;
      if (first.empty()) first = round + ": the chain's entry (the shuffler) " + why + " (party " + std::to_string(id) + ")";
    }
    said.emplace_back(i, std::move(v));
  }
  const bool to_analyzer = spec.shape.delivery == Delivery::analyzer_only && !analyzer_identity;
  if (to_analyzer) {
    send_verdicts(spec.round, said);
    // The caller reports a quiet complaint's cause in its own words: say here that it was a complaint.
    if (first_fault.empty() && !first_quiet.empty()) log(first_quiet + ": complaint sent to the analyzer, which outputs nothing for the round");
  }
  if (!first_fault.empty())
    throw_error(Errc::protocol_violation,
                first_fault + (to_analyzer ? ": complaint sent to the analyzer, which outputs nothing for the round"
                               : spec.shape.delivery == Delivery::analyzer_only ? ": the analyzer here outputs nothing for the round"
                                                                                 : ": the round's output reached every party already"));
}

void TcpChannel::Impl::send_verdicts(std::uint32_t round, const std::vector<std::pair<std::size_t, VerdictPayload>>& verdicts) {
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
          if (frame_tap) link->set_tap(frame_tap);
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

void TcpChannel::Impl::await_verdicts(const RoundRules& spec, const RoundOutcome& out) {
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

}  // namespace shufflempc::net
