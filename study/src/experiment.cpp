#include "shufflempc/study/experiment.hpp"

#include "shufflempc/numbers.hpp"
#include <stdexcept>

namespace shufflempc::study {
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

}  // namespace shufflempc::study
