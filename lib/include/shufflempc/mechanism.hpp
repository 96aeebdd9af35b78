// One-round mechanisms: the randomizer R and the analyzer A of the shuffle model, and everything
// else a one-round protocol needs, written once.
//
// A mechanism is a plain class (no base class, no JSON in its hot path) that declares:
//
//   using Input  = ...;   // one party's input (bool, std::uint32_t, BigInt, ...)
//   using Output = ...;   // the analyzer's result
//   RoundShape shape() const;                                           // width, delivery, messages per party
//   Input  parse_input(PartyId id, const Value& v) const;               // std::invalid_argument naming the party
//   void   encode(const Input& x, Rng& rng, MessageBatch& out) const;   // R: append this party's messages
//   Output analyze(const MessageBatch& shuffled, const RoundOutcome& outcome, Rng& rng) const;  // A
//   Input  random_input(std::string_view spec, Rng& rng) const;         // "" = the default distribution
//   Value  describe() const;                                            // derived facts for every report
//   double predicted_sd() const;            // the error's predicted standard deviation (optional)
//   double predicted_mse(std::span<const Input> inputs) const;  // E[error^2] on these inputs (every
//                                           // party submitting), where it depends on them (optional;
//                                           // for a vector, the mean over its coordinates)
//   TrustModel trust_model() const;         // local or central (optional; default: shuffle)
//
// and optionally
//
//   Value  truth(std::span<const Input> inputs) const;   // the exact answer the mechanism estimates
//   Value  input_value(const Input& x) const;            // when Value(x) does not do (big integers)
//   Value  output_value(const Output& y) const;          // likewise for the result
//   static constexpr bool has_error = false;             // truth exists but "error" means nothing
//   Value run_details(const RoundOutcome& outcome) const; // facts of one run (the privacy the
//                                                         // actual submitters achieved, say)
//   bool valid(std::span<const std::uint8_t> message) const; // a message an honest party can send:
//                                                         // the analyzer discards and counts the
//                                                         // others instead of refusing the run, so
//                                                         // one party cannot veto the result
//   auto input_sampler(std::string_view spec) const;      // spec parsed once: a callable
//                                                         // Input(Rng&) for the study's millions
//                                                         // of draws (else random_input per draw)
//
// make_one_round(m) turns it into a registered Protocol (parties, analyzer, inputs, truth) for the
// CLI, the launcher and every transport. Studies and attacks call the mechanism directly instead:
// OneRoundRun encodes parties one by one (pause after some of them, copy the run, continue) and
// finishes with a shuffle and the mechanism's own analyzer, without any RoundDriver or channel.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "shufflempc/runtime.hpp"
#include "shufflempc/shuffle.hpp"

namespace shufflempc {

template <class M>
concept Mechanism = requires(const M& m, const typename M::Input& x, PartyId id, const Value& v, Rng& rng,
                             MessageBatch& out, const MessageBatch& shuffled, const RoundOutcome& outcome,
                             std::string_view spec) {
  typename M::Input;
  typename M::Output;
  { m.shape() } -> std::convertible_to<RoundShape>;
  { m.parse_input(id, v) } -> std::convertible_to<typename M::Input>;
  m.encode(x, rng, out);
  { m.analyze(shuffled, outcome, rng) } -> std::convertible_to<typename M::Output>;
  { m.random_input(spec, rng) } -> std::convertible_to<typename M::Input>;
  { m.describe() } -> std::convertible_to<Value>;
};

// What every analyzer checks first: the round's total is what `submitted` parties may send under
// the declared shape. Throws std::system_error(Errc::protocol_violation) otherwise, so that no
// party, corrupt or not, adds weight beyond its declared share unnoticed.
void check_total(const RoundShape& shape, std::size_t messages, std::size_t submitted);

namespace detail {

// The messages of `batch` for which `valid` holds, and how many it dropped: the batch itself (no
// copy) when every message is valid, else the valid ones copied into `scratch`.
template <class Valid>
[[nodiscard]] std::pair<const MessageBatch*, std::size_t> valid_messages(const MessageBatch& batch, MessageBatch& scratch, const Valid& valid) {
  std::size_t invalid = 0;
  for (std::size_t i = 0; i < batch.count(); ++i) invalid += valid(batch[i]) ? 0 : 1;
  if (invalid == 0) return {&batch, 0};
  scratch = MessageBatch(batch.width());
  scratch.reserve(batch.count() - invalid);
  for (std::size_t i = 0; i < batch.count(); ++i)
    if (valid(batch[i])) scratch.push_back(batch[i]);
  return {&scratch, invalid};
}

template <class M>
Value input_to_value(const M& m, const typename M::Input& x) {
  if constexpr (requires { { m.input_value(x) } -> std::convertible_to<Value>; }) return m.input_value(x);
  else return Value(x);
}

template <class M>
Value output_to_value(const M& m, const typename M::Output& y) {
  if constexpr (requires { { m.output_value(y) } -> std::convertible_to<Value>; }) return m.output_value(y);
  else return Value(y);
}

template <class M>
auto input_sampler(const M& m, std::string_view spec) {
  if constexpr (requires { m.input_sampler(spec); }) {
    return m.input_sampler(spec);
  } else {
    return [&m, s = std::string(spec)](Rng& rng) { return m.random_input(s, rng); };
  }
}

}  // namespace detail

// The Protocol of a one-round mechanism. It owns the mechanism; parties and the analyzer refer to it.
template <Mechanism M>
class OneRoundProtocol final : public Protocol {
 public:
  using Input = typename M::Input;
  using Output = typename M::Output;

