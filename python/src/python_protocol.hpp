// One-round protocols written in Python (shufflempc.register): a randomizer (encode) and an analyzer
// over the shuffled messages, with parameters, a truth and optionally a predicted error, registered
// beside the built-in protocols so that run, study and Protocol take it like one of them. The
// Python callables run under the GIL, which the module releases around every run: a study's threads
// take turns in them.
#pragma once

#include <pybind11/pybind11.h>

#include "shufflempc/registry.hpp"

namespace shufflempc::python {

// Adds shufflempc._core.register_protocol and the Rng class the callables draw from to `m`;
// registered protocols go into `registry`, which must outlive the module.
void bind_python_protocols(pybind11::module_& m, Registry& registry);

}  // namespace shufflempc::python
