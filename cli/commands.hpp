// The shufflempc command's subcommands. Each add_*_command registers one subcommand on the app
// and, when it is the one chosen, sets `action` to the work to do after parsing.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "shufflempc/registry.hpp"

namespace shufflempc::cli {

using Action = std::function<int()>;

void add_list_command(CLI::App& app, const Registry& registry, Action& action);
void add_run_command(CLI::App& app, const Registry& registry, Action& action);
void add_demo_command(CLI::App& app, const Registry& registry, Action& action);
void add_wedding_command(CLI::App& app, const Registry& registry, Action& action);  // the six-card AND, drawn
void add_session_command(CLI::App& app, const Registry& registry, Action& action);  // a session config from public keys
void add_study_command(CLI::App& app, const Registry& registry, Action& action);    // grids of trials, and every experiment
void add_account_command(CLI::App& app, const Registry& registry, Action& action);  // amplification bounds, exact delta of noise
void add_verify_command(CLI::App& app, const Registry& registry, Action& action);  // check a verifiable mix's transcript

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
// `study` as a forwarder: the same name and summary in --help; its command line, --help included,
// goes unparsed to `shufflempc-study study ...`, which replaces this process (same pid: mpirun's
// ranks stay its ranks). A missing shufflempc-study is one error line naming the path.
void add_study_forward(CLI::App& app, const Registry& registry, Action& action);
extern const char* const study_summary;
// The networked commands a host needs (keygen, shuffler, mix-server, party, analyzer): shufflempc-node's
// table, and what `local` starts its processes with when the protocol is a built-in one.
[[nodiscard]] const std::vector<Command>& node_commands();
// keygen, shuffler and mix-server in a table's shape (they need no registry).
void add_keygen_entry(CLI::App& app, const Registry& registry, Action& action);
void add_shuffler_entry(CLI::App& app, const Registry& registry, Action& action);
void add_mix_server_entry(CLI::App& app, const Registry& registry, Action& action);
// A bash completion script for `app` (every command and option of it, hidden ones left out) as
// `program` (`PROGRAM completion bash` prints it; cli/completion.cpp).
[[nodiscard]] std::string bash_completion(const CLI::App& app, const std::string& program);
// cli::main with the commands of `table` (shufflempc/cli.hpp has the exit statuses), speaking as
// `program` in its usage, error and version lines (shufflempc's own binaries: "shufflempc").
int run_commands(int argc, char** argv, const std::function<void(Registry&)>& add_protocols, const std::vector<Command>& table,
                 std::string_view program = "shufflempc");

}  // namespace shufflempc::cli
