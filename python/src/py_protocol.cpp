// The Protocol class of the module: a protocol configured for a number of parties, its rounds'
// shapes and predictions, and for one-round protocols the randomizer, the shuffle and the analyzer
// to call one by one.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "glue.hpp"
#include "shufflempc/random_inputs.hpp"
#include "shufflempc/shuffle.hpp"

namespace shufflempc::pyglue {
namespace {

// A configured protocol, for a researcher who calls its parties and analyzer directly.
class PyProtocol {
 public:
  PyProtocol(const std::string& name, const py::object& parties, const py::object& min_parties, const py::kwargs& kwargs)
      : info_(&registry().get(name)),
        parties_(count_of(parties, "parties")),
        protocol_(registry().create(name, params_of(*info_, kwargs, {"min_parties"}), parties_, count_of(min_parties, "min_parties"))) {}

  [[nodiscard]] std::string name() const { return info_->name; }
  [[nodiscard]] std::size_t parties() const { return parties_; }
  [[nodiscard]] std::uint32_t rounds() const { return protocol_->rounds(); }
  [[nodiscard]] std::string trust_model() const { return to_string(protocol_->trust_model()); }
  [[nodiscard]] std::optional<double> predicted_sd() const { return protocol_->predicted_sd(); }
  [[nodiscard]] py::object describe() const { return to_python(protocol_->describe()); }

  [[nodiscard]] py::dict shape(std::uint32_t round) const {
    check_round(round);
    const RoundShape s = protocol_->round(round);
    py::dict d;
    d["width"] = s.width;
    d["delivery"] = s.delivery == Delivery::all_parties ? "all_parties" : "analyzer_only";
    d["min_messages"] = s.min_messages;
    d["max_messages"] = s.max_messages;
    return d;
  }

  [[nodiscard]] py::list random_inputs(std::optional<std::size_t> count, const std::string& spec, const py::object& seed) const {
    const std::size_t n = count.value_or(parties_);
    std::vector<Value> inputs;
    const auto seed_value = seed_of(seed);  // read with the GIL held
    {
      py::gil_scoped_release release;
      // The stream `run` draws its random inputs from, so run(inputs=p.random_inputs(seed=s), seed=s)
      // is run(seed=s).
      inputs = draw_random_inputs(*protocol_, n, spec, *make_rng(seed_value));
    }
    py::list out;
    for (const auto& v : inputs) out.append(to_python(v));
    return out;
  }

  [[nodiscard]] py::object truth(const py::object& inputs) const {
    const auto t = protocol_->truth(values_of(inputs));
    return t ? to_python(*t) : py::none();
  }

  // Party `party`'s messages for round 0 (the randomizer R), drawn from the seed's generator for
  // that party.
  [[nodiscard]] py::array_t<std::uint8_t> encode(const py::handle& input, PartyId party, const py::object& seed) const {
    check_one_round("encode");
    check_party(party);
    const Value x = to_value(input);
    MessageBatch out(protocol_->round(0).width);
    const auto seed_value = seed_of(seed);  // read with the GIL held
    {
      py::gil_scoped_release release;
      auto party_object = protocol_->make_party(party, x);
      auto rng = make_rng(seed_value)->fork(rng_labels::party(0, party));
      party_object->send(0, *rng, out);
    }
    return to_array(out);
  }

