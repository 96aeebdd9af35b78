// shufflempc-node: the networked commands only (keygen, shuffler, mix-server, party, analyzer), with the
// built-in protocols. The same code as those commands of shufflempc, without the libraries only
// the study and the XOR-sum attack use (MPI, CLP): a process starts in less CPU, which `local`
// feels as it starts several at once on a small machine (docs/network.md; docs/performance/circuit.md, `local`'s fixed cost).
#include "command_table.hpp"

int main(int argc, char** argv) { return shufflempc::cli::run_commands(argc, argv, {}, shufflempc::cli::node_commands()); }
