// The shufflempc command line with one more protocol: every command of `shufflempc` works here,
// and knows "anonymous-poll" beside the built-in protocols. `local` starts its shuffler, parties and
// analyzer from this same binary, so every process of a networked run knows the protocol too.
#include "anonymous_poll.hpp"
#include "shufflempc/cli.hpp"

int main(int argc, char** argv) { return shufflempc::cli::main(argc, argv, poll::register_anonymous_poll); }