  // Every party's messages (party i holds inputs[i]) and, per message, its sender: the view of the
  // shuffler, before the shuffle.
  [[nodiscard]] py::tuple encode_all(const py::object& inputs, const py::object& seed) const {
    check_one_round("encode_all");
    const std::vector<Value> xs = values_of(inputs);
    if (xs.size() > parties_)
      throw std::invalid_argument(std::to_string(xs.size()) + " inputs for a protocol configured for " + std::to_string(parties_) + " parties");
    const std::size_t width = protocol_->round(0).width;
    MessageBatch out(width);
    std::vector<std::int64_t> senders;
    const auto seed_value = seed_of(seed);  // read with the GIL held
    {
      py::gil_scoped_release release;
      // Blocks of parties on every core, as the round driver sends them; each party draws from its
      // own generator, so the messages do not depend on the threads.
      const auto rng = make_rng(seed_value);
      const std::size_t block = RoundDriver::parallel_parties;
      const std::size_t blocks = (xs.size() + block - 1) / block;
      std::vector<MessageBatch> parts(blocks, MessageBatch(width));
      std::vector<std::vector<std::int64_t>> from(blocks);
      parallel_for(blocks, hardware_threads(), [&](std::size_t b) {
        for (std::size_t i = b * block; i < std::min(xs.size(), (b + 1) * block); ++i) {
          const auto id = static_cast<PartyId>(i);
          auto party_rng = rng->fork(rng_labels::party(0, id));
          const std::size_t before = parts[b].count();
          protocol_->make_party(id, xs[i])->send(0, *party_rng, parts[b]);
          from[b].insert(from[b].end(), parts[b].count() - before, static_cast<std::int64_t>(i));
        }
      });
      for (std::size_t b = 0; b < blocks; ++b) {
        out.append(parts[b]);
        senders.insert(senders.end(), from[b].begin(), from[b].end());
      }
    }
    return py::make_tuple(to_array(out), py::array_t<std::int64_t>(static_cast<py::ssize_t>(senders.size()), senders.data()));
  }

  // A uniform permutation of the messages (the shuffle), from the seed.
  [[nodiscard]] py::array_t<std::uint8_t> shuffle(const py::array& messages, const py::object& seed) const {
    check_one_round("shuffle");
    MessageBatch batch = from_array(messages, protocol_->round(0).width);
    const auto seed_value = seed_of(seed);  // read with the GIL held
    {
      py::gil_scoped_release release;
      auto rng = make_rng(seed_value)->fork(rng_labels::shuffle);
      Shuffler().shuffle(batch, *rng);
    }
    return to_array(batch);
  }

  // The analyzer A on a batch of messages from `submitted` parties (default: every party).
  [[nodiscard]] py::object analyze(const py::array& messages, std::optional<std::size_t> submitted, const py::object& seed) const {
    check_one_round("analyze");
    MessageBatch batch = from_array(messages, protocol_->round(0).width);
    const std::size_t k = submitted.value_or(parties_);
    if (k > parties_) throw std::invalid_argument("submitted must be in [0, " + std::to_string(parties_) + "] (the parties), got " + std::to_string(k));
    Value result;
    const auto seed_value = seed_of(seed);  // read with the GIL held
    {
      py::gil_scoped_release release;
      RoundOutcome outcome;
      for (std::size_t i = 0; i < parties_; ++i) (i < k ? outcome.submitted : outcome.dropped).push_back(static_cast<PartyId>(i));
      outcome.messages = batch.count();
      auto analyzer = protocol_->make_analyzer();
      auto rng = make_rng(seed_value)->fork(rng_labels::analyzer);
      analyzer->receive(0, batch, outcome, *rng);
      result = analyzer->result();
    }
    return to_python(result);
  }

  // One simulated execution (what a study runs per trial): inputs drawn as `inputs` says.
  [[nodiscard]] py::object trial(const py::object& parties_arg, const std::string& inputs, const py::object& seed) const {
    const std::optional<std::size_t> parties =
        parties_arg.is_none() ? std::nullopt : std::optional<std::size_t>(count_of(parties_arg, "parties"));
    std::optional<TrialResult> r;
    const auto seed_value = seed_of(seed);  // read with the GIL held
    {
      py::gil_scoped_release release;
      auto rng = make_rng(seed_value);
      r = protocol_->trial(parties.value_or(parties_), inputs, *rng);
    }
    if (!r) return py::none();
    Value v = {{"output", r->output}, {"messages", r->messages}, {"bytes", r->bytes}, {"details", r->details}};
    v["error"] = r->error ? Value(*r->error) : Value(nullptr);
    v["max_error"] = r->max_error ? Value(*r->max_error) : Value(nullptr);
    return to_python(v);
  }

