// Protocols, parties, analyzers and the round driver.
//
// A Protocol is configured once (parameters and number of parties) and then makes one Party state
// machine per party and one Analyzer. The RoundDriver drives rounds over any AnonymousChannel: it asks
// each party it hosts for its round-r messages, submits them, hands the public output back to the
// parties (MPC mode) and to the analyzer. The same RoundDriver code runs every party in one process
// (net/inproc) or a few parties per process over TCP (net/tcp): protocols do not know which.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "shufflempc/channel.hpp"
#include "shufflempc/messages.hpp"
#include "shufflempc/random.hpp"

namespace shufflempc {

// Inputs, outputs and reports travel as JSON values at the generic layer (CLI, launcher, files);
// each protocol also offers a typed C++ API for library users.
using Value = nlohmann::json;

// Labels of the generators forked from a run's generator (Rng::fork). Party p's generator in round r
// is fork(party(r, p)); the others sit at the top of the label space, beyond every party's.
namespace rng_labels {
[[nodiscard]] constexpr std::uint64_t party(std::uint32_t round, PartyId id) { return (std::uint64_t{round} << 32) | id; }
inline constexpr std::uint64_t analyzer = 0xffff'ffff'ffff'fff1ull;       // the analyzer's generator
inline constexpr std::uint64_t random_inputs = 0xffff'ffff'ffff'fff2ull;  // --random-inputs
inline constexpr std::uint64_t dropouts = 0xffff'ffff'ffff'fff3ull;       // --dropouts: who drops
inline constexpr std::uint64_t shuffle = 0xffff'ffff'ffff'fff4ull;        // a simulated shuffle (Protocol::trial)
}  // namespace rng_labels


// Where a protocol puts its trust: each party protects itself (local), the shuffle hides who sent
// what (shuffle), or a trusted analyzer sees every input (central).
enum class TrustModel { local, shuffle, central };
[[nodiscard]] constexpr const char* to_string(TrustModel m) {
  return m == TrustModel::local ? "local" : m == TrustModel::central ? "central" : "shuffle";
}

// One party's state machine.
class Party {
 public:
  virtual ~Party();
  // Appends this party's messages for `round` to `out` (whose width is the round's width). `rng`
  // is this party's generator for this round. Appending nothing is allowed (a silent party).
  virtual void send(std::uint32_t round, Rng& rng, MessageBatch& out) = 0;
  // The shuffled output of `round`, in MPC mode (Delivery::all_parties) only, with the round's
  // outcome (who submitted, who dropped: a Shamir-based protocol interpolates at the submitters).
  virtual void receive(std::uint32_t round, const MessageBatch& output, const RoundOutcome& outcome);
  // The party's own final output (null if the protocol gives parties none).
  [[nodiscard]] virtual Value output() const;
};

// The analyzer (the "server"): post-processes what the channel delivers.
class Analyzer {
 public:
  virtual ~Analyzer();
  // `rng` is the analyzer's generator (a central-model analyzer adds its noise from it).
  virtual void receive(std::uint32_t round, const MessageBatch& output, const RoundOutcome& outcome, Rng& rng) = 0;
  [[nodiscard]] virtual Value result() = 0;
  // Facts of this run beyond the result (the privacy the actual submitters achieved, say), or null.
  [[nodiscard]] virtual Value details() const;
};

// One simulated execution for a study (Protocol::trial): the analyzer's output against the truth.
struct TrialResult {
  Value output;                 // the analyzer's result
  std::optional<double> error;  // output - truth for a number; for a vector, the root mean square
                                // over its coordinates; absent without a numeric truth
  std::optional<double> max_error;  // the largest absolute coordinate error (vectors), |error| (numbers)
  // The expected square of `error` given this trial's inputs (E[error^2 | inputs]): what the RMSE of
  // many trials estimates, from the mechanism's predicted_mse(inputs) where its error depends on the
  // data (a histogram's truncated bins); absent otherwise (a study then uses predicted_sd for the
  // trial's submitters).
  std::optional<double> predicted_mse;
  std::size_t messages = 0;
  std::size_t bytes = 0;
  Value details;                // the analyzer's facts of this run, or null
};

class Protocol {
 public:
  virtual ~Protocol();
  [[nodiscard]] virtual std::uint32_t rounds() const = 0;
  [[nodiscard]] virtual RoundShape round(std::uint32_t r) const = 0;
  // Validates `input` (std::invalid_argument naming the party and the accepted values).
  [[nodiscard]] virtual std::unique_ptr<Party> make_party(PartyId id, const Value& input) const = 0;
  [[nodiscard]] virtual std::unique_ptr<Analyzer> make_analyzer() const = 0;
  // A random input for party `id` from a textual spec (protocol-specific; "" = the default).
  [[nodiscard]] virtual Value random_input(PartyId id, std::string_view spec, Rng& rng) const = 0;
  // The exact answer the protocol estimates, when it has one.
  [[nodiscard]] virtual std::optional<Value> truth(std::span<const Value> inputs) const;
  // Derived facts worth reporting with every run (noise rate, success probability, ...).
  [[nodiscard]] virtual Value describe() const;
  // Whether the analyzer's result should be compared with truth() ("error" in reports).
  [[nodiscard]] virtual bool has_error() const { return true; }
  // The standard deviation of the estimate's error this configuration predicts (per coordinate of a
  // vector output), when the protocol makes one: a study prints it beside the measured RMSE.
  [[nodiscard]] virtual std::optional<double> predicted_sd() const { return std::nullopt; }
  // Whom the protocol asks the parties to trust with their data (a study labels its series by it).
  [[nodiscard]] virtual TrustModel trust_model() const { return TrustModel::shuffle; }
  // Whether a party's send or receive is milliseconds of work (garbled tables, the shares of a long
  // vector): RoundDriver then makes its hosted parties (RoundDriver::add_parties) and runs a round's
  // few hosted parties on every thread from the start. Without it the driver spreads sends and
  // receives once one is seen to take RoundDriver::heavy_party.
  [[nodiscard]] virtual bool heavy_parties() const { return false; }
  // A fast execution for studies: from run = rng.split() (so every call is a fresh execution, as
  // RoundDriver::run), `parties` inputs drawn as `input_spec` says (random_input's specs) from
  // run.fork(rng_labels::random_inputs), every party encoded, one shuffle, the analyzer,
  // on this thread, with no Value per party, RoundDriver or channel. nullopt when the protocol
  // has no such path (multi-round protocols); a study then runs the RoundDriver in process.
  [[nodiscard]] virtual std::optional<TrialResult> trial(std::size_t parties, std::string_view input_spec, Rng& rng) const;
};

// What happened in one round.
struct RoundTraffic {
  std::uint32_t round = 0;
  std::size_t messages = 0;
  std::size_t bytes = 0;
  std::vector<PartyId> dropped;
};

struct RunOptions {
  std::size_t min_parties = 0;               // 0: every party must submit
  std::map<PartyId, std::uint32_t> dropouts;  // party -> first round it misses (simulation)
  bool record_view = false;                   // keep every round's output in RunResult::view
  std::chrono::milliseconds deadline{0};
};

struct RunResult {
  Value output;                          // the analyzer's result (null if not hosted)
  std::map<PartyId, Value> party_outputs;  // outputs of the parties hosted here
  std::vector<RoundTraffic> rounds;
  std::vector<PartyId> dropped;          // every party that dropped, ascending
  std::vector<MessageBatch> view;        // the observer's view: each round's shuffled output
  Value details;                         // the analyzer's facts of this run (null if none or not hosted)
  std::size_t messages = 0;
  std::size_t bytes = 0;
  double seconds = 0;
};

// Drives the rounds of one protocol run for the parties (and maybe the analyzer) hosted at one
// endpoint. Each run() starts from run = rng.split() (so two runs never share randomness); party p's
// generator in round r is run.fork(rng_labels::party(r, p)) and the analyzer's is run.fork(rng_labels::analyzer): a
// seeded run gives the same messages whatever process hosts a party.
class RoundDriver {
 public:
  // Hosted parties per thread before a round's sends are spread over several threads. Party and
  // Protocol implementations must therefore keep their const methods free of shared mutable state
  // (each Party object is only ever used by one thread at a time).
  static constexpr std::size_t parallel_parties = 4096;
  // Fewer hosted parties than that still run on several threads when each is heavy: once a party's
  // send or receive takes this long, the run's further sends and receives are spread over the threads.
  static constexpr std::chrono::microseconds heavy_party{250};
  RoundDriver(const Protocol& protocol, AnonymousChannel& channel, Rng& rng, std::size_t total_parties);
  void add_party(PartyId id, const Value& input);
  // Parties first, first + 1, ... with these inputs, made on every thread when the protocol declares
  // them heavy (a vector input of 10^5 elements is milliseconds to read; 10^6 light parties are made
  // faster on one thread than with the allocator shared). Added in id order; a bad input throws the
  // error of the lowest such party, as one add_party at a time would.
  void add_parties(PartyId first, std::span<const Value> inputs);
  void host_analyzer();
  [[nodiscard]] RunResult run(const RunOptions& options);

