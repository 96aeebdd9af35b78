// Where the tests find the command-line binary, the source tree and the bundled circuits. Only
// support/paths.cpp is compiled with these paths (tests/CMakeLists.txt): a definition on every test
// file would make each checkout's compiler-cache entries its own.
#pragma once

#include <string>

namespace shufflempc::test {

[[nodiscard]] const std::string& cli_path();       // build/bin/shufflempc of this build
[[nodiscard]] const std::string& source_dir();     // the source tree
[[nodiscard]] const std::string& circuits_dir();   // its circuits/ folder

}  // namespace shufflempc::test

#define SHUFFLEMPC_CLI ::shufflempc::test::cli_path()
#define SHUFFLEMPC_SOURCE_DIR ::shufflempc::test::source_dir()
#define SHUFFLEMPC_CIRCUITS_DIR ::shufflempc::test::circuits_dir()
