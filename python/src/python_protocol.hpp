// One-round protocols written in Python (shufflempc.register): a randomizer (encode) and an analyzer
// over the shuffled messages, with parameters, a truth and optionally a predicted error, registered
// beside the built-in protocols so that run, study and Protocol take it like one of them. The
// Python callables run under the GIL, which the module releases around every run: a study's threads
// take turns in them.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "shufflempc/registry.hpp"
#include "shufflempc/runtime.hpp"

namespace shufflempc::python {

// Lists, tuples and dicts nested deeper than this are refused before they are converted (a list
// that holds itself has no bottom): the conversion recurses, and the stack is the interpreter's.
inline constexpr int max_json_depth = 256;
// `h` as JSON: pybind11_json's conversion, after a walk (without recursion) that refuses nesting
// deeper than max_json_depth, a container that holds itself, and a float that is NaN or infinite,
// with std::invalid_argument (ValueError in Python) naming `what`.
[[nodiscard]] Value json_from_python(pybind11::handle h, const std::string& what);

// Adds shufflempc._core.register_protocol and the Rng class the callables draw from to `m`;
// registered protocols go into `registry`, which must outlive the module.
void bind_python_protocols(pybind11::module_& m, Registry& registry);

}  // namespace shufflempc::python
