// Experiments: studies that are not grids of registered protocols (an attack and its escape, a
// comparison of what each round buys), each run as `shufflempc study NAME`. An experiment is one
// folder under experiments/ with its code and one registration function; the build generates
// the list (cmake/registrars.cmake), so adding one edits neither the CLI nor a central file
// (docs/EXTENDING.md, "Add an experiment").
#pragma once

#include <fstream>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace shufflempc::experiments {

struct Experiment {
  std::string name;     // `shufflempc study NAME`
  std::string summary;  // the subcommand's description
  // Declares the experiment's options on `cmd` and returns what runs it once they are parsed (its
  // exit code), writing its results to `out` (the CLI passes standard output; progress goes to
  // stderr). Bad options throw std::invalid_argument naming the option and its accepted range.
  std::function<std::function<int()>(CLI::App& cmd, std::ostream& out)> configure;
};

class ExperimentRegistry {
 public:
  void add(Experiment e);  // throws std::invalid_argument on a duplicate name
  [[nodiscard]] const Experiment* find(const std::string& name) const;
  [[nodiscard]] const std::vector<Experiment>& all() const { return experiments_; }

 private:
  std::vector<Experiment> experiments_;
};

// The outputs every experiment offers: --csv FILE (- for standard output, in place of the table),
// --plot FILE.png or FILE.svg (repeatable) and --quiet (no progress bar).
class ExperimentOutputs {
 public:
  void add_options(CLI::App& cmd, const std::string& plot_help);
  [[nodiscard]] bool quiet() const { return quiet_; }
  [[nodiscard]] const std::vector<std::string>& plots() const { return plots_; }
  // Before the work: checks the plots' extensions and opens the CSV file, so that a path that cannot
  // be written fails first (std::invalid_argument naming the option).
  void open();
  // After: the CSV to its file and the table to `out`, or the CSV alone to `out` (--csv -).
  void write(const std::function<void(std::ostream&)>& write_csv, const std::function<void(std::ostream&)>& print_table, std::ostream& out);

 private:
  bool quiet_ = false;
  std::string csv_;
  std::vector<std::string> plots_;
  std::ofstream csv_file_;
};

// Checks of whole numbers on the command line, for the experiments and the CLI alike, each naming
// the accepted range: a seed is in [0, 2^64 - 1], a count in [0, 100000000].
[[nodiscard]] const CLI::Validator& seed_check();
[[nodiscard]] const CLI::Validator& count_check();

// Every experiment that ships with shufflempc (the generated experiments/builtin.cpp).
[[nodiscard]] ExperimentRegistry builtin_experiments();

}  // namespace shufflempc::experiments
