// shufflempc: secure multiparty computation in the shuffle model. The command line itself is the
// library shufflempc::cli (shufflempc/cli.hpp), which a binary with protocols of its own links too.
#include "shufflempc/cli.hpp"

int main(int argc, char** argv) { return shufflempc::cli::main(argc, argv); }
