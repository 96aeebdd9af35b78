// The command line's entry point (shufflempc/cli.hpp): the registry, the subcommands, one error line.
#include <iostream>
#include <stdexcept>
#include <string>
#include <system_error>

#include "commands.hpp"
#include "net_common.hpp"
#include "shufflempc/cli.hpp"

namespace {

// The deepest subcommand that was parsed, for the usage line.
const CLI::App* deepest(const CLI::App* app) {
  for (const auto* sub : app->get_subcommands())
    if (sub->parsed()) return deepest(sub);
  return app;
}

std::string usage_of(const CLI::App* app) {
  std::string path = app->get_name();
  for (const auto* p = app->get_parent(); p != nullptr; p = p->get_parent()) path = p->get_name() + " " + path;
  return "usage: " + path + " [OPTIONS]" + (app->get_subcommands({}).empty() ? "" : " SUBCOMMAND") + "  (" + path + " --help for details)";
}

// The error (and usage) as one write: the processes of a `local` run share one stderr, and a
// line written in pieces interleaves with theirs.
void error_line(const std::string& what, const std::string& usage = {}) {
  std::cerr << ("shufflempc: error: " + what + "\n" + (usage.empty() ? std::string() : usage + "\n")) << std::flush;
}

}  // namespace

const std::vector<shufflempc::cli::Command>& shufflempc::cli::commands() {
  using shufflempc::Registry;
  static const std::vector<Command> all = {
      {"list", add_list_command},
      {"run", add_run_command},
      {"demo", add_demo_command},
      {"study", add_study_command},
      {"account", add_account_command},
      {"wedding", add_wedding_command},
      {"keygen", [](CLI::App& app, const Registry&, Action& action) { add_keygen_command(app, action); }},
      {"shuffler", [](CLI::App& app, const Registry&, Action& action) { add_shuffler_command(app, action); }},
      {"party", add_party_command},
      {"analyzer", add_analyzer_command},
      {"local", add_local_command},
      {"session", add_session_command},
      {"verify", add_verify_command}};
  return all;
}

int shufflempc::cli::main(int argc, char** argv, const std::function<void(Registry&)>& add_protocols) {
  // Keep freed megabyte buffers rather than fault them in afresh every round (docs/PERFORMANCE.md).
  shufflempc::keep_freed_buffers();
  CLI::App app{"shufflempc: secure multiparty computation in the shuffle model", "shufflempc"};
  app.require_subcommand(1);
  cli::Action action;
  try {
    const Registry registry = [&] {
      Registry r = builtin_registry();
      if (add_protocols) add_protocols(r);
      return r;
    }();
    // Only the command the line names is built (commands()); without one (--help, no argument)
    // every command is, for the list.
    const std::string named = argc > 1 && argv[1][0] != '-' ? argv[1] : "";
    std::string names;
    bool known = false;
    for (const auto& c : cli::commands()) {
      names += (names.empty() ? "" : ", ") + std::string(c.name);
      if (named.empty() || named == c.name) {
        c.add(app, registry, action);
        known = true;
      }
    }
    if (!known) throw std::invalid_argument("unknown command '" + named + "' (commands: " + names + ")");
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
      return app.exit(e);
    } catch (const CLI::ParseError& e) {
      error_line(e.what(), usage_of(deepest(&app)));
      return 2;
    }
    return action ? action() : 0;
  } catch (const std::invalid_argument& e) {
    error_line(e.what(), usage_of(deepest(&app)));
    return 2;
  } catch (const std::system_error& e) {
    error_line(e.what());
    return 1;
  } catch (const std::exception& e) {
    error_line(e.what());
    return 1;
  }
}
