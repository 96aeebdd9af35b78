// The command line's entry point (run_commands, commands.hpp): the registry, the subcommands of a
// table, one error line.
#include <algorithm>
#include <iostream>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include "commands.hpp"
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
void error_line(const std::string& program, const std::string& what, const std::string& usage = {}) {
  std::cerr << (program + ": error: " + what + "\n" + (usage.empty() ? std::string() : usage + "\n")) << std::flush;
}

}  // namespace

int shufflempc::cli::run_commands(int argc, char** argv, const std::function<void(Registry&)>& add_protocols,
                                   const std::vector<Command>& table, std::string_view program_name) {
  // Keep freed megabyte buffers rather than fault them in afresh every round (docs/PERFORMANCE.md).
  shufflempc::keep_freed_buffers();
  // A binary with protocols of its own speaks as itself, and says what it is built on.
  const std::string program(program_name.empty() ? "shufflempc" : program_name);
  const bool own = program == "shufflempc";
  const std::string summary = "secure multiparty computation in the shuffle model";
  CLI::App app{program + ": " + summary + (own ? "" : " (shufflempc)"), program};
  app.require_subcommand(1);
  const std::string version = own ? std::string("shufflempc ") + SHUFFLEMPC_VERSION : program + " (shufflempc " + SHUFFLEMPC_VERSION + ")";
  app.set_version_flag("--version", version, "print the version and exit");
  cli::Action action;
  try {
    const Registry registry = [&] {
      Registry r = builtin_registry();
      if (add_protocols) add_protocols(r);
      return r;
    }();
    // `completion bash`: a completion script of every command of the table, with every protocol.
    if (argc == 3 && std::string_view(argv[1]) == "completion") {
      if (std::string_view(argv[2]) != "bash") throw std::invalid_argument("completion: only bash is written (completion bash)");
      for (const auto& c : table) c.add(app, registry, action);
      std::cout << bash_completion(app, program);
      return 0;
    }
    // Only the command the line names is built; without one (--help, no argument) every command
    // of the table is, for the list.
    const std::string named = argc > 1 && argv[1][0] != '-' ? argv[1] : "";
    std::string names;
    bool known = false;
    // Likewise `run PROTOCOL` and `local PROTOCOL` build that protocol's subcommand and options only
    // (a registry of it alone); without a registered name there, every protocol's, for the list.
    Registry named_protocol;
    const ProtocolInfo* protocol = argc > 2 ? registry.find(argv[2]) : nullptr;
    if (protocol != nullptr) named_protocol.add(*protocol);
    for (const auto& c : table) {
      names += (names.empty() ? "" : ", ") + std::string(c.name);
      if (named.empty() || named == c.name) {
        c.add(app, c.per_protocol && protocol != nullptr && named == c.name ? named_protocol : registry, action);
        known = true;
      }
    }
    if (!known) throw std::invalid_argument("unknown command '" + named + "' (commands: " + names + ")");
    if (argc <= 1) {  // no argument: what this is and what it can do, not an error
      std::string overview = version + ": " + summary + "\n\ncommands:\n";
      for (const auto* sub : app.get_subcommands({})) overview += "  " + sub->get_name() + std::string(std::max<std::size_t>(2, 12 - sub->get_name().size()), ' ') + sub->get_description() + "\n";
      std::cout << overview << "\n" << app.get_name() << " COMMAND --help shows a command's options; the docs are in docs/ (README.md first).\n";
      return 0;
    }
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForVersion& e) {
      return app.exit(e);
    } catch (const CLI::CallForHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
      return app.exit(e);
    } catch (const CLI::ParseError& e) {
      error_line(program, e.what(), usage_of(deepest(&app)));
      return 2;
    }
    return action ? action() : 0;
  } catch (const std::invalid_argument& e) {
    error_line(program, e.what(), usage_of(deepest(&app)));
    return 2;
  } catch (const std::system_error& e) {
    error_line(program, e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    // An input too large for this machine's memory (a hostile transcript, say): refused, not aborted.
    error_line(program, "out of memory: the input is too large for this machine (nothing was written)");
    return 2;
  } catch (const std::exception& e) {
    error_line(program, e.what());
    return 1;
  }
}
