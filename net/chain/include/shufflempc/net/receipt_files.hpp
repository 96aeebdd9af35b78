// The files of a collection round's receipts (docs/network.md, "Durable collection"): what
// `party --receipt FILE` keeps (its batches with the shuffler's signed receipts), what `analyzer
// --commitment FILE` publishes (the shuffler's signed commitment to each round's batch, with its
// leaves), and what `shufflempc receipt` reads to check one against the other. JSON, every byte
// string in hex; a file's session and keys are its own word until checked against the session config.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "shufflempc/net/batch_commitment.hpp"
#include "shufflempc/net/keys.hpp"
#include "shufflempc/runtime.hpp"

namespace shufflempc::net {

inline constexpr const char* receipts_format = "shufflempc admission receipts v1";
inline constexpr const char* commitments_format = "shufflempc batch commitments v1";

[[nodiscard]] Value receipts_json(const SessionId& session, const std::vector<AdmissionReceipt>& receipts);
[[nodiscard]] Value commitments_json(const SessionConfig& config, const std::map<std::uint32_t, CommittedBatch>& batches);

// Throw std::invalid_argument naming `file` and the field that is missing or wrong.
struct ReceiptsFile {
  SessionId session{};
  std::vector<AdmissionReceipt> receipts;
};
[[nodiscard]] ReceiptsFile receipts_from_json(const Value& v, const std::string& file);
struct CommitmentsFile {
  SessionId session{};
  std::map<std::uint32_t, CommittedBatch> rounds;
};
[[nodiscard]] CommitmentsFile commitments_from_json(const Value& v, const std::string& file);

}  // namespace shufflempc::net
