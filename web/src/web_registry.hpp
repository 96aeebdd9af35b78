// The registry of the browser's build: the protocols it compiles (web_registry.cpp).
#pragma once

#include "shufflempc/registry.hpp"

namespace shufflempc::web {

[[nodiscard]] const Registry& registry();

}  // namespace shufflempc::web
