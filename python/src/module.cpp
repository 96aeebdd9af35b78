// The compiled half of the `shufflempc` Python package (python/shufflempc/__init__.py is the
// other): the registry, runs, one-round mechanisms, studies, the accountant and the XOR-sum attack,
// each a thin call into the C++ library that the command line also calls (shufflempc/api/api.hpp,
// shufflempc/study/study.hpp), so that Python and the command line give the same numbers for the
// same seed. Numbers, strings, lists and dicts cross as JSON values; messages as uint8 arrays of
// shape (count, width). The GIL is released around every call that runs a protocol.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <pybind11_json/pybind11_json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "shufflempc/suggest.hpp"
#include "shufflempc/attacks/xor_sum.hpp"
#include "shufflempc/api/api.hpp"
#include "shufflempc/parallel.hpp"
#include "shufflempc/random_inputs.hpp"
#include "shufflempc/registry.hpp"
#include "python_protocol.hpp"
#include "shufflempc/shuffle.hpp"
#include "shufflempc/study/progress.hpp"
#include "shufflempc/experiments/rounds.hpp"
#include "shufflempc/net/loopback.hpp"
#include "shufflempc/study/study.hpp"
#include "shufflempc/experiments/xor_sum.hpp"

namespace py = pybind11;
using namespace shufflempc;

namespace {

// An error of the library as Python speaks: the command line's spellings in its messages become
// the keyword arguments that set the same thing (--set noise -> fixed['noise'], --vary epsilon ->
// axes['epsilon'], --noise calibrated -> noise='calibrated', --random-inputs 'x' ->
// random_inputs='x', --min-parties and min-parties -> min_parties).
std::string pythonic(std::string text) {
  // std::regex recurses per character: a message echoing a long user string (60 KB) would overflow
  // the stack. Such a message is cut first; the spellings it rewrites come early in every message.
  if (text.size() > 2000) text = text.substr(0, 2000) + "... (" + std::to_string(text.size() - 2000) + " more bytes)";
  static const std::regex set_key("--set ([A-Za-z0-9_-]+)"), vary_key("--vary ([A-Za-z0-9_-]+)"), quoted("--([a-z][a-z0-9-]*) '([^']*)'"),
      use_value("(use|needs) --([a-z][a-z0-9-]*) ([a-z0-9.]+)"), flag("--([a-z][a-z0-9-]*)"), parties_word("\\b(min|max)-parties\\b");
  text = std::regex_replace(text, set_key, "fixed['$1']");
  text = std::regex_replace(text, vary_key, "axes['$1']");
  text = std::regex_replace(text, quoted, "$1='$2'");
  text = std::regex_replace(text, use_value, "$1 $2='$3'");
  text = std::regex_replace(text, flag, "$1");
  text = std::regex_replace(text, parties_word, "$1_parties");
  // The option names that were turned into keywords keep no dash (random-inputs -> random_inputs).
  static const std::regex dashed_keyword("\\b(random|min|max|decryption|mix|per)-(inputs|parties|threshold|servers|trial)\\b");
  return std::regex_replace(text, dashed_keyword, "$1_$2");
}

// The built-in protocols and those registered from Python (register_protocol).
Registry& registry() {
  static Registry r = builtin_registry();
  return r;
}

// The general conversion, its refusals (an integer JSON cannot hold, a type it has no form for) as
// ValueError naming the value instead of the JSON library's RuntimeError.
Value json_of(py::handle h) {
  try {
    return python::json_from_python(h, "an input");
  } catch (const std::invalid_argument&) {
    throw;
  } catch (const std::runtime_error& e) {
    std::string text = py::repr(h).cast<std::string>();
    if (text.size() > 60) text = text.substr(0, 57) + "...";
    throw std::invalid_argument("an input must be a number in [-2^63, 2^64 - 1], a string, a bool, or a list or dict of them, got " + text);
  }
}

// A Python value as JSON: numpy arrays and scalars through tolist() (their native Python values).
Value to_value(py::handle h) {
  // The common scalars directly (pyjson's general path costs about a microsecond per number).
  if (PyBool_Check(h.ptr())) return h.ptr() == Py_True;
  if (PyLong_CheckExact(h.ptr())) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
    if (overflow == 0) return v;
  }
  if (PyFloat_CheckExact(h.ptr())) return PyFloat_AS_DOUBLE(h.ptr());
  if (py::hasattr(h, "tolist")) return json_of(h.attr("tolist")());
  return json_of(h);
}

