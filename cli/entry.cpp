// The command line's entry point (run_commands, commands.hpp): the registry, the subcommands of a
// table, one error line.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "shufflempc/cli.hpp"
#include "shufflempc/numbers.hpp"
#include "shufflempc/suggest.hpp"

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

// The first argument the parse left over, from the deepest parsed command up, and the command that
// left it: CLI11 reports a missing required option before the extras, so "--partys 100" would
// otherwise read "--parties is required", and "account amplfy" an error about amplify's flags.
std::optional<std::pair<std::string, const CLI::App*>> leftover(const CLI::App* app) {
  for (const auto* at = app; at != nullptr; at = at->get_parent())
    if (const auto rest = at->remaining(); !rest.empty()) return std::pair{rest.front(), at};
  return std::nullopt;
}

bool is_flag(const std::string& arg) { return arg.size() >= 2 && arg[0] == '-' && !shufflempc::parse_real(arg); }

std::vector<std::string> flag_names(const CLI::App* app) {
  std::vector<std::string> names;
  for (const auto* opt : app->get_options()) {
    for (const auto& l : opt->get_lnames()) names.push_back("--" + l);
    for (const auto& s : opt->get_snames()) names.push_back("-" + s);
  }
  return names;
}

// Whole-number options (CLI11's INT and UINT) accept an exact integer in scientific notation
// ("--parties 1e5"), as the protocols' integer parameters do, and a number with a fraction is named as
// such rather than "not in range". Applied to every option of every command once built.
void accept_exact_integers(CLI::App* app) {
  for (auto* opt : app->get_options()) {
    const std::string type = opt->get_type_name().substr(0, opt->get_type_name().find(':'));
    if ((type != "INT" && type != "UINT") || opt->get_expected_max() == 0) continue;
    opt->transform(CLI::Validator(
        [](std::string& text) -> std::string {
          if (shufflempc::parse_unsigned(text)) return {};  // digits: as they are (a seed may exceed 2^63)
          if (const auto v = shufflempc::parse_integer(text)) {
            text = std::to_string(*v);
            return {};
          }
          const auto real = shufflempc::parse_real(text);
          if (real && *real != std::floor(*real)) return "must be a whole number, got '" + text + "'";
          return {};  // not a number, or beyond 2^63: the option's own check names its range
        },
        "", "exact-integer"));
  }
  for (auto* sub : app->get_subcommands({})) accept_exact_integers(sub);
}

// The error (and usage) as one write: the processes of a `local` run share one stderr, and a
// line written in pieces interleaves with theirs.
void error_line(const std::string& program, const std::string& what, const std::string& usage = {}) {
  std::cerr << (program + ": error: " + what + "\n" + (usage.empty() ? std::string() : usage + "\n")) << std::flush;
}

}  // namespace

int shufflempc::cli::run_commands(int argc, char** argv, const std::function<void(Registry&)>& add_protocols,
                                   const std::vector<Command>& table, std::string_view program_name) {
  // Keep freed megabyte buffers rather than fault them in afresh every round (measured: git log -p -- docs/PERFORMANCE.md).
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
    if (!known) {
      std::vector<std::string> commands;
      for (const auto& c : table) commands.emplace_back(c.name);
      throw std::invalid_argument("unknown command '" + named + "'" + shufflempc::did_you_mean(named, commands) + " (commands: " + names + ")");
    }
    if (argc <= 1) {  // no argument: what this is and what it can do, not an error
      std::string overview = version + ": " + summary + "\n\ncommands:\n";
      for (const auto* sub : app.get_subcommands({})) overview += "  " + sub->get_name() + std::string(std::max<std::size_t>(2, 12 - sub->get_name().size()), ' ') + sub->get_description() + "\n";
      std::cout << overview << "\n" << app.get_name() << " COMMAND --help shows a command's options; the docs are in docs/ (README.md first).\n";
      return 0;
    }
    accept_exact_integers(&app);
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForVersion& e) {
      return app.exit(e);
    } catch (const CLI::CallForHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
      return app.exit(e);
    } catch (const CLI::ParseError& e) {
      // What the line has that no command knows comes first, with the nearest name there is,
      // whatever CLI11 stopped on: an unknown flag, or an unknown subcommand of a command that has them.
      if (const auto left = leftover(deepest(&app))) {
        const auto& [arg, at] = *left;
        if (is_flag(arg)) {
          const std::string flag = arg.substr(0, arg.find('='));
          error_line(program, "unknown option '" + flag + "'" + shufflempc::did_you_mean(flag, flag_names(at)), usage_of(at));
          return 2;
        }
        if (const auto subs = at->get_subcommands({}); !subs.empty() && at->get_subcommands().empty()) {
          std::vector<std::string> names;
          for (const auto* sub : subs) names.push_back(sub->get_name());
          std::string list;
          for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
          error_line(program, "unknown subcommand '" + arg + "' of " + at->get_name() + shufflempc::did_you_mean(arg, names) +
                                  " (subcommands: " + list + ")", usage_of(at));
          return 2;
        }
      }
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
