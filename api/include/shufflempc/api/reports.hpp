// What a run reports, typed: the report of `run` and `local` (RunReport), the analyzer process's
// (AnalyzerReport) and a party process's (PartyReport) that `local` assembles into it, and the
// chain's parts. Each has one to_json, the form the command line prints with --json and the Python
// module hands over as a dict; the process reports also read back from it (what `local` reads from
// the processes it started). Between the layers below the two front ends nothing is JSON but the
// protocols' own values (outputs, inputs, details).
#pragma once

#include <cstdint>
#include <future>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "shufflempc/mixnet/transcript.hpp"
#include "shufflempc/net/mix_hop.hpp"
#include "shufflempc/runtime.hpp"

namespace shufflempc::api {

// One hop of a decryption chain in one round: its signed counts.
struct HopRow {
  std::uint32_t hop = 0;
  std::uint64_t records_in = 0, records_out = 0, not_opened = 0, duplicates = 0;
};
struct MixChainReport {
  std::size_t hops = 0;
  std::vector<std::pair<std::uint32_t, std::vector<HopRow>>> rounds;  // by round, in order
};
// One round of a verifiable chain, as the receivers verified it.
struct VerifiableRound {
  std::uint32_t round = 0;
  std::size_t records = 0, limbs = 0, trustees = 0, threshold = 0;  // trustees: the mix servers holding the key (t of them decrypt)
  std::vector<std::uint32_t> decrypted_by;
  std::string delivery;
};
struct VerifiableMixReport {
  std::size_t hops = 0;
  std::vector<VerifiableRound> rounds;
  std::string transcript;                     // the file written ("" = none)
  std::optional<std::string> session_config;  // `local`: the config kept with --keep-dir ("" = removed)
};

// What a run computed (`run`, `local`, Python's run()).
struct RunReport {
  std::string protocol;
  std::size_t parties = 0;
  std::uint32_t rounds = 0;
  Value output;
  std::optional<Value> truth;   // over the parties who submitted, when the protocol has one
  // Of the output against the truth, when the protocol measures one, with the words of a study
  // (trial_errors): `error` is output - truth for a number and the root mean square over the
  // coordinates of a vector or of named numbers; `max_error` the largest absolute difference.
  std::optional<double> error, max_error;
  std::size_t messages = 0, bytes = 0;
  double seconds = 0;
  std::vector<PartyId> dropped;
  std::map<PartyId, Value> party_outputs;  // empty when the parties output nothing
  Value details;                           // the protocol's facts (Protocol::describe)
  Value run;                               // what the run measured beside (RunResult::details; null: none)
  std::optional<MixChainReport> mix_chain;
  std::optional<VerifiableMixReport> verifiable_mix;
};

// Per round, what the analyzer received.
struct RoundStat {
  std::uint32_t round = 0;
  std::size_t messages = 0, bytes = 0;
  std::vector<PartyId> dropped;
};
// What an analyzer process reports (`analyzer --json`).
struct AnalyzerReport {
  Value output;
  std::size_t messages = 0, bytes = 0;
  double seconds = 0;
  std::vector<PartyId> dropped;
  std::vector<RoundStat> round_stats;
  Value details;
  std::uint64_t bytes_received = 0;
  std::optional<MixChainReport> mix_chain;
  std::optional<VerifiableMixReport> verifiable_mix;
};
// One party of a party process (`party --json` lists them).
struct PartyReport {
  PartyId party = 0;
  Value output;
  bool dropped = false;
  std::uint64_t messages_sent = 0, bytes_sent = 0, messages_received = 0, bytes_received = 0;
  std::uint32_t rounds = 0;
  double seconds = 0;
};

[[nodiscard]] Value to_json(const MixChainReport& r);
[[nodiscard]] Value to_json(const VerifiableMixReport& r);
[[nodiscard]] Value to_json(const RunReport& r);
[[nodiscard]] Value to_json(const AnalyzerReport& r);
[[nodiscard]] Value to_json(const PartyReport& r);
// Read back what a process printed; std::runtime_error naming `who` and the field when it is not one.
[[nodiscard]] AnalyzerReport analyzer_report_from_json(const Value& v, const std::string& who);
[[nodiscard]] PartyReport party_report_from_json(const Value& v, const std::string& who);

// The truth over every party's input, computed on a thread of its own (std::async): `local` starts
// it before its run, while the driver's core would otherwise wait, and run_report_of takes it when no
// party dropped. The protocol's const methods are safe to call concurrently (runtime.hpp), and
// `protocol` and `inputs` must outlive the result.
[[nodiscard]] std::shared_future<std::optional<Value>> truth_in_background(const Protocol& protocol, const std::vector<Value>& inputs);
// The report of a run of `protocol` (registered as `name`) over `inputs`: its output, and the truth
// and error over the parties who submitted.
[[nodiscard]] RunReport run_report_of(const std::string& name, const Protocol& protocol, std::size_t parties, const RunResult& result,
                                      const std::vector<Value>& inputs, const std::shared_future<std::optional<Value>>& all_truth = {});
[[nodiscard]] AnalyzerReport analyzer_report_of(const RunResult& result);
// The reverse, for `local`: the run's result as the analyzer process reported it (its rounds' traffic
// aside), and the outputs of the parties that did not drop.
[[nodiscard]] RunResult run_result_of(const AnalyzerReport& analyzer, std::span<const PartyReport> parties);
[[nodiscard]] MixChainReport mix_chain_report(std::size_t servers, const std::map<std::uint32_t, std::vector<net::HopReport>>& rounds);
[[nodiscard]] VerifiableMixReport verifiable_mix_report(const mixnet::Transcript& transcript, const std::string& file);

}  // namespace shufflempc::api