// A count argument (parties, trials, k, ...): a non-negative whole number, as an int, a numpy integer
// or a float that is exactly one (parties=1e5), else ValueError naming the argument (not pybind11's
// TypeError listing the signature).
std::size_t count_of(const py::handle& v, const char* name) {
  const auto refuse = [&] {
    return std::invalid_argument(std::string(name) + " must be a non-negative whole number, got " + py::repr(v).cast<std::string>());
  };
  if (PyBool_Check(v.ptr())) throw refuse();
  py::int_ n;
  if (PyFloat_Check(v.ptr())) {
    const double d = v.cast<double>();
    if (!(d >= 0 && d < 18446744073709551616.0) || d != std::floor(d)) throw refuse();
    n = py::int_(static_cast<std::uint64_t>(d));
  } else if (PyIndex_Check(v.ptr())) {
    n = py::reinterpret_steal<py::int_>(PyNumber_Index(v.ptr()));
  } else {
    throw refuse();
  }
  if (n < py::int_(0) || n > py::int_(static_cast<std::uint64_t>(SIZE_MAX))) throw refuse();
  return n.cast<std::size_t>();
}

py::object to_python(const Value& v) { return pyjson::from_json(v); }

// A sequence of inputs as JSON values: a numpy array converted whole (tolist), a list as it is.
std::vector<Value> values_of(const py::handle& inputs) {
  const py::object seq = py::hasattr(inputs, "tolist") ? inputs.attr("tolist")() : py::reinterpret_borrow<py::object>(inputs);
  std::vector<Value> out;
  if (py::hasattr(seq, "__len__")) out.reserve(py::len(seq));
  for (auto x : seq) out.push_back(to_value(x));
  return out;
}

// A parameter as the command line would spell it: True -> "true", 0.1 -> "0.1", "x" -> "x".
std::string param_text(py::handle v) {
  if (py::isinstance<py::bool_>(v)) return v.cast<bool>() ? "true" : "false";
  if (py::isinstance<py::str>(v)) return v.cast<std::string>();
  if (py::hasattr(v, "item") && !py::isinstance<py::int_>(v) && !py::isinstance<py::float_>(v)) return param_text(v.attr("item")());
  return py::repr(v).cast<std::string>();  // repr: the shortest text that reads back as the same float
}

// Keyword arguments as a protocol's parameters: min_parties=... names --min-parties.
// The protocol's parameters from the keyword arguments (min_parties or min-parties). A keyword that is
// neither one of them nor one of the call's own (`keywords`, which pybind11 took already) is refused
// naming the nearest of both, in Python's spelling.
std::map<std::string, std::string> params_of(const ProtocolInfo& info, const py::kwargs& kwargs,
                                             std::initializer_list<const char*> keywords = {}) {
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : kwargs) {
    std::string name = key.cast<std::string>();
    const auto declared = [&info](const std::string& n) {
      for (const auto& p : info.params)
        if (p.name == n) return true;
      return false;
    };
    if (!declared(name)) {
      std::string dashed = name;
      for (auto& c : dashed)
        if (c == '_') c = '-';
      if (declared(dashed)) name = dashed;
    }
    if (!declared(name)) {
      std::vector<std::string> known;
      std::string listed;
      for (const auto& p : info.params) {
        std::string python = p.name;
        std::replace(python.begin(), python.end(), '-', '_');
        listed += (listed.empty() ? "" : ", ") + python;
        known.push_back(std::move(python));
      }
      for (const char* k : keywords) known.emplace_back(k);
      throw std::invalid_argument("unknown keyword argument '" + name + "'" + did_you_mean(name, known) + " (" + info.name +
                                  (listed.empty() ? " takes no parameters" : "'s parameters: " + listed) + ")");
    }
    if (!value.is_none()) out[name] = param_text(value);
  }
  return out;
}

