// The protocol registry: name -> parameter schema + factory. Each protocol folder provides one
// registration function; the build generates the list of them, so adding a protocol edits no
// central file (see protocols/CMakeLists.txt).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "shufflempc/params.hpp"
#include "shufflempc/runtime.hpp"

namespace shufflempc {

struct ProtocolInfo {
  std::string name;
  std::string summary;
  std::vector<ParamSpec> params;
  std::size_t min_parties = 1;
  std::size_t max_parties = 100'000'000;
  std::string input_help;  // what one party's input looks like, and the --random-inputs specs
  // Builds a configured protocol; throws std::invalid_argument on a bad combination.
  std::function<std::unique_ptr<Protocol>(const Params&, std::size_t parties)> create;
};

class Registry {
 public:
  void add(ProtocolInfo info);  // throws std::invalid_argument on a duplicate name
  [[nodiscard]] const ProtocolInfo& get(const std::string& name) const;  // lists known names on failure
  [[nodiscard]] const ProtocolInfo* find(const std::string& name) const;
  [[nodiscard]] const std::vector<ProtocolInfo>& all() const { return protocols_; }

  // Validates the parameters and party count, then creates the protocol.
  [[nodiscard]] std::unique_ptr<Protocol> create(const std::string& name, const std::map<std::string, std::string>& params,
                                                 std::size_t parties) const;

 private:
  std::vector<ProtocolInfo> protocols_;
};

// Every protocol that ships with shufflempc (defined in the generated protocols/builtin.cpp).
[[nodiscard]] Registry builtin_registry();

}  // namespace shufflempc
