// The command table of shufflempc's binaries and their entry point, without CLI11 or the registry:
// what a binary's main() needs (cli/main.cpp, node_main.cpp, study_main.cpp), so that a main
// compiles in a second instead of parsing CLI11 (commands.hpp has the rest).
#pragma once

#include <functional>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace shufflempc {
class Registry;
}

namespace shufflempc::cli {

using Action = std::function<int()>;

// Every subcommand by name, in the order `--help` lists them (keygen, shuffler, mix-server, party, analyzer and
// local are the networked ones, net_common.hpp). The entry point builds only the one a command line
// names: `run` and `local` add an option per protocol parameter, which is about a millisecond of
// every process start, and a `local` run starts several processes at once.
struct Command {
  const char* name;
  void (*add)(CLI::App& app, const Registry& registry, Action& action);
  // Its subcommands are the protocols (run, local): a line naming one of them builds that one alone.
  bool per_protocol = false;
};
[[nodiscard]] const std::vector<Command>& commands();
// The shufflempc binary's table: commands() with `study` forwarded to shufflempc-study beside the
// binary (add_study_forward), so that the binary, and every `local` run it launches, does not load
// the study's libraries (MPI, and CLP for the XOR-sum attack) at each start.
[[nodiscard]] const std::vector<Command>& front_commands();
// The networked commands a host needs (keygen, shuffler, mix-server, party, analyzer): shufflempc-node's
// table, and what `local` starts its processes with when the protocol is a built-in one.
[[nodiscard]] const std::vector<Command>& node_commands();
void add_study_command(CLI::App& app, const Registry& registry, Action& action);  // grids of trials, and every experiment
// cli::main with the commands of `table` (shufflempc/cli.hpp has the exit statuses), speaking as
// `program` in its usage, error and version lines (shufflempc's own binaries: "shufflempc").
int run_commands(int argc, char** argv, const std::function<void(Registry&)>& add_protocols, const std::vector<Command>& table,
                 std::string_view program = "shufflempc");

}  // namespace shufflempc::cli