  [[nodiscard]] std::string repr() const {
    return "<shufflempc.Protocol " + info_->name + ": " + std::to_string(parties_) + " parties, " + std::to_string(rounds()) + " round" +
           (rounds() == 1 ? "" : "s") + ">";
  }

 private:
  void check_round(std::uint32_t r) const {
    if (r >= protocol_->rounds())
      throw std::invalid_argument("round must be in [0, " + std::to_string(protocol_->rounds() - 1) + "], got " + std::to_string(r));
  }
  void check_party(PartyId p) const {
    if (p >= parties_) throw std::invalid_argument("party must be in [0, " + std::to_string(parties_ - 1) + "], got " + std::to_string(p));
  }
  void check_one_round(const char* what) const {
    if (protocol_->rounds() != 1)
      throw std::invalid_argument(std::string(what) + " is for one-round protocols; " + info_->name + " has " + std::to_string(rounds()) +
                                  " rounds (use run)");
  }

  const ProtocolInfo* info_;
  std::size_t parties_;
  std::unique_ptr<Protocol> protocol_;
};

}  // namespace

void bind_protocol(py::module_& m) {
  py::class_<PyProtocol>(m, "Protocol",
                         "A protocol configured for a number of parties: its rounds' shapes, what it predicts, and for "
                         "one-round protocols the randomizer (encode), the shuffle and the analyzer (analyze) to call one by one.")
      .def(py::init<const std::string&, const py::object&, const py::object&, const py::kwargs&>(), py::arg("name"), py::arg("parties"),
           py::kw_only(), py::arg("min_parties") = 0,
           "Protocol(name, parties, *, min_parties=0, **params): params are the protocol's parameters (min_parties "
           "also spelled with a dash on the command line); a bad one raises ValueError naming it and its range.")
      .def_property_readonly("name", &PyProtocol::name)
      .def_property_readonly("parties", &PyProtocol::parties)
      .def_property_readonly("rounds", &PyProtocol::rounds)
      .def_property_readonly("trust_model", &PyProtocol::trust_model, "local, shuffle or central")
      .def_property_readonly("predicted_sd", &PyProtocol::predicted_sd, "the error's predicted standard deviation, or None")
      .def("describe", &PyProtocol::describe, "The derived facts every report carries (noise rates, epsilon, ...).")
      .def("shape", &PyProtocol::shape, py::arg("round") = 0, "A round's width, delivery and messages per party.")
      .def("random_inputs", &PyProtocol::random_inputs, py::arg("count") = py::none(), py::arg("spec") = "", py::arg("seed") = py::none(),
           "count inputs (default: one per party) drawn as spec says (the protocol's --random-inputs forms); with a seed, the "
           "inputs run(..., seed=seed) draws.")
      .def("truth", &PyProtocol::truth, py::arg("inputs"), "The exact answer the protocol estimates on these inputs, or None.")
      .def("encode", &PyProtocol::encode, py::arg("input"), py::arg("party") = 0, py::arg("seed") = py::none(),
           "One party's messages (the randomizer R) as a uint8 array of shape (count, width).")
      .def("encode_all", &PyProtocol::encode_all, py::arg("inputs"), py::arg("seed") = py::none(),
           "Every party's messages (party i holds inputs[i]) and the sender of each: (messages, senders), before the shuffle.")
      .def("shuffle", &PyProtocol::shuffle, py::arg("messages"), py::arg("seed") = py::none(), "A uniformly random permutation of the rows.")
      .def("analyze", &PyProtocol::analyze, py::arg("messages"), py::arg("submitted") = py::none(), py::arg("seed") = py::none(),
           "The analyzer A on shuffled messages from `submitted` parties (default: all): the protocol's output.")
      .def("trial", &PyProtocol::trial, py::arg("parties") = py::none(), py::arg("inputs") = "", py::arg("seed") = py::none(),
           "One simulated execution as a study runs it: a dict of output, error, max_error, messages, bytes, details; None for "
           "protocols without the fast path (multi-round).")
      .def("__repr__", &PyProtocol::repr);
}

}  // namespace shufflempc::pyglue
