// The tests' way to run a command that prints one JSON line: its exit must be 0 (else the test
// stops, showing its stderr), and the line must parse.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "net/harness.hpp"

namespace shufflempc::test {

inline Value run_json(const std::vector<std::string>& args, const std::string& err_path,
                      std::chrono::seconds wait = std::chrono::seconds(60)) {
  Process p(args, err_path);
  std::string line = p.read_line(wait);
  const int status = p.wait(std::chrono::seconds(60));
  INFO("stderr: " << slurp(err_path));
  REQUIRE(status == 0);
  const Value v = Value::parse(line, nullptr, false);
  REQUIRE_FALSE(v.is_discarded());
  return v;
}

}  // namespace shufflempc::test
