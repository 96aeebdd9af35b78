// `PROGRAM completion bash`: a bash completion script for the command line as built, written from
// the CLI11 tree itself (every command, every protocol under run and local, every option), so it
// never lags the options. Installed as share/bash-completion/completions/PROGRAM.
#include <cctype>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "commands.hpp"

namespace shufflempc::cli {

std::string bash_completion(const CLI::App& app, const std::string& program) {
  // Every path of subcommands ("/run/counting"), with what may follow it.
  std::map<std::string, std::vector<std::string>> words;
  std::function<void(const CLI::App&, const std::string&)> walk = [&](const CLI::App& a, const std::string& path) {
    auto& w = words[path];
    for (const auto* sub : a.get_subcommands({})) {
      if (sub->get_group().empty()) continue;  // hidden
      w.push_back(sub->get_name());
      walk(*sub, path + "/" + sub->get_name());
    }
    for (const auto* opt : a.get_options()) {
      if (opt->get_group().empty()) continue;  // hidden (fault injection)
      for (const auto& l : opt->get_lnames()) w.push_back("--" + l);
    }
  };
  walk(app, "");
  std::string fn = "_" + program + "_complete";
  for (auto& c : fn)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  std::string out = "# bash completion for " + program + " (written by `" + program + " completion bash`)\n" + fn + "() {\n" +
                    "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" path=\"\" w i words=\"\"\n"
                    "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
                    "    w=\"${COMP_WORDS[i]}\"\n"
                    "    [[ $w == -* ]] && continue\n"
                    "    case \"$path/$w\" in\n";
  std::string known;
  for (const auto& [path, _] : words)
    if (!path.empty()) known += (known.empty() ? "      " : "|") + path;
  out += known + ") path=\"$path/$w\" ;;\n    esac\n  done\n  case \"$path\" in\n";
  for (const auto& [path, list] : words) {
    std::string joined;
    for (const auto& w : list) joined += (joined.empty() ? "" : " ") + w;
    out += "    \"" + path + "\") words=\"" + joined + "\" ;;\n";
  }
  out += "  esac\n  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n}\ncomplete -F " + fn + " " + program + "\n";
  return out;
}

}  // namespace shufflempc::cli