 private:
  const Protocol& protocol_;
  AnonymousChannel& channel_;
  Rng& rng_;
  std::size_t total_parties_;
  std::vector<std::pair<PartyId, std::unique_ptr<Party>>> parties_;
  std::unique_ptr<Analyzer> analyzer_;
};

// Runs `protocol` over `channel` with every party (party i gets inputs[i]) and the analyzer hosted
// here: the common case of run_in_process and of the single-process transports.
[[nodiscard]] RunResult run_all_parties(const Protocol& protocol, AnonymousChannel& channel, std::span<const Value> inputs, Rng& rng,
                                        const RunOptions& options);

// For programs that run many large rounds or trials (the CLI, the benchmarks): rounds allocate and
// free buffers of megabytes, and glibc would hand each back to the kernel and fault it in afresh
// next time, which on a virtual machine costs more than the work done in them. Asks glibc to keep
// them (mallopt); a no-op elsewhere. Call once, early in main().
void keep_freed_buffers();

// The errors of a run's report and of a study's trial, one meaning for both ("error",
// "max_error"): (signed error, its absolute value) for numbers; (root mean square, largest
// absolute) over the coordinates of arrays and of objects of named numbers; none when either side
// is not numeric or the shapes differ.
[[nodiscard]] std::optional<std::pair<double, double>> trial_errors(const Value& output, const Value& truth);

}  // namespace shufflempc
