// The shufflempc binary's table (commands.hpp): every command, with `study` forwarded to
// shufflempc-study. Nothing here refers to the study's code, so the binary links neither it nor
// MPI and CLP (the binary is linked --as-needed).
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>
#include <vector>

#include "commands.hpp"
#include "net_common.hpp"
#include "shufflempc/process.hpp"

namespace shufflempc::cli {

const char* const study_summary =
    "run a grid of protocols and parameters, repeated seeded trials on every core; CSV, JSON and gnuplot figures "
    "(docs/study.md)";

namespace {

[[noreturn]] void exec_study(const std::vector<std::string>& rest) {
  const std::string path = (std::filesystem::path(self_executable()).parent_path() / "shufflempc-study").string();
  std::vector<std::string> args = {path, "study"};
  args.insert(args.end(), rest.begin(), rest.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  ::execv(path.c_str(), argv.data());
  throw std::system_error(errno, std::generic_category(), "cannot start " + path + " (the study runs in it)");
}

}  // namespace

void add_study_forward(CLI::App& app, const Registry&, Action& action) {
  auto* cmd = app.add_subcommand("study", study_summary);
  // Everything after `study`, --help too, is shufflempc-study's to parse.
  cmd->prefix_command();
  cmd->allow_extras();
  cmd->set_help_flag();
  cmd->callback([cmd, &action] {
    action = [rest = cmd->remaining()]() -> int { exec_study(rest); };
  });
}

const std::vector<Command>& front_commands() {
  static const std::vector<Command> all = {
      {"list", add_list_command},
      {"run", add_run_command, true},
      {"demo", add_demo_command},
      {"study", add_study_forward},
      {"account", add_account_command},
      {"wedding", add_wedding_command},
      {"keygen", add_keygen_entry},
      {"shuffler", add_shuffler_entry},
      {"mix-server", add_mix_server_entry},
      {"party", add_party_command},
      {"analyzer", add_analyzer_command},
      {"local", add_local_command, true},
      {"session", add_session_command},
      {"verify", add_verify_command},
      {"receipt", add_receipt_command},
      {"survey", add_survey_command}};
  return all;
}

}  // namespace shufflempc::cli
