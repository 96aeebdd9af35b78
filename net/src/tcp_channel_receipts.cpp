// The TCP channel's receipts of a chain's round and the verdicts sent to the analyzer
// (tcp_channel_impl.hpp).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "tcp_channel_impl.hpp"
#include "shufflempc/error.hpp"

namespace shufflempc::net {

void TcpChannel::Impl::check_receipts(const RoundRules& spec, const std::vector<Answer>& answers) {
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
