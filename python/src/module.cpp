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
#include "glue.hpp"
#include "python_protocol.hpp"
#include "shufflempc/shuffle.hpp"
#include "shufflempc/study/progress.hpp"
#include "shufflempc/experiments/rounds.hpp"
#include "shufflempc/net/loopback.hpp"
#include "shufflempc/study/study.hpp"
#include "shufflempc/experiments/xor_sum.hpp"

namespace py = pybind11;
using namespace shufflempc;

using namespace shufflempc::pyglue;

namespace {

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

  bind_protocol(m);

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