std::optional<std::uint64_t> seed_of(const py::object& seed) {
  if (seed.is_none()) return std::nullopt;
  const auto s = seed.cast<py::int_>();
  if (s < py::int_(0) || s > py::int_(UINT64_MAX)) throw std::invalid_argument("seed must be in [0, 2^64 - 1]");
  return s.cast<std::uint64_t>();
}

// A progress argument: True draws the command line's bar on stderr, a callable gets
// (done, total, trials_done, trials_total), False and None nothing.
study::Progress progress_of(const py::object& progress, const std::string& label) {
  if (progress.is_none() || (py::isinstance<py::bool_>(progress) && !progress.cast<bool>())) return {};
  if (py::isinstance<py::bool_>(progress)) {
    auto bar = std::make_shared<study::ProgressBar>(label);
    return [bar](double done, double total, std::size_t items, std::size_t all) { (*bar)(done, total, items, all); };
  }
  if (!PyCallable_Check(progress.ptr())) throw std::invalid_argument("progress must be True, False or a callable");
  auto fn = std::make_shared<py::object>(progress);
  return [fn](double done, double total, std::size_t items, std::size_t all) {
    py::gil_scoped_acquire gil;
    (*fn)(done, total, items, all);
  };
}

py::array_t<std::uint8_t> to_array(const MessageBatch& batch) {
  py::array_t<std::uint8_t> a({static_cast<py::ssize_t>(batch.count()), static_cast<py::ssize_t>(batch.width())});
  if (batch.size_bytes() > 0) std::memcpy(a.mutable_data(), batch.data(), batch.size_bytes());
  return a;
}

// Messages from Python: bytes (uint8), or integers that all are bytes; anything else (floats,
// which a cast would truncate, or integers outside [0, 255]) is refused rather than cast.
MessageBatch from_array(const py::array& given, std::size_t width) {
  const char kind = given.dtype().kind();
  if (kind != 'u' && kind != 'i')
    throw std::invalid_argument("messages must be an array of bytes (uint8), got dtype " + py::str(given.dtype()).cast<std::string>());
  if (given.dtype().itemsize() != 1 || kind != 'u') {
    const py::object lo = given.size() > 0 ? given.attr("min")() : py::object(py::int_(0));
    const py::object hi = given.size() > 0 ? given.attr("max")() : py::object(py::int_(0));
    if (lo.cast<long long>() < 0 || hi.cast<long long>() > 255)
      throw std::invalid_argument("messages must hold bytes (0 to 255), got values from " + py::str(lo).cast<std::string>() + " to " +
                                  py::str(hi).cast<std::string>());
  }
  const auto a = py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>::ensure(given);
  if (a.ndim() != 2) throw std::invalid_argument("messages must be a 2-dimensional array (count, width)");
  if (static_cast<std::size_t>(a.shape(1)) != width)
    throw std::invalid_argument("messages of " + std::to_string(a.shape(1)) + " bytes: this round's width is " + std::to_string(width));
  MessageBatch batch(width, static_cast<std::size_t>(a.shape(0)));
  if (batch.size_bytes() > 0) std::memcpy(batch.data(), a.data(), batch.size_bytes());
  return batch;
}

