#include "shufflempc/api/reports.hpp"

#include <stdexcept>

namespace shufflempc::api {
namespace {

// A field of a process's report, with the error that names the process and the field.
template <class T>
T field(const Value& v, const char* name, const std::string& who) {
  if (!v.is_object() || !v.contains(name)) throw std::runtime_error(who + "'s report has no '" + name + "'");
  try {
    return v[name].get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::runtime_error(who + "'s report: '" + name + "' is not what it should be");
  }
}

MixChainReport mix_chain_from_json(const Value& v, const std::string& who) {
  MixChainReport r;
  r.hops = field<std::size_t>(v, "hops", who);
  for (const auto& round : field<Value>(v, "rounds", who)) {
    std::vector<HopRow> hops;
    for (const auto& h : field<Value>(round, "hops", who))
      hops.push_back({field<std::uint32_t>(h, "hop", who), field<std::uint64_t>(h, "records_in", who), field<std::uint64_t>(h, "records_out", who),
                      field<std::uint64_t>(h, "not_opened", who), field<std::uint64_t>(h, "duplicates", who)});
    r.rounds.emplace_back(field<std::uint32_t>(round, "round", who), std::move(hops));
  }
  return r;
}

VerifiableMixReport verifiable_mix_from_json(const Value& v, const std::string& who) {
  VerifiableMixReport r;
  r.hops = field<std::size_t>(v, "hops", who);
  r.transcript = field<std::string>(v, "transcript", who);
  if (v.contains("session_config")) r.session_config = field<std::string>(v, "session_config", who);
  for (const auto& round : field<Value>(v, "rounds", who))
    r.rounds.push_back({field<std::uint32_t>(round, "round", who), field<std::size_t>(round, "records", who), field<std::size_t>(round, "limbs", who),
                        field<std::size_t>(round, "trustees", who), field<std::size_t>(round, "threshold", who),
                        field<std::vector<std::uint32_t>>(round, "decrypted_by", who), field<std::string>(round, "delivery", who)});
  return r;
}

}  // namespace

Value to_json(const MixChainReport& r) {
  Value rounds = Value::array();
  for (const auto& [round, hops] : r.rounds) {
    Value list = Value::array();
    for (const auto& h : hops)
      list.push_back({{"hop", h.hop}, {"records_in", h.records_in}, {"records_out", h.records_out}, {"not_opened", h.not_opened},
                      {"duplicates", h.duplicates}});
    rounds.push_back({{"round", round}, {"hops", list}});
  }
  return {{"hops", r.hops}, {"rounds", rounds}};
}

Value to_json(const VerifiableMixReport& r) {
  Value rounds = Value::array();
  for (const auto& v : r.rounds)
    rounds.push_back({{"round", v.round}, {"records", v.records}, {"limbs", v.limbs}, {"trustees", v.trustees}, {"threshold", v.threshold},
                      {"decrypted_by", v.decrypted_by}, {"delivery", v.delivery}});
  Value out = {{"hops", r.hops}, {"rounds", rounds}, {"transcript", r.transcript}};
  if (r.session_config) out["session_config"] = *r.session_config;
  return out;
}

Value to_json(const RunReport& r) {
  Value out = {{"protocol", r.protocol}, {"parties", r.parties}, {"rounds", r.rounds},   {"output", r.output},
               {"messages", r.messages}, {"bytes", r.bytes},     {"seconds", r.seconds}, {"dropped", r.dropped}};
  if (r.truth) out["truth"] = *r.truth;
  if (r.error) out["error"] = *r.error;
  if (r.max_error) out["max_error"] = *r.max_error;
  if (!r.party_outputs.empty()) {
    Value outs = Value::object();
    for (const auto& [id, v] : r.party_outputs) outs[std::to_string(id)] = v;
    out["party_outputs"] = outs;
  }
  out["details"] = r.details;
  if (!r.run.is_null()) out["run"] = r.run;
  if (r.mix_chain) out["mix_chain"] = to_json(*r.mix_chain);
  if (r.verifiable_mix) out["verifiable_mix"] = to_json(*r.verifiable_mix);
  return out;
}

Value to_json(const AnalyzerReport& r) {
  Value rounds = Value::array();
  for (const auto& s : r.round_stats) rounds.push_back({{"round", s.round}, {"messages", s.messages}, {"bytes", s.bytes}, {"dropped", s.dropped}});
  Value out = {{"output", r.output},   {"messages", r.messages},  {"bytes", r.bytes},     {"seconds", r.seconds},
               {"dropped", r.dropped}, {"round_stats", rounds},   {"details", r.details}, {"bytes_received", r.bytes_received}};
  if (r.mix_chain) out["mix_chain"] = to_json(*r.mix_chain);
  if (r.verifiable_mix) out["verifiable_mix"] = to_json(*r.verifiable_mix);
  return out;
}

Value to_json(const PartyReport& r) {
  return {{"party", r.party},
          {"output", r.output},
          {"dropped", r.dropped},
          {"messages_sent", r.messages_sent},
          {"bytes_sent", r.bytes_sent},
          {"messages_received", r.messages_received},
          {"bytes_received", r.bytes_received},
          {"rounds", r.rounds},
          {"seconds", r.seconds}};
}

AnalyzerReport analyzer_report_from_json(const Value& v, const std::string& who) {
  AnalyzerReport r;
  r.output = field<Value>(v, "output", who);
  r.messages = field<std::size_t>(v, "messages", who);
  r.bytes = field<std::size_t>(v, "bytes", who);
  r.seconds = field<double>(v, "seconds", who);
  r.dropped = field<std::vector<PartyId>>(v, "dropped", who);
  for (const auto& s : field<Value>(v, "round_stats", who))
    r.round_stats.push_back({field<std::uint32_t>(s, "round", who), field<std::size_t>(s, "messages", who), field<std::size_t>(s, "bytes", who),
                             field<std::vector<PartyId>>(s, "dropped", who)});
  r.details = field<Value>(v, "details", who);
  r.bytes_received = field<std::uint64_t>(v, "bytes_received", who);
  if (v.contains("mix_chain")) r.mix_chain = mix_chain_from_json(v["mix_chain"], who);
  if (v.contains("verifiable_mix")) r.verifiable_mix = verifiable_mix_from_json(v["verifiable_mix"], who);
  return r;
}

PartyReport party_report_from_json(const Value& v, const std::string& who) {
  return {field<PartyId>(v, "party", who),
          field<Value>(v, "output", who),
          field<bool>(v, "dropped", who),
          field<std::uint64_t>(v, "messages_sent", who),
          field<std::uint64_t>(v, "bytes_sent", who),
          field<std::uint64_t>(v, "messages_received", who),
          field<std::uint64_t>(v, "bytes_received", who),
          field<std::uint32_t>(v, "rounds", who),
          field<double>(v, "seconds", who)};
}

std::shared_future<std::optional<Value>> truth_in_background(const Protocol& protocol, const std::vector<Value>& inputs) {
  return std::async(std::launch::async, [&protocol, &inputs] { return protocol.truth(inputs); }).share();
}

RunReport run_report_of(const std::string& name, const Protocol& protocol, std::size_t parties, const RunResult& result,
                        const std::vector<Value>& inputs, const std::shared_future<std::optional<Value>>& all_truth) {
  RunReport r;
  r.protocol = name;
  r.parties = parties;
  // The rounds the run took (each endpoint's driver counts the exchanges it made), not the count
  // the protocol declares; a report without them (none ran) says the declared count.
  r.rounds = result.rounds.empty() ? protocol.rounds() : static_cast<std::uint32_t>(result.rounds.size());
  r.output = result.output;
  r.messages = result.messages;
  r.bytes = result.bytes;
  r.seconds = result.seconds;
  r.dropped = result.dropped;
  // The truth is over the parties who submitted: a dropped party's input is in no estimate.
  const auto submitted_truth = [&]() -> std::optional<Value> {
    if (result.dropped.empty()) return all_truth.valid() ? all_truth.get() : protocol.truth(inputs);
    std::vector<Value> submitted_inputs;
    submitted_inputs.reserve(inputs.size());
    for (std::size_t i = 0, d = 0; i < inputs.size(); ++i) {
      while (d < result.dropped.size() && result.dropped[d] < i) ++d;
      if (d < result.dropped.size() && result.dropped[d] == i) continue;
      submitted_inputs.push_back(inputs[i]);
    }
    return protocol.truth(submitted_inputs);
  };
  if (auto truth = submitted_truth()) {
    r.truth = *truth;
    if (protocol.has_error())
      if (const auto e = trial_errors(result.output, *truth)) {
        r.error = e->first;
        r.max_error = e->second;
      }
  }
  if (!result.party_outputs.empty() && !result.party_outputs.begin()->second.is_null())
    r.party_outputs = {result.party_outputs.begin(), result.party_outputs.end()};
  r.details = protocol.describe();
  r.run = result.details;
  return r;
}

AnalyzerReport analyzer_report_of(const RunResult& result) {
  AnalyzerReport r;
  r.output = result.output;
  r.messages = result.messages;
  r.bytes = result.bytes;
  r.seconds = result.seconds;
  r.dropped = result.dropped;
  for (const auto& s : result.rounds) r.round_stats.push_back({s.round, s.messages, s.bytes, s.dropped});
  r.details = result.details;
  return r;
}

RunResult run_result_of(const AnalyzerReport& analyzer, std::span<const PartyReport> parties) {
  RunResult r;
  r.output = analyzer.output;
  r.messages = analyzer.messages;
  r.bytes = analyzer.bytes;
  r.seconds = analyzer.seconds;
  r.dropped = analyzer.dropped;
  r.details = analyzer.details;
  for (const auto& p : parties)
    if (!p.dropped) r.party_outputs[p.party] = p.output;
  return r;
}

MixChainReport mix_chain_report(std::size_t servers, const std::map<std::uint32_t, std::vector<net::HopReport>>& rounds) {
  MixChainReport out;
  out.hops = servers;
  for (const auto& [round, reports] : rounds) {
    std::vector<HopRow> hops;
    for (const auto& h : reports) hops.push_back({h.place.hop, h.records_in, h.records_out, h.not_opened, h.duplicates});
    out.rounds.emplace_back(round, std::move(hops));
  }
  return out;
}

VerifiableMixReport verifiable_mix_report(const mixnet::Transcript& transcript, const std::string& file) {
  VerifiableMixReport out;
  out.hops = transcript.hops;
  out.transcript = file;
  for (const auto& r : transcript.rounds)
    out.rounds.push_back({r.round, r.input.size(), r.input.limbs(), r.key.servers.shares.size(), r.key.servers.threshold, r.decrypted_by,
                           to_string(r.delivery)});
  return out;
}

}  // namespace shufflempc::api
