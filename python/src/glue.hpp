// What the files of the Python module share: the conversions between Python's values and the
// library's (JSON values, counts, seeds, parameters, message arrays, a study's columns), the
// library's errors in Python's words, the registry, and the binders of the files that define a
// part of the module (py_protocol.cpp: the Protocol class).
#pragma once

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "shufflempc/messages.hpp"
#include "shufflempc/registry.hpp"
#include "shufflempc/runtime.hpp"
#include "shufflempc/study/progress.hpp"
#include "shufflempc/study/study.hpp"

namespace shufflempc::pyglue {

namespace py = pybind11;

// An error of the library as Python speaks: the command line's spellings in its messages become
// the keyword arguments that set the same thing (--set noise -> fixed['noise'], --vary epsilon ->
// axes['epsilon'], --noise calibrated -> noise='calibrated', --random-inputs 'x' ->
// random_inputs='x', --min-parties and min-parties -> min_parties).
std::string pythonic(std::string text);

// The built-in protocols and those registered from Python (register_protocol).
Registry& registry();

// The general conversion, its refusals (an integer JSON cannot hold, a type it has no form for) as
// ValueError naming the value instead of the JSON library's RuntimeError.
Value json_of(py::handle h);

// A Python value as JSON: numpy arrays and scalars through tolist() (their native Python values).
Value to_value(py::handle h);

// A count argument (parties, trials, k, ...): a non-negative whole number, as an int, a numpy integer
// or a float that is exactly one (parties=1e5), else ValueError naming the argument (not pybind11's
// TypeError listing the signature).
std::size_t count_of(const py::handle& v, const char* name);

py::object to_python(const Value& v);

// A sequence of inputs as JSON values: a numpy array converted whole (tolist), a list as it is.
std::vector<Value> values_of(const py::handle& inputs);

// A parameter as the command line would spell it: True -> "true", 0.1 -> "0.1", "x" -> "x".
std::string param_text(py::handle v);

// The protocol's parameters from the keyword arguments (min_parties or min-parties). A keyword that is
// neither one of them nor one of the call's own (`keywords`, which pybind11 took already) is refused
// naming the nearest of both, in Python's spelling.
std::map<std::string, std::string> params_of(const ProtocolInfo& info, const py::kwargs& kwargs,
                                             std::initializer_list<const char*> keywords = {});

std::optional<std::uint64_t> seed_of(const py::object& seed);

// A progress argument: True draws the command line's bar on stderr, a callable gets
// (done, total, trials_done, trials_total), False and None nothing.
study::Progress progress_of(const py::object& progress, const std::string& label);

py::array_t<std::uint8_t> to_array(const MessageBatch& batch);

// Messages from Python: bytes (uint8), or integers that all are bytes; anything else (floats,
// which a cast would truncate, or integers outside [0, 255]) is refused rather than cast.
MessageBatch from_array(const py::array& given, std::size_t width);

// Typed columns (experiments::table) as a dict of numpy arrays: float64 with NaN where empty, int64,
// bool, and object arrays of str.
py::dict columns_to_python(const std::vector<study::Column>& cols);

// Defines the Protocol class in `m` (py_protocol.cpp).
void bind_protocol(py::module_& m);

}  // namespace shufflempc::pyglue
