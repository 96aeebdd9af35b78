// Every command (commands.hpp), the study run in process, and the public entry point
// (shufflempc/cli.hpp): what a binary with protocols of its own links. Apart from entry.cpp and
// front_commands.cpp so that a binary with a table of its own (shufflempc, shufflempc-node) does not
// link every command.
#include "commands.hpp"
#include "shufflempc/cli.hpp"

namespace shufflempc::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> all = [] {
    std::vector<Command> table = front_commands();
    for (auto& c : table)
      if (c.add == add_study_forward) c.add = add_study_command;
    return table;
  }();
  return all;
}

int main(int argc, char** argv, const std::function<void(Registry&)>& add_protocols) {
  return run_commands(argc, argv, add_protocols, commands());
}

}  // namespace shufflempc::cli
