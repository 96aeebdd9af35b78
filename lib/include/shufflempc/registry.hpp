// The protocol registry: name -> parameter schema + factory. Each protocol folder provides one
// registration function; the build generates the list of them, so adding a protocol edits no
// central file (see protocols/CMakeLists.txt).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "shufflempc/input_spec.hpp"
#include "shufflempc/params.hpp"
#include "shufflempc/runtime.hpp"

namespace shufflempc {

// How many parties a protocol is configured for, and how many of them are guaranteed to submit.
// A DP protocol calibrates its noise for min_parties: its guarantee must hold for whoever is left
// after dropouts (the lectures' robustness), not only when everyone submits.
struct Population {
  std::size_t parties = 0;
  std::size_t min_parties = 0;  // 0: every party must submit (the default: the round fails otherwise)
  [[nodiscard]] std::size_t guaranteed() const { return min_parties == 0 ? parties : min_parties; }
};

struct ProtocolInfo {
  std::string name;
  std::string summary;
  std::vector<ParamSpec> params;
  std::size_t min_parties = 1;
  std::size_t max_parties = 100'000'000;
  std::string input_help;  // what one party's input looks like (--inputs)
  // The forms of its --random-inputs (shufflempc/input_spec.hpp), the first one the default; the
  // same list the protocol's random_input parses with. Empty: the protocol takes no input.
  std::vector<InputForm> random_inputs;
  // Builds a configured protocol; throws std::invalid_argument on a bad combination.
  std::function<std::unique_ptr<Protocol>(const Params&, const Population&)> create;
  // Optional: one-time work of a process that will run this protocol's parties or analyzer, which
  // needs no protocol object (the circuit protocol fetches OpenSSL's AES-128: about 1 ms the first
  // time). A networked party or analyzer process runs it on a thread of its own from the moment it
  // has read the session config, while it builds the protocol, reads its keys and connects. It must
  // be safe beside the protocol's own first use of the same thing (a function-local static is), and
  // nothing may depend on it having run.
  std::function<void(const Params&)> warm_up;
};

class Registry {
 public:
  void add(ProtocolInfo info);  // throws std::invalid_argument on a duplicate name
  [[nodiscard]] const ProtocolInfo& get(const std::string& name) const;  // lists known names on failure
  [[nodiscard]] const ProtocolInfo* find(const std::string& name) const;
  [[nodiscard]] const std::vector<ProtocolInfo>& all() const { return protocols_; }

  // Validates the parameters and party count, then creates the protocol.
  // `min_parties` (0: all) is what the protocol may calibrate for; it must not exceed `parties`.
  [[nodiscard]] std::unique_ptr<Protocol> create(const std::string& name, const std::map<std::string, std::string>& params,
                                                 std::size_t parties, std::size_t min_parties = 0) const;

 private:
  std::vector<ProtocolInfo> protocols_;
};

// The files the given parameters (and the defaults of those not given) read, by parameter name:
// what ParamSpec::reads_file says of each value.
[[nodiscard]] std::map<std::string, std::string> files_read(const ProtocolInfo& info, const std::map<std::string, std::string>& params);

// Every protocol that ships with shufflempc (defined in the generated protocols/builtin.cpp).
[[nodiscard]] Registry builtin_registry();

}  // namespace shufflempc
