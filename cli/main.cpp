// shufflempc: secure multiparty computation in the shuffle model.
#include <iostream>
#include <stdexcept>
#include <system_error>

#include "commands.hpp"

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

}  // namespace

int main(int argc, char** argv) {
  using namespace shufflempc;
  // Keep freed megabyte buffers rather than fault them in afresh every round (docs/PERFORMANCE.md).
  shufflempc::keep_freed_buffers();
  CLI::App app{"shufflempc: secure multiparty computation in the shuffle model", "shufflempc"};
  app.require_subcommand(1);
  cli::Action action;
  try {
    const Registry registry = builtin_registry();
    cli::add_list_command(app, registry, action);
    cli::add_run_command(app, registry, action);
    cli::add_demo_command(app, registry, action);
    cli::add_study_command(app, registry, action);
    cli::add_account_command(app, registry, action);
    cli::add_wedding_command(app, registry, action);
    cli::add_net_commands(app, registry, action);
    cli::add_session_command(app, registry, action);
    cli::add_verify_command(app, registry, action);
    if (argc > 1 && argv[1][0] != '-') {
      std::string names;
      bool known = false;
      for (const auto* sub : app.get_subcommands({})) {
        names += (names.empty() ? "" : ", ") + sub->get_name();
        known = known || sub->get_name() == argv[1];
      }
      if (!known)
        throw std::invalid_argument("unknown command '" + std::string(argv[1]) + "' (commands: " + names + ")");
    }
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
      return app.exit(e);
    } catch (const CLI::ParseError& e) {
      std::cerr << "shufflempc: error: " << e.what() << '\n' << usage_of(deepest(&app)) << '\n';
      return 2;
    }
    return action ? action() : 0;
  } catch (const std::invalid_argument& e) {
    std::cerr << "shufflempc: error: " << e.what() << '\n' << usage_of(deepest(&app)) << '\n';
    return 2;
  } catch (const std::system_error& e) {
    std::cerr << "shufflempc: error: " << e.what() << '\n';
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "shufflempc: error: " << e.what() << '\n';
    return 1;
  }
}
