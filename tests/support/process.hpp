// Runs the shufflempc binary (or any program) and captures its exit code, stdout and stderr, for
// the CLI tests, through the library's one process helper (ChildProcess). The command is a
// program path and its arguments separated by spaces; no shell is involved.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "shufflempc/process.hpp"
#include "support/paths.hpp"

namespace shufflempc::test {

using shufflempc::CommandResult;

inline CommandResult run_command(const std::string& command) {
  std::vector<std::string> argv;
  std::istringstream words(command);
  for (std::string w; words >> w;) argv.push_back(w);
  return shufflempc::run_command(argv, std::chrono::minutes(5));
}

inline std::string cli_binary() { return SHUFFLEMPC_CLI; }

}  // namespace shufflempc::test
