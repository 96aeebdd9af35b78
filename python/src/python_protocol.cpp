#include "python_protocol.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11_json/pybind11_json.hpp>

#include <array>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "shufflempc/inputs.hpp"
#include "shufflempc/mechanism.hpp"
#include "shufflempc/samplers.hpp"

namespace py = pybind11;

namespace shufflempc::python {

Value json_from_python(py::handle h, const std::string& what) {
  // Depth-first with an explicit stack: each entry a container and its depth.
  std::vector<std::pair<py::handle, int>> todo{{h, 0}};
  std::size_t seen = 0;
  while (!todo.empty()) {
    const auto [x, depth] = todo.back();
    todo.pop_back();
    if (PyFloat_Check(x.ptr()) && !std::isfinite(PyFloat_AS_DOUBLE(x.ptr())))
      throw std::invalid_argument(what + " holds " + py::repr(x).cast<std::string>() + ", which JSON has no number for");
    const bool list = PyList_Check(x.ptr()) || PyTuple_Check(x.ptr()), dict = PyDict_Check(x.ptr());
    if (!list && !dict) continue;
    if (depth >= max_json_depth)
      throw std::invalid_argument(what + " nests lists or dicts deeper than " + std::to_string(max_json_depth) + " levels (or holds itself)");
    if (++seen > (std::size_t{1} << 22)) throw std::invalid_argument(what + " holds more than 2^22 lists and dicts");
    if (dict) {
      for (auto item : py::reinterpret_borrow<py::dict>(x)) todo.emplace_back(item.second, depth + 1);
    } else {
      for (auto item : x) todo.emplace_back(item, depth + 1);
    }
  }
  return pyjson::to_json(h);
}

namespace {

// The generator a callable draws from: the protocol's own stream (so a seeded run repeats), valid
// only during the call it is given to.
class PyRng {
 public:
  explicit PyRng(Rng* rng) : rng_(rng) {}
  void invalidate() { rng_ = nullptr; }
  bool bernoulli(double p) {
    if (!(p >= 0 && p <= 1)) throw std::invalid_argument("Rng.bernoulli: p must be in [0, 1], got " + std::to_string(p));
    return shufflempc::bernoulli(live(), p);
  }
  std::uint64_t uniform(std::uint64_t bound) {
    if (bound == 0) throw std::invalid_argument("Rng.uniform: the bound must be at least 1");
    return live().uniform(bound);
  }
  double random() { return live().uniform01(); }
  py::bytes bytes(std::size_t n) {
    std::string out(n, '\0');
    live().fill(out.data(), n);
    return py::bytes(out);
  }

 private:
  Rng& live() {
    if (rng_ == nullptr) throw std::runtime_error("this Rng was given to one call of a protocol's function and is no longer valid");
    return *rng_;
  }
  Rng* rng_;
};

// Calls `fn(args..., rng)` with the GIL held and `rng` wrapped for Python, invalidated after.
template <class... Args>
py::object call_with_rng(const py::object& fn, Rng& rng, Args&&... args) {
  py::object wrapped = py::cast(PyRng(&rng));
  py::object result = fn(std::forward<Args>(args)..., wrapped);
  wrapped.cast<PyRng&>().invalidate();
  return result;
}

enum class InputKind { bits, unit, python };

// Python objects held by C++ objects that may be destroyed on any thread, with or without the GIL
// (a protocol ends inside a run, which releases it): released under the GIL, or left as they are
// once the interpreter has finished (the registry is destroyed at exit, after it). T lists the
// objects it holds by objects().
template <class T>
void release_under_gil(T* p) {
  if (Py_IsInitialized()) {
    py::gil_scoped_acquire gil;
    delete p;
  } else {
    for (py::object* o : p->objects()) (void)o->release();
    delete p;
  }
}

// What the user gave register_protocol; shared by every configured copy.
struct Definition {
  std::string name;
  std::size_t width = 1, messages = 1;
  InputKind inputs = InputKind::bits;
  py::object encode, analyze, truth, predicted_sd, configure, random_input;
  std::array<py::object*, 6> objects() { return {&encode, &analyze, &truth, &predicted_sd, &configure, &random_input}; }
};
struct Settings {
  py::object dict;
  std::array<py::object*, 1> objects() { return {&dict}; }
};

template <bool HasSd>
struct PythonMechanism {
  using Input = Value;
  using Output = Value;
  std::shared_ptr<const Definition> def;
  std::shared_ptr<const Settings> held;  // the configured parameters (a dict), what encode and analyze are given
  double sd = 0;
  [[nodiscard]] const py::object& settings() const { return held->dict; }