  explicit OneRoundProtocol(M mechanism) : m_(std::move(mechanism)) {}

  [[nodiscard]] const M& mechanism() const { return m_; }

  [[nodiscard]] std::uint32_t rounds() const override { return 1; }
  [[nodiscard]] RoundShape round(std::uint32_t) const override { return m_.shape(); }
  [[nodiscard]] std::unique_ptr<Party> make_party(PartyId id, const Value& input) const override {
    return std::make_unique<MechanismParty>(m_, m_.parse_input(id, input));
  }
  [[nodiscard]] std::unique_ptr<Analyzer> make_analyzer() const override { return std::make_unique<MechanismAnalyzer>(m_); }
  [[nodiscard]] Value random_input(PartyId, std::string_view spec, Rng& rng) const override {
    return detail::input_to_value(m_, m_.random_input(spec, rng));
  }
  [[nodiscard]] std::optional<Value> truth(std::span<const Value> inputs) const override {
    if constexpr (requires(std::span<const Input> xs) { { m_.truth(xs) } -> std::convertible_to<Value>; }) {
      // An array, not a std::vector: a span must be able to view it even when Input is bool.
      const auto xs = std::make_unique<Input[]>(inputs.size());
      for (std::size_t i = 0; i < inputs.size(); ++i) xs[i] = m_.parse_input(static_cast<PartyId>(i), inputs[i]);
      return Value(m_.truth(std::span<const Input>(xs.get(), inputs.size())));
    } else {
      return std::nullopt;
    }
  }
  [[nodiscard]] Value describe() const override { return m_.describe(); }
  [[nodiscard]] std::optional<double> predicted_sd() const override {
    if constexpr (requires { { m_.predicted_sd() } -> std::convertible_to<double>; }) return m_.predicted_sd();
    return std::nullopt;
  }
  [[nodiscard]] TrustModel trust_model() const override {
    if constexpr (requires { { m_.trust_model() } -> std::convertible_to<TrustModel>; }) return m_.trust_model();
    return TrustModel::shuffle;
  }
  [[nodiscard]] bool has_error() const override {
    if constexpr (requires { M::has_error; }) return M::has_error;
    else return true;
  }
  [[nodiscard]] std::optional<TrialResult> trial(std::size_t parties, std::string_view input_spec, Rng& caller_rng) const override {
    const auto rng = caller_rng.split();  // as RoundDriver::run: every call a fresh execution
    const auto xs = std::make_unique<Input[]>(parties);
    {
      auto input_rng = rng->fork(rng_labels::random_inputs);
      auto draw = detail::input_sampler(m_, input_spec);
      for (std::size_t i = 0; i < parties; ++i) xs[i] = draw(*input_rng);
    }
    const RoundShape shape = m_.shape();
    MessageBatch batch(shape.width);
    // A fixed count exactly; a variable one only its least count plus one (a party may send up to
    // thousands of messages where it usually sends one or two), the batch grows beyond that.
    const std::size_t expected = shape.fixed_count() ? shape.max_messages : std::min(shape.max_messages, shape.min_messages + 1);
    if (expected <= 4096) batch.reserve(parties * expected);
    {
      // One generator for every party: a simulation, so the parties need not have their own.
      auto party_rng = rng->fork(rng_labels::party(0, 0));
      for (std::size_t i = 0; i < parties; ++i) m_.encode(xs[i], *party_rng, batch);
    }
    if (batch.width() != shape.width) throw std::logic_error("a randomizer changed the message width");
    RoundOutcome outcome;
    outcome.submitted.resize(parties);
    for (std::size_t i = 0; i < parties; ++i) outcome.submitted[i] = static_cast<PartyId>(i);
    outcome.messages = batch.count();
    check_total(shape, batch.count(), parties);
    {
      auto shuffle_rng = rng->fork(rng_labels::shuffle);
      Shuffler(Shuffler::default_leaf_bytes, 1).shuffle(batch, *shuffle_rng);
    }
    auto analyzer_rng = rng->fork(rng_labels::analyzer);
    TrialResult result;
    result.output = detail::output_to_value(m_, m_.analyze(batch, outcome, *analyzer_rng));
    result.messages = batch.count();
    result.bytes = batch.size_bytes();
    if constexpr (requires(std::span<const Input> s) { { m_.truth(s) } -> std::convertible_to<Value>; }) {
      if (has_error()) {
        if (const auto e = trial_errors(result.output, Value(m_.truth(std::span<const Input>(xs.get(), parties))))) {
          result.error = e->first;
          result.max_error = e->second;
        }
        if constexpr (requires(std::span<const Input> s) { { m_.predicted_mse(s) } -> std::convertible_to<double>; })
          result.predicted_mse = m_.predicted_mse(std::span<const Input>(xs.get(), parties));
      }
    }
    return result;
  }

