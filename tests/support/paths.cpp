#include "support/paths.hpp"

namespace shufflempc::test {

const std::string& cli_path() {
  static const std::string path = SHUFFLEMPC_TEST_CLI;
  return path;
}

const std::string& source_dir() {
  static const std::string path = SHUFFLEMPC_TEST_SOURCE_DIR;
  return path;
}

const std::string& circuits_dir() {
  static const std::string path = std::string(SHUFFLEMPC_TEST_SOURCE_DIR) + "/circuits";
  return path;
}

}  // namespace shufflempc::test
