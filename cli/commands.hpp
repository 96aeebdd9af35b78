// The shufflempc command's subcommands. Each add_*_command registers one subcommand on the app
// and, when it is the one chosen, sets `action` to the work to do after parsing.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "command_table.hpp"
#include "shufflempc/registry.hpp"

namespace shufflempc::cli {

void add_list_command(CLI::App& app, const Registry& registry, Action& action);
void add_run_command(CLI::App& app, const Registry& registry, Action& action);
void add_demo_command(CLI::App& app, const Registry& registry, Action& action);
void add_wedding_command(CLI::App& app, const Registry& registry, Action& action);  // the six-card AND, drawn
void add_session_command(CLI::App& app, const Registry& registry, Action& action);  // a session config from public keys
void add_account_command(CLI::App& app, const Registry& registry, Action& action);  // amplification bounds, exact delta of noise
void add_verify_command(CLI::App& app, const Registry& registry, Action& action);  // check a verifiable mix's transcript
void add_receipt_command(CLI::App& app, const Registry& registry, Action& action);  // check receipts against a commitment
void add_survey_command(CLI::App& app, const Registry& registry, Action& action);  // a survey of people in web browsers

// `study` as a forwarder: the same name and summary in --help; its command line, --help included,
// goes unparsed to `shufflempc-study study ...`, which replaces this process (same pid: mpirun's
// ranks stay its ranks). A missing shufflempc-study is one error line naming the path.
void add_study_forward(CLI::App& app, const Registry& registry, Action& action);
extern const char* const study_summary;
// keygen, shuffler and mix-server in a table's shape (they need no registry).
void add_keygen_entry(CLI::App& app, const Registry& registry, Action& action);
void add_shuffler_entry(CLI::App& app, const Registry& registry, Action& action);
void add_mix_server_entry(CLI::App& app, const Registry& registry, Action& action);
// A bash completion script for `app` (every command and option of it, hidden ones left out) as
// `program` (`PROGRAM completion bash` prints it; cli/completion.cpp).
[[nodiscard]] std::string bash_completion(const CLI::App& app, const std::string& program);

}  // namespace shufflempc::cli