  [[nodiscard]] RoundShape shape() const {
    return RoundShape::exactly(static_cast<std::uint32_t>(def->width), Delivery::analyzer_only, static_cast<std::uint32_t>(def->messages));
  }
  [[nodiscard]] Value parse_input(PartyId id, const Value& v) const {
    if (def->inputs == InputKind::bits) return parse_bit(v, party_name(id)) ? 1 : 0;
    if (def->inputs == InputKind::unit) return parse_unit_real(id, v);
    return v;
  }
  void encode(const Value& x, Rng& rng, MessageBatch& out) const {
    py::gil_scoped_acquire gil;
    const py::object got = call_with_rng(def->encode, rng, pyjson::from_json(x), settings());
    const std::size_t before = out.count();
    for (const auto item : py::iter(got)) {
      // An endless generator stops here, not when memory runs out.
      if (out.count() - before == def->messages)
        throw std::invalid_argument(def->name + ": encode returned more than " + std::to_string(def->messages) + " messages, the protocol sends " +
                                    std::to_string(def->messages) + " per party");
      if (py::isinstance<py::bytes>(item)) {
        const std::string b = item.cast<std::string>();
        if (b.size() != def->width)
          throw std::invalid_argument(def->name + ": encode returned a message of " + std::to_string(b.size()) + " bytes, the protocol's width is " +
                                      std::to_string(def->width));
        std::copy(b.begin(), b.end(), out.append().begin());
      } else if (def->width == 1 && py::isinstance<py::int_>(item)) {
        const auto v = item.cast<long long>();
        if (v < 0 || v > 255) throw std::invalid_argument(def->name + ": encode returned " + std::to_string(v) + ", not a byte (0 to 255)");
        out.append()[0] = static_cast<std::uint8_t>(v);
      } else {
        throw std::invalid_argument(def->name + ": encode must return a list of bytes objects of " + std::to_string(def->width) +
                                    " bytes each (or of ints 0 to 255 when the width is 1)");
      }
    }
    if (out.count() - before != def->messages)
      throw std::invalid_argument(def->name + ": encode returned " + std::to_string(out.count() - before) + " messages, the protocol sends " +
                                  std::to_string(def->messages) + " per party");
  }
  [[nodiscard]] Value analyze(const MessageBatch& shuffled, const RoundOutcome& outcome, Rng& rng) const {
    py::gil_scoped_acquire gil;
    py::array_t<std::uint8_t> messages(std::vector<py::ssize_t>{static_cast<py::ssize_t>(shuffled.count()), static_cast<py::ssize_t>(shuffled.width())});
    std::copy(shuffled.data(), shuffled.data() + shuffled.size_bytes(), messages.mutable_data());
    return json_from_python(call_with_rng(def->analyze, rng, messages, outcome.submitted.size(), settings()), def->name + ": analyze's output");
  }
  [[nodiscard]] Value random_input(std::string_view spec, Rng& rng) const {
    if (def->inputs == InputKind::bits) return random_bit(spec, rng) ? 1 : 0;
    if (def->inputs == InputKind::unit) return random_unit_real(spec, rng);
    py::gil_scoped_acquire gil;
    return json_from_python(call_with_rng(def->random_input, rng), def->name + ": random_input's output");
  }
  [[nodiscard]] Value truth(std::span<const Value> inputs) const {
    py::gil_scoped_acquire gil;
    py::list xs;
    for (const auto& x : inputs) xs.append(pyjson::from_json(x));
    return json_from_python(def->truth(xs), def->name + ": truth's output");
  }
  [[nodiscard]] Value describe() const {
    py::gil_scoped_acquire gil;
    Value d = json_from_python(settings(), def->name + ": the settings");
    d["defined_in"] = "python";
    return d;
  }
  [[nodiscard]] double predicted_sd() const
    requires HasSd
  {
    return sd;
  }
};

ParamSpec param_spec(const std::string& name, const py::handle& value) {
  ParamSpec p;
  p.name = name;
  if (py::isinstance<py::bool_>(value)) {
    p.type = ParamType::boolean;
    p.default_value = value.cast<bool>() ? "true" : "false";
  } else if (py::isinstance<py::int_>(value)) {
    p.type = ParamType::integer;
    p.default_value = std::to_string(value.cast<long long>());
  } else if (py::isinstance<py::float_>(value)) {
    p.type = ParamType::real;
    p.default_value = py::repr(value).cast<std::string>();
  } else if (py::isinstance<py::str>(value)) {
    p.type = ParamType::text;
    p.default_value = value.cast<std::string>();
  } else {
    throw std::invalid_argument("params['" + name + "'] must be a bool, an int, a float or a str (its default), got " +
                                py::repr(value).cast<std::string>());
  }
  p.help = "a parameter of a protocol defined in Python";
  return p;
}

py::object parameter_value(const ParamSpec& spec, const Params& given) {
  switch (spec.type) {
    case ParamType::boolean: return py::bool_(given.boolean(spec.name));
    case ParamType::integer: return py::int_(given.integer(spec.name));
    case ParamType::real: return py::float_(given.real(spec.name));
    default: return py::str(given.text(spec.name));
  }
}

void require_callable(const py::object& f, const char* name, bool optional) {
  if (f.is_none() && optional) return;
  if (!PyCallable_Check(f.ptr())) throw std::invalid_argument(std::string(name) + " must be a callable" + (optional ? " or None" : ""));
}

}  // namespace

void bind_python_protocols(py::module_& m, Registry& registry) {
  py::class_<PyRng>(m, "Rng", "the protocol's random stream, given to one call of encode, analyze or random_input")
      .def("bernoulli", &PyRng::bernoulli, py::arg("p"), "True with probability p (exactly, as the built-in protocols draw it)")
      .def("uniform", &PyRng::uniform, py::arg("bound"), "an integer in [0, bound), uniform")
      .def("random", &PyRng::random, "a float in [0, 1), uniform (53 bits)")
      .def("bytes", &PyRng::bytes, py::arg("n"), "n uniform bytes");

  m.def(
      "register_protocol",
      [&registry](const std::string& name, const py::object& encode, const py::object& analyze, const py::object& truth, std::size_t width,
                  std::size_t messages, const py::dict& params, const py::object& inputs, const py::object& configure,
                  const py::object& predicted_sd, const std::string& summary, std::size_t min_parties) {
        if (name.empty()) throw std::invalid_argument("name must not be empty");
        if (registry.find(name) != nullptr)
          throw std::invalid_argument("name '" + name + "' is registered already (a built-in protocol, or one registered before)");
        require_callable(encode, "encode", false);
        require_callable(analyze, "analyze", false);
        require_callable(truth, "truth", false);
        require_callable(configure, "configure", true);
        require_callable(predicted_sd, "predicted_sd", true);
        if (width < 1 || width > 65536) throw std::invalid_argument("width must be in [1, 65536] (bytes per message), got " + std::to_string(width));
        if (messages < 1 || messages > 4096) throw std::invalid_argument("messages must be in [1, 4096] (per party), got " + std::to_string(messages));
        std::shared_ptr<Definition> def(new Definition, release_under_gil<Definition>);
        def->name = name;
        def->width = width;
        def->messages = messages;
        def->encode = encode;
        def->analyze = analyze;
        def->truth = truth;
        def->configure = configure;
        def->predicted_sd = predicted_sd;
        std::vector<InputForm> forms;
        if (py::isinstance<py::str>(inputs) && inputs.cast<std::string>() == "bits") {
          def->inputs = InputKind::bits;
          forms = bit_forms();
        } else if (py::isinstance<py::str>(inputs) && inputs.cast<std::string>() == "unit") {
          def->inputs = InputKind::unit;
          forms = unit_real_forms();
        } else if (PyCallable_Check(inputs.ptr())) {
          def->inputs = InputKind::python;
          def->random_input = inputs;
        } else {
          throw std::invalid_argument("inputs must be 'bits' (0 or 1), 'unit' (reals in [0, 1]) or a callable random_input(rng)");
        }
        std::vector<ParamSpec> specs;
        for (const auto& [k, v] : params) specs.push_back(param_spec(k.cast<std::string>(), v));
        ProtocolInfo info;
        info.name = name;
        info.summary = summary.empty() ? "a one-round protocol defined in Python" : summary;
        info.params = specs;
        info.min_parties = min_parties;
        info.input_help = def->inputs == InputKind::bits ? "0 or 1" : def->inputs == InputKind::unit ? "a real in [0, 1]" : "what random_input draws";
        info.random_inputs = forms;
        info.create = [def, specs](const Params& given, const Population& pop) -> std::unique_ptr<Protocol> {
          py::gil_scoped_acquire gil;
          py::dict values;
          for (const auto& s : specs) values[py::str(s.name)] = parameter_value(s, given);
          py::object settings = values;
          if (!def->configure.is_none()) settings = def->configure(values, pop.parties, pop.guaranteed());
          if (!py::isinstance<py::dict>(settings)) throw std::invalid_argument(def->name + ": configure must return a dict (the settings)");
          std::shared_ptr<Settings> held(new Settings{settings}, release_under_gil<Settings>);
          if (def->predicted_sd.is_none()) return make_one_round(PythonMechanism<false>{def, held});
          const double sd = def->predicted_sd(settings, pop.parties).cast<double>();
          if (!std::isfinite(sd) || sd < 0) throw std::invalid_argument(def->name + ": predicted_sd must be a finite number >= 0");
          return make_one_round(PythonMechanism<true>{def, held, sd});
        };
        registry.add(std::move(info));
      },
      py::arg("name"), py::kw_only(), py::arg("encode"), py::arg("analyze"), py::arg("truth"), py::arg("width") = 1, py::arg("messages") = 1,
      py::arg("params") = py::dict(), py::arg("inputs") = "bits", py::arg("configure") = py::none(), py::arg("predicted_sd") = py::none(),
      py::arg("summary") = "", py::arg("min_parties") = 1,
      "Registers a one-round protocol defined by Python callables (docs/python.md, 'A protocol in Python').");
}

}  // namespace shufflempc::python
