#include "shufflempc/runtime.hpp"


#include "shufflempc/parallel.hpp"
#include "shufflempc/trace.hpp"

#include <algorithm>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <chrono>
#include <cmath>
#include <exception>
#include <mutex>
#include <stdexcept>

namespace shufflempc {

Party::~Party() = default;
void Party::receive(std::uint32_t, const MessageBatch&, const RoundOutcome&) {}
Value Party::output() const { return nullptr; }
Analyzer::~Analyzer() = default;
Value Analyzer::details() const { return nullptr; }
Protocol::~Protocol() = default;
std::optional<Value> Protocol::truth(std::span<const Value>) const { return std::nullopt; }
Value Protocol::describe() const { return Value::object(); }

RoundDriver::RoundDriver(const Protocol& protocol, AnonymousChannel& channel, Rng& rng, std::size_t total_parties)
    : protocol_(protocol), channel_(channel), rng_(rng), total_parties_(total_parties) {}

namespace {

// parallel_for whose error is the lowest index's that threw, the one a loop in index order gives,
// whatever the threads' timing: every index runs (an error stops none), then that error is
// rethrown. On one thread, a plain loop. For the parties of one process, whose errors (a bad input,
// a message refused) name the party: the same run names the same party every time.
template <class F>
void parallel_for_lowest_error(std::size_t count, unsigned threads, F&& body) {
  if (threads <= 1 || count <= 1) {
    for (std::size_t i = 0; i < count; ++i) body(i);
    return;
  }
  std::mutex m;
  std::size_t lowest = count;
  std::exception_ptr error;
  parallel_for(count, threads, [&](std::size_t i) {
    try {
      body(i);
    } catch (...) {
      const std::lock_guard lock(m);
      if (i < lowest) {
        lowest = i;
        error = std::current_exception();
      }
    }
  });
  if (error) std::rethrow_exception(error);
}

}  // namespace

void RoundDriver::add_party(PartyId id, const Value& input) {
  if (id >= total_parties_)
    throw std::invalid_argument("party id " + std::to_string(id) + " is outside [0, " +
                                std::to_string(total_parties_) + ")");
  parties_.emplace_back(id, protocol_.make_party(id, input));
}

void RoundDriver::add_parties(PartyId first, std::span<const Value> inputs) {
  if (inputs.empty()) return;
  if (first >= total_parties_ || inputs.size() > total_parties_ - first)
    throw std::invalid_argument("party ids " + std::to_string(first) + ".." + std::to_string(first + inputs.size() - 1) +
                                " are outside [0, " + std::to_string(total_parties_) + ")");
  const bool spread = inputs.size() > 1 && protocol_.heavy_parties();
  if (!spread) {
    for (std::size_t i = 0; i < inputs.size(); ++i) add_party(first + static_cast<PartyId>(i), inputs[i]);
    return;
  }
  std::vector<std::unique_ptr<Party>> made(inputs.size());
  parallel_for_lowest_error(inputs.size(), hardware_threads(),
                            [&](std::size_t i) { made[i] = protocol_.make_party(first + static_cast<PartyId>(i), inputs[i]); });
  parties_.reserve(parties_.size() + made.size());
  for (std::size_t i = 0; i < made.size(); ++i) parties_.emplace_back(first + static_cast<PartyId>(i), std::move(made[i]));
}

void RoundDriver::host_analyzer() { analyzer_ = protocol_.make_analyzer(); }

namespace {

// Runs body(i, alone) for i in [0, count): at once on up to `threads` threads (alone = true) if
// `heavy`; else body(0, false) on this thread, timed, and if it took RoundDriver::heavy_party or more
// `heavy` becomes true and the rest run on the threads, else on this thread in order (alone = false).
// prepare() runs once before any call with alone = true. For the few parties of a garbled circuit or
// of a long vector's shares, each milliseconds of work. Spread or not, an error is the lowest
// party's (parallel_for_lowest_error).
template <class Prepare, class F>
void spread_if_heavy(std::size_t count, unsigned threads, bool& heavy, Prepare&& prepare, F&& body) {
  if (count == 0) return;
  std::size_t from = 0;
  if (!heavy) {
    const auto start = std::chrono::steady_clock::now();
    body(0, false);
    from = 1;
    heavy = threads > 1 && std::chrono::steady_clock::now() - start >= RoundDriver::heavy_party;
  }
  if (heavy && from < count) prepare();
  parallel_for_lowest_error(count - from, heavy ? threads : 1, [&](std::size_t i) { body(from + i, heavy); });
}

}  // namespace

namespace {

using HostedParties = std::vector<std::pair<PartyId, std::unique_ptr<Party>>>;

// Round r's submissions of the hosted parties `active` (indices into `parties`), each party sending
// with its own fork of `run_rng`. Parties are independent (own state, own forked generator), so
// blocks of them run on several threads; the blocks are joined in party order, so the submissions
// are the same whatever the number of threads.
Submissions send_round(HostedParties& parties, const std::vector<std::size_t>& active, std::uint32_t r, const RoundShape& info,
                       const Rng& run_rng, unsigned threads, bool& heavy_parties) {
  const std::size_t blocks = std::max<std::size_t>(1, std::min<std::size_t>(threads, active.size() / RoundDriver::parallel_parties));
  // Many parties: a block of them per thread. Few: in turn into one part, or, if each is heavy,
  // one part each on every thread (spread_if_heavy).
  std::vector<Submissions> parts;
  const auto start_parts = [&](std::size_t count) {
    const std::size_t from = parts.size();
    parts.resize(count);
    for (std::size_t b = from; b < count; ++b) parts[b].messages = MessageBatch(info.width);
  };
  start_parts(blocks);
  const auto send = [&](Submissions& part, std::size_t k) {
    auto& [id, party] = parties[active[k]];
    auto party_rng = run_rng.fork(rng_labels::party(r, id));
    const std::size_t first = part.messages.count();
    party->send(r, *party_rng, part.messages);
    if (part.messages.width() != info.width) throw std::logic_error("party " + std::to_string(id) + " changed the round's message width");
    part.parties.push_back({id, first, part.messages.count() - first});
  };
  if (blocks > 1) {
    parallel_for_lowest_error(blocks, threads, [&](std::size_t b) {
      for (std::size_t k = active.size() * b / blocks; k < active.size() * (b + 1) / blocks; ++k) send(parts[b], k);
    });
  } else {
    spread_if_heavy(
        active.size(), threads, heavy_parties, [&] { start_parts(active.size()); },
        [&](std::size_t k, bool alone) { send(parts[alone ? k : 0], k); });
  }
  std::size_t total = 0;
  for (const auto& part : parts) total += part.messages.count();
  Submissions local = std::move(parts[0]);
  local.messages.reserve(total);  // one copy of each part's messages, none on regrowing
  for (std::size_t b = 1; b < parts.size(); ++b) {
    const std::size_t offset = local.messages.count();
    local.messages.append(parts[b].messages);
    for (auto slice : parts[b].parties) {
      slice.first += offset;
      local.parties.push_back(slice);
    }
  }
  return local;
}

// Round r's output to whoever hosted here may read it: every party still in the session when the
// round is delivered to all, and the analyzer (null: none hosted here).
void deliver_round(HostedParties& parties, Analyzer* analyzer, std::uint32_t r, const RoundShape& info, const RoundOutcome& outcome,
                   const std::vector<bool>& gone, Rng& analyzer_rng, unsigned threads, bool& heavy_parties) {
  const MessageBatch& output = *outcome.output;
  if (info.delivery == Delivery::all_parties) {
    // Each party reads the whole output: in parallel when that is a lot of reading, and then the
    // analyzer with them (first, as the one reader that sees everything), else its reading
    // would be the round's serial tail. A party's error still comes before the analyzer's.
    const bool wide = parties.size() > 1 && output.size_bytes() * parties.size() >= (std::size_t{4} << 20);
    const auto receive = [&](std::size_t i) {
      auto& [id, party] = parties[i];
      if (!gone[id]) party->receive(r, output, outcome);
    };
    if (wide && analyzer) {
      std::exception_ptr analyzer_error;
      parallel_for_lowest_error(parties.size() + 1, threads, [&](std::size_t i) {
        if (i > 0) return receive(i - 1);
        try {
          analyzer->receive(r, output, outcome, analyzer_rng);
        } catch (...) {
          analyzer_error = std::current_exception();
        }
      });
      if (analyzer_error) std::rethrow_exception(analyzer_error);
      return;
    }
    if (wide) parallel_for_lowest_error(parties.size(), threads, receive);
    else spread_if_heavy(parties.size(), threads, heavy_parties, [] {}, [&](std::size_t i, bool) { receive(i); });
  }
  if (analyzer) analyzer->receive(r, output, outcome, analyzer_rng);
}

}  // namespace

RunResult RoundDriver::run(const RunOptions& options) {
  trace::point("RoundDriver::run");
  const auto start = std::chrono::steady_clock::now();
  RunResult result;
  std::vector<PartyId> expected(total_parties_);
  for (std::size_t i = 0; i < total_parties_; ++i) expected[i] = static_cast<PartyId>(i);
  std::vector<bool> gone(total_parties_, false);
  // A fresh generator for this run: running twice with the same rng never reuses randomness.
  const auto run_rng = rng_.split();
  const unsigned threads = hardware_threads();
  auto analyzer_rng = run_rng->fork(rng_labels::analyzer);
  // Once a party's send or receive took heavy_party (or the protocol says so), every call spreads.
  bool heavy_parties = protocol_.heavy_parties();

  for (std::uint32_t r = 0; r < protocol_.rounds(); ++r) {
    const RoundShape info = protocol_.round(r);
    RoundRules spec;
    spec.round = r;
    spec.shape = info;
    spec.expected = expected;
    spec.min_parties = options.min_parties == 0 ? expected.size() : options.min_parties;
    spec.deadline = options.deadline;

    // Every hosted party still in the session sends.
    std::vector<std::size_t> active;
    active.reserve(parties_.size());
    for (std::size_t i = 0; i < parties_.size(); ++i) {
      const PartyId id = parties_[i].first;
      if (gone[id]) continue;
      if (auto d = options.dropouts.find(id); d != options.dropouts.end() && d->second <= r) continue;
      active.push_back(i);
    }
    RoundOutcome outcome = channel_.exchange(spec, send_round(parties_, active, r, info, *run_rng, threads, heavy_parties));

    RoundTraffic stats;
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
      deliver_round(parties_, analyzer_.get(), r, info, outcome, gone, *analyzer_rng, threads, heavy_parties);
      if (options.record_view) result.view.push_back(std::move(*outcome.output));
    }
  }
  std::sort(result.dropped.begin(), result.dropped.end());
  if (analyzer_) {
    result.output = analyzer_->result();
    result.details = analyzer_->details();
  }
  for (auto& [id, party] : parties_)
    if (!gone[id]) result.party_outputs[id] = party->output();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

RunResult run_all_parties(const Protocol& protocol, AnonymousChannel& channel, std::span<const Value> inputs, Rng& rng,
                          const RunOptions& options) {
  RoundDriver session(protocol, channel, rng, inputs.size());
  session.add_parties(0, inputs);
  session.host_analyzer();
  return session.run(options);
}

void keep_freed_buffers() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

std::optional<TrialResult> Protocol::trial(std::size_t, std::string_view, Rng&) const { return std::nullopt; }

std::optional<std::pair<double, double>> trial_errors(const Value& output, const Value& truth) {
  if (output.is_number() && truth.is_number()) {
    const double e = output.get<double>() - truth.get<double>();
    return std::pair{e, std::fabs(e)};
  }
  std::vector<double> diffs;
  if (output.is_array() && truth.is_array() && output.size() == truth.size() && !output.empty()) {
    for (std::size_t i = 0; i < output.size(); ++i) {
      if (!output[i].is_number() || !truth[i].is_number()) return std::nullopt;
      diffs.push_back(output[i].get<double>() - truth[i].get<double>());
    }
  } else if (output.is_object() && truth.is_object() && output.size() == truth.size() && !output.empty()) {
    for (const auto& [name, value] : output.items()) {
      if (!value.is_number() || !truth.contains(name) || !truth[name].is_number()) return std::nullopt;
      diffs.push_back(value.get<double>() - truth[name].get<double>());
    }
  } else {
    return std::nullopt;
  }
  double sq = 0, worst = 0;
  for (double d : diffs) {
    sq += d * d;
    worst = std::max(worst, std::fabs(d));
  }
  return std::pair{std::sqrt(sq / static_cast<double>(diffs.size())), worst};
}

}  // namespace shufflempc

#include "shufflempc/random_inputs.hpp"

namespace shufflempc {

std::vector<Value> draw_random_inputs(const Protocol& protocol, std::size_t parties, std::string_view spec, const Rng& rng) {
  auto input_rng = rng.fork(rng_labels::random_inputs);
  std::vector<Value> inputs;
  inputs.reserve(parties);
  for (std::size_t i = 0; i < parties; ++i) inputs.push_back(protocol.random_input(static_cast<PartyId>(i), spec, *input_rng));
  return inputs;
}

}  // namespace shufflempc