// Typed columns (experiments::table) as a dict of numpy arrays: float64 with NaN where empty, int64,
// bool, and object arrays of str.
py::dict columns_to_python(const std::vector<study::Column>& cols) {
  py::module_ np = py::module_::import("numpy");
  py::dict out;
  for (const auto& c : cols) {
    using K = study::Column::Kind;
    const std::size_t n = c.text.size();
    if (c.kind == K::real) {
      py::array_t<double> a(static_cast<py::ssize_t>(n));
      auto w = a.mutable_unchecked<1>();
      for (std::size_t i = 0; i < n; ++i) w(static_cast<py::ssize_t>(i)) = c.number[i] ? *c.number[i] : std::nan("");
      out[py::str(c.name)] = a;
    } else if ((c.kind == K::integer || c.kind == K::boolean) &&
               std::all_of(c.number.begin(), c.number.end(), [](const auto& v) { return v.has_value(); })) {
      py::list values;
      // An integer from its text, exact at any size (a seed may exceed 2^53); numpy picks int64,
      // else uint64.
      const py::object to_int = py::module_::import("builtins").attr("int");
      for (std::size_t i = 0; i < n; ++i)
        values.append(c.kind == K::boolean ? py::object(py::bool_(*c.number[i] != 0)) : to_int(py::str(c.text[i])));
      if (c.kind == K::boolean || n == 0) out[py::str(c.name)] = np.attr("array")(values, c.kind == K::boolean ? "bool" : "int64");
      else out[py::str(c.name)] = np.attr("array")(values);
    } else {
      py::list values;
      for (const auto& t : c.text) values.append(py::str(t));
      out[py::str(c.name)] = np.attr("array")(values, py::str("object"));
    }
  }
  return out;
}

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

py::object run(const std::string& name, const py::object& inputs, const py::object& parties_arg, const py::object& seed,
               const std::string& random_inputs, const py::object& min_parties, const py::object& dropouts,
               const py::object& mix_servers_arg, const std::string& mix, const std::string& transcript,
               const py::object& decryption_threshold, const py::kwargs& kwargs) {
  std::size_t mix_servers = count_of(mix_servers_arg, "mix_servers");
  api::RunRequest req;
  req.protocol = name;
  req.params = params_of(registry().get(name), kwargs,
                         {"inputs", "parties", "seed", "random_inputs", "min_parties", "dropouts", "mix_servers", "mix", "transcript",
                          "decryption_threshold"});
  if (!inputs.is_none()) {
    req.inputs = values_of(inputs);
  }
  if (parties_arg.is_none() && !req.inputs) throw std::invalid_argument("run needs inputs or parties");
  req.parties = parties_arg.is_none() ? req.inputs->size() : count_of(parties_arg, "parties");
  req.random_inputs = random_inputs;
  req.seed = seed_of(seed);
  req.min_parties = count_of(min_parties, "min_parties");
  req.dropouts = count_of(dropouts, "dropouts");
  if (mix_servers == 0) {
    // The spelling of "no chain" before 0.2; mix_servers counts the servers now, the shuffler first.
    if (PyErr_WarnEx(PyExc_DeprecationWarning, "mix_servers=0 is spelled mix_servers=1 now (the one shuffler, no chain)", 1) != 0)
      throw py::error_already_set();
    mix_servers = 1;
  }
  req.chain = net::ChainSpec::make(mix_servers, net::parse_mix_kind(mix), count_of(decryption_threshold, "decryption_threshold"));
  req.transcript = transcript;
  Value report;
  {
    py::gil_scoped_release release;
    report = api::to_json(api::run_report(registry(), req));
  }
  return to_python(report);
}

std::vector<std::string> strings_of(const py::handle& h) {
  if (py::isinstance<py::str>(h)) return {h.cast<std::string>()};
  std::vector<std::string> out;
  for (auto x : h) out.push_back(param_text(x));
  return out;
}

