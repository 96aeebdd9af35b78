#include "shufflempc/runtime.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

namespace shufflempc {

Party::~Party() = default;
void Party::receive(std::uint32_t, const MessageBatch&) {}
Value Party::output() const { return nullptr; }
Analyzer::~Analyzer() = default;
Protocol::~Protocol() = default;
std::optional<Value> Protocol::truth(std::span<const Value>) const { return std::nullopt; }
Value Protocol::describe() const { return Value::object(); }

Session::Session(const Protocol& protocol, AnonymousChannel& channel, Rng& rng, std::size_t total_parties)
    : protocol_(protocol), channel_(channel), rng_(rng), total_parties_(total_parties) {}

void Session::add_party(PartyId id, const Value& input) {
  if (id >= total_parties_)
    throw std::invalid_argument("party id " + std::to_string(id) + " is outside [0, " +
                                std::to_string(total_parties_) + ")");
  parties_.emplace_back(id, protocol_.make_party(id, input));
}

void Session::host_analyzer() { analyzer_ = protocol_.make_analyzer(); }

RunResult Session::run(const RunOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  RunResult result;
  std::vector<PartyId> expected(total_parties_);
  for (std::size_t i = 0; i < total_parties_; ++i) expected[i] = static_cast<PartyId>(i);
  std::vector<bool> gone(total_parties_, false);
  // A fresh generator for this run: running twice with the same rng never reuses randomness.
  const auto run_rng = rng_.split();
  auto analyzer_rng = run_rng->fork(analyzer_label);

  for (std::uint32_t r = 0; r < protocol_.rounds(); ++r) {
    const RoundInfo info = protocol_.round(r);
    RoundSpec spec;
    spec.round = r;
    spec.width = info.width;
    spec.delivery = info.delivery;
    spec.expected = expected;
    spec.min_parties = options.min_parties == 0 ? expected.size() : options.min_parties;
    spec.deadline = options.deadline;

    Submissions local;
    local.messages = MessageBatch(info.width);
    for (auto& [id, party] : parties_) {
      if (gone[id]) continue;
      if (auto d = options.dropouts.find(id); d != options.dropouts.end() && d->second <= r) continue;
      auto party_rng = run_rng->fork((std::uint64_t{r} << 32) | id);
      const std::size_t first = local.messages.count();
      party->send(r, *party_rng, local.messages);
      if (local.messages.width() != info.width)
        throw std::logic_error("party " + std::to_string(id) + " changed the round's message width");
      local.parties.push_back({id, first, local.messages.count() - first});
    }
    RoundOutcome outcome = channel_.exchange(spec, std::move(local));

    RoundStats stats;
    stats.round = r;
    stats.messages = outcome.messages;
    stats.bytes = outcome.messages * info.width;
    stats.dropped = outcome.dropped;
    for (PartyId d : outcome.dropped) {
      if (d < total_parties_ && !gone[d]) {
        gone[d] = true;
        result.dropped.push_back(d);
      }
    }
    expected = outcome.submitted;
    result.messages += stats.messages;
    result.bytes += stats.bytes;
    result.rounds.push_back(std::move(stats));

    if (outcome.output) {
      if (info.delivery == Delivery::all_parties)
        for (auto& [id, party] : parties_)
          if (!gone[id]) party->receive(r, *outcome.output);
      if (analyzer_) analyzer_->receive(r, *outcome.output, outcome, *analyzer_rng);
      if (options.record_view) result.view.push_back(std::move(*outcome.output));
    }
  }
  std::sort(result.dropped.begin(), result.dropped.end());
  if (analyzer_) result.output = analyzer_->result();
  for (auto& [id, party] : parties_)
    if (!gone[id]) result.party_outputs[id] = party->output();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

std::optional<double> result_error(const Value& output, const Value& truth) {
  if (output.is_number() && truth.is_number()) return output.get<double>() - truth.get<double>();
  if (output.is_array() && truth.is_array() && output.size() == truth.size()) {
    double worst = 0;
    for (std::size_t i = 0; i < output.size(); ++i) {
      if (!output[i].is_number() || !truth[i].is_number()) return std::nullopt;
      worst = std::max(worst, std::fabs(output[i].get<double>() - truth[i].get<double>()));
    }
    return worst;
  }
  return std::nullopt;
}

}  // namespace shufflempc
