// The shufflempc binary's commands (commands.hpp) and the public entry point (shufflempc/cli.hpp).
// Apart from entry.cpp so that a binary with a table of its own (shufflempc-node) does not link
// every command.
#include "commands.hpp"
#include "net_common.hpp"
#include "shufflempc/cli.hpp"

namespace shufflempc::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> all = {
      {"list", add_list_command},
      {"run", add_run_command, true},
      {"demo", add_demo_command},
      {"study", add_study_command},
      {"account", add_account_command},
      {"wedding", add_wedding_command},
      {"keygen", add_keygen_entry},
      {"shuffler", add_shuffler_entry},
      {"party", add_party_command},
      {"analyzer", add_analyzer_command},
      {"local", add_local_command, true},
      {"session", add_session_command},
      {"verify", add_verify_command}};
  return all;
}

int main(int argc, char** argv, const std::function<void(Registry&)>& add_protocols) {
  return run_commands(argc, argv, add_protocols, commands());
}

}  // namespace shufflempc::cli