py::dict study_run(const py::object& protocols, const py::object& axes, const py::object& preset, const py::object& fixed,
                   const py::object& parties, const py::object& inputs, const py::object& honest, const py::object& dropouts,
                   const py::object& trials, const py::object& seed, unsigned jobs, bool per_trial, const py::object& progress) {
  study::Spec spec;
  if (!preset.is_none()) spec = study::preset(preset.cast<std::string>());
  else spec.name = "study";
  if (!protocols.is_none()) {
    spec.series.clear();
    for (const auto& p : strings_of(protocols)) spec.series.push_back(study::parse_series(p));
  }
  if (!axes.is_none()) {
    spec.axes.clear();
    spec.x.clear();
    if (py::isinstance<py::str>(axes)) {
      spec.axes.push_back(study::parse_axis(axes.cast<std::string>()));
    } else if (py::isinstance<py::dict>(axes)) {
      for (const auto& [key, values] : axes.cast<py::dict>()) {
        const std::string k = key.cast<std::string>();
        std::string text;
        if (py::isinstance<py::str>(values)) {
          text = values.cast<std::string>();
        } else {
          for (const auto& v : strings_of(values)) text += (text.empty() ? "" : ",") + v;
        }
        spec.axes.push_back(study::parse_axis(k + "=" + text));
      }
    } else {
      for (const auto& a : strings_of(axes)) spec.axes.push_back(study::parse_axis(a));
    }
  }
  if (!fixed.is_none())
    for (const auto& [key, value] : fixed.cast<py::dict>()) spec.fixed[key.cast<std::string>()] = param_text(value);
  if (!parties.is_none()) spec.parties = count_of(parties, "parties");
  if (!inputs.is_none()) spec.inputs = inputs.cast<std::string>();
  if (!honest.is_none()) spec.honest = honest.cast<double>();
  if (!dropouts.is_none()) spec.dropouts = dropouts.cast<double>();
  if (!trials.is_none()) spec.trials = count_of(trials, "trials");
  if (const auto s = seed_of(seed)) spec.seed = *s;
  spec.jobs = jobs;
  study::validate(registry(), spec);
  const auto report = progress_of(progress, "study");
  std::vector<study::Column> cols;
  {
    py::gil_scoped_release release;
    const auto cells = study::run(registry(), spec, report);
    cols = study::table(spec, cells, per_trial);
  }
  return columns_to_python(cols);
}

// An experiment's columns, computed without the GIL, with the progress the caller asked for.
template <class Run>
py::dict experiment_columns(const py::object& progress, const std::string& label, Run run) {
  const auto report = progress_of(progress, label);
  std::vector<study::Column> cols;
  {
    py::gil_scoped_release release;
    cols = run(report);
  }
  return columns_to_python(cols);
}

py::dict xor_sum_study(const std::vector<std::size_t>& parties, const std::vector<std::string>& protocols, const std::vector<double>& alphas,
                       const std::vector<std::size_t>& queries, const std::string& decoder, std::size_t runs, double epsilon,
                       const std::vector<std::string>& executions, bool mpc, std::uint64_t seed, unsigned jobs, const py::object& progress) {
  experiments::XorSumStudyOptions o;
  o.parties = parties;
  o.protocols = protocols;
  o.alphas = alphas;
  o.queries = queries;
  o.decoder = decoder;
  o.runs = runs;
  o.epsilon = epsilon;
  o.executions = executions;
  o.mpc = mpc;
  o.seed = seed;
  o.jobs = jobs;
  experiments::validate(o);
  return experiment_columns(progress, "xor-sum", [&](const study::Progress& report) { return experiments::table(experiments::run_xor_sum_study(o, report)); });
}

py::dict rounds_study(const std::vector<std::string>& functions, std::size_t parties, std::size_t trials, std::size_t length,
                      std::uint64_t seed, const std::vector<double>& rtt_ms, double mbps, const py::object& progress) {
  experiments::RoundsStudyOptions o;
  o.rtt_ms = rtt_ms;
  o.mbps = mbps;
  o.functions = functions;
  o.parties = parties;
  o.trials = trials;
  o.length = length;
  o.seed = seed;
  experiments::validate(o);
  return experiment_columns(progress, "rounds", [&](const study::Progress& report) {
    experiments::RoundsProgress each;
    if (report) each = [&report](std::size_t done, std::size_t total) { report(static_cast<double>(done), static_cast<double>(total), done, total); };
    return experiments::table(experiments::run_rounds_study(o, each));
  });
}

