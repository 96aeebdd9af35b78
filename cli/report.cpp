#include "report.hpp"

#include <fmt/format.h>

#include <iostream>

namespace shufflempc::cli {

void print_report(const Value& report, bool json) {
  if (json) {
    std::cout << report.dump() << '\n';
    return;
  }
  const auto show = [](const Value& v) {
    std::string s = v.dump();
    return s.size() > 200 ? s.substr(0, 197) + "..." : s;
  };
  // The output and the truth whole (a histogram's every bin: its exact zeros are what the inverted
  // variant shows), up to 1024 values; beyond, the first 1024 and how many there are.
  const auto show_all = [&show](const Value& v) {
    constexpr std::size_t most = 1024;
    if (!v.is_array()) return show(v);
    if (v.size() <= most) return v.dump();
    Value head(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(most));
    std::string s = head.dump();
    s.pop_back();
    return s + ", ...] (the first " + std::to_string(most) + " of " + std::to_string(v.size()) + " values; --json prints all)";
  };
  std::cout << fmt::format("protocol  {}  ({} parties, {} round{})\n", report["protocol"].get<std::string>(),
                           report["parties"].get<std::size_t>(), report["rounds"].get<int>(),
                           report["rounds"].get<int>() == 1 ? "" : "s");
  std::cout << "output    " << show_all(report["output"]) << '\n';
  if (report.contains("truth")) std::cout << "truth     " << show_all(report["truth"]) << '\n';
  // The words of a study: a number's signed error; a vector's root mean square and its largest.
  if (report.contains("error")) {
    if (report["output"].is_number())
      std::cout << fmt::format("error     {:.6g} (output - truth)\n", report["error"].get<double>());
    else
      std::cout << fmt::format("error     {:.6g} (root mean square over the {} values; the largest {:.6g})\n", report["error"].get<double>(),
                               report["output"].size(), report.value("max_error", 0.0));
  }
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
                               "servers ({} needed){} verified\n",
                               r["round"].get<std::size_t>(), r["records"].get<std::size_t>(), v["hops"].get<std::size_t>(),
                               v["hops"].get<std::size_t>(), r["decrypted_by"].size(), r["trustees"].get<std::size_t>(),
                               r["threshold"].get<std::size_t>(), r["delivery"] == "analyzer-only" ? " and the analyzer" : "");
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

}  // namespace shufflempc::cli
