// What the CLI prints after a run: the report of `run` and `local` (JSON or text) and the
// analyzer process's report that `local` assembles into it.
#pragma once

#include <string>
#include <vector>

#include "shufflempc/runtime.hpp"

namespace shufflempc::cli {

// The report every run prints: protocol, parties, rounds, output, truth, error, messages, bytes,
// seconds, dropped, and the protocol's own details.
[[nodiscard]] Value make_report(const std::string& name, const Protocol& protocol, std::size_t parties,
                                const RunResult& result, const std::vector<Value>& inputs);
// One JSON line, or the text form (long values cut at 200 characters).
void print_report(const Value& report, bool json);

// What `analyzer --json` prints: output, messages, bytes, seconds, dropped, round_stats.
[[nodiscard]] Value analyzer_report(const RunResult& result);

}  // namespace shufflempc::cli
