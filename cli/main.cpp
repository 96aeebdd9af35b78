// shufflempc: secure multiparty computation in the shuffle model. The command line itself is the
// library shufflempc::cli (shufflempc/cli.hpp), which a binary with protocols of its own links too.
// This binary's `study` runs in shufflempc-study beside it (commands.hpp, front_commands): the
// study's libraries (MPI, CLP) then load only there, not at every start of this binary.
#include "command_table.hpp"

int main(int argc, char** argv) { return shufflempc::cli::run_commands(argc, argv, {}, shufflempc::cli::front_commands()); }
