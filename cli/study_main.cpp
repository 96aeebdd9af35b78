// shufflempc-study: the study of shufflempc (`shufflempc study ...` runs this binary in its place),
// with the built-in protocols and the libraries only the study uses (MPI, CLP for the XOR-sum
// attack's LP decoder).
#include "command_table.hpp"

int main(int argc, char** argv) {
  static const std::vector<shufflempc::cli::Command> study = {{"study", shufflempc::cli::add_study_command}};
  return shufflempc::cli::run_commands(argc, argv, {}, study);
}
