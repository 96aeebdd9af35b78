// What the CLI prints after a run: the report of `run` and `local` (JSON or text) and the
// analyzer process's report that `local` assembles into it.
#pragma once

#include <future>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "shufflempc/mixnet/transcript.hpp"
#include "shufflempc/net/mix_hop.hpp"
#include "shufflempc/runtime.hpp"

namespace shufflempc::cli {

// The truth over every party's input, computed on a thread of its own (std::async): `local` starts
// it before its run, while the driver's core would otherwise wait, and make_report takes it when no
// party dropped. The protocol's const methods are safe to call concurrently (runtime.hpp), and
// `protocol` and `inputs` must outlive the result.
[[nodiscard]] std::shared_future<std::optional<Value>> truth_in_background(const Protocol& protocol, const std::vector<Value>& inputs);
// The report every run prints: protocol, parties, rounds, output, truth, error, messages, bytes,
// seconds, dropped, and the protocol's own details. The truth is over the parties who submitted:
// `all_truth` (truth_in_background of the same inputs), if given, when none dropped.
[[nodiscard]] Value make_report(const std::string& name, const Protocol& protocol, std::size_t parties,
                                const RunResult& result, const std::vector<Value>& inputs,
                                const std::shared_future<std::optional<Value>>& all_truth = {});
// One JSON line, or the text form (long values cut at 200 characters).
void print_report(const Value& report, bool json);

// What `analyzer --json` prints: output, messages, bytes, seconds, dropped, round_stats.
[[nodiscard]] Value analyzer_report(const RunResult& result);
// One line per round and hop of a report's "mix_chain", and one per round of its "verifiable_mix".
void print_mix_chain(const Value& report);
// The "mix_chain" of a report: the chain's length and, per round, what each hop signed it received,
// sent and refused.
[[nodiscard]] Value mix_chain_report(std::size_t servers, const std::map<std::uint32_t, std::vector<net::HopReport>>& rounds);
// The "verifiable_mix" of a report: hops, per round its records, proofs and trustees, and the
// transcript's file ("" if none is written).
[[nodiscard]] Value verifiable_mix_report(const mixnet::Transcript& transcript, const std::string& file);

}  // namespace shufflempc::cli