py::array_t<std::uint8_t> xor_sum_decode(const py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>& bits,
                                         const py::array_t<double, py::array::c_style | py::array::forcecast>& answers,
                                         const std::string& decoder) {
  if (bits.ndim() != 2) throw std::invalid_argument("queries must be a 2-dimensional array (m queries, h bits)");
  if (answers.ndim() != 1 || answers.shape(0) != bits.shape(0))
    throw std::invalid_argument("answers must hold one number per query: " + std::to_string(bits.shape(0)) + " queries");
  if (bits.shape(0) < 1) throw std::invalid_argument("decode needs at least one query");
  attacks::Queries q;
  q.h = static_cast<std::size_t>(bits.shape(1));
  q.bits.assign(bits.data(), bits.data() + bits.size());
  for (auto& b : q.bits)
    if (b > 1) throw std::invalid_argument("queries must hold bits (0 or 1)");
  q.answers.assign(answers.data(), answers.data() + answers.size());
  for (std::size_t i = 0; i < q.answers.size(); ++i)
    if (!std::isfinite(q.answers[i])) throw std::invalid_argument("answers must be finite numbers: answer " + std::to_string(i) + " is not");
  const auto d = attacks::parse_decoder(decoder);
  std::vector<std::uint8_t> x;
  {
    py::gil_scoped_release release;
    x = attacks::decode(q, d);
  }
  return py::array_t<std::uint8_t>(static_cast<py::ssize_t>(x.size()), x.data());
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "The compiled half of the shufflempc package (see shufflempc.__doc__).";
  m.attr("__version__") = SHUFFLEMPC_VERSION;
  // A bad argument is a ValueError in Python's words (pythonic); every other exception as pybind11 translates it.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const std::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, pythonic(e.what()).c_str());
    }
  });
  shufflempc::python::bind_python_protocols(m, registry());
  // pybind11 imports numpy's C API on the first array it makes, inside a function-local static.
  // Made first on a study's thread (a registered protocol's analyze), that import ran under the
  // static's lock while another thread held the GIL waiting for the same lock: a deadlock. Here,
  // at import, with the GIL and no other thread, it cannot.
  (void)py::array_t<std::uint8_t>(0);

  m.def("list", [] { return to_python(api::protocol_list(registry())); },
        "Every registered protocol: name, summary, party range, inputs, random input forms and parameters (name, default, "
        "range, help), as `shufflempc list --json` prints them.");

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

  m.def("run", &run, py::arg("protocol"), py::arg("inputs") = py::none(), py::kw_only(), py::arg("parties") = py::none(),
        py::arg("seed") = py::none(), py::arg("random_inputs") = "", py::arg("min_parties") = 0, py::arg("dropouts") = 0,
        py::arg("mix_servers") = 1, py::arg("mix") = "decryption", py::arg("transcript") = "", py::arg("decryption_threshold") = 0,
        "Runs a protocol with every party in this process and returns the report `shufflempc run --json` prints.");

  m.def("_study", &study_run, py::arg("protocols") = py::none(), py::arg("axes") = py::none(), py::arg("preset") = py::none(),
        py::arg("fixed") = py::none(), py::arg("parties") = py::none(), py::arg("inputs") = py::none(), py::arg("honest") = py::none(),
        py::arg("dropouts") = py::none(), py::arg("trials") = py::none(), py::arg("seed") = py::none(), py::arg("jobs") = 0,
        py::arg("per_trial") = false, py::arg("progress") = true);

  m.def("_xor_sum_study", &xor_sum_study, py::arg("parties"), py::arg("protocols"), py::arg("alphas"), py::arg("queries"),
        py::arg("decoder"), py::arg("runs"), py::arg("epsilon"), py::arg("executions"), py::arg("mpc"), py::arg("seed"),
        py::arg("jobs"), py::arg("progress"));

  m.def("_rounds_study", &rounds_study, py::arg("functions"), py::arg("parties"), py::arg("trials"), py::arg("length"), py::arg("seed"),
        py::arg("rtt_ms"), py::arg("mbps"), py::arg("progress"));
  experiments::set_network_runner(net::run_over_shaped_loopback, net::shaped_session_round_trips);  // rounds_study(rtt=...): the TCP transport, shaped

  m.def("xor_sum_decode", &xor_sum_decode, py::arg("queries"), py::arg("answers"), py::arg("decoder") = "ls",
        "The attack's decoder: the secret bits x-hat (uint8) from m queries (an (m, h) array of bits) and their answers, by "
        "least squares (ls) or L1 regression (lp).");

  m.def(
      "account_amplify",
      [](const py::object& parties, double epsilon0, double delta, const py::object& k, const py::object& rounds, double pld_step) {
        Value v;
        const api::AmplifyQuery q{count_of(parties, "parties"), epsilon0, delta, count_of(k, "k"), count_of(rounds, "rounds"), pld_step};
        {
          py::gil_scoped_release release;
          v = api::account_amplify(q);
        }
        return to_python(v);
      },
      py::arg("parties"), py::arg("epsilon0"), py::arg("delta") = 1e-6, py::arg("k") = 2, py::arg("rounds") = 1, py::arg("pld_step") = 1e-4,
      "The central epsilon of n shuffled eps0-LDP reports by every bound, the exact lower bound, and with rounds > 1 the "
      "bounds composed over the rounds: what `shufflempc account amplify --json` prints.");
  m.def(
      "account_local",
      [](const py::object& parties, double epsilon, double delta, const py::object& k, const std::string& protocol) {
        Value v;
        const api::LocalQuery q{count_of(parties, "parties"), epsilon, delta, count_of(k, "k")};
        // A protocol's choice first (account local --protocol): a Python-defined one's configure
        // runs under the GIL, so this is asked before the GIL is released.
        std::optional<Value> choice;
        if (!protocol.empty()) choice = api::protocol_choice(registry(), protocol, q);
        {
          py::gil_scoped_release release;
          v = api::account_local(q);
        }
        if (choice) v["protocol"] = *choice;
        return to_python(v);
      },
      py::arg("parties"), py::arg("epsilon"), py::arg("delta") = 1e-6, py::arg("k") = 2, py::arg("protocol") = "",
      "The largest eps0 a randomizer may have so that n shuffled reports are (epsilon, delta)-DP, by each bound; with protocol=NAME "
      "(a registered protocol whose describe() names the epsilon0 it chose and its bound, built-in or registered from Python) "
      "that protocol's choice first, under 'protocol', as `account local --protocol NAME --json` puts it.");
  m.def(
      "account_noise",
      [](const std::string& noise, const py::object& parties, double epsilon, std::optional<double> delta, std::optional<double> p,
         std::optional<double> scale, double shape, const py::object& sensitivity) {
        Value v;
        const api::NoiseQuery q{noise, count_of(parties, "parties"), epsilon, delta, p, scale, shape, count_of(sensitivity, "sensitivity")};
        {
          py::gil_scoped_release release;
          v = api::account_noise(q);
        }
        return to_python(v);
      },
      py::arg("noise") = "binomial", py::arg("parties") = 100000, py::arg("epsilon") = 1, py::arg("delta") = py::none(),
      py::arg("p") = py::none(), py::arg("scale") = py::none(), py::arg("shape") = 1, py::arg("sensitivity") = 1,
      "The exact delta of binomial, discrete-laplace or polya noise at epsilon, or with delta and no noise level the least noise "
      "that meets it.");
}
