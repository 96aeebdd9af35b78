// The shufflempc command's subcommands. Each add_*_command registers one subcommand on the app
// and, when it is the one chosen, sets `action` to the work to do after parsing.
#pragma once

#include <functional>

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

// Every subcommand by name, in the order `--help` lists them (keygen, shuffler, party, analyzer and
// local are the networked ones, net_common.hpp). The entry point builds only the one a command line
// names: `run` and `local` add an option per protocol parameter, which is about a millisecond of
// every process start, and a `local` run starts several processes at once.
struct Command {
  const char* name;
  void (*add)(CLI::App& app, const Registry& registry, Action& action);
};
[[nodiscard]] const std::vector<Command>& commands();

}  // namespace shufflempc::cli
