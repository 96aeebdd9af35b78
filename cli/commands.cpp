// Every command (commands.hpp), the study run in process, and the public entry point
// (shufflempc/cli.hpp): what a binary with protocols of its own links. Apart from entry.cpp and
// front_commands.cpp so that a binary with a table of its own (shufflempc, shufflempc-node) does not
// link every command.
#include "commands.hpp"

#include <filesystem>
#include <string>
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
  // A user's binary names itself (its file name) in its usage and error lines.
  const std::string program = argc > 0 && argv[0] != nullptr ? std::filesystem::path(argv[0]).filename().string() : "";
  return run_commands(argc, argv, add_protocols, commands(), program);
}

}  // namespace shufflempc::cli
