#include "report.hpp"

#include <fmt/format.h>

#include <iostream>

namespace shufflempc::cli {

std::shared_future<std::optional<Value>> truth_in_background(const Protocol& protocol, const std::vector<Value>& inputs) {
  return std::async(std::launch::async, [&protocol, &inputs] { return protocol.truth(inputs); }).share();
}

Value make_report(const std::string& name, const Protocol& protocol, std::size_t parties, const RunResult& result,
                  const std::vector<Value>& inputs, const std::shared_future<std::optional<Value>>& all_truth) {
  Value report = {{"protocol", name},
                  {"parties", parties},
                  {"rounds", protocol.rounds()},
                  {"output", result.output},
                  {"messages", result.messages},
                  {"bytes", result.bytes},
                  {"seconds", result.seconds},
                  {"dropped", result.dropped}};
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
    report["truth"] = *truth;
    if (protocol.has_error())
      if (auto err = result_error(result.output, *truth)) report["error"] = *err;
  }
  if (!result.party_outputs.empty() && !result.party_outputs.begin()->second.is_null()) {
    Value outs = Value::object();
    for (const auto& [id, v] : result.party_outputs) outs[std::to_string(id)] = v;
    report["party_outputs"] = outs;
  }
  report["details"] = protocol.describe();
  if (!result.details.is_null()) report["run"] = result.details;
  return report;
}

void print_report(const Value& report, bool json) {
  if (json) {
    std::cout << report.dump() << '\n';
    return;
  }
  const auto show = [](const Value& v) {
    std::string s = v.dump();
    return s.size() > 200 ? s.substr(0, 197) + "..." : s;
  };
  std::cout << fmt::format("protocol  {}  ({} parties, {} round{})\n", report["protocol"].get<std::string>(),
                           report["parties"].get<std::size_t>(), report["rounds"].get<int>(),
                           report["rounds"].get<int>() == 1 ? "" : "s");
  std::cout << "output    " << show(report["output"]) << '\n';
  if (report.contains("truth")) std::cout << "truth     " << show(report["truth"]) << '\n';
  if (report.contains("error")) std::cout << "error     " << report["error"].get<double>() << '\n';
  std::cout << fmt::format("traffic   {} messages, {} bytes, {:.3f} s\n", report["messages"].get<std::size_t>(),
                           report["bytes"].get<std::size_t>(), report["seconds"].get<double>());
  if (!report["dropped"].empty()) std::cout << "dropped   " << show(report["dropped"]) << '\n';
  for (const auto& [k, v] : report["details"].items()) std::cout << fmt::format("{:<32}{}\n", k, show(v));
  if (report.contains("run"))
    for (const auto& [k, v] : report["run"].items()) std::cout << fmt::format("{:<32}{}\n", "run: " + k, show(v));
  print_mix_chain(report);
}

void print_mix_chain(const Value& report) {
  if (report.contains("verifiable_mix")) {
    const auto& v = report["verifiable_mix"];
    for (const auto& r : v["rounds"])
      std::cout << fmt::format("mix       round {}: {} records through {} hops, {} proofs of shuffle and the decryption proofs of {} of {} "
                               "trustees ({} needed) verified\n",
                               r["round"].get<std::size_t>(), r["records"].get<std::size_t>(), v["hops"].get<std::size_t>(),
                               v["hops"].get<std::size_t>(), r["decrypted_by"].size(), r["trustees"].get<std::size_t>(),
                               r["threshold"].get<std::size_t>());
    if (const std::string file = v["transcript"].get<std::string>(); !file.empty()) {
      // A local run names the session config it kept (empty: removed with the session directory).
      const std::string config = v.value("session_config", std::string());
      std::string hint = "check it with: shufflempc verify " + file;
      if (!config.empty()) hint = "check it against its session with: shufflempc verify " + file + " --config " + config;
      else if (v.contains("session_config")) hint += "; keep the session's config with --keep-dir DIR to tie it to its session: verify --config DIR/session.json";
      std::cout << "transcript " << file << " (" << hint << ")\n";
    }
  }
  if (!report.contains("mix_chain")) return;
  for (const auto& r : report["mix_chain"]["rounds"])
    for (const auto& h : r["hops"])
      std::cout << fmt::format("mix       round {} hop {}: {} records in, {} out, {} did not open, {} copies refused\n",
                               r["round"].get<std::size_t>(), h["hop"].get<std::size_t>(), h["records_in"].get<std::size_t>(),
                               h["records_out"].get<std::size_t>(), h["not_opened"].get<std::size_t>(), h["duplicates"].get<std::size_t>());
}

Value mix_chain_report(std::size_t servers, const std::map<std::uint32_t, std::vector<net::HopReport>>& rounds) {
  Value out = Value::array();
  for (const auto& [r, reports] : rounds) {
    Value hops = Value::array();
    for (const auto& h : reports)
      hops.push_back({{"hop", h.place.hop}, {"records_in", h.records_in}, {"records_out", h.records_out}, {"not_opened", h.not_opened},
                      {"duplicates", h.duplicates}});
    out.push_back({{"round", r}, {"hops", hops}});
  }
  return {{"hops", servers}, {"rounds", out}};
}

Value verifiable_mix_report(const mixnet::Transcript& transcript, const std::string& file) {
  Value rounds = Value::array();
  for (const auto& r : transcript.rounds)
    rounds.push_back({{"round", r.round}, {"records", r.input.size()}, {"limbs", r.input.limbs()}, {"trustees", r.key.shares.size()},
                      {"threshold", r.key.threshold}, {"decrypted_by", r.decrypted_by},
                      {"delivery", to_string(r.delivery)}});
  return {{"hops", transcript.hops}, {"rounds", rounds}, {"transcript", file}};
}

Value analyzer_report(const RunResult& result) {
  Value rounds = Value::array();
  for (const auto& r : result.rounds)
    rounds.push_back({{"round", r.round}, {"messages", r.messages}, {"bytes", r.bytes}, {"dropped", r.dropped}});
  return {{"output", result.output}, {"messages", result.messages}, {"bytes", result.bytes}, {"seconds", result.seconds},
          {"dropped", result.dropped},  {"round_stats", rounds},         {"details", result.details}};
}

}  // namespace shufflempc::cli
