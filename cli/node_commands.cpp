// shufflempc-node's table (commands.hpp): the networked commands only.
#include "commands.hpp"
#include "net_common.hpp"

namespace shufflempc::cli {

void add_keygen_entry(CLI::App& app, const Registry&, Action& action) { add_keygen_command(app, action); }
void add_shuffler_entry(CLI::App& app, const Registry&, Action& action) { add_shuffler_command(app, action); }
void add_mix_server_entry(CLI::App& app, const Registry&, Action& action) { add_mix_server_command(app, action); }

const std::vector<Command>& node_commands() {
  static const std::vector<Command> node = {
      {"keygen", add_keygen_entry}, {"shuffler", add_shuffler_entry}, {"mix-server", add_mix_server_entry}, {"party", add_party_command}, {"analyzer", add_analyzer_command}};
  return node;
}

}  // namespace shufflempc::cli
