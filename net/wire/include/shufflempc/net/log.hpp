// The transport's one logging hook.
#pragma once

#include <functional>
#include <string>

namespace shufflempc::net {

// One line per notable event (rejections, drops, aborts). Library code never prints; the CLI
// passes a function that writes to stderr.
using Logger = std::function<void(const std::string&)>;

}  // namespace shufflempc::net
