#include "shufflempc/experiments/experiment.hpp"

#include "shufflempc/files.hpp"
#include "shufflempc/numbers.hpp"
#include "shufflempc/study/study.hpp"
#include <ostream>
#include <stdexcept>

namespace shufflempc::experiments {
namespace {
// An unsigned whole number written in digits only, at most `max` ("" if it is one, else the problem).
std::string check_unsigned(const std::string& text, unsigned long long max, const std::string& range) {
  if (!parse_unsigned(text, max)) return "must be a whole number in " + range + ", got '" + text + "'";
  return "";
}
}  // namespace

const CLI::Validator& seed_check() {
  static const CLI::Validator v([](std::string& s) { return check_unsigned(s, ~0ull, "[0, 2^64 - 1]"); }, "UINT64");
  return v;
}

const CLI::Validator& count_check() {
  static const CLI::Validator v([](std::string& s) { return check_unsigned(s, 100'000'000ull, "[0, 100000000]"); }, "COUNT");
  return v;
}

void ExperimentOutputs::add_options(CLI::App& cmd, const std::string& plot_help) {
  cmd.add_option("--csv", csv_, "write the CSV here (- for standard output)");
  cmd.add_option("--plot", plots_, plot_help + " to FILE.png, FILE.svg or FILE.pdf (for LaTeX; repeat for several)");
  cmd.add_flag("--quiet,-q", quiet_, "no progress bar");
}

void ExperimentOutputs::open() {
  for (const auto& path : plots_) {
    study::check_plot_path(path);
    prepare_output_file(path, "--plot");
  }
  if (!csv_.empty() && csv_ != "-") {
    prepare_output_file(csv_, "--csv");
    csv_file_.open(csv_);
    if (!csv_file_) throw std::invalid_argument("--csv: cannot write " + csv_);
  }
}

void ExperimentOutputs::write(const std::function<void(std::ostream&)>& write_csv, const std::function<void(std::ostream&)>& print_table,
                              std::ostream& out) {
  if (csv_ == "-") {
    write_csv(out);
    return;
  }
  if (!csv_.empty()) {
    write_csv(csv_file_);
    csv_file_.close();
    if (!csv_file_) throw std::runtime_error("--csv: writing " + csv_ + " failed");
  }
  print_table(out);
  out << std::flush;
}

void ExperimentRegistry::add(Experiment e) {
  if (e.name.empty() || !e.configure) throw std::invalid_argument("an experiment needs a name and a configure function");
  if (find(e.name)) throw std::invalid_argument("experiment '" + e.name + "' is registered twice");
  experiments_.push_back(std::move(e));
}

const Experiment* ExperimentRegistry::find(const std::string& name) const {
  for (const auto& e : experiments_)
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace shufflempc::experiments