 private:
  class MechanismParty final : public Party {
   public:
    MechanismParty(const M& m, Input x) : m_(m), x_(std::move(x)) {}
    void send(std::uint32_t, Rng& rng, MessageBatch& out) override { m_.encode(x_, rng, out); }

   private:
    const M& m_;
    Input x_;
  };

  class MechanismAnalyzer final : public Analyzer {
   public:
    explicit MechanismAnalyzer(const M& m) : m_(m) {}
    void receive(std::uint32_t, const MessageBatch& output, const RoundOutcome& outcome, Rng& rng) override {
      // Records the channel could not open count toward the total: they were sent.
      check_total(m_.shape(), output.count() + outcome.discarded, outcome.submitted.size());
      const MessageBatch* kept = &output;
      std::size_t invalid = 0;
      MessageBatch scratch;
      if constexpr (requires(std::span<const std::uint8_t> msg) { { m_.valid(msg) } -> std::convertible_to<bool>; })
        std::tie(kept, invalid) = detail::valid_messages(output, scratch, [this](std::span<const std::uint8_t> msg) { return m_.valid(msg); });
      result_ = m_.analyze(*kept, outcome, rng);
      if constexpr (requires { { m_.run_details(outcome) } -> std::convertible_to<Value>; }) details_ = m_.run_details(outcome);
      if (outcome.discarded + invalid > 0) {
        if (!details_.is_object()) details_ = Value::object();
        details_["discarded_records"] = outcome.discarded + invalid;
      }
    }
    Value result() override { return result_ ? detail::output_to_value(m_, *result_) : Value(nullptr); }
    Value details() const override { return details_; }

   private:
    const M& m_;
    std::optional<Output> result_;
    Value details_;
  };

  M m_;
};

// The registry's factories return this.
template <Mechanism M>
[[nodiscard]] std::unique_ptr<Protocol> make_one_round(M mechanism) {
  return std::make_unique<OneRoundProtocol<M>>(std::move(mechanism));
}

// A one-round execution held in the caller's hands: the messages of the parties encoded so far, in
// the order they were added. It is a value: copy it to replay the rest of an execution from a
// paused point (the XOR-sum attack freezes the secret half once and appends each query's parties
// to a copy). finish() shuffles a copy of the messages and runs the mechanism's analyzer.
template <Mechanism M>
class OneRoundRun {
 public:
  using Input = typename M::Input;
  using Output = typename M::Output;

  explicit OneRoundRun(const M& m) : m_(&m), messages_(m.shape().width) {}

  // Runs the randomizer of party `id` on `x` with `rng` (the party's own generator).
  void add(PartyId id, const Input& x, Rng& rng) {
    m_->encode(x, rng, messages_);
    if (messages_.width() != m_->shape().width)
      throw std::logic_error("party " + std::to_string(id) + "'s randomizer changed the message width");
    submitted_.push_back(id);
  }
  // Parties first, first+1, ... with inputs `xs`; party i draws from rng.fork(rng_labels::party(0, i)),
  // as in a RoundDriver's only round.
  void add_all(std::span<const Input> xs, const Rng& rng, PartyId first = 0) {
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const auto id = static_cast<PartyId>(first + i);
      auto party_rng = rng.fork(rng_labels::party(0, id));
      add(id, xs[i], *party_rng);
    }
  }

  [[nodiscard]] const MessageBatch& messages() const { return messages_; }
  [[nodiscard]] std::size_t parties() const { return submitted_.size(); }

  // Shuffles a copy of the messages with `shuffle_rng` and analyzes it with `analyzer_rng`.
  [[nodiscard]] Output finish(Rng& shuffle_rng, Rng& analyzer_rng) const {
    RoundOutcome outcome;
    outcome.submitted = submitted_;
    std::sort(outcome.submitted.begin(), outcome.submitted.end());
    MessageBatch shuffled = messages_;
    Shuffler shuffler;
    shuffler.shuffle(shuffled, shuffle_rng);
    outcome.messages = shuffled.count();
    check_total(m_->shape(), shuffled.count(), outcome.submitted.size());
    return m_->analyze(shuffled, outcome, analyzer_rng);
  }

 private:
  const M* m_;
  MessageBatch messages_;
  std::vector<PartyId> submitted_;
};

}  // namespace shufflempc
